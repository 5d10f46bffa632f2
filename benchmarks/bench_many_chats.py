"""Many Telegram groups at once through one bot, under Telegram's flood limits (issue 43).

The real bot (python-telegram-bot with our adapter, clock and rate limiter, the service on
SQLite, as ``tests/bot/telegram/fake_api.py``'s :class:`BotRunner` runs it) against the fake
Bot API refusing with a 429 whatever goes past Telegram's limits (20 messages in any 60 s of
a group, one a second in a private chat, 30 a second over all). ``--groups`` groups play at
once:

- about a tenth play a game of four computer players (``/join``, ``/addbot random`` x3,
  ``/start``, ``/leave``): the busiest groups, told at their group's pace;
- about a tenth hold one person who never moves against a computer, on a one-minute clock
  (``/option timeout 1m``): a reminder at 30 s and a timeout at 60 s each turn;
- about one in fifteen (``--tournaments``) hold a tournament of four people signed up by
  message (``/tournament new swiss 1 rounds 2 players 10m``, ``/tournament join``), its
  round of two tables started as play begins with a deadline ``--deadline`` seconds later
  (a round time shorter than people may set, written into the stored tournament before the
  start); nobody moves, so at the deadline the computer plays both tables out in the
  players' names, a turn at a time, each told in the group;
- the rest: two people, on one-minute clocks, each moving ``--every`` seconds (jittered)
  after they got the board of the move before; the benchmark reads the mover's legal moves
  from the service and types ``/play ...`` as that person, and ``/rematch`` when a game
  ends.

The last group (``--busy``) starts with 20 messages Telegram counted in the last half minute that
the bot does not know of (as after a restart): its first post draws a 429, and the benchmark
measures whether that 429 held back any other group.

Figures, all in the bot's clock (the service's, which the limiter and the fake share):

- a person's move -> its board in their group: from the update's arrival at the fake API
  to the board's arrival there, for moves whose group had room in its minute;
- a reminder's and a timeout's lateness: its post's arrival minus the due time the table
  held when the clock took that step; a round deadline's: the arrival of each table's
  first turn played out (which says the round's time is up) minus the round's deadline;
- the tournaments' play-outs: moves told, and how long after its deadline each round
  closed (its winner posted), if it did within the run;
- 429s after the first minute; the longest a post to another group, whose own chat had
  room, waited in the limiter while one group was held by a 429;
- lost and doubled messages: every move the store holds told once in its group;
- CPU seconds and peak memory of the process (the fake API and the players' driver run in
  it too, so both are upper bounds for the bot), and the CPU seconds of the process beside
  it where the finished games are reviewed (bot/community/reviewer.py).

``--scale``: time runs that many times faster (the service's clock, the clock's and the
limiter's sleeps); then the bot's own work counts ``scale`` times as much in the bot's clock.

    .venv/bin/python benchmarks/bench_many_chats.py [--groups 60] [--minutes 5] [--scale 1]
    .venv/bin/python benchmarks/bench_many_chats.py --groups 12 --minutes 3   # a quick run

"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import resource
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, os.environ.get("PYTHONPATH") or str(ROOT))
sys.path.insert(1, str(ROOT))

from telegram.error import RetryAfter  # noqa: E402

from bot.community import reviews  # noqa: E402
from bot.core import games  # noqa: E402
from bot.core.config import Settings  # noqa: E402
from bot.core.service import Step  # noqa: E402
from bot.core.table import PLAYING  # noqa: E402
from bot.service import Service  # noqa: E402
from bot.store.sqlite import SQLiteStore  # noqa: E402
from bot.telegram import outbox  # noqa: E402
from bot.telegram.limiter import ChatRateLimiter, _seconds  # noqa: E402
from bot.telegram.pace import Pace, chat_key, messages  # noqa: E402
from bot.tournaments.places import saved  # noqa: E402
from tests.bot.telegram.fake_api import (  # noqa: E402
    COUNTED,
    BotRunner,
    FakeBotAPI,
    bot_texts,
    told_moves,
)

TOKEN = "424242:AAHtestTOKENnever-shown_0123456789"
EPOCH = 1_700_000_000.0
POSTS = ("sendMessage", "sendPhoto")
REMINDER = ", it is your turn at "
TIMED_OUT = "Time is up for "
#: The first turn a round's deadline hands to the computer says so.
DEADLINE = "The round's time is up: the computer plays the rest"
TOURNAMENT_PLAYERS = 4


@dataclass
class Group:
    chat: int
    kind: str  # "computers", "idle", "tournament" or "people"
    people: list[int]
    next_at: float = 0.0
    #: The move typed and not yet on the board: (when, its notation).
    pending: tuple[float, str] | None = None
    boards: list[tuple[float, float]] = field(default_factory=list)  # (move at, latency)
    unanswered: int = 0
    #: Commands still to type before the next move (a rematch), and the last one typed.
    script: list[tuple[int, str]] = field(default_factory=list)
    update: int | None = None
    rematches: int = 0


class Watched(ChatRateLimiter):
    """The bot's rate limiter, noting for each request when it came, whether its chat had
    room then, when it went, and each 429's hold."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        #: (chat, came, went, chat had room when it came)
        self.requests: list[tuple[Any, float, float, bool]] = []
        #: (chat, from, until)
        self.holds: list[tuple[Any, float, float]] = []

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, Any]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> Any:
        chat = chat_key(data.get("chat_id"))
        came = self.clock()
        count = messages(endpoint, data)
        room = (
            chat is not None
            and chat not in self._lines
            and self.held(chat) <= 0
            and self.pace.wait(chat, count) <= 0
        )
        first = True

        async def watched(*a: Any, **kw: Any) -> Any:
            nonlocal first
            if first and chat is not None and count:
                self.requests.append((chat, came, self.clock(), room))
            first = False
            try:
                return await callback(*a, **kw)
            except RetryAfter as exc:
                now = self.clock()
                self.holds.append((chat, now, now + _seconds(exc)))
                raise

        return await super().process_request(watched, args, kwargs, endpoint, data, rate_limit_args)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def goal(ok: bool) -> str:
    return "met" if ok else "NOT met"


