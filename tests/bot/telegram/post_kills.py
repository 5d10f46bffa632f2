"""Kill the Telegram bot between the commit and the post: ``genial-bot telegram`` run as a
process against the fake Bot API, two people playing in a group by typing moves; at each
kill the fake cuts off the group board the bot posts for a move (the request never
reaches "Telegram") and SIGKILLs the bot in that instant, after the move was committed and
before anyone was told. The bot is started again on the same store, and the group must get
that board exactly once, and every other board once too.

What counts, per move the people made: *stored* (in the record), *told* (the boards in the
group that narrate it; the narration names the move in record notation), *lost* (stored,
never told) and *doubled* (told more than once). Used by
``tests/bot/telegram/test_kill_before_post.py`` (a few kills on each backend) and by
``benchmarks/kills_before_post.py`` (many).
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bot.core import games, players
from bot.core.table import PLAYING, Table
from bot.store import open_store
from bot.words.texts import letters
from tests.bot.telegram.fake_api import Call, FakeBotAPI
from tests.patience import PATIENCE, wait_until

ROOT = Path(__file__).resolve().parents[3]
TOKEN = "424242:AAHtestTOKENnever-shown_0123456789"
GROUP = -1001234567890
PEOPLE = {101: "Ada", 202: "Bob"}
# A board's narration of a person's placement (bot/words/locales/en.toml, [turn]).
# A tile is told in coloured squares (or letters); the record writes its letters.
_TILE = r"(?:[A-Z]{2}|[\U0001f7e5-\U0001f7ea]{2})"
_PLACED = re.compile(rf"(?:placed|made a bonus placement,) ({_TILE} [A-Z]\d+ [A-Z]\d+):")


@dataclass
class Figures:
    """What a run of kills found."""

    kills: int = 0
    moves: int = 0
    lost: list[str] = field(default_factory=list)
    doubled: list[str] = field(default_factory=list)
    restart_seconds: list[float] = field(default_factory=list)

    def lines(self) -> list[str]:
        waits = sorted(self.restart_seconds)
        median = waits[len(waits) // 2] if waits else 0.0
        return [
            f"kills between commit and post: {self.kills}",
            f"moves made: {self.moves}",
            f"announcements lost: {len(self.lost)}",
            f"announcements doubled: {len(self.doubled)}",
            f"restart to the board posted, median: {median:.2f} s",
        ]


def told(api: FakeBotAPI) -> Counter[str]:
    """How often each placement was narrated on a board in the group."""
    counts: Counter[str] = Counter()
    for call in api.sent(GROUP, "sendPhoto"):
        counts.update(letters(m) for m in _PLACED.findall(call.text))
    return counts


class KillRun:
    """One bot process at a time on one store, killed at the board of chosen moves."""

    def __init__(self, api: FakeBotAPI, folder: Path, storage: str, seed: int) -> None:
        self.api = api
        self.folder = folder
        self.storage = storage
        self.rng = random.Random(seed)
        self.proc: subprocess.Popen[str] | None = None
        self.figures = Figures()
        # One store for the looks (opening one per look would write its schema version).
        self.store = open_store(storage)
        # What every life of the bot logged, for a failure's message.
        self.log = (folder / "bot.log").open("a")
        (folder / "config.toml").write_text(
            f"[bot]\nstorage = {json.dumps(storage)}\n\n"
            f"[telegram]\nbase_url = {json.dumps(api.base_url)}\n"
        )
        api.group(GROUP, "Genial night")
        for user, name in PEOPLE.items():
            api.user(user, name)

    # --- the process -------------------------------------------------------------------

    def start(self) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT), GENIAL_TELEGRAM_TOKEN=TOKEN)
        self.proc = subprocess.Popen(
            # The bot's command line with quick reviews (tests/bot/quick_bot.py).
            [sys.executable, "-m", "tests.bot.quick_bot", "telegram"],
            cwd=self.folder,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self.log,
        )

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)

    def stop(self) -> None:
        if self.proc is not None:
            self.kill()
            self.proc.wait(timeout=PATIENCE)
            self.proc = None

    def _alive(self) -> str | None:
        if self.proc is not None and self.proc.poll() is not None:
            tail = (self.folder / "bot.log").read_text().splitlines()[-20:]
            return f"the bot exited by itself with status {self.proc.returncode}: " + "\n".join(
                tail
            )
        return None

    # --- the table ---------------------------------------------------------------------

    def table(self) -> Table | None:
        return self.store.load(str(GROUP))

    def close(self) -> None:
        self.stop()
        self.store.close()
        self.log.close()

    def seat_everyone(self) -> None:
        """Ada and Bob sit down and Ada starts; the first board is out."""
        for user in PEOPLE:
            self.api.say(GROUP, user, "/join")
        wait_until(
            lambda: (t := self.table()) is not None and len(t.seats) == 2,
            "both seated",
            alive=self._alive,
        )
        self.api.say(GROUP, 101, "/start")
        wait_until(
            lambda: len(self.api.sent(GROUP, "sendPhoto")) >= 1,
            "the first board",
            alive=self._alive,
        )

    def step(self, *, kill: bool) -> bool:
        """The person to move makes a legal move; with ``kill``, the bot is killed as it
        posts that move's board and started again. False once the game is over."""
        table = self.table()
        assert table is not None
        if table.status != PLAYING or table.record is None:
            return False
        game = games.rebuild(table.record)
        if game.over:
            return False
        seat = game.to_move
        move = games.format_move(
            game, players.choose(game.view(seat), "random", self.rng.randrange(2**31))
        )
        user = int(table.seats[seat].user or 0)
        text = f"/{move}" if move in ("swap", "keep") else f"/play {move}"
        before = table.version
        boards = len(self.api.sent(GROUP, "sendPhoto"))
        if kill:
            self.api.cut_at(_board_in_group, self.kill)
        self.api.say(GROUP, user, text)
        self.figures.moves += 1
        wait_until(
            lambda: (t := self.table()) is not None and t.version > before,
            "the move stored",
            alive=None if kill else self._alive,
        )
        if not kill:
            # Its board is out before the next move, so a kill is always at that move's.
            wait_until(
                lambda: len(self.api.sent(GROUP, "sendPhoto")) > boards,
                "the move's board",
                alive=self._alive,
            )
            return True
        assert self.proc is not None
        self.proc.wait(timeout=PATIENCE)  # killed while it posted the board
        assert self.api.cuts, "the bot was not killed at the board"
        self.figures.kills += 1
        restarted = time.monotonic()
        self.start()
        wait_until(
            lambda: len(self.api.sent(GROUP, "sendPhoto")) > boards,
            "the board after the restart",
            alive=self._alive,
        )
        self.figures.restart_seconds.append(time.monotonic() - restarted)
        return True

    def play(self, kills: int, *, every: int = 2) -> Figures:
        """Play until ``kills`` kills were made (one every ``every`` moves) or the game
        ended; then count what the group was told of every stored placement."""
        self.start()
        self.seat_everyone()
        n = 0
        while self.figures.kills < kills:
            n += 1
            if not self.step(kill=n % every == 0):
                break
        # One more move without a kill: its board shows the bot caught up.
        self.step(kill=False)
        wait_until(self._quiet, "every board of the stored moves", alive=self._alive)
        self.stop()
        self.count()
        return self.figures

    def _quiet(self) -> bool:
        """Every stored placement is on a board in the group."""
        table = self.table()
        assert table is not None and table.record is not None
        counts = told(self.api)
        return all(counts[m] >= 1 for m in _placements(table))

    def count(self) -> None:
        table = self.table()
        assert table is not None and table.record is not None
        counts = told(self.api)
        for move in _placements(table):
            if counts[move] == 0:
                self.figures.lost.append(move)
            elif counts[move] > 1:
                self.figures.doubled.append(move)


def _board_in_group(call: Call) -> bool:
    return call.method == "sendPhoto" and call.chat == GROUP


def _placements(table: Table) -> list[str]:
    """The stored placements, in record notation (a swap decision names no cells)."""
    assert table.record is not None
    return [m for m in table.record["moves"] if isinstance(m, str) and _CELLS.fullmatch(m)]


_CELLS = re.compile(r"[A-Z]{2} [A-Z]\d+ [A-Z]\d+")
