"""Several processes on one store, and no service-wide lock: races are decided by the table
version (a typed command is tried again, a button is stale), due work is claimed once, a
player's tables come from an index, and tables do not wait for each other.

A second process is a second :class:`Service` with its own store connection on the same
database; every test runs on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import logging
import os
import random
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.core import games
from bot.core.service import LEASE, RETRIES
from bot.core.table import Table
from bot.service import Service
from bot.store import StaleTable, Store
from bot.store.base import CLAIM_BATCH
from bot.words.texts import Texts, squares
from tests.bot.backends import location
from tests.bot.helpers import START, Clock, Room, make_service, user
from tests.patience import PATIENCE

#: Every test here runs on SQLite and on PostgreSQL (tests/bot/conftest.py).
pytestmark = pytest.mark.usefixtures("backend")

ROOT = Path(__file__).resolve().parents[3]
EN = Texts("en")


class Hooked:
    """A store that calls ``before_save`` (and counts calls) on the way to the real one."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner
        self.before_save: Callable[[Table], None] | None = None
        self.before_load: Callable[[str], None] | None = None
        self.calls: dict[str, int] = {}

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)
        if not callable(attr):
            return attr

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] = self.calls.get(name, 0) + 1
            return attr(*args, **kwargs)

        return counted

    def load(self, chat: str) -> Table | None:
        self.calls["load"] = self.calls.get("load", 0) + 1
        if self.before_load is not None:
            self.before_load(chat)
        return self.inner.load(chat)

    def load_seated(
        self, chat: str, keys: Sequence[str]
    ) -> tuple[Table | None, dict[str, dict[str, str]]]:
        self.calls["load"] = self.calls.get("load", 0) + 1
        if self.before_load is not None:
            self.before_load(chat)
        return self.inner.load_seated(chat, keys)

    def save(self, table: Table, loaded_version: int | None, *args: Any, **kw: Any) -> list[int]:
        self.calls["save"] = self.calls.get("save", 0) + 1
        if self.before_save is not None:
            self.before_save(table)
        return self.inner.save(table, loaded_version, *args, **kw)


def hooked(service: Service) -> Hooked:
    store = Hooked(service.store)
    service.store = store  # type: ignore[assignment]
    return store


def seats(service: Service, chat: str = "chat-1") -> list[str]:
    table = service.table(chat)
    assert table is not None
    return [s.name for s in table.seats]


def test_a_typed_command_that_loses_a_race_is_tried_again(tmp_path: Path) -> None:
    one = make_service(tmp_path / "t.db")
    two = make_service(tmp_path / "t.db")  # a second process on the same database
    room = Room(one)
    room.ok("Ada", "/join")
    store = hooked(one)

    def other_process_first(table: Table) -> None:
        store.before_save = None
        Room(two).ok("Bob", "/join")  # saved between Cid's load and Cid's save

    store.before_save = other_process_first
    out = room.ok("Cid", "/join")
    assert EN("lobby.joined", name="Cid") in out[0].text
    assert seats(one) == ["Ada", "Bob", "Cid"]
    assert store.calls["save"] == 2  # refused once as stale, then accepted
    assert one.table("chat-1").version == 3  # type: ignore[union-attr]


def test_a_typed_command_losing_every_race_asks_to_send_it_again(tmp_path: Path) -> None:
    one = make_service(tmp_path / "t.db")
    room = Room(one)
    room.ok("Ada", "/join")
    store = hooked(one)

    def always_stale(table: Table) -> None:
        raise StaleTable(table.chat)

    store.before_save = always_stale
    out = one.handle(room.chat, user("Bob"), "/join")
    assert [(o.kind, o.text) for o in out] == [("error", EN("error.busy"))]
    assert store.calls["save"] == RETRIES
    store.before_save = None
    assert seats(one) == ["Ada"]


def test_a_button_that_loses_a_race_stays_stale(tmp_path: Path) -> None:
    one = make_service(tmp_path / "t.db")
    two = make_service(tmp_path / "t.db")
    room = Room(one)
    room.ok("Ada", "/join")
    version = one.table("chat-1").version  # type: ignore[union-attr]
    store = hooked(one)

    def other_process_first(table: Table) -> None:
        store.before_save = None
        Room(two).ok("Bob", "/join")

    store.before_save = other_process_first
    out = one.handle(room.chat, user("Cid"), f"/join #{version}")
    assert [(o.kind, o.text) for o in out] == [("error", EN("error.stale"))]
    assert store.calls["save"] == 1  # a button is never replayed on the new table
    assert seats(one) == ["Ada", "Bob"]


