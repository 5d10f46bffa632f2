"""The table service's core: a table as stored, the commands' parsing, what handlers work with,
the rules, computer players and pictures wrapped for the service, the outbox's letters."""
