"""What the bot says: the message catalogues of each language, the messages built from a table,
and the engine's events told in words."""
