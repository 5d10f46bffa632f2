"""The Telegram soak: many tables played to the end through the fake Bot API while a share
of its answers fail at random (429 flood waits, 502s, timeouts, dropped connections, "not
modified" and deleted messages on edits; every method, getUpdates included). The real
Application, adapter, service and SQLite store run as ``genial-bot telegram`` would.

Each table is a group of two people who type random legal moves (the engine's, from the
stored record). At its end the moves told in the group (what the fake kept, timed-out and
dropped requests included) are compared with the stored record: none may be missing, none
told twice, and the result told once. The bot runs in a process of its own, so the
resident memory measured (after the first 100 tables and after the last) is the bot's
alone, not the fake's; the goal of issue 17 is every table finished, 0 lost, 0 doubled,
memory after the run within 10 % of the figure after the first 100 tables.

    .venv/bin/python benchmarks/soak.py [--tables 1000] [--rate 0.05] [--parallel 16]

Every 100 tables it prints where the bot's memory is (malloc in use and freed but held,
SQLite, Python's blocks). To look for what grows: ``--objects`` prints the object types
that grew in number between the baseline and the end, and the sizes of the bot's per-chat
mappings; ``--trace 8`` traces the bot's allocations from the baseline on and prints those
still held at the end by traceback (slow); ``--trim`` prints the bot's memory after glibc
gave back the freed memory it held (``malloc_trim``). Like ``genial-bot telegram``, the bot
gives freed memory back every minute (``bot/operator/memory.py``); ``--no-give-back`` runs it
without, to see what that buys.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import logging
import multiprocessing
import os
import random
import sys
import tempfile
import threading
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot import memory  # noqa: E402
from bot.core import games  # noqa: E402
from bot.core.config import Settings  # noqa: E402
from bot.core.table import PLAYING  # noqa: E402
from bot.service import Service  # noqa: E402
from bot.store.sqlite import SQLiteStore  # noqa: E402
from tests.bot.telegram.fake_api import (  # noqa: E402
    BotRunner,
    FakeBotAPI,
    bot_texts,
    told_moves,
)

TOKEN = "424242:AAHsoakTOKENnever-shown_0123456789"
FIRST_GROUP = -1002000000000
FIRST_USER = 5_000_000
#: The first tables after which the memory is the baseline.
BASELINE_TABLES = 100
#: How long a table may wait for its last messages (the clock retries every 2 s).
SETTLE = 30.0


def rss_mb(pid: int | str = "self") -> float:
    """A process's resident memory (Linux), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class _MallInfo(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in [
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        ]
    ]


def breakdown() -> str:
    """Where this process's memory is, in MB, as far as glibc and SQLite tell (Linux):
    what malloc hands out now, what it holds freed, what SQLite uses (page cache,
    statements), and the blocks Python's own allocator has out."""
    parts = []
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallinfo2.restype = _MallInfo
        info = libc.mallinfo2()
        parts.append(f"malloc in use {(info.uordblks + info.hblkhd) / 2**20:.1f}")
        parts.append(f"malloc free held {info.fordblks / 2**20:.1f}")
    except (OSError, AttributeError):
        pass
    try:
        lite = ctypes.CDLL("libsqlite3.so.0")
        lite.sqlite3_memory_used.restype = ctypes.c_int64
        parts.append(f"SQLite {lite.sqlite3_memory_used() / 2**20:.1f}")
    except (OSError, AttributeError):
        pass
    parts.append(f"Python blocks {sys.getallocatedblocks() / 1000:.0f} k")
    return ", ".join(parts)


