"""A table's play: the lobby, moves, what players ask to see, the clock, votes and vacations,
takebacks."""
