"""Many Discord channels at once through one bot, under Discord's rate limits (issue 43).

The shape of ``bench_many_chats.py`` (Telegram) on Discord, by the harness
``tests/bot/discord/many_channels.py``: the real client in SimCord's Discord, its REST calls
through discord.py's own rate-limit handling against 5 calls in 5 s per route and channel
and 50 a second over all (``tests/bot/discord/paced_discord.py``). About a tenth of the
channels tell a game of four computer players, a tenth hold a person who never moves on a
one-minute clock (reminders and timeouts), one in fifteen (``--tournaments``) a tournament
round of two tables, each in a thread of its own, played out by the computer at its
deadline ``--deadline`` seconds after the start, the rest two people moving about every
``--every`` seconds on one-minute clocks; the last channel's first post draws a 429 of
``--planted`` seconds. Figures in SimCord's virtual time (what waits behind what), CPU and
wall time beside.

    .venv/bin/python benchmarks/bench_many_channels.py [--groups 60] [--minutes 5]
    .venv/bin/python benchmarks/bench_many_channels.py --groups 6 --minutes 1   # short
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_many_chats import goal, pct, reviewer_cpu  # noqa: E402  (the Telegram run's figures, the same way)

from tests.bot.discord.many_channels import run  # noqa: E402
from tests.bot.telegram.fake_api import told_moves  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=60)
    parser.add_argument("--minutes", type=float, default=5.0, help="of play, virtual time")
    parser.add_argument("--every", type=float, default=5.0, help="seconds between moves")
    parser.add_argument("--planted", type=float, default=30.0, help="the planted 429's wait")
    parser.add_argument("--seed", type=int, default=43)
    parser.add_argument(
        "--tournaments", type=int, default=None, help="channels playing a round (~1 in 15)"
    )
    parser.add_argument(
        "--deadline", type=float, default=60.0, help="seconds from a round's start to its end"
    )
    args = parser.parse_args()
    # Finished games are reviewed as the bot reviews them: in the reviewer's process
    # (bot/community/reviewer.py), which holds no worker thread, so SimCord (which moves
    # virtual time once the bot's worker threads are done) never waits for a review. Its
    # CPU is printed apart.
    load0 = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        f = asyncio.run(
            run(
                Path(tmp) / "t.db",
                groups=args.groups,
                minutes=args.minutes,
                every=args.every,
                planted=args.planted,
                seed=args.seed,
                tournaments=args.tournaments,
                deadline=args.deadline,
            )
        )
    load1 = os.getloadavg()[0]
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kinds = Counter(ch.kind for ch in f.channels)
    print(
        f"bench_many_channels: {args.groups} channels ({kinds['people']} of two people moving"
        f" every ~{args.every:g} s, {kinds['computers']} of four computers, {kinds['idle']}"
        f" where nobody moves, {kinds['tournament']} in a tournament round of two tables in"
        f" threads played out by its deadline {args.deadline:g} s after its start), one-minute"
        " clocks; Discord's limits: 5 per 5 s per route and channel, 50 a second"
    )
    print(
        f"play {f.played:.0f} s virtual; wall {f.wall:.1f} s (setup {f.setup_wall:.1f});"
        f" CPU {f.cpu:.1f} s; load average (1 min) {load0:.1f} at the start, {load1:.1f} at"
        " the end"
    )
    hold = f.hold()
    inside = (lambda at: hold[0] <= at <= hold[1]) if hold else (lambda at: False)
    boards = [late for ch in f.channels if ch.id != f.planted for _at, late in ch.boards]
    during = [
        late for ch in f.channels if ch.id != f.planted for at, late in ch.boards if inside(at)
    ]
    held_board = [late for ch in f.channels if ch.id == f.planted for _at, late in ch.boards]
    print(
        f"move -> board, channels within their budget ({len(boards)}): p50"
        f" {pct(boards, 0.5):.2f} s, p95 {pct(boards, 0.95):.2f} s, max"
        f" {max(boards, default=float('nan')):.2f} s   goal p95 <= 2 s:"
        f" {goal(pct(boards, 0.95) <= 2)}"
    )
    if held_board:
        print(f"move -> board in the channel held by the 429: max {max(held_board):.2f} s")
    late = f.lateness()
    both = late["reminder"] + late["timeout"] + late["deadline"]
    for kind in ("reminder", "timeout", "deadline"):
        v = late[kind]
        print(
            f"{kind} lateness ({len(v)}): p50 {pct(v, 0.5):.2f} s, p95 {pct(v, 0.95):.2f} s,"
            f" max {max(v, default=float('nan')):.2f} s"
        )
    lp95, lmax = pct(both, 0.95), max(both, default=float("nan"))
    print(
        f"reminders, timeouts and round deadlines together ({len(both)},"
        f" {len(late['unposted'])} never posted):"
        f" p95 {lp95:.2f} s, max {lmax:.2f} s   goal p95 <= 5 s: {goal(lp95 <= 5)},"
        f" max <= 30 s: {goal(lmax <= 30 and not late['unposted'])}"
    )
    if f.cups:
        closed = [
            over - max(f.deadlines.get(p, 0.0) for p in ch.places)
            for ch in f.channels
            if ch.id in f.cups and (over := f.cups[ch.id][2]) is not None and ch.places
        ]
        tables = sum(n for n, _live, _over in f.cups.values())
        live = sum(live for _n, live, _over in f.cups.values())
        told = sum(
            len(told_moves([c.text for p in ch.places for c in f.posts(p)]))
            for ch in f.channels
            if ch.id in f.cups
        )
        print(
            f"tournament rounds played out: {len(closed)} of {len(f.cups)} closed within the"
            f" run ({tables} tables, {live} still playing at the end), moves told in their"
            f" threads {told}; closed after the deadline: max"
            f" {max(closed, default=float('nan')):.0f} s (no goal: told at the thread's pace)"
        )
    floods = f.floods()
    after = [c for c in floods if c.at > f.began + 60]
    print(
        f"429s: {len(floods)} in all ({', '.join(sorted({c.scope for c in floods}))}),"
        f" {len(after)} after the first minute   goal 0: {goal(not after)}"
    )
    waits = [
        went - came
        for chat, came, went in f.requests
        if hold and chat != f.planted and hold[0] <= came <= hold[1]
    ]
    if hold:
        worst = max([*during, *waits], default=0.0)
        print(
            f"held by the planted 429 from {hold[0] - f.began:.1f} to {hold[1] - f.began:.1f} s:"
            f" other channels' boards then ({len(during)}) max"
            f" {max(during, default=0.0):.2f} s, their calls then ({len(waits)}) waited in"
            f" discord.py at most {max(waits, default=0.0):.2f} s   goal <= 2 s:"
            f" {goal(worst <= 2)}"
        )
    several = sum(
        1
        for c in f.calls
        if c.status == 200 and c.method == "POST" and len(told_moves([c.text])) > 1
    )
    print(
        "merged messages: 0 (the Discord adapter tells each turn as it comes: a table's next"
        " step waits for its last message, at the channel's 5 in 5 s); messages telling"
        f" several moves (a person's and the computers' answers): {several}"
    )
    print(
        f"lost {f.lost}, doubled {f.doubled} (of {f.stored_moves} stored moves,"
        f" {f.finished} games over)   goal 0 and 0: {goal(not f.lost and not f.doubled)}"
    )
    print(
        f"CPU {f.cpu:.1f} s beside {f.wall:.1f} s wall, peak memory {peak_mb:.0f} MB;"
        f" the reviewer's process beside it {reviewer_cpu():.1f} s of CPU"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