def test_playing_tables_come_from_the_index_without_loading_tables(tmp_path: Path) -> None:
    service = make_service(tmp_path / "t.db")
    for chat in ("g1", "g2", "lobby"):
        room = Room(service, chat)
        room.ok("Ada", "/join")
        room.ok("Bob", "/join")
        if chat != "lobby":
            room.ok("Ada", "/start")
    Room(service, "other").ok("Cid", "/join")
    store = hooked(service)
    assert service.playing_tables(user("Ada").id) == ["g1", "g2"]
    assert service.playing_tables(user("Cid").id) == []
    assert store.calls.get("load", 0) == 0 and store.calls.get("chats", 0) == 0
    Room(service, "g1").ok("Ada", "/abort", admin=True)
    assert service.playing_tables(user("Bob").id) == ["g2"]


def timed_tables(service: Service, count: int) -> None:
    """``count`` tables of two people with a one-hour timeout, Ada to move at each."""
    for i in range(count):
        room = Room(service, f"t{i:03}")
        room.ok("Ada", "/join")
        room.ok("Bob", "/join")
        room.ok("Ada", "/option timeout 1h")
        room.ok("Ada", "/start")


def test_a_turn_is_one_read_and_one_write_of_the_store(tmp_path: Path) -> None:
    service = make_service(tmp_path / "t.db")
    room = Room(service)
    room.ok("Bob", "/notify on")
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    store = hooked(service)
    rng = random.Random(3)
    seen = set()
    while room.playing() and len(seen) < 2:
        game = room.game()
        text = games.format_move(game, rng.choice(game.legal_moves()))
        command = f"/{text}" if text in ("swap", "keep") else f"/play {text}"
        who, before = room.to_move(), game.to_move
        store.calls.clear()
        out = service.handle(room.chat, room.person(who), command)
        calls = dict(store.calls)
        after = room.game().to_move if room.playing() else None
        if after == before or after is None:
            continue  # a bonus placement, or the end: nobody else's turn
        pings = [o.user for o in out if o.kind == "ping"]
        if after == 0:
            # Ada's turn: whether she asked for pings (she did not) and whether she is on
            # vacation (issue 26: an away player's clock is paused) came with the table.
            assert (pings, calls) == ([], {"load": 1, "save": 1})
        else:
            # Bob's turn: he asked (his vacation and quiet hours came with the table too);
            # the ping of this turn is looked up at the table and noted (once).
            assert pings == ["id-bob"]
            assert calls == {"load": 1, "note": 1, "save": 1, "set_note": 1}
        seen.add(after)
    assert seen == {0, 1}


