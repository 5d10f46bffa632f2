"""Kill the Telegram bot between the commit and the post, many times: ``genial-bot
telegram`` against the fake Bot API, two people playing in a group, SIGKILLed as it posts
a move's board (every second move), started again on the same store; prints the figures.
The goal of issue 23 (item 1): announcements lost 0, doubled 0.

    .venv/bin/python benchmarks/kills_before_post.py [--kills 30] [--games 2] [--seed 23]
        [--db postgresql://…]

Each game is played on a fresh store: a SQLite file in a temporary folder, or a fresh
schema of the PostgreSQL database ``--db`` names. What counts as lost and doubled:
``tests/bot/telegram/post_kills.py``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.bot.backends import schema_url  # noqa: E402
from tests.bot.telegram.fake_api import FakeBotAPI  # noqa: E402
from tests.bot.telegram.post_kills import TOKEN, Figures, KillRun  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=30, help="kills per game, at most")
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--seed", type=int, default=23)
    parser.add_argument("--db", help="a PostgreSQL URL (default: SQLite files)")
    args = parser.parse_args()
    started = time.monotonic()
    total = Figures()
    for game in range(args.games):
        with tempfile.TemporaryDirectory() as folder:
            storage = (
                schema_url(args.db, f"kills-before-post-{game}-{time.time()}")
                if args.db
                else str(Path(folder) / "t.db")
            )
            api = FakeBotAPI(TOKEN).start()
            run = KillRun(api, Path(folder), storage, seed=args.seed + game)
            try:
                figures = run.play(kills=args.kills)
            finally:
                run.close()
                api.close()
        total.kills += figures.kills
        total.moves += figures.moves
        total.lost += figures.lost
        total.doubled += figures.doubled
        total.restart_seconds += figures.restart_seconds
        print(f"  game {game + 1}: {figures.kills} kills, {figures.moves} moves", flush=True)
    print(f"store: {'PostgreSQL' if args.db else 'SQLite file'}, seed {args.seed}")
    for line in total.lines():
        print(line)
    print(f"time: {time.monotonic() - started:.1f} s")
    for kind, found in (("lost", total.lost), ("doubled", total.doubled)):
        for move in found[:10]:
            print(f"  {kind}: {move}")
    return 1 if total.lost or total.doubled else 0


if __name__ == "__main__":
    raise SystemExit(main())
