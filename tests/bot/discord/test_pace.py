"""The bot's requests within Discord's global rate limit (issue 43): at most ``rate`` in any
second, counted from when a request is let go until a second after its answer, interaction
answers aside (:mod:`bot.discord.pace`)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace

import pytest

from bot.discord.pace import UNDER_WAY_LOOK, GlobalPace, bound
from tests.bot.discord.paced_discord import Limits, install
from tests.bot.discord.support import world

API = "https://discord.com/api/v10"


class FakeTime:
    """A clock that only a sleep moves."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)  # (a sleep lets the others run)


@pytest.mark.parametrize(
    ("url", "counts"),
    [
        (f"{API}/channels/1/messages", True),
        (f"{API}/channels/1/messages/2", True),
        (f"{API}/channels/1/threads", True),
        (f"{API}/users/@me/channels", True),
        (f"{API}/interactions/1/token/callback", False),
        (f"{API}/webhooks/1/token", False),
        (f"{API}/webhooks/1/token/messages/@original", False),
        ("https://cdn.discordapp.com/attachments/1/2/board.png", False),
    ],
)
def test_what_counts_in_the_global_limit(url: str, counts: bool) -> None:
    from yarl import URL

    assert bound(URL(url)) is counts


@pytest.mark.asyncio
async def test_a_request_past_the_rate_waits_for_the_oldest_answer_to_leave_the_window() -> None:
    time = FakeTime()
    pace = GlobalPace(time, rate=3, period=1.0, sleep=time.sleep)
    for _ in range(3):
        await pace.acquire()
    assert pace.used() == 3 and time.slept == []
    time.now = 100.25
    pace.release()  # answered at 100.25: counts until 101.25
    time.now = 100.5
    pace.release()
    pace.release()
    time.now = 100.75
    await pace.acquire()  # the window holds 3 until 101.25
    assert time.now == pytest.approx(101.25)
    assert pace.used() == 3  # two answered at 100.5, this one under way
    assert (pace.waited, pace.longest_wait) == (1, pytest.approx(0.5))


@pytest.mark.asyncio
async def test_requests_still_under_way_keep_counting_however_long_they_take() -> None:
    time = FakeTime()
    pace = GlobalPace(time, rate=2, period=1.0, sleep=time.sleep)
    await pace.acquire()
    await pace.acquire()
    time.now = 130.0  # both under way half a minute: they still count
    waiting = asyncio.ensure_future(pace.acquire())
    for _ in range(3):
        await asyncio.sleep(0)
    assert not waiting.done()
    answered = time.now
    pace.release()
    await waiting
    # It looked again every UNDER_WAY_LOOK while both were under way; the one answered
    # counts a full second from its answer, and then there is room.
    *looks, last = time.slept
    assert looks and set(looks) == {UNDER_WAY_LOOK}
    assert last == pytest.approx(1.0) and time.now == pytest.approx(answered + 1.0)
    assert pace.used() == 2  # both under way now: the one before and this one


@pytest.mark.asyncio
async def test_the_trace_counts_what_it_should_once() -> None:
    time = FakeTime()
    pace = GlobalPace(time, rate=5, sleep=time.sleep)
    from yarl import URL

    contexts = [SimpleNamespace() for _ in range(3)]
    urls = [f"{API}/channels/1/messages", f"{API}/interactions/1/t/callback", f"{API}/users/@me"]
    for context, url in zip(contexts, urls, strict=True):
        await pace._on_start(None, context, SimpleNamespace(url=URL(url)))  # type: ignore[arg-type]
    assert pace.used() == 2
    for context in contexts:  # an answer, then the same request failing: counted once
        await pace._on_end(None, context, None)  # type: ignore[arg-type]
        await pace._on_end(None, context, None)  # type: ignore[arg-type]
    assert pace.used() == 2
    time.now += 1.0
    assert pace.used() == 0


@pytest.mark.asyncio
async def test_a_crowded_second_waits_in_the_bot_not_at_discord(tmp_path: Path) -> None:
    # Discord takes 4 calls a second over all here, and the bot's pace is 4 too: six
    # channels' lobbies posted at one instant go out 4 at once and 2 a second later, and
    # no call draws a 429 (discord.py alone met the limit only by a global 429, which
    # holds back every channel for its retry_after).
    async with world(tmp_path, simulator={"settle_timeout": 0.2}) as w:
        limits = Limits(w.clock, per_second=4)
        install(w.client, limits)
        w.client.pace.rate = 4
        start = w.clock()
        channels = [w.guild.create_text_channel(f"table-{n}") for n in range(6)]
        ada = w.person("Ada")
        for channel in channels:
            await ada.slash(channel, "join")
        for _ in range(3):
            await w.env.advance_time(1)
        assert [c.status for c in limits.calls] == [200] * 6
        assert [c.at - start for c in limits.calls] == pytest.approx([0, 0, 0, 0, 1, 1])
        assert sorted(c.channel for c in limits.calls) == sorted(int(c.id) for c in channels)
