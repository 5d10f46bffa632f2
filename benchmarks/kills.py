"""Kill the console bot with SIGKILL hundreds of times while two people and two computer
players play whole games, restarting it on the same store each time; prints the figures.
The goal of issue 17 (item 3): 0 lost, 0 doubled, every stored record replays.

    .venv/bin/python benchmarks/kills.py [--kills 200] [--seed 17] [--db PATH_OR_URL]

Without ``--db`` the store is a SQLite file in a temporary folder. A database URL must
name an empty store (the run plays at the console's one table). The kill moments and
what counts as told, lost and doubled: ``tests/bot/kills.py``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.bot.kills import Figures, KillRun  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--games", type=int, default=1, help="play at least this many games")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--kill-rate", type=float, default=0.4, help="share of commands killed")
    parser.add_argument("--db", help="the store (default: a SQLite file in a temporary folder)")
    args = parser.parse_args()
    started = time.monotonic()

    def progress(f: Figures) -> None:
        if f.kills % 50 == 0:
            took = time.monotonic() - started
            print(f"  {f.kills} kills, {f.games} games, {took:.0f} s", flush=True)

    with tempfile.TemporaryDirectory() as folder:
        db = args.db or str(Path(folder) / "kills.sqlite3")
        run = KillRun(
            db,
            Path(folder),
            seed=args.seed,
            kills=args.kills,
            games=args.games,
            kill_rate=args.kill_rate,
            progress=progress,
        )
        figures = run.run()
    took = time.monotonic() - started
    print(f"store: {'SQLite file' if args.db is None else args.db}, seed {args.seed}")
    for line in figures.lines():
        print(line)
    print(f"time: {took:.1f} s")
    for kind, found in (
        ("lost", figures.lost),
        ("doubled", figures.doubled),
        ("told twice", figures.told_twice),
        ("does not replay", figures.unreplayable),
    ):
        for item in found[:10]:
            print(f"  {kind}: {item}")
    bad = figures.lost or figures.doubled or figures.told_twice or figures.unreplayable
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
