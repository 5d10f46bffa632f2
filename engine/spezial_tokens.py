"""The score tokens of Genial Spezial: the set in play for each number of players, with
their light and dark sides, and a record's ``tokens`` list checked against it (RULES.md 3.1)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import NamedTuple

from engine.errors import InvalidRecord
from engine.tiles import Colour

#: The four score colours, in the order that breaks ties for the golden default (RULES 3.3).
SCORE_COLOURS: tuple[Colour, ...] = (Colour.BLUE, Colour.GREEN, Colour.ORANGE, Colour.PURPLE)
PLAYER_COUNTS = (2, 3, 4)
#: Light tokens per score colour after the removal of RULES 3.1: players -> (1s, 2s).
TOKEN_COUNTS: dict[int, tuple[int, int]] = {2: (2, 2), 3: (3, 2), 4: (3, 3)}


class Token(NamedTuple):
    """A score token by its light side: ``Token(Colour.BLUE, 1)`` is ``B1`` (dark side 2)."""

    colour: Colour
    light: int

    @property
    def name(self) -> str:
        return f"{self.colour.value}{self.light}"

    @property
    def dark_value(self) -> int:
        """The value of the dark side: one more than the light side (RULES 3.1)."""
        return self.light + 1


#: Every token by its record name (``B1``, ``B2``, ``G1``, ...).
TOKENS: dict[str, Token] = {f"{c.value}{v}": Token(c, v) for c in SCORE_COLOURS for v in (1, 2)}


def token_set(players: int) -> list[Token]:
    """The tokens in play for that many players after the removal of RULES 3.1.

    Raises:
        ValueError: for a player count Genial Spezial is not played with.
    """
    check_players(players)
    ones, twos = TOKEN_COUNTS[players]
    return [Token(c, v) for c in SCORE_COLOURS for v, n in ((1, ones), (2, twos)) for _ in range(n)]


def parse_tokens(players: int, names: Iterable[str]) -> tuple[Token, ...]:
    """The tokens of a record's ``tokens`` list, checked against the set in play.

    Raises:
        InvalidRecord: naming the first bad token, or how the counts differ from RULES 3.1.
    """
    tokens: list[Token] = []
    for n, name in enumerate(names, 1):
        token = TOKENS.get(name) if isinstance(name, str) else None
        if token is None:
            raise InvalidRecord(f'"tokens" entry {n} is {name!r}, not one of {", ".join(TOKENS)}')
        tokens.append(token)
    expected = token_set(players)
    if Counter(tokens) != Counter(expected):
        ones, twos = TOKEN_COUNTS[players]
        have = Counter(t.name for t in tokens)
        counts = ", ".join(f"{name} x{have[name]}" for name in TOKENS)
        raise InvalidRecord(
            f'"tokens" for {players} players must be {len(expected)} tokens, per colour '
            f"{ones} showing 1 and {twos} showing 2 (got {len(tokens)}: {counts})"
        )
    return tuple(tokens)


def check_players(players: int) -> None:
    """Check that Genial Spezial can be played by ``players``.

    Raises:
        ValueError: for any count but 2, 3 or 4.
    """
    if players not in PLAYER_COUNTS:
        raise ValueError(f"Genial Spezial is played by 2 to 4 players, not {players}")