class Bot:
    """The bot (Application, adapter, service, SQLite store, as ``genial-bot telegram`` runs
    them) in a process of its own, spawned so that nothing of the fake's is copied into it:
    the memory measured is the bot's alone. The soak hears through a pipe which updates it
    has handled, and asks through another for its memory or what grew in it."""

    def __init__(
        self, api: FakeBotAPI, db: Path, seed: int, pictures: bool, trimming: bool
    ) -> None:
        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe()
        self._heard, told = context.Pipe(duplex=False)
        self.process = context.Process(
            target=bot_process,
            args=(child, told, api.base_url, api.token, str(db), seed, pictures, trimming),
            daemon=True,
        )
        self.handled: set[int] = set()
        self._cond = threading.Condition()
        self._ask = threading.Lock()

    def start(self) -> None:
        self.process.start()
        ready = self._conn.recv()
        if ready != "ready":
            raise RuntimeError(f"the bot did not start: {ready}")
        threading.Thread(target=self._listen, daemon=True).start()

    def _listen(self) -> None:
        while True:
            try:
                update = self._heard.recv()
            except (EOFError, OSError):
                return
            with self._cond:
                self.handled.add(update)
                self._cond.notify_all()

    def wait(self, update: int, timeout: float) -> None:
        """Until the bot has handled ``update`` completely (answers sent)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while update not in self.handled:
                left = deadline - time.monotonic()
                if left <= 0 or not self.process.is_alive():
                    raise AssertionError(f"update {update} not handled")
                self._cond.wait(min(left, 1.0))
            self.handled.discard(update)

    def ask(self, what: str, arg: object = None) -> Any:
        with self._ask:
            self._conn.send((what, arg))
            return self._conn.recv()

    def stop(self) -> None:
        self.ask("stop")
        self.process.join(30)


class _Address:
    """What the bot needs of the fake, in the bot's process: its address and token."""

    def __init__(self, base_url: str, token: str) -> None:
        self.base_url = base_url
        self.token = token


def bot_process(
    conn: Any,
    told: Any,
    base_url: str,
    token: str,
    db: str,
    seed: int,
    pictures: bool,
    trimming: bool,
) -> None:
    """The bot's process: runs the bot and answers the soak's questions until ``stop``."""
    logging.basicConfig(level=logging.CRITICAL)

    def make_service(path: Path) -> Service:
        return Service(SQLiteStore(path), Settings(), rng=random.Random(seed), pictures=pictures)

    runner = BotRunner(
        _Address(base_url, token),  # type: ignore[arg-type]
        Path(db),
        make_service=make_service,
        timeout=0.5,
    )
    runner._on_handled = told.send  # type: ignore[method-assign]
    if trimming:  # as `genial-bot telegram` does (bot/__main__.py)
        memory.keep_giving_back()
    try:
        runner.start()
    except BaseException as exc:
        conn.send(repr(exc))
        return
    conn.send("ready")
    while True:
        what, arg = conn.recv()
        if what == "rss":
            gc.collect()
            conn.send(rss_mb())
        elif what == "breakdown":
            conn.send(breakdown())
        elif what == "trim":  # glibc gives back the free memory it holds, where it can
            gc.collect()
            memory.give_back()
            conn.send(rss_mb())
        elif what == "objects":
            conn.send((type_counts(), mappings(runner)))
        elif what == "trace":  # only what is allocated from now on is traced
            tracemalloc.start(arg)
            conn.send(None)
        elif what == "traced":
            gc.collect()
            stats = tracemalloc.take_snapshot().statistics("traceback")
            tracemalloc.stop()
            lines = []
            for stat in stats[:15]:
                lines.append(f"  {stat.size / 1024:.0f} KiB in {stat.count} blocks")
                lines.extend(f"    {line}" for line in stat.traceback.format()[-2 * arg :])
            conn.send(lines)
        elif what == "stop":
            runner.stop()
            conn.send(None)
            return


