"""Many Discord channels at once through one bot, under Discord's rate limits (issue 43).

The real client (discord.py with our adapter, its clock and delivery, the service on
SQLite) in SimCord's Discord, its REST calls through discord.py's own rate-limit handling
against :mod:`tests.bot.discord.paced_discord`'s limits (5 calls in 5 s per route and
channel, 50 a second over all, a 429 with ``retry_after`` and the ``X-RateLimit-*``
headers beyond them). ``groups`` channels of one server play at once:

- about a tenth a game of four computer players (``/join``, ``/addbot`` x3, ``/start``,
  ``/leave``): the busiest channels;
- about a tenth one person who never moves against a computer, on a one-minute clock
  (``/option timeout 1m``): a reminder at 30 s and a timeout at 60 s each turn;
- about one in fifteen (``tournaments``) hold a tournament of four people signed up by slash
  command (``/tournament new swiss 1 rounds 2 players 10m``, ``/tournament join``), its
  round of two tables started (``/tournament start``) as play begins, each table in a
  thread the bot opens for it, with a deadline ``deadline`` seconds later (a round time
  shorter than people may set, written into the stored tournament before the start);
  nobody moves, so at the deadline the computer plays both tables out in the players'
  names, a turn at a time, each told in its thread;
- the rest two people on one-minute clocks, each moving ``every`` seconds (jittered) once
  they saw the board of the move before: the harness reads the mover's legal moves from
  the service and plays one (``/play``, ``/swap``, ``/keep``), and ``/rematch`` and
  ``/start`` when a game ends.

Commands are carried out by the bot's service as that person's, as a slash command is,
and wake the bot's clock, which posts what they changed from the table's outbox (the
path of due work and of letters that waited): SimCord settles the whole world after each
slash command, which with many channels waiting out rate limits never comes. So a move's
board here comes at the clock's look, not with the command's own delivery.

The last channel's first post after play begins draws a 429 of ``planted`` seconds
(scope ``shared``), and the harness measures whether it held back any other channel.

Time is SimCord's virtual time, moved ``STEP`` seconds at a time, and every figure is in
it: a call that Discord takes at once takes no time, so the figures measure what waits
behind what (rate limits, the clock's turns, one channel behind another), not the
machine's speed, which the CPU time beside the wall time gives.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import simcord

from bot.core import games
from bot.core.outbound import Chat, User
from bot.core.service import Step
from bot.core.table import PLAYING
from bot.discord.client import GenialClient
from bot.service import Service
from bot.tournaments.places import is_tournament_table, saved
from tests.bot.backends import store_at
from tests.bot.discord import contexts, patient_simcord
from tests.bot.discord.paced_discord import Call, Limits, install
from tests.bot.discord.support import SETTINGS, EnvClock
from tests.bot.telegram.fake_api import told_moves

REMINDER = ", it is your turn at "
TIMED_OUT = "Time is up for "
#: The first turn a round's deadline hands to the computer says so.
DEADLINE = "The round's time is up: the computer plays the rest"
#: What a tournament's end says in its channel.
WINNER = " is over. Winner: "
TOURNAMENT_PLAYERS = 4
#: Seconds of virtual time between two looks of the people.
STEP = 0.25
#: SimCord's horizon: a sleep of the bot's longer than this (discord.py's rate-limit
#: waits among them) ends only as the harness moves virtual time.
HORIZON = 0.2
#: Virtual seconds the harness waits at most for a slash command's work to show in the store.
SETTLING = 120.0


@dataclass
class Channel:
    handle: simcord.ChannelHandle
    kind: str  # "computers", "idle", "tournament" or "people"
    people: list[simcord.MemberActor]
    next_at: float = 0.0
    #: The move played and not yet on the board: (when, its notation).
    pending: tuple[float, str] | None = None
    boards: list[tuple[float, float]] = field(default_factory=list)  # (move at, latency)
    unanswered: int = 0
    rematches: int = 0
    #: A tournament's: its id, and the threads its tables are played in.
    tournament: str = ""
    places: list[int] = field(default_factory=list)

    @property
    def id(self) -> int:
        return int(self.handle.id)


@dataclass
class Figures:
    """What a run measured, in the bot's (virtual) clock unless said."""

    channels: list[Channel]
    calls: list[Call]
    began: float
    played: float
    #: (channel, "reminder" or "timeout", due at, the step's time)
    dues: list[tuple[int, str, float, float]]
    #: Requests of the bot: (channel, came, first sent).
    requests: list[tuple[int | None, float, float]]
    lost: int
    doubled: int
    stored_moves: int
    finished: int
    wall: float
    cpu: float
    setup_wall: float
    planted: int | None = None
    #: Each tournament table's thread -> its round's deadline.
    deadlines: dict[int, float] = field(default_factory=dict)
    #: Per tournament channel: (tables, still playing at the end, when it was over or None).
    cups: dict[int, tuple[int, int, float | None]] = field(default_factory=dict)

    def posts(self, channel: int) -> list[Call]:
        return [
            c for c in self.calls if c.channel == channel and c.status == 200 and c.method == "POST"
        ]

    def floods(self) -> list[Call]:
        return [c for c in self.calls if c.status == 429]

    def hold(self) -> tuple[float, float] | None:
        """From the planted 429 to its channel's next post Discord took."""
        if self.planted is None:
            return None
        refused = [c.at for c in self.calls if c.channel == self.planted and c.status == 429]
        if not refused:
            return None
        start = refused[0]
        after = [c.at for c in self.posts(self.planted) if c.at >= start]
        return start, (after[0] if after else self.began + self.played)

    def lateness(self) -> dict[str, list[float]]:
        """Each reminder's, timeout's and round deadline's post against its due time (the
        k-th step of a kind in a channel is its k-th post of that kind; a deadline's is the
        first turn played out at a table, in its thread)."""
        posted: dict[tuple[int, str], list[float]] = {}
        for c in self.calls:
            if c.status != 200 or c.method != "POST" or c.channel is None:
                continue
            kind = _kind(c.text)
            if kind:
                posted.setdefault((c.channel, kind), []).append(c.at)
        late: dict[str, list[float]] = {"reminder": [], "timeout": [], "deadline": []}
        late["unposted"] = []
        seen: Counter[tuple[int, str]] = Counter()
        for chat, kind, due, _at in self.dues:
            k = seen[(chat, kind)]
            seen[(chat, kind)] += 1
            arrivals = posted.get((chat, kind), [])
            if k < len(arrivals):
                late[kind].append(arrivals[k] - due)
            else:
                late["unposted"].append(due)
        return late


