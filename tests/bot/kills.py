"""Kill the bot: the console chat run as a process, killed with SIGKILL at random moments
and restarted on the same store, while two people and two computer players play whole
games. After every kill the stored record must replay, and every move the players were
told was accepted (a placement, a bonus placement or a swap decision, as printed by the
process before it died) must be in it exactly once.

What counts: a line the process printed is *told*. A move stored but not yet told is fine
(the players see it after the restart, or see the board; the last moves of a game that
ended in a killed life are told by the next one, for that game); a move told but not stored is
*lost*; a told move stored twice is *doubled*; the same move told twice is *told twice*.

Kill moments, chosen by a seeded generator: right after a command was written (usually
before the bot read it), at a random delay after it (before, during or after the store
commit, or while the computer players think), the moment the commit shows in the store
(between the commit and the print), and while a restarted bot resumes (its clock plays the
computer turns left due).

Used by ``tests/bot/store/test_kills.py`` (20 and more kills, text only) and by
``benchmarks/kills.py`` (hundreds). The store is named by ``db``: a file path (SQLite) or
whatever else ``bot.store.open_store`` and ``--db`` accept.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Generic, TypeVar

from bot.core import games, players
from bot.core.table import PLAYING, Table
from bot.store import Store, open_store
from bot.words.texts import letters
from engine.record import Record, new_game
from tests.patience import PATIENCE

ROOT = Path(__file__).resolve().parents[2]
T = TypeVar("T")
CHAT = "console"
#: The console's own person (who may start games) and a second person.
PEOPLE = ("alice", "bob")
#: The computer players' levels: one thinks a little, one not at all.
COMPUTERS = ("greedy", "random")
#: How a command's kill is timed: right after writing it, after a random delay, as soon as
#: its commit shows in the store; or no kill (wait for the bot to finish the turn).
AT_ONCE, DELAYED, AT_COMMIT, NO_KILL = "at once", "delayed", "at commit", "none"
#: A kill while a restarted bot resumes, without any command.
AT_RESUME = "at resume"
#: Longest random delay after a command before a kill, in seconds: the bot handles a
#: move and the computer turns after it in a few milliseconds to a few tens.
MAX_DELAY = 0.06
#: Longest random delay after a restart before a kill at resume.
MAX_RESUME_DELAY = 0.5
#: The kill moments of commands, dealt from a shuffled deck so that every few kills cover
#: them all; most fall at the commit, where a lost move would hide.
COMMAND_MOMENTS = (AT_ONCE, DELAYED, DELAYED, AT_COMMIT, AT_COMMIT, AT_COMMIT)
#: Whether a restart is killed while it resumes: one restart in four, dealt the same way.
RESUME_KILLS = (True, False, False, False)
POLL = 0.002

# The narration of one move (bot/words/locales/en.toml, [turn]), after the message head or the
# indent of a message's later lines.
_LINE = re.compile(r"^(?:\[genial\] |    )(.*)$")
# A tile is told in coloured squares (or letters); the record writes its letters.
_TILE = r"(?:[A-Z]{2}|[\U0001f7e5-\U0001f7ea]{2})"
_PLACED = re.compile(rf"(.+?) (?:placed|made a bonus placement,) ({_TILE} [A-Z]\d+ [A-Z]\d+):")
_DECIDED = re.compile(r"(.+?) (swapped all tiles|kept the tiles)\.$")


class KillRunError(Exception):
    """The bot did something no kill explains: it exited by itself, wrote to standard
    error, or stopped acting on a person's move."""


@dataclass(frozen=True)
class Told:
    """A move announced as accepted: who, and the move in record notation."""

    name: str
    move: str