class Soak:
    def __init__(self, api: FakeBotAPI, bot: Bot, store: SQLiteStore, seed: int) -> None:
        self.api = api
        self.bot = bot
        #: The bot's store, read (only) to see where each game stands.
        self.store = store
        self.seed = seed
        self.lock = threading.Lock()
        self.finished = self.lost = self.doubled = self.results_wrong = self.stuck = 0
        self.moves = 0
        self.done = 0
        self.baseline: float | None = None

    def say(self, chat: int, user: int, text: str) -> None:
        self.bot.wait(self.api.say(chat, user, text), timeout=120)

    def table(self, index: int) -> None:
        group = FIRST_GROUP - index
        ada, bob = FIRST_USER + 2 * index, FIRST_USER + 2 * index + 1
        self.api.group(group, f"Soak {index}")
        self.api.user(ada, f"A{index}")
        self.api.user(bob, f"B{index}")
        rng = random.Random(self.seed * 100_003 + index)
        store = self.store
        self.say(group, ada, "/join")
        self.say(group, bob, "/join")
        self.say(group, ada, "/start")
        moves = 0
        while True:
            t = store.load(str(group))
            if t is None or t.status != PLAYING or moves > 400:
                break
            game = games.rebuild(t.record)
            seat = t.seats[game.to_move]
            move = rng.choice(game.legal_moves())
            text = games.format_move(game, move)
            command = f"/{text}" if text in ("swap", "keep") else f"/play {text}"
            self.say(group, int(seat.user), command)
            moves += 1
        # The result may wait in the table's outbox for the clock's next try.
        deadline = time.monotonic() + SETTLE
        while True:
            texts = bot_texts(self.api, group)
            results = sum(x.startswith("Game over") for x in texts)
            if results or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        t = store.load(str(group))
        record = t.record if t is not None else None
        stored = list(record["moves"]) if record else []
        told = told_moves(texts)
        missing = Counter(stored) - Counter(told)
        extra = Counter(told) - Counter(stored)
        finished = t is not None and t.status != PLAYING and bool(stored)
        with self.lock:
            self.finished += finished
            self.stuck += not finished
            self.lost += sum(missing.values())
            self.doubled += sum(extra.values())
            self.results_wrong += results != 1
            self.moves += len(stored)
            self.done += 1
        self.forget(group, ada, bob)

    def forget(self, group: int, *users: int) -> None:
        """The fake forgets a checked table (its messages and calls): the soak's own
        process stays small too."""
        api = self.api
        chats = {group, *users}
        with api._cond:
            for store in (api.messages, api.deleted):
                for key in [k for k in store if k[0] in chats]:
                    del store[key]
            api.calls.clear()
            for chat in chats:
                api.chats.pop(chat, None)
                api._message_ids.pop(chat, None)
            for user in users:
                api.users.pop(user, None)


def type_counts() -> Counter[str]:
    """How many objects of each type the collector tracks."""
    gc.collect()
    return Counter(type(o).__qualname__ for o in gc.get_objects())


def mappings(runner: BotRunner) -> dict[str, int]:
    """The sizes of what the bot keeps per chat or per user."""
    adapter, service = runner.adapter, runner.service
    app = adapter.api.app
    return {
        "adapter.locks._locks": len(adapter.locks._locks),
        "adapter.outbox.origins": len(adapter.outbox.origins),
        "adapter.outbox.held": len(adapter.outbox.held),
        "adapter.outbox.paused": len(adapter.outbox.paused),
        "adapter.admins._admins": len(adapter.admins._admins),
        "adapter.tables._moved": len(adapter.tables._moved),
        "service.locks": len(service.locks),
        "service._games": len(service._games),
        "service.stuck": len(service.stuck),
        "community.names": len(service.community.names),
        "app._chat_data": len(app._chat_data),
        "app._user_data": len(app._user_data),
        "app._chat_ids_to_be_updated_in_persistence": len(
            app._chat_ids_to_be_updated_in_persistence
        ),
        "app._user_ids_to_be_updated_in_persistence": len(
            app._user_ids_to_be_updated_in_persistence
        ),
    }