def _kind(text: str) -> str | None:
    if REMINDER in text:
        return "reminder"
    if TIMED_OUT in text:
        return "timeout"
    return "deadline" if DEADLINE in text else None


class TimedService(Service):
    """The service, noting the due time of each reminder, timeout and round deadline its
    steps say."""

    dues: list[tuple[int, str, float, float]]
    #: Each tournament table's thread -> its round's deadline, once the round started.
    deadlines: dict[int, float]

    def step(self, chat: str, now: float | None = None, *, steps: int = 1) -> Step:
        table = self.table(chat)
        due = table.due_at if table is not None else None
        at = self.clock() if now is None else now
        step = super().step(chat, now, steps=steps)
        for out in step.out:
            if out.user is None and DEADLINE in out.text:
                place = int(out.chat)
                self.dues.append((place, "deadline", self.deadlines.get(place, at), at))
                continue
            if due is None or out.user is not None or is_tournament_table(chat):
                continue
            if out.kind == "reminder":
                self.dues.append((int(chat), "reminder", due, at))
            elif TIMED_OUT in out.text:
                self.dues.append((int(chat), "timeout", due, at))
        return step


async def run(
    db: Path,
    *,
    groups: int = 60,
    minutes: float = 5.0,
    every: float = 5.0,
    planted: float = 30.0,
    seed: int = 43,
    tournaments: int | None = None,
    deadline: float = 60.0,
) -> Figures:
    """Play ``minutes`` of virtual time in ``groups`` channels; the store at ``db``."""
    patient_simcord.install()
    contexts.install()
    rng = random.Random(seed)
    moves_rng = random.Random(seed + 1)
    clock = EnvClock()
    service = TimedService(
        store_at(db), SETTINGS, clock=clock, rng=random.Random(4), pictures=False
    )
    service.dues = []
    service.deadlines = {}
    client = GenialClient(service)
    wall0, cpu0 = time.perf_counter(), time.process_time()
    requests: list[tuple[int | None, float, float]] = []
    async with simcord.run(client, settle_timeout=HORIZON) as env:
        clock.env = env
        limits = Limits(clock)
        install(client, limits, requests=requests)
        ticker: Any = client._clock

        def say(ch: Channel, person: simcord.MemberActor, line: str) -> None:
            """A command of ``person``'s, carried out by the service as the bot carries
            out a slash command; what it changed goes out through the table's stored
            outbox at the clock's look, which it wakes."""
            user = User(str(person.id), person.name)
            service.handle(Chat(str(ch.id)), user, line, admin=True)
            ticker.wake()

        guild = env.create_guild("Board games")
        n_computers = max(1, round(groups / 10))
        n_idle = max(1, round(groups / 10))
        n_cups = max(1, round(groups / 15)) if tournaments is None else tournaments
        channels: list[Channel] = []
        for g in range(groups):
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
            people = [
                guild.add_member(env.create_user(f"p{g}{k}", global_name=f"P{g}{'abcd'[k]}"))
                for k in range(size)
            ]
            channels.append(Channel(guild.create_text_channel(f"genial-{g}"), kind, people))
        cups = [ch for ch in channels if ch.kind == "tournament"]
        # Signed up first, by slash command (a table of a tournament needs the client in
        # its own loop to open its thread), while nothing else is under way.
        for ch in cups:
            await _sign_up(env, service, ch, deadline)
        for ch in channels:
            if ch.kind == "tournament":
                continue
            a = ch.people[0]
            if ch.kind == "computers":
                lines = ["/join"] + ["/addbot random"] * 3 + ["/start", "/leave"]
                script = [(a, t) for t in lines]
            elif ch.kind == "idle":
                lines = ["/join", "/addbot random", "/option timeout 1m", "/start"]
                script = [(a, t) for t in lines]
            else:
                b = ch.people[1]
                script = [(a, "/join"), (b, "/join"), (a, "/option timeout 1m")]
            for person, line in script:
                say(ch, person, line)
            await env.advance_time(STEP)
        setup_wall = time.perf_counter() - wall0
        began = clock()
        end = began + minutes * 60
        movers = [ch for ch in channels if ch.kind == "people"]
        busy = movers[-1] if planted and movers else None
        if busy is not None:
            limits.plant(busy.id, planted)
        for ch in cups:  # the rounds start as play begins: their deadlines fall in the run
            await ch.people[0].slash(ch.handle, "tournament", action="start")
        for ch in cups:
            # (A command waits for its channel's rate limit like any post.)
            await _until(env, lambda ch=ch: _data(service, ch)["played"], "the round's start")
            (round_,) = _data(service, ch)["played"]
            for p in round_["pairings"]:
                ch.places += sorted({int(c) for c in p["seen_at"].values()} - {ch.id})
                for place in p["seen_at"].values():
                    service.deadlines[int(place)] = float(round_["deadline"])
        for ch in movers:
            say(ch, ch.people[0], "/start")
            ch.next_at = began + rng.uniform(0, every)
        by_id = {ch.id: ch for ch in channels}
        seen = 0
        while True:
            now = clock()
            for call in limits.calls[seen:]:
                ch2 = by_id.get(call.channel or 0)
                if (
                    ch2 is None
                    or ch2.pending is None
                    or call.status != 200
                    or call.method != "POST"
                    or call.at < ch2.pending[0]
                ):
                    continue
                if ch2.pending[1] in told_moves([call.text]):
                    ch2.boards.append((ch2.pending[0], call.at - ch2.pending[0]))
                    ch2.pending = None
                    ch2.next_at = call.at + every * moves_rng.uniform(0.6, 1.4)
            seen = len(limits.calls)
            if now >= end:
                if all(ch.pending is None for ch in movers) or now >= end + 60:
                    break
                await env.advance_time(STEP)
                continue
            for ch in movers:
                if ch.pending is not None:
                    if now - ch.pending[0] > 60:  # no board: move again
                        ch.unanswered += 1
                        ch.pending = None
                    continue
                if now < ch.next_at:
                    continue
                _act(service, ch, moves_rng, clock, say)
            await env.advance_time(STEP)
        played = clock() - began
        # What is under way is told before the count (the people stopped moving).
        await env.advance_time(60)
        lost, doubled, stored, finished = _reconcile(service, channels, limits.calls)
        cup_state = {ch.id: _cup_state(service, ch, limits.calls) for ch in cups}
        service.store.close()
    return Figures(
        channels=channels,
        calls=limits.calls,
        began=began,
        played=played,
        dues=service.dues,
        requests=requests,
        lost=lost,
        doubled=doubled,
        stored_moves=stored,
        finished=finished,
        wall=time.perf_counter() - wall0,
        cpu=time.process_time() - cpu0,
        setup_wall=setup_wall,
        planted=busy.id if busy is not None else None,
        deadlines=service.deadlines,
        cups=cup_state,
    )