def reviewer_cpu() -> float:
    """CPU seconds of the reviewer's process (bot/community/reviewer.py), which is ended
    (with a review under way) and waited for: its time is then the children's."""
    reviews.reviewer().close()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return children.ru_utime + children.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=60)
    parser.add_argument("--minutes", type=float, default=5.0, help="of play, bot's clock")
    parser.add_argument("--every", type=float, default=5.0, help="seconds between moves")
    parser.add_argument("--scale", type=float, default=1.0, help="how much faster time runs")
    parser.add_argument("--busy", type=int, default=20, help="messages counted in the last group")
    parser.add_argument(
        "--tournaments", type=int, default=None, help="groups playing a round (~1 in 15)"
    )
    parser.add_argument(
        "--deadline", type=int, default=60, help="seconds from a round's start to its end"
    )
    parser.add_argument("--seed", type=int, default=43)
    parser.add_argument("--verbose", action="store_true", help="each reminder and timeout")
    args = parser.parse_args()
    scale = args.scale
    rng = random.Random(args.seed)

    api = FakeBotAPI(TOKEN).start()
    groups: list[Group] = []
    n_computers = max(1, round(args.groups / 10))
    n_idle = max(1, round(args.groups / 10))
    n_cups = max(1, round(args.groups / 15)) if args.tournaments is None else args.tournaments
    for g in range(args.groups):
        chat = -1001000000000 - g
        kind = (
            "computers"
            if g < n_computers
            else "idle"
            if g < n_computers + n_idle
            else "tournament"
            if g < n_computers + n_idle + n_cups
            else "people"
        )
        size = {"people": 2, "tournament": TOURNAMENT_PLAYERS}.get(kind, 1)
        people = [100_000 + 10 * g + k for k in range(size)]
        api.group(chat, f"Group {g}")
        for k, user in enumerate(people):
            api.user(user, f"P{g}{'abcd'[k]}")
        groups.append(Group(chat, kind, people))
    by_chat = {g.chat: g for g in groups}

    start = time.monotonic()

    def clock() -> float:  # the bot's seconds, ``scale`` times as fast as real ones
        return EPOCH + (time.monotonic() - start) * scale

    async def sleep(seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds) / scale)

    api.flood_limits(clock)
    # Merged messages: turn messages that waited together while their group had no room,
    # told as one (the outbox's ``merged``), counted as they are made.
    merges: list[int] = []
    merge = outbox.merged

    def counted_merge(turns: Any) -> Any:
        merges.append(len(turns))
        return merge(turns)

    outbox.merged = counted_merge  # type: ignore[assignment]
    limiter = Watched(Pace(clock), sleep=sleep)
    #: (chat, "reminder", "timeout" or "deadline", due at, the step's time) as the clock's
    #: steps made them.
    dues: list[tuple[int, str, float, float]] = []
    #: Each tournament group's round deadline, once its round has started.
    deadlines: dict[int, float] = {}

    class TimedService(Service):
        def step(self, chat: str, now: float | None = None, *, steps: int = 1) -> Step:
            table = self.table(chat)
            due = table.due_at if table is not None else None
            at = self.clock() if now is None else now
            step = super().step(chat, now, steps=steps)
            for out in step.out:
                if out.user is None and DEADLINE in out.text:
                    place = int(out.chat)
                    dues.append((place, "deadline", deadlines.get(place, at), at))
                    continue
                if due is None or out.user is not None:
                    continue
                if out.kind == "reminder":
                    dues.append((int(chat), "reminder", due, at))
                elif TIMED_OUT in out.text:
                    dues.append((int(chat), "timeout", due, at))
            return step

    cpu0 = time.process_time()
    with tempfile.TemporaryDirectory() as tmp:

        def make_service(path: Path) -> Service:
            return TimedService(
                SQLiteStore(path), Settings(), rng=random.Random(4), clock=clock, pictures=False
            )

        runner = BotRunner(
            api,
            Path(tmp) / "t.db",
            make_service=make_service,
            rate_limiter=limiter,
            sleep=sleep,
            due_interval=60.0,
        ).start()
        load = [os.getloadavg()[0]]
        try:
            setup_wall = time.monotonic()
            scripts: dict[int, list[tuple[int, str]]] = {}
            for g in groups:
                a = g.people[0]
                if g.kind == "computers":
                    lines = ["/join"] + ["/addbot random"] * 3 + ["/start", "/leave"]
                    scripts[g.chat] = [(a, t) for t in lines]
                elif g.kind == "idle":
                    lines = ["/join", "/addbot random", "/option timeout 1m", "/start"]
                    scripts[g.chat] = [(a, t) for t in lines]
                elif g.kind == "tournament":
                    new = (a, "/tournament new swiss 1 rounds 2 players 10m")
                    scripts[g.chat] = [new, *((p, "/tournament join") for p in g.people)]
                else:
                    b = g.people[1]
                    scripts[g.chat] = [
                        (a, "/join"),
                        (b, "/join"),
                        (a, "/option timeout 1m"),
                        (a, "/start"),
                    ]
            for step_no in range(max(len(s) for s in scripts.values())):
                ids = [
                    api.say(chat, *script[step_no])
                    for chat, script in scripts.items()
                    if step_no < len(script)
                ]
                runner.wait(*ids, timeout=600)
            cups = [g for g in groups if g.kind == "tournament"]
            store = runner.service.store
            tids: dict[int, str] = {}
            for g in cups:
                # A round shorter than the 10 minutes people may set: written into the
                # stored tournament before its start pairs the round.
                (tids[g.chat],) = store.tournaments_of(str(g.chat))
                found = store.load_tournament(tids[g.chat])
                assert found is not None
                version, data = found
                data["round_time"] = args.deadline
                store.save_tournament(saved(data, version + 1), version)
            setup = time.monotonic() - setup_wall
            began = clock()
            end = began + args.minutes * 60
            # The rounds start as play begins: their deadlines fall due during the run.
            runner.wait(*(api.say(g.chat, g.people[0], "/tournament start") for g in cups))
            for g in cups:
                found = store.load_tournament(tids[g.chat])
                assert found is not None and found[1]["played"], "the round did not start"
                deadlines[g.chat] = float(found[1]["played"][-1]["deadline"])
            if args.busy:  # as after a restart: Telegram counted messages the bot did not
                api.busy(groups[-1].chat, args.busy, spread=30.0)
            for g in groups:
                g.next_at = began + rng.uniform(0, args.every)
            moves_rng = random.Random(args.seed + 1)
            seen = 0
            last_load = time.monotonic()
            movers = [g for g in groups if g.kind == "people"]
            while True:
                now = clock()
                if time.monotonic() - last_load > 30:
                    load.append(os.getloadavg()[0])
                    last_load = time.monotonic()
                with api._cond:
                    new = api.calls[seen:]
                    seen = len(api.calls)
                for call in new:
                    g2 = by_chat.get(call.chat or 0)
                    if (
                        g2 is None
                        or g2.pending is None
                        or call.status != 200
                        or call.method not in POSTS
                        or call.at is None
                        or call.at < g2.pending[0]
                    ):
                        continue
                    if g2.pending[1] in told_moves([call.text]):
                        g2.boards.append((g2.pending[0], call.at - g2.pending[0]))
                        g2.pending = None
                        g2.next_at = call.at + args.every * moves_rng.uniform(0.6, 1.4)
                if now >= end:
                    if all(g.pending is None for g in movers) or now >= end + 60:
                        break
                    time.sleep(0.02)
                    continue
                for g in movers:
                    if g.pending is not None:
                        if now - g.pending[0] > 60:  # no board: move again
                            g.unanswered += 1
                            g.pending = None
                        continue
                    if g.update is not None:
                        if g.update not in runner.handled:
                            continue
                        g.update = None
                    if g.script:
                        user, text = g.script.pop(0)
                        g.update = api.say(g.chat, user, text)
                        continue
                    if now < g.next_at:
                        continue
                    table = runner.service.table(str(g.chat))
                    game = games.rebuild(table.record) if table and table.record else None
                    if table is None or game is None or game.over or table.status != PLAYING:
                        # The game is over: the same two play again (at most a few times).
                        g.rematches += 1
                        if g.rematches > 5:
                            g.next_at = now + 3600
                        else:
                            g.script = [(g.people[0], "/rematch"), (g.people[0], "/start")]
                        continue
                    seat = table.seats[game.to_move]
                    if seat.computer:
                        g.next_at = now + 1
                        continue
                    move = games.format_move(game, moves_rng.choice(game.legal_moves()))
                    text = f"/{move}" if move in ("swap", "keep") else f"/play {move}"
                    g.pending = (clock(), move)
                    api.say(g.chat, int(seat.user or 0), text)
                time.sleep(0.02)
            played = clock() - began
        finally:
            stop_wall = time.monotonic()
            runner.stop(timeout=120)
            api.close()
        cpu = time.process_time() - cpu0
        wall = time.monotonic() - start
        review_cpu_s = reviewer_cpu()
        print(f"stopped in {time.monotonic() - stop_wall:.1f} s wall")
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

        # Lost and doubled: every move the store holds told once in its group.
        lost = doubled = 0
        stored_moves = finished = 0
        store = SQLiteStore(Path(tmp) / "t.db")
        #: Per tournament group: its tables, how many still playing, and whether it ended.
        cup_state: dict[int, tuple[int, int, bool]] = {}
        for g in groups:
            table = store.load(str(g.chat))
            # A tournament's games are archived under its group (its home) as they end.
            records = [a["record"] for a in store.archived(str(g.chat)) if a.get("record")]
            if table is not None and table.record and table.record not in records[-1:]:
                records.append(table.record)
            playing = int(table is not None and table.status == PLAYING)
            if g.chat in tids:
                found = store.load_tournament(tids[g.chat])
                data = found[1] if found is not None else {}
                chats = [p["chat"] for r in data.get("played", []) for p in r["pairings"]]
                running = [store.load(c) for c in chats]
                live = [t for t in running if t is not None and t.status == PLAYING]
                records += [t.record for t in live if t.record]
                playing += len(live)
                cup_state[g.chat] = (len(chats), len(live), data.get("status") == "finished")
            held = [str(m) for r in records for m in r["moves"]]
            stored_moves += len(held)
            finished += len(records) - playing
            told = Counter(told_moves(bot_texts(api, g.chat)))
            want = Counter(held)
            lost += sum((want - told).values())
            doubled += sum((told - want).values())
            if args.verbose and want != told:
                print(
                    f"  group {groups.index(g)}, {g.kind}: lost {dict(want - told)},"
                    f" doubled {dict(told - want)}"
                )
        store.close()

    def describe(chat: int) -> str:
        g = by_chat[chat]
        busy = " (the group that drew the 429)" if args.busy and g is groups[-1] else ""
        return f"group {groups.index(g)}, {g.kind}{busy}"

    # Posts and 429s.
    calls = [c for c in api.calls if c.at is not None]
    floods = [c for c in calls if c.status == 429]
    late_floods = [c for c in floods if c.at is not None and c.at > began + 60]
    ok_posts: dict[int, list[float]] = {}
    for c in calls:
        if c.status == 200 and c.method in COUNTED and c.chat is not None:
            ok_posts.setdefault(c.chat, []).append(c.at or 0.0)

    # Move -> board, in groups with room in their minute when the move was typed.
    within: list[float] = []
    over: list[float] = []
    if args.busy:  # the messages Telegram counted in the last group before play began
        step = 30.0 / (args.busy - 1) if args.busy > 1 else 0.0
        ok_posts.setdefault(groups[-1].chat, []).extend(
            began - 30.0 + n * step for n in range(args.busy)
        )
    worst_board = (0.0, 0)
    for g in movers:
        stamps = ok_posts.get(g.chat, [])
        for at, latency in g.boards:
            recent = sum(1 for s in stamps if at - 60 < s <= at)
            (within if recent < 19 else over).append(latency)
            worst_board = max(worst_board, (latency, g.chat))
    unanswered = sum(g.unanswered for g in movers)

    # Lateness of reminders and timeouts: the k-th of each in a group is its k-th post.
    posted: dict[tuple[int, str], list[float]] = {}
    for c in calls:
        if c.status != 200 or c.method not in POSTS or c.chat is None:
            continue
        kind = (
            "reminder"
            if REMINDER in c.text
            else "timeout"
            if TIMED_OUT in c.text
            else "deadline"
            if DEADLINE in c.text
            else None
        )
        if kind:
            posted.setdefault((c.chat, kind), []).append(c.at or 0.0)
    late: dict[str, list[float]] = {"reminder": [], "timeout": [], "deadline": []}
    unposted = 0
    counted: Counter[tuple[int, str]] = Counter()
    worst_late = (0.0, 0, "", 0.0)
    step_late: list[float] = []
    for chat, kind, due, at in dues:
        k = counted[(chat, kind)]
        counted[(chat, kind)] += 1
        arrivals = posted.get((chat, kind), [])
        step_late.append(at - due)
        if args.verbose:
            arrival = f"{arrivals[k] - began:.2f}" if k < len(arrivals) else "never"
            print(
                f"  {describe(chat)}: {kind} due {due - began:.2f}, step at"
                f" {at - began:.2f}, posted {arrival} (s of play)"
            )
        if k < len(arrivals):
            late[kind].append(arrivals[k] - due)
            worst_late = max(worst_late, (arrivals[k] - due, chat, kind, due - began))
        else:
            unposted += 1
    lateness = late["reminder"] + late["timeout"] + late["deadline"]
    print(
        "reminders', timeouts' and round deadlines' steps after their due time:"
        f" p95 {pct(step_late, 0.95):.2f} s,"
        f" max {max(step_late, default=float('nan')):.2f} s (the rest of the lateness: telling)"
    )

    # Another group's post, its chat with room, held while one group waited out a 429.
    held_back = [
        went - came
        for chat, came, went, room in limiter.requests
        if room
        and isinstance(chat, int)
        and chat < 0
        and any(chat != c and t0 <= came <= t1 for c, t0, t1 in limiter.holds)
    ]
    any_room = [went - came for _c, came, went, room in limiter.requests if room]

    kinds = Counter(g.kind for g in groups)

    pace = f"runs {scale:g}x faster than real time" if scale != 1 else "is real time"
    print(
        f"bench_many_chats: {args.groups} groups ({kinds['people']} of two people moving every"
        f" ~{args.every:g} s, {kinds['computers']} of four computers, {kinds['idle']} where"
        f" nobody moves, {kinds['tournament']} in a tournament round of two tables played out"
        f" by its deadline {args.deadline} s after its start), one-minute clocks; fake Bot"
        " API enforcing Telegram's flood limits"
    )
    print(
        f"time {pace};"
        f" all figures in the bot's clock. setup {setup:.1f} s wall; play {played:.0f} s bot"
        f" clock; wall {wall:.1f} s; CPU {cpu:.1f} s"
        f" ({cpu / max(wall, 1e-9):.2f} cores; fake API and driver included)"
    )
    print(f"load average (1 min) during the run: {min(load):.1f}-{max(load):.1f}")
    typed = sum(len(g.boards) for g in movers)
    print(
        f"moves played by people: {typed}; stored moves: {stored_moves}; games over: {finished}"
        " (each reviewed by the expert as due work, in the reviewer's process)"
    )
    p95 = pct(within, 0.95)
    print(
        f"move -> board, group within its budget ({len(within)}): p50 {pct(within, 0.5):.2f} s,"
        f" p95 {p95:.2f} s, max {max(within, default=float('nan')):.2f} s"
        f"   goal p95 <= 2 s: {goal(p95 <= 2)}"
    )
    if over:
        print(
            f"move -> board, group over its budget ({len(over)}): p50 {pct(over, 0.5):.2f} s,"
            f" p95 {pct(over, 0.95):.2f} s, max {max(over):.2f} s (no goal)"
        )
    print(f"moves whose board never came within 60 s: {unanswered}")
    if worst_board[1]:
        print(f"  slowest board: {worst_board[0]:.2f} s, in {describe(worst_board[1])}")
    for kind in ("reminder", "timeout", "deadline"):
        v = late[kind]
        print(
            f"{kind} lateness ({len(v)}): p95 {pct(v, 0.95):.2f} s, max"
            f" {max(v, default=float('nan')):.2f} s"
        )
    lp95, lmax = pct(lateness, 0.95), max(lateness, default=float("nan"))
    print(
        f"reminders, timeouts and round deadlines together ({len(lateness)}, {unposted} never"
        " posted): p95"
        f" {lp95:.2f} s, max {lmax:.2f} s   goal p95 <= 5 s: {goal(lp95 <= 5)},"
        f" max <= 30 s: {goal(lmax <= 30 and not unposted)}"
    )
    if worst_late[1]:
        lag, chat, kind, due_at = worst_late
        print(
            f"  latest: a {kind} due at {due_at:.0f} s of play, {lag:.2f} s late,"
            f" in {describe(chat)}"
        )
    if cup_state:
        closed = [
            at - deadlines[chat]
            for c in calls
            if c.status == 200
            and (chat := c.chat or 0) in cup_state
            and (at := c.at or 0.0)
            and " is over. Winner: " in c.text
        ]
        told = sum(len(told_moves(bot_texts(api, chat))) for chat in cup_state)
        tables = sum(n for n, _live, _done in cup_state.values())
        live = sum(live for _n, live, _done in cup_state.values())
        print(
            f"tournament rounds played out: {len(closed)} of {len(cup_state)} closed within the"
            f" run ({tables} tables, {live} still playing at the end), moves told in their"
            f" groups {told}; closed after the deadline: max"
            f" {max(closed, default=float('nan')):.0f} s (no goal: told at the group's pace)"
        )
    print(
        f"429s: {len(floods)} in all, {len(late_floods)} after the first minute of play"
        f"   goal 0 after the first minute: {goal(not late_floods)}"
    )
    for c in floods:
        where = describe(c.chat) if c.chat in by_chat else f"private chat {c.chat}"
        print(f"  429 at {(c.at or 0.0) - began:.1f} s of play: {c.method} to {where}")
    if limiter.holds:
        worst = max(held_back, default=0.0)
        print(
            f"another group held back while one waited out a 429: {len(held_back)} posts,"
            f" longest wait {worst:.2f} s   goal <= 2 s: {goal(worst <= 2)}"
        )
    else:
        print("another group held back by a 429: no 429")
    print(
        f"posts whose chat had room, wait in the limiter ({len(any_room)}): p95"
        f" {pct(any_room, 0.95):.2f} s, max {max(any_room, default=float('nan')):.2f} s"
    )
    print(
        f"lost {lost}, doubled {doubled} (of {stored_moves} stored moves)"
        f"   goal 0 and 0: {goal(not lost and not doubled)}"
    )
    print(
        f"merged messages (turns that waited while their group had no room, told as one):"
        f" {len(merges)}, telling {sum(merges)} turns"
    )
    print(
        f"CPU {cpu:.1f} s, peak memory {peak_mb:.0f} MB (the whole process);"
        f" the reviewer's process beside it {review_cpu_s:.1f} s of CPU"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