def compare(
    before: tuple[Counter[str], dict[str, int]], after: tuple[Counter[str], dict[str, int]]
) -> None:
    """Print what grew from ``before`` to ``after``."""
    (counts, sizes), (now, later) = before, after
    print("object types grown since the baseline:", flush=True)
    for name, n in (now - counts).most_common(20):
        print(f"  {name}: +{n} ({now[name]})")
    for name, n in later.items():
        print(f"  {name}: {sizes.get(name, 0)} -> {n}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=0.05, help="share of calls that fail")
    parser.add_argument("--parallel", type=int, default=16, help="tables played at once")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--pictures", action="store_true", help="boards and racks as images")
    parser.add_argument("--objects", action="store_true", help="print what grew in number")
    parser.add_argument(
        "--trim", action="store_true", help="at the end, the bot's memory after malloc_trim"
    )
    parser.add_argument("--trace", type=int, default=0, help="tracemalloc frames (slow)")
    parser.add_argument(
        "--no-give-back",
        action="store_true",
        help="without the thread that gives freed memory back (bot/operator/memory.py)",
    )
    parser.add_argument(
        "--baseline", type=int, default=BASELINE_TABLES, help="tables before the baseline"
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.CRITICAL)
    api = FakeBotAPI(TOKEN).start()
    api.stall = 1.0
    started = time.monotonic()
    diagnostics: dict[str, Any] = {}
    first = min(args.baseline, args.tables)
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "soak.db"
        bot = Bot(api, db, args.seed, args.pictures, not args.no_give_back)
        bot.start()
        api.chaos(args.rate, seed=args.seed)
        soak = Soak(api, bot, SQLiteStore(db), args.seed)
        queue = list(range(args.tables))
        queue_lock = threading.Lock()
        baseline_lock = threading.Lock()

        def worker() -> None:
            while True:
                with queue_lock:
                    if not queue:
                        return
                    index = queue.pop(0)
                try:
                    soak.table(index)
                except Exception as exc:  # a table that hangs is counted, the rest go on
                    print(f"table {index}: {exc}", file=sys.stderr)
                    with soak.lock:
                        soak.stuck += 1
                        soak.done += 1
                with baseline_lock:
                    if soak.baseline is None and soak.done >= first:
                        soak.baseline = bot.ask("rss")
                        if args.objects:
                            diagnostics["objects"] = bot.ask("objects")
                        if args.trace:
                            bot.ask("trace", args.trace)
                        print(
                            f"after {soak.done} tables: the bot {soak.baseline:.1f} MB resident "
                            f"({bot.ask('breakdown')}), {time.monotonic() - started:.0f} s",
                            flush=True,
                        )
                    elif soak.done % 100 == 0:
                        print(
                            f"after {soak.done} tables: the bot {bot.ask('rss'):.1f} MB "
                            f"({bot.ask('breakdown')}), "
                            f"{time.monotonic() - started:.0f} s; finished {soak.finished}, "
                            f"{soak.moves} moves, lost {soak.lost}, doubled {soak.doubled}; "
                            f"load {os.getloadavg()[0]:.1f}",
                            flush=True,
                        )

        threads = [threading.Thread(target=worker) for _ in range(args.parallel)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        api.chaos(0, seed=0)
        final = bot.ask("rss")
        print(f"the bot at the end: {bot.ask('breakdown')}")
        if args.trim:
            print(f"the bot after malloc_trim(0): {bot.ask('trim'):.1f} MB resident")
        if "objects" in diagnostics:
            compare(diagnostics["objects"], bot.ask("objects"))
        if args.trace:
            print("allocations made since the baseline and still held, by traceback:")
            print("\n".join(bot.ask("traced", args.trace)))
        faults: Counter[str] = Counter(fault for _method, fault in api.faults)
        by_method: Counter[str] = Counter(method for method, _fault in api.faults)
        gc.collect()
        harness = rss_mb()
        bot.stop()
        soak.store.close()
        api.close()
    elapsed = time.monotonic() - started
    baseline = soak.baseline or final
    growth = (final - baseline) / baseline * 100
    print(f"tables: {args.tables}, finished {soak.finished}, not finished {soak.stuck}")
    print(f"moves stored: {soak.moves}; lost {soak.lost}, doubled {soak.doubled}")
    print(f"results not told exactly once: {soak.results_wrong}")
    print(f"faults injected: {sum(faults.values())} ({dict(sorted(faults.items()))})")
    print(f"  by method: {dict(sorted(by_method.items()))}")
    print(
        f"the bot's resident memory: {baseline:.1f} MB after {first} tables, "
        f"{final:.1f} MB after {args.tables} ({growth:+.1f} %)"
    )
    print(f"the fake and the soak (another process): {harness:.1f} MB at the end")
    print(
        f"time: {elapsed:.0f} s (pictures {'on' if args.pictures else 'off'}); "
        f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )
    ok = (
        soak.finished == args.tables
        and soak.lost == 0
        and soak.doubled == 0
        and soak.results_wrong == 0
        and growth <= 10
    )
    print("goal met" if ok else "goal NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
