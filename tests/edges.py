"""The edges where text from outside comes in, each with what it may answer: the command
parser, the move notation and the record loader.

Each ``check_*`` takes one input and returns the outcome's name (``ok`` or the rejection's
key or reason); it raises ``AssertionError`` for an answer outside the documented ones (an
uncaught exception, a rejection without a clear reason, a message too long). Used by the
hypothesis tests (``tests/test_fuzz_edges.py``) and by ``benchmarks/fuzz_edges.py``
(10^6 inputs).
"""

from __future__ import annotations

import json
import os
import tempfile
from functools import cache

from bot.core import messages
from bot.core.commands import CommandError
from bot.core.parsing import format_command, parse_command
from bot.words.texts import Texts
from engine.errors import (
    REASONS,
    EngineError,
    IllegalMove,
    InvalidRecord,
    NotationError,
    error_line,
)
from engine.genial import GenialGame
from engine.notation import (
    format_genial_move,
    format_spezial_placement,
    parse_genial_move,
    parse_spezial_placement,
)
from engine.record import Record, read_record, replay
from engine.spezial import SpezialGame
from engine.tiles import Tile, parse_tile

#: The rejections parse_command documents: key prefixes of the message catalogue.
COMMAND_KEY_PREFIXES = ("command.", "usage.", "option.")
#: The reasons move notation may give (RULES.md section 4; a label of no cell).
NOTATION_REASONS = frozenset({"cannot_parse", "unknown_colour", "bad_slot", "outside_area"})
#: Longest error answer a chat may get (the quoted input is cut to 40 characters).
MESSAGE_LIMIT = 300
LANGUAGES = ("en", "de", "nl", "fr")


@cache
def _texts(lang: str) -> Texts:
    return Texts(lang)


@cache
def _games() -> tuple[GenialGame, GenialGame, GenialGame, SpezialGame]:
    """One fresh game per board size (radius 5, 6, 7) and a Genial Spezial game."""
    return (GenialGame(2, seed=1), GenialGame(3, seed=1), GenialGame(4, seed=1), SpezialGame(3))


RACK: tuple[Tile, ...] = tuple(parse_tile(t) for t in ("RG", "BB", "OY", "PR", "GG", "YB"))


def check_command(text: str) -> str:
    """``parse_command`` gives a command that formats back to itself, or a CommandError
    whose key is documented and whose answer is short in every language."""
    try:
        cmd = parse_command(text)
    except CommandError as exc:
        assert exc.key.startswith(COMMAND_KEY_PREFIXES), exc.key
        for lang in LANGUAGES:
            assert _texts(lang).has(exc.key), (lang, exc.key)
            answer = messages.error("c", _texts(lang), exc.key, dict(exc.params))
            assert 0 < len(answer.text) <= MESSAGE_LIMIT, (exc.key, len(answer.text))
        return exc.key
    again = parse_command(format_command(cmd))
    assert again == cmd, (cmd, again)
    return "ok"


def _engine_rejection(exc: EngineError, allowed: frozenset[str]) -> str:
    assert exc.reason in allowed and exc.reason in REASONS, exc.reason
    line = error_line(exc)
    assert 0 < len(line) <= 200 and "\n" not in line
    return exc.reason


def check_notation(text: str) -> str:
    """Every board's notation parser gives a move that formats back to itself, or a
    NotationError / IllegalMove with a notation reason; a parsed move played on a fresh
    game is played or refused with a rule's reason. Returns the outcomes seen, like
    ``genial:ok genial:outside_area spezial:cannot_parse``."""
    outcomes = set()
    games = _games()
    for game in games[:3]:
        for rack in (None, RACK):
            try:
                move = parse_genial_move(text, game.area, rack)
            except (NotationError, IllegalMove) as exc:
                outcomes.add("genial:" + _engine_rejection(exc, NOTATION_REASONS))
                continue
            spelled = format_genial_move(move, game.area)
            assert parse_genial_move(spelled, game.area) == move, (text, spelled)
            _play(game, move)
            outcomes.add("genial:ok")
    spezial = games[3]
    try:
        placement = parse_spezial_placement(text, spezial.area)
    except (NotationError, IllegalMove) as exc:
        outcomes.add("spezial:" + _engine_rejection(exc, NOTATION_REASONS))
    else:
        spelled = format_spezial_placement(placement, spezial.area)
        assert parse_spezial_placement(spelled, spezial.area) == placement, (text, spelled)
        _play(spezial, placement)
        outcomes.add("spezial:ok")
    return " ".join(sorted(outcomes))


def _play(game: GenialGame | SpezialGame, move: object) -> None:
    try:
        game.copy().play(move)  # type: ignore[arg-type]
    except IllegalMove as exc:
        _engine_rejection(exc, REASONS)


def check_record(text: str) -> str:
    """``Record.from_json`` gives a record (which replays, or names its bad move), or an
    InvalidRecord with a reason; the one-line error is short."""
    try:
        record = Record.from_json(text)
    except InvalidRecord as exc:
        assert exc.detail, "an InvalidRecord says what is wrong"
        return _engine_rejection(exc, frozenset({"invalid_record"}))
    try:
        replay(record)
    except (NotationError, IllegalMove, InvalidRecord) as exc:
        return "replay:" + _engine_rejection(exc, REASONS)
    # A record that replays also survives its own round trip.
    assert Record.from_json(json.dumps(record.to_dict())) == record
    return "ok"


def check_record_file(data: bytes) -> str:
    """``read_record`` of a file holding ``data`` (any bytes): a record or an InvalidRecord."""
    fd, path = tempfile.mkstemp(suffix=".json")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        try:
            read_record(path)
        except InvalidRecord as exc:
            assert exc.detail
            return _engine_rejection(exc, frozenset({"invalid_record"}))
        return "ok"
    finally:
        os.unlink(path)
