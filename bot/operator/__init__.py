"""What the operator runs and reads: the config, logs, health and metrics, memory, backups and
the tools beside the bot."""
