"""Genial's setups: everything that follows from the mode and the number of players (the
playing area's radius, the rack size, the track's cap and marks, bonus placements, swaps and
score boards), in one place (RULES.md section 2)."""

from __future__ import annotations

from dataclasses import dataclass

MODES = ("standard", "team", "solo")
FULL_RADIUS = 7
RACK_SIZE = 6
STANDARD_CAP = 18
LONG_CAP = 36  # team and solo tracks


@dataclass(frozen=True, slots=True)
class Setup:
    """Everything that follows from the mode and the number of players, in one place."""

    mode: str
    players: int
    radius: int
    rack_size: int
    cap: int
    #: Marks on the track that stop a placement and earn a bonus placement (2.5, 2.7, 2.8).
    marks: tuple[int, ...]
    bonus_placements: bool
    swaps: bool
    sides: int

    @classmethod
    def of(cls, mode: str, players: int) -> Setup:
        """The setup of a mode for a number of players.

        Raises:
            ValueError: for a mode unknown or impossible with that many players.
        """
        if mode == "standard" and 2 <= players <= 4:
            radius = {2: 5, 3: 6, 4: 7}[players]
            return cls(mode, players, radius, RACK_SIZE, STANDARD_CAP, (18,), True, True, players)
        if mode == "team" and players == 4:
            return cls(mode, 4, 7, RACK_SIZE, LONG_CAP, (18, 36), True, True, 2)
        if mode == "solo" and players == 1:
            return cls(mode, 1, 5, 1, LONG_CAP, (18, 36), False, False, 1)
        raise ValueError(f"no Genial {mode!r} game for {players} players")

    def side_of(self, seat: int) -> int:
        """The score board a seat plays for: its team (seats 0+2, 1+3) or itself."""
        return seat % 2 if self.mode == "team" else seat
