"""Game records (RECORD.md): JSON <-> games, and the replay summary that the CLI prints."""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from itertools import repeat
from typing import Any, Protocol

from engine.errors import InvalidRecord, NotationError, at_move
from engine.events import Event
from engine.genial import MODES, GenialGame
from engine.hexgrid import Area, Hex
from engine.spezial import SpezialGame, parse_tokens
from engine.tiles import TILE_SET_COUNTS, Colour, Tile, parse_tile


class Game(Protocol):
    """What records, the command line and the bot need of either game."""

    over: bool
    to_move: int
    awaiting: str | None
    moves: list[str]

    @property
    def area(self) -> Area: ...

    @property
    def sides(self) -> int: ...

    @property
    def version(self) -> int: ...

    def score(self, side: int) -> dict[Colour, int]: ...

    def ranking(self) -> list[list[int]] | None: ...

    def board_summary(self) -> dict[Hex, str]: ...

    def play_text(self, text: str, seat: int | None = None) -> list[Event]: ...

    def record(self, with_bag: bool = True) -> dict[str, object]: ...


#: The most takebacks one record holds (a bound on what a replay checks).
MAX_TAKEBACKS = 200


@dataclass(frozen=True)
class Takeback:
    """Moves that were played and then taken back by consent (docs/records.md): the line
    was ``moves[:after]`` of the record, then ``moves``; ``bag`` is the draw order it was
    played with (Genial; left out of a record exported while the game runs)."""

    after: int
    moves: tuple[str, ...]
    bag: tuple[Tile, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"after": self.after, "moves": list(self.moves)}
        if self.bag is not None:
            data["bag"] = [t.name for t in self.bag]
        return data


@dataclass(frozen=True)
class Record:
    """A parsed, validated record: setup, draw order or tokens, and moves; and two
    optional extensions the engine keeps but does not play: ``clock`` (the table's time
    control and the time of each turn, for programs that show it) and ``takebacks``
    (moves taken back by consent, each checked to replay)."""

    game: str
    players: int
    mode: str | None = None
    bag: tuple[Tile, ...] | None = None
    tokens: tuple[str, ...] | None = None
    seed: int | None = None
    moves: tuple[str, ...] = field(default=())
    clock: Mapping[str, Any] | None = None
    takebacks: tuple[Takeback, ...] = ()

    @classmethod
    def from_dict(cls, data: object) -> Record:
        """Validate a decoded JSON record.

        Raises:
            InvalidRecord: saying which key is wrong and how.
        """
        if not isinstance(data, Mapping):
            raise InvalidRecord("a record is a JSON object")
        known = {"game", "mode", "players", "bag", "tokens", "seed", "moves", "clock", "takebacks"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise InvalidRecord(f"unknown keys: {', '.join(unknown)}")
        game = data.get("game")
        if game not in ("genial", "spezial"):
            raise InvalidRecord('"game" must be "genial" or "spezial"')
        players = data.get("players")
        if not isinstance(players, int) or isinstance(players, bool) or not 1 <= players <= 4:
            raise InvalidRecord('"players" must be a whole number from 1 to 4')
        seed = data.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise InvalidRecord('"seed" must be a whole number')
        moves = data.get("moves", [])
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            raise InvalidRecord('"moves" must be a list of strings')
        mode: str | None = None
        bag: tuple[Tile, ...] | None = None
        tokens: tuple[str, ...] | None = None
        if game == "genial":
            if "tokens" in data:
                raise InvalidRecord('"tokens" belongs to Genial Spezial records')
            mode = data.get("mode", "solo" if players == 1 else "standard")
            if mode not in MODES:
                raise InvalidRecord(f'"mode" must be one of {", ".join(MODES)}')
            if (mode == "solo") != (players == 1) or (mode == "team" and players != 4):
                raise InvalidRecord(f'mode "{mode}" cannot be played by {players} players')
            raw_bag = data.get("bag")
            if raw_bag is not None:
                if not _names(raw_bag):
                    raise InvalidRecord('"bag" must be a list of tiles like "RG"')
                try:
                    bag, whole = _tiles(raw_bag, {})
                except NotationError as exc:
                    raise InvalidRecord(f'"bag" holds a bad tile {exc.text!r}') from None
                if not whole:
                    raise InvalidRecord('"bag" must hold exactly the 120 tiles of the set')
        else:
            if "bag" in data or "mode" in data:
                raise InvalidRecord('"bag" and "mode" belong to Genial records')
            if not 2 <= players <= 4:
                raise InvalidRecord("Genial Spezial is played by 2 to 4 players")
            raw_tokens = data.get("tokens")
            if raw_tokens is not None:
                if not isinstance(raw_tokens, list) or not all(
                    isinstance(t, str) for t in raw_tokens
                ):
                    raise InvalidRecord('"tokens" must be a list like ["B1", "P2"]')
                tokens = tuple(t.name for t in parse_tokens(players, raw_tokens))
        clock = data.get("clock")
        if clock is not None and not isinstance(clock, Mapping):
            raise InvalidRecord('"clock" must be a JSON object')
        takebacks = _takebacks(data.get("takebacks", []), len(moves))
        if game == "spezial" and any(tb.bag is not None for tb in takebacks):
            raise InvalidRecord('a takeback\'s "bag" belongs to Genial records')
        return cls(game, players, mode, bag, tokens, seed, tuple(moves), clock, takebacks)

    @classmethod
    def from_json(cls, text: str) -> Record:
        """Parse a record from JSON text.

        Raises:
            InvalidRecord: for bad JSON or a bad record.
        """
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidRecord(f"not JSON: {exc.msg} at line {exc.lineno}") from None
        except ValueError:
            # Python refuses integers of more than 4,300 digits (a denial-of-service guard).
            raise InvalidRecord("not a record: a number is too long") from None
        except RecursionError:
            raise InvalidRecord("not a record: JSON nested too deep") from None
        return cls.from_dict(data)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"game": self.game}
        if self.mode is not None:
            data["mode"] = self.mode
        data["players"] = self.players
        if self.bag is not None:
            data["bag"] = [t.name for t in self.bag]
        if self.tokens is not None:
            data["tokens"] = list(self.tokens)
        if self.seed is not None:
            data["seed"] = self.seed
        data["moves"] = list(self.moves)
        if self.clock is not None:
            data["clock"] = dict(self.clock)
        if self.takebacks:
            data["takebacks"] = [tb.to_dict() for tb in self.takebacks]
        return data