@dataclass
class Figures:
    kills: int = 0
    kills_by_moment: dict[str, int] = field(default_factory=dict)
    restarts: int = 0
    commands: int = 0
    games: int = 0
    told: int = 0
    stored: int = 0
    #: Kills after which a move was stored but not yet told: the commit window was hit.
    stored_untold_kills: int = 0
    lost: list[str] = field(default_factory=list)
    doubled: list[str] = field(default_factory=list)
    told_twice: list[str] = field(default_factory=list)
    unreplayable: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        moments = ", ".join(f"{k} {v}" for k, v in sorted(self.kills_by_moment.items()))
        return [
            f"kills: {self.kills} ({moments})",
            f"restarts: {self.restarts}, commands written: {self.commands}",
            f"games played to the end: {self.games}",
            f"moves told: {self.told}",
            f"moves stored: {self.stored}",
            f"kills between a commit and its telling: {self.stored_untold_kills}",
            f"lost: {len(self.lost)}",
            f"doubled: {len(self.doubled)}",
            f"told twice: {len(self.told_twice)}",
            f"records that do not replay: {len(self.unreplayable)}",
        ]


def told_moves(lines: list[str]) -> list[Told]:
    """The moves a process's output announced, in order."""
    told = []
    for raw in lines:
        m = _LINE.match(raw)
        if m is None:
            continue
        text = m.group(1)
        placed = _PLACED.match(text)
        if placed:
            told.append(Told(placed.group(1), letters(placed.group(2))))
            continue
        decided = _DECIDED.match(text)
        if decided:
            told.append(Told(decided.group(1), "swap" if "swapped" in text else "keep"))
    return told


def stored_moves(table: Table) -> list[tuple[int, str]]:
    """The seat and text of every move in the table's record, replayed move by move.

    Raises:
        EngineError: if the record does not replay.
    """
    assert table.record is not None
    game = new_game(Record.from_dict(table.record))
    moves = []
    for text in table.record["moves"]:
        seat = game.to_move
        game.play_text(text)
        moves.append((seat, text))
    return moves


def compare(told: list[Told], table: Table) -> tuple[set[int], set[int], int]:
    """Match the told moves, in order, against the stored record.

    Returns the indices of the told moves that are lost (not stored, or not in the order
    told; a placement told again is left to the told-twice count) and of those doubled
    (their placement stored more than once), and how many moves at the end of the record
    are not told (yet).

    Raises:
        EngineError: if the record does not replay.
    """
    moves = stored_moves(table)
    seats = table.seats if table.status == PLAYING else table.players
    seat_of = {s.name: i for i, s in enumerate(seats)}
    lost: set[int] = set()
    doubled: set[int] = set()
    at = 0
    matched: set[Told] = set()
    for i, t in enumerate(told):
        if t in matched and t.move not in ("swap", "keep"):
            continue  # a placement told again: counted as told twice, not as lost
        seat = seat_of.get(t.name)
        j = next(
            (j for j in range(at, len(moves)) if moves[j] == (seat, t.move)),
            None,
        )
        if j is None:
            lost.add(i)
            continue
        at = j + 1
        matched.add(t)
        if t.move not in ("swap", "keep") and [m for _, m in moves].count(t.move) > 1:
            doubled.add(i)
    return lost, doubled, len(moves) - at


class _Deck(Generic[T]):
    """Cards dealt in a random order, reshuffled when all were dealt."""

    def __init__(self, cards: tuple[T, ...], rng: random.Random) -> None:
        self.cards = cards
        self.rng = rng
        self.left: list[T] = []

    def deal(self) -> T:
        if not self.left:
            self.left = list(self.cards)
            self.rng.shuffle(self.left)
        return self.left.pop()


def _over(table: Table) -> bool:
    return table.record is not None and table.status != PLAYING


