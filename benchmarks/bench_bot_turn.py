"""How long the table service takes for one turn: a command in, the outbounds out (the
board PNG for the chat, the rack PNG for the next player), with many tables in one store.

Computer thinking is excluded: people play both seats. Prints the figures; the goal of
issue 6 is a p95 of at most 50 ms with 200 tables open. Each figure is given in wall time
and, beside it, in this process's CPU time (``time.process_time``): on a shared machine
the wall time moves with the load (issue 50: a p95 of 55.7 ms at load 11, 11.6 ms at
load 4), the CPU time much less; the load average is printed with them.

    .venv/bin/python benchmarks/bench_bot_turn.py [--tables 200] [--turns 600]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.core import games  # noqa: E402
from bot.core.outbound import Chat, User  # noqa: E402
from bot.service import Service  # noqa: E402
from bot.store.sqlite import SQLiteStore  # noqa: E402


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--turns", type=int, default=600, help="turns measured in all")
    args = parser.parse_args()
    rng = random.Random(1)
    people = [User("u1", "Ada"), User("u2", "Bob")]
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "bench.sqlite3"
        service = Service(SQLiteStore(db), rng=random.Random(2))
        chats = [Chat(f"chat-{i}", f"Table {i}") for i in range(args.tables)]
        for chat in chats:
            for person in people:
                service.handle(chat, person, "/join")
            service.handle(chat, people[0], "/start")
        while batch := service.waiting():  # the starts' messages, posted
            for said in batch:
                service.delivered(said)

        def turn(chat: Chat) -> tuple[float, float]:
            table = service.store.load(chat.id)
            assert table is not None and table.record is not None
            game = games.rebuild(table.record)  # the players' choice, not timed
            text = games.format_move(game, rng.choice(game.legal_moves()))
            command = f"/{text}" if text in ("swap", "keep") else f"/play {text}"
            person = people[game.to_move]
            start, cpu = time.perf_counter(), time.process_time()
            out = service.handle(chat, person, command)
            elapsed = time.perf_counter() - start, time.process_time() - cpu
            assert any(o.attachment is not None for o in out), out
            assert not any(o.kind == "error" for o in out), out
            for said in out:  # posted, as a platform says once it delivered (not timed)
                service.delivered(said)
            return elapsed

        loads = [os.getloadavg()[0]]
        warm = [turn(chats[i % len(chats)]) for i in range(args.turns)]
        # A restarted bot: nothing cached, every table's game is rebuilt from its record.
        service.store.close()
        service = Service(SQLiteStore(db), rng=random.Random(3))
        cold = [turn(chat) for chat in chats]
        loads.append(os.getloadavg()[0])
        size = db.stat().st_size
    for name, values in (("turn", warm), ("first turn after a restart", cold)):
        for kind, k in (("wall", 0), ("CPU", 1)):
            ms = [v[k] * 1000 for v in values]
            print(
                f"{name}, {kind}: n={len(ms)}  p50={statistics.median(ms):.1f} ms"
                f"  p95={percentile(ms, 95):.1f} ms  max={max(ms):.1f} ms"
            )
    print(
        f"tables: {args.tables}  store: {size / 1024:.0f} KiB"
        f"  load average {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
