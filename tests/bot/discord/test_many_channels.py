"""Channels paced on their own under Discord's rate limits (issue 43): discord.py's own
rate-limit handling against a Discord that enforces 5 messages in 5 s per channel and 50
calls a second (:mod:`tests.bot.discord.paced_discord`), in SimCord's virtual time.

A channel telling a game of four computer players is told at its channel's pace, without
a 429; a 429 of 30 s in another channel (a reminder's post) holds back that channel alone;
a command behind its channel's rate limit waits on the (virtual) clock; and the short
shape of ``benchmarks/bench_many_channels.py`` runs with every wait bounded.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from itertools import pairwise
from pathlib import Path

import pytest

from bot.core.table import PLAYING
from tests.bot.discord.many_channels import run
from tests.bot.discord.paced_discord import Call, Limits, install
from tests.bot.discord.support import World, world
from tests.bot.telegram.fake_api import told_moves

HOLD = 30.0


def posts(limits: Limits, channel: int) -> list[Call]:
    return [c for c in limits.calls if c.channel == channel and c.method == "POST"]


def stored_moves(w: World, chat: str) -> list[str]:
    store = w.service.store
    records = [a["record"] for a in store.archived(chat) if a.get("record")]
    table = store.load(chat)
    if table is not None and table.record and table.record not in records[-1:]:
        records.append(table.record)
    return [str(m) for r in records for m in r["moves"]]


@pytest.mark.asyncio
async def test_a_429_in_one_channel_holds_that_channel_alone(tmp_path: Path) -> None:
    async with world(tmp_path, simulator={"settle_timeout": 0.2}) as w:
        limits = Limits(w.clock)
        install(w.client, limits)
        ada, bob = w.person("Ada"), w.person("Bob")
        busy = w.channel  # four computer players
        quiet = w.guild.create_text_channel("quiet")  # Bob, never moving, and a computer
        await ada.slash(busy, "join")
        for _ in range(3):
            await ada.slash(busy, "addbot", level="random")
        await bob.slash(quiet, "join")
        await bob.slash(quiet, "addbot", level="random")
        await bob.slash(quiet, "option", setting="timeout", value="1m")
        start = w.clock()
        await bob.slash(quiet, "start")
        # Bob's reminder (due at 30 s) draws a 429 of 30 s.
        limits.plant(int(quiet.id), HOLD)
        await ada.slash(busy, "start")
        await ada.slash(busy, "leave")
        for _ in range(120):
            await w.env.advance_time(1)

        busy_posts = [c for c in posts(limits, int(busy.id)) if c.status == 200]
        quiet_calls = posts(limits, int(quiet.id))
        refused = [c for c in limits.calls if c.status == 429]
        # The only 429 is the planted one: discord.py paced the busy channel by the
        # headers, 5 messages in any 5 s.
        assert [(c.channel, c.scope) for c in refused] == [(int(quiet.id), "shared")]
        hold_from = refused[0].at
        assert hold_from == pytest.approx(start + 30, abs=1.01)
        for c in busy_posts:
            assert sum(1 for d in busy_posts if c.at <= d.at < c.at + 5) <= 5
        # The reminder went out once the 429's 30 s were over, not sooner, and once.
        reminders = [c for c in quiet_calls if c.status == 200 and ", it is your turn at" in c.text]
        assert len(reminders) >= 1
        assert reminders[0].at == pytest.approx(hold_from + HOLD, abs=1.01)
        # Meanwhile the busy channel went on at its pace: a message at least every 5 s.
        during = [c.at for c in busy_posts if hold_from <= c.at <= hold_from + HOLD]
        assert during and during[0] - hold_from <= 5
        gaps = [b - a for a, b in pairwise(during)]
        assert max(gaps) <= 5
        assert hold_from + HOLD - during[-1] <= 5
        # Every stored move told once in its channel.
        for channel in (busy, quiet):
            told = Counter(
                told_moves([c.text for c in posts(limits, int(channel.id)) if c.status == 200])
            )
            assert told == Counter(stored_moves(w, str(channel.id)))
        assert w.table(str(busy.id)).status == PLAYING or stored_moves(w, str(busy.id))


@pytest.mark.asyncio
async def test_a_command_behind_its_channels_rate_limit_waits_on_the_clock(
    tmp_path: Path,
) -> None:
    # Five messages in one channel at one instant use its 5 in 5 s: discord.py sleeps out
    # the window (5 s) after the fifth, holding the table's lock, so the next command
    # there waits for that lock. SimCord's settle takes this as waiting on the clock and
    # the command returns (it waited 300 s of real time and failed: a lock held by a
    # rate-limit sleep looked like work); the command is carried out once the window is
    # over, 5 s later in virtual time.
    async with world(tmp_path, simulator={"settle_timeout": 0.2}) as w:
        limits = Limits(w.clock)
        install(w.client, limits)
        people = [w.person(n) for n in ("Ada", "Bob", "Cy", "Dee")]
        ada = people[0]
        start = w.clock()
        await ada.slash(w.channel, "tournament", action="new", details="swiss 1 round 2 players 1d")
        (tid,) = w.service.store.tournaments_of(w.chat)
        for person in people:
            await person.slash(w.channel, "tournament", action="join", details=tid)
        await ada.slash(w.channel, "tournament", action="start")
        found = w.service.store.load_tournament(tid)
        assert found is not None and found[1]["played"] == []  # waits for the channel
        assert w.clock() == start
        for _ in range(8):
            await w.env.advance_time(1)
        found = w.service.store.load_tournament(tid)
        assert found is not None and len(found[1]["played"]) == 1
        sent = [c for c in posts(limits, int(w.channel.id)) if c.status == 200]
        assert [c.at - start for c in sent[:5]] == [0, 0, 0, 0, 0]
        paired = [c for c in sent if "round 1 of 1 is paired" in c.text]
        assert len(paired) == 1 and paired[0].at - start == pytest.approx(5, abs=0.01)
        assert not [c for c in limits.calls if c.status == 429]


#: Real seconds the short run may take at most (about half a minute alone; ten times
#: slower on a busy machine): past this it fails, saying so, instead of hanging.
CEILING = 600.0


@pytest.mark.asyncio
async def test_the_short_run_of_many_channels(tmp_path: Path) -> None:
    # benchmarks/bench_many_channels.py --groups 6 --minutes 1 --deadline 30: a game of
    # computers, a person who never moves, a tournament round of two tables in threads
    # played out at its deadline 30 s after its start, three tables of two people; the
    # last one's first post draws a 429 of 30 s. Every figure in SimCord's virtual time,
    # every wait of the harness bounded (in virtual time, and the whole run in real time).
    figures = await asyncio.wait_for(
        run(tmp_path / "t.db", groups=6, minutes=1, planted=HOLD, deadline=30),
        timeout=CEILING,
    )
    assert figures.lost == 0 and figures.doubled == 0 and figures.stored_moves > 0
    assert [(c.channel, c.scope) for c in figures.floods()] == [(figures.planted, "shared")]
    hold = figures.hold()
    assert hold is not None and hold[1] - hold[0] == pytest.approx(HOLD, abs=1.01)
    others = [ch for ch in figures.channels if ch.id != figures.planted]
    # No other table waited for the held one: their boards and their reminders, timeouts
    # and round deadlines came within a look of the clock (within their own 5 in 5 s).
    boards = [late for ch in others for _at, late in ch.boards]
    assert boards and max(boards) <= 1.0
    # Nor did their calls to Discord while it was held: none waited in discord.py.
    waits = [
        went - came
        for chat, came, went in figures.requests
        if chat != figures.planted and hold[0] <= came <= hold[1]
    ]
    assert waits and max(waits) <= 0.5
    lateness = figures.lateness()
    assert not lateness["unposted"]
    assert lateness["reminder"] and lateness["timeout"] and len(lateness["deadline"]) == 2
    assert max(lateness["reminder"] + lateness["timeout"] + lateness["deadline"]) <= 1.0
    # The round was played out in its two threads, each at its thread's own pace.
    ((tables, live, over),) = figures.cups.values()
    assert (tables, live) == (2, 0) and over is not None
    (cup,) = [ch for ch in figures.channels if ch.kind == "tournament"]
    assert len(cup.places) == 2
    for place in cup.places:
        sent = [c.at for c in figures.posts(place)]
        assert all(sum(1 for b in sent if a <= b < a + 5) <= 5 for a in sent)