class KillRun:
    """Whole games of the console chat across SIGKILLs, checked after every kill.

    Args:
        db: the store, as ``--db`` takes it (a SQLite file path, or a database URL).
        folder: the processes' working directory.
        seed: drives every choice: kill moments, people's moves, the bots' seeds.
        kills: kill at least this many times, then play the running game to its end.
        games: and play at least this many games to the end.
        kill_rate: the share of commands with a kill.
    """

    def __init__(
        self,
        db: str,
        folder: Path,
        *,
        seed: int,
        kills: int,
        games: int = 1,
        kill_rate: float = 0.4,
        progress: Callable[[Figures], None] | None = None,
    ) -> None:
        self.db = db
        self.folder = folder
        # The kill schedule has its own generator: the people's moves and the bots' seeds
        # take from the other a number of values that depends on what was stored in time.
        self.rng = random.Random(seed)
        self._kill_rng = random.Random(seed + 1)
        self._moments = _Deck(COMMAND_MOMENTS, self._kill_rng)
        self._resumes = _Deck(RESUME_KILLS, self._kill_rng)
        self.kills = kills
        self.games = games
        self.kill_rate = kill_rate
        self.progress = progress
        self.figures = Figures()
        self.store: Store = open_store(db)
        self._proc: subprocess.Popen[str] | None = None
        self._lines: list[str] = []
        self._reader: threading.Thread | None = None
        self._err: IO[str] | None = None
        # The running game: told so far, and which told moves were found lost or doubled.
        self._playing = False
        self._told: list[Told] = []
        self._lost: set[int] = set()
        self._doubled: set[int] = set()
        self._checked = 0  # moves the record held at the last check
        # The last moves of a game that ended untold: the next life tells them.
        self._late: list[Told] = []
        self._person_to_act: dict[int, bool] = {}

    # --- the run ------------------------------------------------------------------------

    def run(self) -> Figures:
        try:
            self._seat_everyone()
            # After the last kill the running game is played to its end and checked whole.
            while (
                self.figures.kills < self.kills or self.figures.games < self.games or self._playing
            ):
                self._step()
            self._stop()
            return self.figures
        finally:
            if self._proc is not None and self._proc.poll() is None:
                self._proc.kill()
                self._proc.wait()
            self.store.close()

    def _seat_everyone(self) -> None:
        """Two people and two computer players at one table (no kills while seating)."""
        self._spawn()
        lines = [f"{p}: /join" for p in PEOPLE] + [f"alice: /addbot {c}" for c in COMPUTERS]
        for line in lines:
            self._write(line)
        self._wait(lambda t: t is not None and len(t.seats) == len(lines), "seating")

    def _step(self) -> None:
        if self._proc is None:
            self._spawn()
            if self._want_kill() and self._resumes.deal():
                time.sleep(self._kill_rng.uniform(0.0, MAX_RESUME_DELAY))
                self._kill(AT_RESUME)
                return
        table = self._wait(self._ready, "a person's turn or the end of a game")
        assert table is not None
        if _over(table) and self._playing:
            self._stop()  # all of the game's output is in: check it whole
            self._finish_game()
            return
        if table.status != PLAYING:
            self._command("alice: /start", table)
            return
        self._playing = True
        game = games.rebuild(table.record or {})
        seat = game.to_move
        move = games.format_move(game, players.choose(game.view(seat), "random", self._seed()))
        name = table.seats[seat].name
        self._command(
            f"{name}: /{move}" if move in ("swap", "keep") else f"{name}: /play {move}", table
        )

    def _ready(self, table: Table | None) -> bool:
        """A person is to act (or nobody is playing): the bot is waiting for a command."""
        if table is None or table.status != PLAYING:
            return True
        # One replay per stored version (a committed version never changes), not per look:
        # the bot shares the machine's cores with these looks.
        if table.version not in self._person_to_act:
            game = games.rebuild(table.record or {})
            self._person_to_act[table.version] = not table.seats[game.to_move].computer
        return self._person_to_act[table.version]

    def _command(self, line: str, table: Table) -> None:
        moment = self._moment()
        before = table.version
        self._write(line)
        if moment == AT_ONCE:
            self._kill(moment)
        elif moment == DELAYED:
            time.sleep(self._kill_rng.uniform(0.0, MAX_DELAY))
            self._kill(moment)
        elif moment == AT_COMMIT:
            if self._wait_untold(table):
                self._kill(moment)
            else:  # every commit was told before it could be caught: the turn goes on
                self._wait(self._ready, "a turn")
        else:
            self._wait(lambda t: t is not None and t.version != before and self._ready(t), "a turn")

    def _wait_untold(self, before: Table) -> bool:
        """Wait for a commit of the command just written (or of a computer turn after it)
        that the bot has not told yet: the moment a kill must not lose it. False if the
        bot told everything before it was seen and waits for a person again."""
        playing = before.status == PLAYING and before.record is not None

        def stored(t: Table) -> int:
            return len(t.record["moves"]) if playing and t.record is not None else 0

        parsed = [0, len(self._told)]  # output lines read, moves told in the game so far

        def told() -> int:
            n = len(self._lines)  # whole lines only: the reader appends them one by one
            parsed[1] += len(told_moves(self._lines[parsed[0] : n]))
            parsed[0] = n
            return parsed[1]

        untold = stored(before) - told()
        caught = [False]

        def done(t: Table | None) -> bool:
            if t is None or t.version == before.version:
                return False
            if not playing or stored(t) - told() > untold:
                caught[0] = True  # a new game begun, or a move stored and not yet told
                return True
            return self._ready(t)

        self._wait(done, "a commit", poll=0.0)
        return caught[0]

    def _want_kill(self) -> bool:
        return self.figures.kills < self.kills

    def _moment(self) -> str:
        if not self._want_kill() or self._kill_rng.random() >= self.kill_rate:
            return NO_KILL
        return self._moments.deal()

    def _seed(self) -> int:
        return self.rng.randrange(2**31)

    # --- the process ----------------------------------------------------------------------

    def _spawn(self) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        # The bot's command line, reviewing finished games quickly (tests/bot/quick_bot.py):
        # a full review is seconds of CPU a game, nothing a kill is about.
        command = [sys.executable, "-m", "tests.bot.quick_bot", "console", "--db", self.db]
        command += ["--seed", str(self._seed()), "--no-images", "--name", PEOPLE[0]]
        self._err = (self.folder / f"stderr-{self.figures.restarts}.txt").open("w+")
        self._proc = subprocess.Popen(
            command,
            cwd=self.folder,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._err,
            text=True,
        )
        self._lines = []
        out = self._proc.stdout
        assert out is not None
        self._reader = threading.Thread(target=self._read, args=(out, self._lines), daemon=True)
        self._reader.start()

    @staticmethod
    def _read(out: IO[str], lines: list[str]) -> None:
        for line in out:
            lines.append(line)

    def _write(self, line: str) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        self._proc.stdin.write(line + "\n")
        self._proc.stdin.flush()
        self.figures.commands += 1

    def _kill(self, moment: str) -> None:
        assert self._proc is not None
        if self._proc.poll() is not None:
            raise KillRunError(
                f"the bot exited by itself ({self._proc.returncode}): {self._stderr()}"
            )
        self._proc.send_signal(signal.SIGKILL)
        self.figures.kills += 1
        self.figures.kills_by_moment[moment] = self.figures.kills_by_moment.get(moment, 0) + 1
        self._end_life()
        table = self.store.load(CHAT)
        if table is not None and table.record is not None and self._playing:
            if self._check(table):
                self.figures.stored_untold_kills += 1
            if _over(table):
                self._finish_game()
        if self.progress is not None:
            self.progress(self.figures)

    def _stop(self) -> None:
        """End the process the ordinary way: the end of its input."""
        if self._proc is None:
            return
        assert self._proc.stdin is not None
        self._proc.stdin.close()
        try:
            status = self._proc.wait(timeout=PATIENCE)
        except subprocess.TimeoutExpired:
            raise KillRunError("the bot did not end at the end of its input") from None
        if status != 0:
            raise KillRunError(f"the bot exited with status {status}: {self._stderr()}")
        self._end_life()

    def _end_life(self) -> None:
        """After the process ended: all its output read, none of it on standard error."""
        assert self._proc is not None and self._reader is not None
        self._proc.wait()
        if self._proc.stdin is not None and not self._proc.stdin.closed:
            with contextlib.suppress(BrokenPipeError):
                self._proc.stdin.close()
        self._reader.join()
        if self._proc.stdout is not None:
            self._proc.stdout.close()
        error = self._stderr()
        if error:
            raise KillRunError(f"the bot wrote to standard error: {error}")
        if self._err is not None:
            self._err.close()
        told = told_moves(self._lines)
        # A game that ended in a life killed before it told the last moves: this life told
        # them first (from the stored outbox), for that game, not the one running now.
        while self._late and told and told[0] == self._late[0]:
            self._late.pop(0)
            told.pop(0)
        if told:
            self._late = []
        self._told += told
        self._proc = None
        self.figures.restarts += 1

    def _stderr(self) -> str:
        if self._err is None:
            return ""
        self._err.flush()
        self._err.seek(0)
        return self._err.read()[-2000:]

    def _wait(
        self, done: Callable[[Table | None], bool], what: str, poll: float = POLL
    ) -> Table | None:
        """Read the stored table until ``done`` holds; the bot must stay alive meanwhile."""
        deadline = time.monotonic() + PATIENCE
        while True:
            table = self.store.load(CHAT)
            if done(table):
                return table
            if self._proc is not None and self._proc.poll() is not None:
                raise KillRunError(
                    f"the bot exited by itself ({self._proc.returncode}) "
                    f"waiting for {what}: {self._stderr()}"
                )
            if time.monotonic() > deadline:
                raise KillRunError(f"no {what} within {PATIENCE:.0f} s")
            time.sleep(poll)

    # --- the checks ------------------------------------------------------------------------

    def _check(self, table: Table) -> bool:
        """Compare what was told of the running game with its record; True if a move was
        stored but not told yet."""
        try:
            lost, doubled, untold = compare(self._told, table)
        except Exception as exc:  # any failure to replay is a finding, not a crash
            self.figures.unreplayable.append(f"{type(exc).__name__}: {exc}")
            return False
        self._lost |= lost
        self._doubled |= doubled
        # Only a move stored in the life just ended counts: the kill fell between its
        # commit and its telling.
        stored = len(table.record["moves"]) if table.record else 0
        hit = untold > 0 and stored > self._checked
        self._checked = stored
        return hit

    def _finish_game(self) -> None:
        table = self.store.load(CHAT)
        assert table is not None and table.record is not None
        self._check(table)
        try:
            untold = compare(self._told, table)[2]
        except Exception:
            untold = 0  # counted as not replaying by the check
        names = [s.name for s in table.players]
        tail = stored_moves(table)[len(table.record["moves"]) - untold :] if untold else []
        self._late = [Told(names[seat], move) for seat, move in tail]
        f = self.figures
        f.games += 1
        f.told += len(self._told)
        f.stored += len(table.record["moves"])
        f.lost += [_shown(self._told[i]) for i in sorted(self._lost)]
        f.doubled += [_shown(self._told[i]) for i in sorted(self._doubled)]
        seen: set[Told] = set()
        for t in self._told:
            if t in seen and t.move not in ("swap", "keep"):
                f.told_twice.append(_shown(t))
            seen.add(t)
        try:
            if not games.rebuild(table.record).over:
                f.unreplayable.append("a finished game's record does not reach its end")
        except Exception as exc:
            f.unreplayable.append(f"{type(exc).__name__}: {exc}")
        self._playing = False
        self._told, self._lost, self._doubled = [], set(), set()
        self._checked = 0


def _shown(t: Told) -> str:
    return f"{t.name}: {t.move}"
