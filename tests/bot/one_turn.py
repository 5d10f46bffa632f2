"""Issue 24's measure of a person's turn, shared by the console, Telegram and Discord tests.

A person's move (and the computer moves it sets off, up to the person's next action) must
reach the group as exactly one public message, carrying one board (a PNG). The message
tells every move made since, or, when that would be too long (a computer's chain of bonus
placements), keeps the first line and the latest ones with a line saying how many it left
out. What was played is read from the stored record, replayed move by move with the
engine, never from what the service returned: the platform tests count what the fake
servers (or the console's output and image folder) actually got.

The games are seeded: the service's random source decides seat order and the bag, the
computer players are deterministic for a seed, and the person picks from the engine's
legal moves (sorted, so the pick does not depend on the engine's order) with a random
source of the plan's seed.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import render
from bot.core import games
from bot.core.table import Table
from bot.words.texts import letters
from engine.events import Kept, Placed, Swapped

PERSON = "Ada"
#: The first bytes of every PNG file.
PNG = b"\x89PNG\r\n\x1a\n"
#: What the result of a game says first (it comes with the game's last turn message).
RESULT = "Game over"
#: The line a shortened turn message has instead of the lines it left out (en).
MORE = re.compile(r"^… and (\d+) more lines?, every placement is marked on the board\.$")
#: The lines that tell a move (en), with what they tell.
_TOLD = (
    (re.compile(r"^(.+) placed (\S+ \S+ \S+):"), "placed"),
    (re.compile(r"^(.+) made a bonus placement, (\S+ \S+ \S+):"), "bonus"),
    (re.compile(r"^(.+) swapped all tiles\.$"), "swapped"),
    (re.compile(r"^(.+) kept the tiles\.$"), "kept"),
)


@dataclass(frozen=True)
class Plan:
    """One seeded game: Ada and computer players of ``levels`` (in seat order after her),
    a team game or not."""

    seed: int
    levels: tuple[str, ...]
    team: bool = False

    def commands(self) -> list[str]:
        """What Ada types to set the table up and start it."""
        team = ["/option team"] if self.team else []
        return ["/join", *(f"/addbot {level}" for level in self.levels), *team, "/start"]

    def __str__(self) -> str:
        kind = "team" if self.team else f"{len(self.levels) + 1}p"
        return f"seed {self.seed} {kind} {'/'.join(self.levels)}"


#: The reproduction of issue 24: a team game of Ada and three computer players. After her
#: 12th move Computer 1 makes two bonus placements in a row (18 in purple, then yellow),
#: and so does Computer 2 (blue, then purple), before Computer 3 moves. The text passes
#: 600 characters there: the old code sent what it had so far without a board, then the
#: board with Computer 3's move.
REPRO = Plan(3, ("greedy",) * 3, team=True)
REPRO_MOVE = 12

#: The many games: every level, every kind of Genial game, the team games of the issue
#: most (their turns have the longest texts and chains). Expert only once: it is slow.
PLANS = (
    *(Plan(seed, ("greedy",) * 3, team=True) for seed in (1, 3, 4, 6, 14, 18, 20, 22)),
    Plan(2, ("random", "greedy", "random"), team=True),
    Plan(5, ("greedy", "random", "greedy"), team=True),
    Plan(7, ("strong", "greedy", "random"), team=True),
    Plan(8, ("greedy", "random", "greedy")),
    Plan(9, ("random", "strong", "random")),
    Plan(10, ("greedy", "random")),
    Plan(11, ("random",)),
    Plan(12, ("greedy",)),
    Plan(13, ("expert",)),
)


def choose(game: Any, rng: random.Random) -> Any:
    """Ada's move: one of the engine's legal moves, picked by ``rng``."""
    moves = sorted(game.legal_moves(), key=lambda m: games.format_move(game, m))
    return rng.choice(moves)


def typed(game: Any, move: Any) -> str:
    """The move as a person types it."""
    text = games.format_move(game, move)
    return f"/{text}" if text in ("swap", "keep") else f"/play {text}"


@dataclass
class Span:
    """What happened between a person's action and the next one: the moves, as the turn
    message tells them, the cells placed on, and the computer players that made two bonus
    placements or more in a row."""

    told: list[tuple[str, str, str]]
    cells: list[Any]
    chains: list[str]
    #: The seat of each placement (one per two cells), numbered so on the board.
    seats: list[int] = field(default_factory=list)


def span(record: dict[str, Any], since: int, names: Sequence[str], people: set[int]) -> Span:
    """The moves of ``record`` from move number ``since`` on, replayed on the game before
    them; ``people`` are the seats of persons (the others are computer players)."""
    game = games.rebuild({**record, "moves": record["moves"][:since]})
    told: list[tuple[str, str, str]] = []
    cells: list[Any] = []
    seats: list[int] = []
    bonuses: Counter[int] = Counter()
    for move in record["moves"][since:]:
        for ev in game.play_text(move, game.to_move):
            if isinstance(ev, Placed):
                what = "bonus" if ev.bonus else "placed"
                told.append((names[ev.seat], what, games.format_move(game, ev.placement)))
                cells += [ev.placement.cell1, ev.placement.cell2]
                seats.append(ev.seat)
                if ev.bonus and ev.seat not in people:
                    bonuses[ev.seat] += 1
            elif isinstance(ev, Swapped):
                told.append((names[ev.seat], "swapped", ""))
            elif isinstance(ev, Kept):
                told.append((names[ev.seat], "kept", ""))
    return Span(told, cells, [names[s] for s in sorted(bonuses) if bonuses[s] >= 2], seats)


def played(table: Table, since: int) -> Span:
    """What the table's running (or just finished) game played from move ``since`` on."""
    assert table.record is not None
    names = [s.name for s in table.players]
    people = {i for i, s in enumerate(table.players) if not s.computer}
    return span(table.record, since, names, people)