def test_due_work_is_linear_in_the_due_tables(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    service = make_service(tmp_path / "t.db")
    count = CLAIM_BATCH + 10
    timed_tables(service, count)
    store = hooked(service)
    out = service.due(START + 1800)  # half time at every table: one reminder each
    # A store error ends the pass early by design (what is due stays due), and would only
    # show below as a count: shown as itself.
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert sorted(o.chat for o in out) == [f"t{i:03}" for i in range(count)]
    assert {o.kind for o in out} == {"reminder"}
    # Two batches of claims and one that finds nothing; each table loaded once, for its
    # reminder (its next deadline is known from the save); the list of due tables never read.
    assert store.calls["claim"] == 3
    assert store.calls["load"] == count
    assert store.calls.get("due", 0) == 0
    assert service.due(START + 1800) == []


def test_two_processes_do_each_due_table_once(tmp_path: Path) -> None:
    one = make_service(tmp_path / "t.db")
    two = make_service(tmp_path / "t.db")
    timed_tables(one, 12)
    outs: list[list[Any]] = [[], []]

    def run(i: int, service: Service) -> None:
        outs[i] = service.due(START + 1800)

    threads = [threading.Thread(target=run, args=(i, s)) for i, s in enumerate((one, two))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(PATIENCE)
    reminded = sorted(o.chat for out in outs for o in out)
    assert reminded == [f"t{i:03}" for i in range(12)]  # each table once, by either process


def test_a_killed_process_claims_are_taken_over_after_the_lease(tmp_path: Path) -> None:
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    timed_tables(service, 2)
    # A process claimed both tables and was killed before doing the work.
    assert service.store.claim(START + 1800, "killed", clock(), LEASE) == ["t000", "t001"]
    clock.advance(LEASE - 1)
    assert service.due(START + 1800) == []
    clock.advance(1)
    out = service.due(START + 1800)
    assert [(o.chat, o.kind) for o in out] == [("t000", "reminder"), ("t001", "reminder")]


def test_a_restarted_bot_takes_over_the_claims_of_its_dead_predecessor(tmp_path: Path) -> None:
    import socket

    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    timed_tables(service, 3)
    for said in service.waiting():  # posted by a platform: no letter of it is left claimed
        service.delivered(said)
    # A process of this machine claimed two tables and is gone (its pid ran and ended);
    # a process of another machine holds the third.
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    dead = f"{socket.gethostname()}:{int(gone.stdout)}:0"
    assert service.store.claim(START + 1800, dead, clock(), LEASE, chat="t000") == ["t000"]
    assert service.store.claim(START + 1800, dead, clock(), LEASE, chat="t001") == ["t001"]
    elsewhere = "other-machine:1:0"
    assert service.store.claim(START + 1800, elsewhere, clock(), LEASE, chat="t002") == ["t002"]
    # The restarted bot does the dead process's tables at once; the other machine's claim
    # still holds until its lease ends.
    restarted = make_service(tmp_path / "t.db", clock=clock)
    assert restarted.store.claimants() == [elsewhere]
    out = restarted.due(START + 1800)
    assert [(o.chat, o.kind) for o in out] == [("t000", "reminder"), ("t001", "reminder")]


def test_tables_do_not_wait_for_each_other(tmp_path: Path) -> None:
    service = make_service(tmp_path / "t.db")
    Room(service, "slow").ok("Ada", "/join")
    store = hooked(service)
    entered, release = threading.Event(), threading.Event()
    inside: list[str] = []

    def block_slow(chat: str) -> None:
        if chat == "slow" and not entered.is_set():
            entered.set()
            assert release.wait(PATIENCE)
        inside.append(chat)

    store.before_load = block_slow
    slow = threading.Thread(target=service.handle, args=("slow", user("Bob"), "/join"))
    slow.start()
    assert entered.wait(PATIENCE)
    # The slow table's command is inside; another table's command goes through meanwhile,
    # and a second command at the slow table waits its turn.
    assert [o.kind for o in service.handle("fast", user("Cid"), "/join")] != ["error"]
    assert seats(service, "fast") == ["Cid"]
    second = threading.Thread(target=service.handle, args=("slow", user("Dan"), "/join"))
    second.start()
    second.join(0.2)
    assert second.is_alive() and inside.count("slow") == 0
    release.set()
    slow.join(PATIENCE)
    second.join(PATIENCE)
    assert seats(service, "slow") == ["Ada", "Bob", "Dan"]
    assert len(service.locks) == 0  # a table's lock goes once nobody holds or waits for it


def test_a_console_game_is_continued_by_a_second_process(tmp_path: Path, backend: str) -> None:
    db = location(tmp_path / "console.db")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "bot", "console", "--db", db, "--no-images", "--name", "ada"]

    def console(lines: list[str], seed: str) -> str:
        result = subprocess.run(
            [*command, "--seed", seed],
            cwd=tmp_path,
            input="".join(line + "\n" for line in lines),
            capture_output=True,
            text=True,
            timeout=PATIENCE,
            env=env,
        )
        assert result.returncode == 0, result.stderr
        assert result.stderr == ""
        return result.stdout

    first = console(["/join", "bob: /join", "/start", "/play 1 A2 B2"], "3")
    racks = [line for line in first.splitlines() if "Your tiles at console: 1 " in line]
    ada_rack, bob_rack = racks[0], racks[1]
    # Tiles as coloured squares (issue 44, item 32).
    ada_dealt = f"1 {squares('OY')}  2 {squares('RB')} "
    assert ada_rack.startswith(f"[genial -> ada, privately] Your tiles at console: {ada_dealt}")
    assert (
        f"\n[genial] ada placed {squares('OY')} A2 B2: no points.\n    bob, your turn.\n" in first
    )
    second = console(["bob: /hand", "/score"], "99")
    # The second process shows the game where the first left it: one move made, bob to move
    # with the tiles he was dealt, ada without the OY she placed (and one tile drawn).
    lines = second.splitlines()
    assert "[genial] Genial after 1 move." in lines
    assert lines[lines.index("[genial] Genial after 1 move.") + 1] == "    bob, your turn."
    assert bob_rack in lines
    assert (
        "[genial -> ada, privately] Your tiles at console: "
        f"1 {squares('RB')}  2 {squares('BO')}  3 {squares('OP')}  4 {squares('YY')}  "
        f"5 {squares('PP')}  6 " in second
    )
    if backend == "sqlite":
        assert (tmp_path / "console.db").exists()
    else:
        assert not list(tmp_path.glob("*.db")) and not list(tmp_path.glob("*.sqlite3"))