async def _until(env: simcord.Env, done: Callable[[], object], what: str) -> None:
    """Move virtual time on until ``done()`` (a slash command's work waits for its
    channel's rate limit as any post does), for at most :data:`SETTLING` seconds of it."""
    start = env.now()
    while not done():
        if (env.now() - start).total_seconds() > SETTLING:
            raise AssertionError(f"no {what} within {SETTLING:g} s of virtual time")
        await env.advance_time(STEP)


def _data(service: Service, ch: Channel) -> dict[str, Any]:
    found = service.store.load_tournament(ch.tournament)
    assert found is not None
    return found[1]


async def _sign_up(env: simcord.Env, service: Service, ch: Channel, deadline: float) -> None:
    """A tournament of the channel's four people, its round ``deadline`` seconds long."""
    host = ch.people[0]
    await host.slash(ch.handle, "tournament", action="new", details="swiss 1 rounds 2 players 10m")
    await _until(env, lambda: service.store.tournaments_of(str(ch.id)), "tournament")
    (ch.tournament,) = service.store.tournaments_of(str(ch.id))
    for person in ch.people:
        await person.slash(ch.handle, "tournament", action="join", details=ch.tournament)
    signed = lambda: len(_data(service, ch)["entrants"]) == len(ch.people)  # noqa: E731
    await _until(env, signed, "sign-up of all four")
    # A round shorter than the 10 minutes people may set: written into the stored
    # tournament before its start pairs the round.
    found = service.store.load_tournament(ch.tournament)
    assert found is not None
    version, data = found
    data["round_time"] = deadline
    service.store.save_tournament(saved(data, version + 1), version)


