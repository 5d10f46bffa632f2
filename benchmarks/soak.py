"""The Telegram soak: many tables played to the end through the fake Bot API while a share
of its answers fail at random (429 flood waits, 502s, timeouts, dropped connections, "not
modified" and deleted messages on edits; every method, getUpdates included). The real
Application, adapter, service and SQLite store run as ``genial-bot telegram`` would.

Each table is a group of two people who type random legal moves (the engine's, from the
stored record). At its end the moves told in the group (what the fake kept, timed-out and
dropped requests included) are compared with the stored record: none may be missing, none
told twice, and the result told once. The resident memory after the first 100 tables and
after the last is printed; the goal of issue 17 is every table finished, 0 lost, 0 doubled,
memory after the run within 10 % of the figure after the first 100 tables.

    .venv/bin/python benchmarks/soak.py [--tables 1000] [--rate 0.05] [--parallel 16]
"""

from __future__ import annotations

import argparse
import gc
import logging
import random
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot import games  # noqa: E402
from bot.config import Settings  # noqa: E402
from bot.service import Service  # noqa: E402
from bot.store.sqlite import SQLiteStore  # noqa: E402
from bot.table import PLAYING  # noqa: E402
from tests.bot.telegram.fake_api import BotRunner, FakeBotAPI, bot_texts  # noqa: E402

TOKEN = "424242:AAHsoakTOKENnever-shown_0123456789"
FIRST_GROUP = -1002000000000
FIRST_USER = 5_000_000
#: The first tables after which the memory is the baseline.
BASELINE_TABLES = 100
#: How long a table may wait for its last messages (the clock retries every 2 s).
SETTLE = 30.0


def rss_mb() -> float:
    """The process's resident memory (Linux), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def told_moves(texts: list[str]) -> list[str]:
    """The moves the group was told, in order, as the record writes them: a placement's
    notation, ``swap`` or ``keep``."""
    out = []
    for text in texts:
        for line in text.split("\n"):
            if " placed " in line or " made a bonus placement, " in line:
                head = line.split(":", 1)[0]
                out.append(head.split(" placed ", 1)[-1].split(" bonus placement, ", 1)[-1])
            elif line.endswith(" swapped all tiles."):
                out.append("swap")
            elif line.endswith(" kept the tiles."):
                out.append("keep")
    return out


class Soak:
    def __init__(self, api: FakeBotAPI, runner: BotRunner, seed: int) -> None:
        self.api = api
        self.runner = runner
        self.seed = seed
        self.lock = threading.Lock()
        self.finished = self.lost = self.doubled = self.results_wrong = self.stuck = 0
        self.moves = 0
        self.done = 0
        self.baseline: float | None = None

    def say(self, chat: int, user: int, text: str) -> None:
        update = self.api.say(chat, user, text)
        self.runner.wait(update, timeout=120)
        with self.runner._cond:  # the harness's own bookkeeping, not the bot's
            self.runner.handled.discard(update)

    def table(self, index: int) -> None:
        group = FIRST_GROUP - index
        ada, bob = FIRST_USER + 2 * index, FIRST_USER + 2 * index + 1
        self.api.group(group, f"Soak {index}")
        self.api.user(ada, f"A{index}")
        self.api.user(bob, f"B{index}")
        rng = random.Random(self.seed * 100_003 + index)
        service = self.runner.service
        self.say(group, ada, "/join")
        self.say(group, bob, "/join")
        self.say(group, ada, "/start")
        moves = 0
        while True:
            t = service.table(str(group))
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
        t = service.table(str(group))
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
        """The fake forgets a checked table (its messages and calls), so the memory
        measured is the bot's."""
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=0.05, help="share of calls that fail")
    parser.add_argument("--parallel", type=int, default=16, help="tables played at once")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--pictures", action="store_true", help="boards and racks as images")
    args = parser.parse_args()
    logging.basicConfig(level=logging.CRITICAL)
    api = FakeBotAPI(TOKEN).start()
    api.stall = 1.0
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:

        def make_service(path: Path) -> Service:
            return Service(
                SQLiteStore(path),
                Settings(),
                rng=random.Random(args.seed),
                pictures=args.pictures,
            )

        runner = BotRunner(api, Path(folder) / "soak.db", make_service=make_service, timeout=0.5)
        runner.start()
        api.chaos(args.rate, seed=args.seed)
        soak = Soak(api, runner, args.seed)
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
                    if soak.baseline is None and soak.done >= min(BASELINE_TABLES, args.tables):
                        gc.collect()
                        soak.baseline = rss_mb()
                        print(
                            f"after {soak.done} tables: {soak.baseline:.1f} MB resident, "
                            f"{time.monotonic() - started:.0f} s",
                            flush=True,
                        )
                    elif soak.done % 100 == 0:
                        print(
                            f"after {soak.done} tables: {rss_mb():.1f} MB, "
                            f"{time.monotonic() - started:.0f} s; finished {soak.finished}, "
                            f"{soak.moves} moves, lost {soak.lost}, doubled {soak.doubled}",
                            flush=True,
                        )

        threads = [threading.Thread(target=worker) for _ in range(args.parallel)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        api.chaos(0, seed=0)
        gc.collect()
        final = rss_mb()
        faults: Counter[str] = Counter(fault for _method, fault in api.faults)
        by_method: Counter[str] = Counter(method for method, _fault in api.faults)
        runner.stop()
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
        f"resident memory: {baseline:.1f} MB after {min(BASELINE_TABLES, args.tables)} "
        f"tables, {final:.1f} MB after {args.tables} ({growth:+.1f} %)"
    )
    print(f"time: {elapsed:.0f} s (pictures {'on' if args.pictures else 'off'})")
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
