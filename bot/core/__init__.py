"""The table service's core: the commands' parsing, what handlers work with, the messages
built from a table and its game, the rules, computer players and pictures wrapped for the
service, the outbox's letters."""
