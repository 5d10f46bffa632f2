"""Tournaments by message: the commands and rounds, pairings and standings, and where a
tournament's tables are played."""