def _cup_state(service: Service, ch: Channel, calls: list[Call]) -> tuple[int, int, float | None]:
    """A tournament channel's tables, how many still play, and when its end was posted."""
    found = service.store.load_tournament(ch.tournament)
    data = found[1] if found is not None else {}
    chats = [p["chat"] for r in data.get("played", []) for p in r["pairings"]]
    tables = [service.store.load(c) for c in chats]
    live = sum(1 for t in tables if t is not None and t.status == PLAYING)
    over = [c.at for c in calls if c.channel == ch.id and c.status == 200 and WINNER in c.text]
    return len(chats), live, (over[0] if over else None)


def _act(
    service: Service,
    ch: Channel,
    rng: random.Random,
    clock: EnvClock,
    say: Callable[[Channel, simcord.MemberActor, str], None],
) -> None:
    """The person to move plays a legal move; a game over is played again."""
    table = service.table(str(ch.id))
    game = games.rebuild(table.record) if table and table.record else None
    if table is None or game is None or game.over or table.status != PLAYING:
        ch.rematches += 1
        if ch.rematches > 5:
            ch.next_at = clock() + 3600
            return
        say(ch, ch.people[0], "/rematch")
        say(ch, ch.people[0], "/start")
        ch.next_at = clock() + 1
        return
    seat = table.seats[game.to_move]
    person = next((p for p in ch.people if str(p.id) == seat.user), None)
    if seat.computer or person is None:
        ch.next_at = clock() + 1
        return
    move = rng.choice(game.legal_moves())
    notation = games.format_move(game, move)
    ch.pending = (clock(), notation)
    text = f"/{notation}" if notation in ("swap", "keep") else f"/play {notation}"
    say(ch, person, text)


def _reconcile(
    service: Service, channels: list[Channel], calls: list[Call]
) -> tuple[int, int, int, int]:
    """Lost and doubled moves: every move the store holds told once in its channel."""
    lost = doubled = stored = finished = 0
    store = service.store
    for ch in channels:
        chat = str(ch.id)
        table = store.load(chat)
        records: list[dict[str, Any]] = [
            a["record"] for a in store.archived(chat) if a.get("record")
        ]
        if table is not None and table.record and table.record not in records[-1:]:
            records.append(table.record)
        playing = int(table is not None and table.status == PLAYING)
        if ch.tournament:
            # A tournament's games are archived under its channel (its home) as they end;
            # the rest still play, told in their threads.
            found = store.load_tournament(ch.tournament)
            data = found[1] if found is not None else {}
            chats = [p["chat"] for r in data.get("played", []) for p in r["pairings"]]
            running = [store.load(c) for c in chats]
            live = [t for t in running if t is not None and t.status == PLAYING]
            records += [t.record for t in live if t.record]
            playing += len(live)
        held = [str(m) for r in records for m in r["moves"]]
        stored += len(held)
        finished += len(records) - playing
        where = {ch.id, *ch.places}
        texts = [
            c.text for c in calls if c.channel in where and c.status == 200 and c.method == "POST"
        ]
        told = Counter(told_moves(texts))
        want = Counter(held)
        lost += sum((want - told).values())
        doubled += sum((told - want).values())
    return lost, doubled, stored, finished