#: The set's tiles and how many of each, as a plain dict (compared without Counter's
#: Python-level equality).
_SET = dict(TILE_SET_COUNTS)


def _names(raw: object) -> bool:
    """Whether ``raw`` is a list of strings (a bag's tile names, not yet parsed)."""
    return isinstance(raw, list) and all(map(isinstance, raw, repeat(str)))


def _tiles(raw_bag: list[str], names: dict[str, Tile]) -> tuple[tuple[Tile, ...], bool]:
    """The tiles a bag's names name, and whether they are exactly the set. The names are
    counted as strings and each different one parsed once (``names`` keeps them): a record
    holds up to :data:`MAX_TAKEBACKS` bags besides its own, and it is read at every command.

    Raises:
        NotationError: for the first name, in the bag's order, that names no tile.
    """
    counts = Counter(raw_bag)
    for name in [n for n in counts if n not in names]:
        names[name] = parse_tile(name)
    tiles: dict[Tile, int] = {}
    for name, count in counts.items():
        tile = names[name]
        tiles[tile] = tiles.get(tile, 0) + count
    return tuple(map(names.__getitem__, raw_bag)), tiles == _SET


def _takebacks(raw: object, moves: int) -> tuple[Takeback, ...]:
    """The ``takebacks`` of a record with ``moves`` moves, validated: each one's ``after``
    within the moves and no earlier than the one before (a later takeback never reaches
    behind an earlier one, so ``moves[:after]`` is still the line it was played on).

    Raises:
        InvalidRecord: saying what is wrong.
    """
    if not isinstance(raw, list) or len(raw) > MAX_TAKEBACKS:
        raise InvalidRecord(f'"takebacks" must be a list of at most {MAX_TAKEBACKS} objects')
    found: list[Takeback] = []
    names: dict[str, Tile] = {}
    for item in raw:
        if not isinstance(item, Mapping) or set(item) - {"after", "moves", "bag"}:
            raise InvalidRecord('a takeback is an object of "after", "moves" and "bag"')
        after, undone = item.get("after"), item.get("moves")
        if not isinstance(after, int) or isinstance(after, bool) or not 0 <= after <= moves:
            raise InvalidRecord('a takeback\'s "after" must count moves of the record')
        if found and after < found[-1].after:
            raise InvalidRecord("takebacks must come in the order they were made")
        if not isinstance(undone, list) or not all(isinstance(m, str) for m in undone):
            raise InvalidRecord('a takeback\'s "moves" must be a list of moves')
        if not undone:
            raise InvalidRecord('a takeback\'s "moves" must be a list of moves')
        bag: tuple[Tile, ...] | None = None
        if "bag" in item:
            raw_bag = item["bag"]
            if not _names(raw_bag):
                raise InvalidRecord('a takeback\'s "bag" must be a list of tiles like "RG"')
            try:
                bag, whole = _tiles(raw_bag, names)
            except NotationError:
                raise InvalidRecord('a takeback\'s "bag" holds a bad tile') from None
            if not whole:
                raise InvalidRecord('a takeback\'s "bag" must hold the 120 tiles of the set')
        found.append(Takeback(after, tuple(undone), bag))
    return tuple(found)