def told_in(text: str) -> tuple[list[tuple[str, str, str]], int | None]:
    """The moves a message tells, in order, and the number of lines it says it left out
    (``None``: it left out none)."""
    told: list[tuple[str, str, str]] = []
    left_out = None
    for line in text.splitlines():
        more = MORE.match(line)
        if more:
            left_out = int(more.group(1))
        for pattern, what in _TOLD:
            m = pattern.match(line)
            if m:
                # A tile is told in coloured squares; the record writes its letters.
                told.append((m.group(1), what, letters(m.group(2)) if m.lastindex == 2 else ""))
                break
    return told, left_out


def check_told(text: str, moves: Span) -> bool:
    """Asserts ``text`` tells every move of ``moves``, or the first and the latest ones and
    says it left lines out; whether it was shortened."""
    told, left_out = told_in(text)
    expected = moves.told
    if left_out is None:
        assert told == expected, f"told {told}, played {expected}:\n{text}"
        return False
    assert told and told[0] == expected[0], f"the first move is not told first:\n{text}"
    latest = expected[len(expected) - (len(told) - 1) :] if len(told) > 1 else []
    assert told[1:] == latest, f"not the latest moves: told {told}, played {expected}:\n{text}"
    dropped = len(expected) - len(told)
    assert 0 <= dropped <= left_out and left_out > 0, f"{left_out} lines left out:\n{text}"
    return True


@dataclass
class Posted:
    """One message a platform posted in the group: its text and its files (name, bytes)."""

    text: str
    files: list[tuple[str, bytes]]

    def __repr__(self) -> str:
        return f"Posted({self.text!r}, files {[name for name, _ in self.files]})"


def is_board(file: tuple[str, bytes]) -> bool:
    name, data = file
    return name.startswith("board-") and name.endswith(".png") and data.startswith(PNG)


@dataclass
class Tally:
    """Person's actions counted over many games, with every one that broke the rule."""

    actions: int = 0
    chains: int = 0
    shortened: int = 0
    games: int = 0
    wrong: list[str] = field(default_factory=list)

    def action(self, where: str, posted: list[Posted], moves: Span, ended: bool) -> None:
        """What one person's action posted publicly (``ended``: it ended the game)."""
        self.actions += 1
        self.chains += len(moves.chains)
        results = [p for p in posted if p.text.startswith(RESULT)]
        turns = [p for p in posted if not p.text.startswith(RESULT)]
        if len(results) != int(ended):
            self.wrong.append(f"{where}: {len(results)} results")
        boards = [sum(map(is_board, p.files)) for p in turns]
        others = [len(p.files) - b for p, b in zip(turns, boards, strict=True)]
        if boards != [1] or others != [0]:
            self.wrong.append(
                f"{where}: {len(turns)} messages, boards {boards}, other files {others}"
            )
            return
        try:
            self.shortened += check_told(turns[0].text, moves)
        except AssertionError as exc:
            self.wrong.append(f"{where}: {exc}")

    def check(self, plans: Sequence[Plan], *, at_least: int) -> None:
        """Asserts every action of the games of ``plans`` was one message with one board,
        over at least ``at_least`` actions, with a chain of bonus placements and a
        shortened text among them."""
        assert not self.wrong, f"{len(self.wrong)} of {self.actions} actions:\n" + "\n".join(
            self.wrong[:20]
        )
        assert self.games == len(plans)
        assert self.actions >= at_least
        assert self.chains >= 1, "no computer player made two bonus placements in a row"
        assert self.shortened >= 1, "no turn message was long enough to be shortened"


def check_repro(message: Posted, moves: Span, table: Table) -> None:
    """Asserts the one message of :data:`REPRO`'s turn (after Ada's :data:`REPRO_MOVE`th
    move) is whole: one board marking every placement since her move, and a text that
    tells her move, then the latest ones, and says how many lines it left out."""
    assert moves.chains == ["Computer 1", "Computer 2"], "not the turn of the issue"
    ((name, png),) = message.files
    assert name.startswith("board-") and png.startswith(PNG)
    # The board: the position after Computer 3's move, every placement since Ada's marked.
    assert table.record is not None
    game = games.rebuild(table.record)
    names = [s.name for s in table.players]
    cells = moves.cells
    told = [render.Told(seat, cells[2 * k], cells[2 * k + 1]) for k, seat in enumerate(moves.seats)]
    assert png == render.board_png(game.view(None), names=names, highlight=cells, told=told)
    # The text: too long whole, so shortened in the middle; every player is named in it.
    assert check_told(message.text, moves), message.text
    told, _ = told_in(message.text)
    assert {who for who, _, _ in told} == {PERSON, "Computer 1", "Computer 2", "Computer 3"}
    assert f"{PERSON}, your turn." in message.text.splitlines()
