"""How late each board reaches a Telegram group in a fast game, under the group limit.

Telegram takes 20 messages in any minute in one group, and the bot's rate limiter
(``bot.telegram.limiter``) holds back whatever goes past that. Two people play a move every
``--every`` seconds; each move's board is late by the time from the move to the board's
arrival at the Bot API (the fake of tests/bot/telegram, refusing with a 429 what goes past
Telegram's flood limits). A player moves only once they have the board of the move
before, so a late board delays the game too. ``--busy N``: Telegram counted N messages in
the group over the last half minute that the bot does not know of (it sent them before a
restart).

The real bot (python-telegram-bot, our adapter and rate limiter, the service on SQLite)
runs against the fake Bot API. To take seconds rather than minutes, time runs ``--scale``
times faster: the service's clock, by which the limiter and the fake count each group's
minute, runs ``scale`` times as fast, and the limiter's waits are that much shorter; the
figures printed are in game seconds (real seconds times the scale).

    .venv/bin/python benchmarks/bench_group_pace.py [--moves 30] [--every 4] [--scale 10]

Run it on another checkout (the code before a change) with ``PYTHONPATH=<checkout>``
and this file's path: it uses whatever ``bot`` package comes first.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, os.environ.get("PYTHONPATH") or str(ROOT))
sys.path.insert(1, str(ROOT))

from bot.core import games  # noqa: E402
from bot.core.config import Settings  # noqa: E402
from bot.service import Service  # noqa: E402
from bot.store.sqlite import SQLiteStore  # noqa: E402
from bot.telegram.limiter import ChatRateLimiter  # noqa: E402
from bot.telegram.pace import Pace  # noqa: E402
from tests.bot.telegram.fake_api import BotRunner, FakeBotAPI  # noqa: E402

TOKEN = "424242:AAHtestTOKENnever-shown_0123456789"
GROUP = -1001234567890
ADA, CAROL = 101, 202
POSTS = ("sendMessage", "sendPhoto")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=30)
    parser.add_argument("--every", type=float, default=4.0, help="game seconds between moves")
    parser.add_argument("--scale", type=float, default=10.0, help="how much faster time runs")
    parser.add_argument("--busy", type=int, default=0, help="messages Telegram counted before")
    args = parser.parse_args()
    scale = args.scale

    api = FakeBotAPI(TOKEN).start()
    api.group(GROUP, "Genial night")
    api.user(ADA, "Ada")
    api.user(CAROL, "Carol")
    arrived: dict[int, float] = {}  # index of each call -> when it reached the API
    lock = threading.Lock()
    call = api._call

    def timed(method: str, params: dict[str, Any], files: dict[str, Any]) -> Any:
        with lock:
            arrived[len(api.calls)] = time.monotonic()
        return call(method, params, files)

    api._call = timed  # type: ignore[method-assign]
    start = time.monotonic()

    def clock() -> float:  # the service's seconds, ``scale`` times as fast as real ones
        return 1_700_000_000.0 + (time.monotonic() - start) * scale

    async def sleep(seconds: float) -> None:  # the limiter's waits, in the clock's seconds
        await asyncio.sleep(seconds / scale)

    api.flood_limits(clock)
    if args.busy:
        api.busy(GROUP, args.busy, spread=30.0)
    limiter = ChatRateLimiter(Pace(clock), sleep=sleep)

    with tempfile.TemporaryDirectory() as tmp:

        def make_service(path: Path) -> Service:
            store = SQLiteStore(path)
            return Service(store, Settings(), rng=random.Random(4), clock=clock, pictures=False)

        runner = BotRunner(
            api, Path(tmp) / "t.db", make_service=make_service, rate_limiter=limiter
        ).start()
        try:
            for user, text in ((ADA, "/join"), (CAROL, "/join"), (ADA, "/start")):
                runner.wait(api.say(GROUP, user, text))
            rng = random.Random(4)
            late: list[float] = []
            turn = time.monotonic()
            for _ in range(args.moves):
                table = runner.service.table(str(GROUP))
                if table is None or table.record is None or table.status != "playing":
                    break
                game = games.rebuild(table.record)
                seat = table.seats[game.to_move]
                move = games.format_move(game, rng.choice(game.legal_moves()))
                text = f"/{move}" if move in ("swap", "keep") else f"/play {move}"
                turn = max(turn + args.every / scale, time.monotonic())
                time.sleep(max(0.0, turn - time.monotonic()))
                seen = len(api.calls)
                sent = time.monotonic()
                runner.wait(api.say(GROUP, int(seat.user or 0), text), timeout=600)
                with api._cond:
                    board = next(
                        i
                        for i, c in enumerate(api.calls[seen:], seen)
                        if c.method in POSTS and c.chat == GROUP
                    )
                late.append((arrived[board] - sent) * scale)
        finally:
            runner.stop()
            api.close()
    requests = sum(1 for c in api.calls if c.chat == GROUP)
    floods = [c.at - 1_700_000_000.0 for c in api.calls if c.status == 429 and c.at is not None]
    stamps = [c.at for c in api.calls if c.chat == GROUP and c.status == 200 and c.at is not None]
    busiest = max((sum(1 for s in stamps if end - 60 < s <= end) for end in stamps), default=0)
    first_late = next((n for n, s in enumerate(late, 1) if s > 1.0), None)
    print(f"moves {len(late)}, one every {args.every:g} s (time {scale:g}x faster)")
    print(f"requests into the group: {requests} ({requests / max(1, len(late)):.2f} a move)")
    print(f"most messages into the group in any 60 s: {busiest}")
    print(f"429s: {len(floods)}", *(f"at {t:.0f} s" for t in floods))
    print(f"board late: mean {statistics.mean(late):.2f} s, max {max(late):.2f} s")
    print(f"first board more than 1 s late: move {first_late or 'none'}")
    print("late by move (s):", " ".join(f"{s:.1f}" for s in late))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