def new_game(record: Record) -> Game:
    """The game a record sets up, before any move.

    Raises:
        InvalidRecord: if the setup is impossible (bad tokens, for example).
    """
    if record.game == "genial":
        assert record.mode is not None
        return GenialGame(record.players, record.mode, record.bag, record.seed)
    try:
        return SpezialGame(record.players, tokens=record.tokens, seed=record.seed)
    except InvalidRecord:
        raise
    except ValueError as exc:
        raise InvalidRecord(str(exc)) from None


def replay(record: Record) -> Game:
    """The game a record reaches, with every move checked.

    Raises:
        InvalidRecord: for an impossible setup.
        NotationError, IllegalMove: for the first bad move, with ``move_number`` set (0-based).
    """
    game = new_game(record)
    for n, text in enumerate(record.moves):
        with at_move(n):
            game.play_text(text)
    for tb in record.takebacks:
        _check_takeback(record, tb)
    return game


def _check_takeback(record: Record, tb: Takeback) -> None:
    """A takeback's moves were legal where they were played: on ``moves[:after]`` with its
    own draw order. Without that order (a record exported during the game, or a Genial
    record without a bag) there is nothing to check them against.

    Raises:
        NotationError, IllegalMove: for the first bad move (numbered after ``after``).
    """
    if record.game == "genial" and (tb.bag is None or record.bag is None):
        return
    line = replace(record, bag=tb.bag, moves=record.moves[: tb.after], takebacks=())
    game = new_game(line)
    for n, text in enumerate(line.moves):
        with at_move(n):
            game.play_text(text)
    for n, text in enumerate(tb.moves, tb.after):
        with at_move(n):
            game.play_text(text)


def take_back(record: Record, keep: int, rng: random.Random) -> Record:
    """The record with its moves after the first ``keep`` taken back (kept in
    ``takebacks``, with the draw order they were played with). The tiles drawn after
    move ``keep`` go back into the bag, and the part of the draw order nobody has drawn
    by then is shuffled with ``rng`` (fresh randomness): whoever saw those tiles learns
    nothing about the next draws. Tiles handed back by a swap stay at the end of the draw
    order, where the rules put them.

    Raises:
        InvalidRecord: if ``keep`` is no earlier point of the record, or (Genial) every
            tile of the starting bag was drawn by then (nothing left to shuffle).
    """
    if not 0 <= keep < len(record.moves):
        raise InvalidRecord("a takeback keeps fewer moves than the record has")
    undone = Takeback(keep, record.moves[keep:], record.bag)
    kept = replace(record, moves=record.moves[:keep], takebacks=(*record.takebacks, undone))
    if record.game != "genial":
        return replace(kept, takebacks=(*record.takebacks, replace(undone, bag=None)))
    if record.bag is None:
        raise InvalidRecord("a takeback needs the record's draw order")
    before = replay(replace(kept, takebacks=()))
    assert isinstance(before, GenialGame)
    drawn = before.bag.drawn
    if drawn >= len(record.bag):
        raise InvalidRecord("every tile of the bag was drawn: the order cannot be shuffled")
    rest = list(record.bag[drawn:])
    rng.shuffle(rest)
    return replace(kept, bag=(*record.bag[:drawn], *rest))


def summary(game: Game) -> dict[str, Any]:
    """The replay summary of RECORD.md: over, to_move, awaiting, scores, ranking, board."""
    return {
        "over": game.over,
        "to_move": None if game.over else game.to_move,
        "awaiting": None if game.over else game.awaiting,
        "scores": [{c.value: v for c, v in game.score(side).items()} for side in range(game.sides)],
        "ranking": game.ranking(),
        "board": {game.area.label(h): v for h, v in game.board_summary().items()},
    }


def read_record(path: str) -> Record:
    """Read and validate a record from a file, or standard input for ``-``.

    Raises:
        InvalidRecord: if the file cannot be read, is not UTF-8 text, or is not a valid
            record (numbers too long or nesting too deep included).
    """
    try:
        if path == "-":
            text = sys.stdin.buffer.read().decode("utf-8")
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
    except OSError as exc:
        raise InvalidRecord(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise InvalidRecord(f"not UTF-8 text (byte {exc.start})") from None
    return Record.from_json(text)
