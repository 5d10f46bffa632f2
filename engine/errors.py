"""The engine's error types, each with a machine-readable ``reason``.

The engine never writes user-facing sentences: the bot turns ``reason`` into words in the
table's language. Reasons are short snake_case strings listed in :data:`REASONS`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

# Every reason the engine can give, so the bot's message catalogue can cover them all.
REASONS: frozenset[str] = frozenset(
    {
        # notation
        "cannot_parse",
        "unknown_colour",
        "bad_slot",
        # placement
        "occupied",
        "tower",
        "not_adjacent",
        "same_cell",
        "outside_area",
        "tile_not_on_rack",
        "first_round",
        "too_many_colours",
        # turn flow
        "swap_not_offered",
        "swap_pending",
        "not_your_turn",
        "game_over",
        # records
        "invalid_record",
    }
)


class EngineError(Exception):
    """Base of every error the engine raises on bad input."""

    def __init__(self, reason: str, text: str = "", detail: str = "") -> None:
        self.reason = reason
        self.text = text
        self.detail = detail
        #: Set by replays: the 0-based number of the move that failed.
        self.move_number: int | None = None
        parts = [reason]
        if text:
            parts.append(repr(text))
        if detail:
            parts.append(detail)
        super().__init__(": ".join(parts))


class NotationError(EngineError, ValueError):
    """The text is not a move in RULES.md section 4 notation (or names no cell, colour, slot)."""


class IllegalMove(EngineError, ValueError):
    """A well-formed move that the rules do not allow in this position."""


class NotYourTurn(IllegalMove):
    """A seat tried to act while another seat must act."""

    def __init__(self, text: str = "", detail: str = "") -> None:
        super().__init__("not_your_turn", text, detail)


class GameOver(IllegalMove):
    """A move after the end of the game."""

    def __init__(self, text: str = "", detail: str = "") -> None:
        super().__init__("game_over", text, detail)


class InvalidRecord(EngineError, ValueError):
    """A game record that is not valid JSON of the RECORD.md format."""

    def __init__(self, detail: str) -> None:
        super().__init__("invalid_record", "", detail)


@contextmanager
def at_move(number: int) -> Iterator[None]:
    """Mark an engine error raised inside with the 0-based ``number`` of the move (replays
    report which move of a record failed)."""
    try:
        yield
    except EngineError as exc:
        exc.move_number = number
        raise


#: Longest error line: a hostile record's 100 MB move is named, not echoed.
ERROR_LINE_LIMIT = 200


def error_line(exc: EngineError) -> str:
    """``move 7: occupied: 'RG F7 F8'`` or ``record: invalid_record: ...``, one line of
    at most :data:`ERROR_LINE_LIMIT` characters."""
    where = "record" if exc.move_number is None else f"move {exc.move_number + 1}"
    text = exc.text if len(exc.text) <= 60 else exc.text[:57] + "..."
    parts = [exc.reason, *([repr(text)] if exc.text else []), *([exc.detail] if exc.detail else [])]
    line = f"{where}: {': '.join(parts)}"
    line = " ".join(line.split())  # one line, whatever the input held
    return line if len(line) <= ERROR_LINE_LIMIT else line[: ERROR_LINE_LIMIT - 3] + "..."
