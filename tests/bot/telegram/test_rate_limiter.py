"""The rate limiter (bot.telegram.limiter) and the budget it keeps (bot.telegram.pace), on a
fake clock.

Each test runs in an event loop whose time jumps: when nothing is ready to run, the clock
moves straight to the next timer, so a wait of a minute costs no wall-clock time and every
time below is exact. The requests are a fake callback that stamps each try with the clock
and, where a test says so, answers a flood wait (python-telegram-bot's ``RetryAfter``).
"""

from __future__ import annotations

import asyncio
import math
import random
import selectors
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import pytest
from telegram.error import RetryAfter

from bot.telegram.limiter import FLOOD_RETRIES, ChatRateLimiter
from bot.telegram.pace import GROUP_RATE, RESERVE, SWEEP, Pace, Window, chat_key, messages
from tests.bot.helpers import START, Clock
from tests.bot.telegram.fake_api import FloodLimits

# python-telegram-bot warns about its own RetryAfter's number of seconds.
pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
T = TypeVar("T")
GROUP, OTHER_GROUP = -1001, -1002
ADA = 101


class _JumpingSelector(selectors.DefaultSelector):
    """Never waits: the time it would have waited is added to the clock."""

    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self.clock = clock

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        if timeout is None:
            raise AssertionError("nothing is left to happen: the test would hang")
        if timeout > 0:
            self.clock.advance(timeout)
        return super().select(0)


class _JumpingLoop(asyncio.SelectorEventLoop):
    def __init__(self, clock: Clock) -> None:
        super().__init__(_JumpingSelector(clock))
        self.clock = clock
        # A timer is due within this of its time; at the clock's ~1.7e9 s a float's step is
        # ~2.4e-7 s, and the default (1e-9) would leave a timer due "now" never run.
        self._clock_resolution = 1e-6

    def time(self) -> float:
        return self.clock.now


def run(clock: Clock, main: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """``main()`` in an event loop on ``clock``."""
    loop = _JumpingLoop(clock)
    try:
        return loop.run_until_complete(main())
    finally:
        loop.close()


class Server:
    """The Bot API as the limiter sees it: a callback per request that stamps each try
    (seconds since the start) and answers a flood wait where told."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.tries: list[tuple[float, str, object]] = []
        #: Flood waits still to answer, by chat: seconds each.
        self.floods: dict[object, list[int]] = {}
        #: Seconds each answer takes to come back.
        self.latency = 0.0
        #: Seconds between the limiter letting a request go and its arrival, by chat, one
        #: per try in the order they are let go (none: it arrives at once).
        self.delays: dict[object, list[float]] = {}
        #: Telegram's flood limits, counted at each message's arrival (see :meth:`strict`).
        self.limits: FloodLimits | None = None
        #: The tries refused for going past them: (arrival, chat).
        self.refused: list[tuple[float, object]] = []

    def strict(self) -> None:
        """From now on the server refuses, as Telegram does, any message past its limits
        at the moment it arrives (the fake Bot API's own count, not the limiter's)."""
        self.limits = FloodLimits(self.clock, (GROUP_RATE, 60.0), (1, 1.0), (30, 1.0))

    def request(
        self, limiter: ChatRateLimiter, endpoint: str, chat: object = None, **data: Any
    ) -> Awaitable[Any]:
        if chat is not None:
            data["chat_id"] = chat

        async def callback(*args: Any, **kwargs: Any) -> Any:
            delays = self.delays.get(chat)
            if delays:
                await asyncio.sleep(delays.pop(0))
            self.tries.append((self.clock.now - START, endpoint, chat))
            if self.limits is not None and isinstance(chat, int) and messages(endpoint, data):
                wait, _stamp = self.limits.take(chat)
                if wait > 0:
                    self.refused.append((self.clock.now - START, chat))
                    raise RetryAfter(max(1, math.ceil(wait)))
            if self.latency:
                await asyncio.sleep(self.latency)
            waits = self.floods.get(chat)
            if waits:
                raise RetryAfter(waits.pop(0))
            return True

        return limiter.process_request(callback, (endpoint, data), {}, endpoint, data, None)

    def times(self, chat: object, endpoint: str | None = None) -> list[float]:
        return [t for t, e, c in self.tries if c == chat and endpoint in (None, e)]


def setup() -> tuple[Clock, Server, ChatRateLimiter]:
    clock = Clock()
    return clock, Server(clock), ChatRateLimiter(Pace(clock))


def busiest(times: list[float], period: float) -> int:
    """The most of ``times`` within any ``period`` seconds (each window ending at one)."""
    return max((sum(1 for s in times if end - period < s <= end) for end in times), default=0)


def test_what_counts_against_a_chats_budget() -> None:
    assert messages("sendMessage", {}) == messages("sendPhoto", {}) == 1
    assert messages("editMessageReplyMarkup", {}) == messages("editMessageText", {}) == 1
    assert messages("sendMediaGroup", {"media": [1, 2, 3]}) == 3
    assert messages("forwardMessages", {"message_ids": [1, 2]}) == 2
    for endpoint in ("sendChatAction", "deleteMessage", "getChatMember", "answerCallbackQuery"):
        assert messages(endpoint, {}) == 0, endpoint
    assert chat_key(-100123) == -100123
    assert chat_key("-100123") == -100123
    assert chat_key("@genial_night") == "@genial_night"
    assert chat_key(None) is None


def test_a_group_is_paced_to_a_rolling_minute() -> None:
    # A message a second for two minutes into one group: 20 go at once as asked, then each
    # waits until one of the minute before leaves the window (Telegram counts so).
    clock, server, limiter = setup()

    async def main() -> None:
        sends = []
        for _ in range(120):
            sends.append(asyncio.ensure_future(server.request(limiter, "sendMessage", GROUP)))
            await asyncio.sleep(1)
        await asyncio.gather(*sends)

    run(clock, main)
    times = server.times(GROUP)
    assert len(times) == 120
    assert times[:20] == [float(n) for n in range(20)]
    # The 21st, asked at 20 s, goes when the first leaves the window: at 60 s, and so on.
    assert times[20:23] == [60.0, 61.0, 62.0]
    assert busiest(times, 60.0) == GROUP_RATE
    assert times == sorted(times)  # in the order they were asked


def test_a_private_chat_takes_one_a_second() -> None:
    clock, server, limiter = setup()

    async def main() -> None:
        await asyncio.gather(*(server.request(limiter, "sendMessage", ADA) for _ in range(5)))

    run(clock, main)
    assert server.times(ADA) == [0.0, 1.0, 2.0, 3.0, 4.0]


def test_a_message_counts_from_its_answer() -> None:
    # Telegram stamps a message somewhere between its request and its answer: the window
    # counts it from the answer, so a slower trip than the one before cannot make two
    # messages closer at Telegram than the window allows.
    clock, server, limiter = setup()
    server.latency = 0.4

    async def main() -> None:
        await asyncio.gather(*(server.request(limiter, "sendMessage", ADA) for _ in range(3)))

    run(clock, main)
    assert server.times(ADA) == pytest.approx([0.0, 1.4, 2.8])


def test_thirty_a_second_over_all_chats() -> None:
    # One message to each of 70 private chats at once: 30 a second.
    clock, server, limiter = setup()
    chats = range(1000, 1070)

    async def main() -> None:
        await asyncio.gather(*(server.request(limiter, "sendMessage", c) for c in chats))

    run(clock, main)
    times = sorted(t for t, _e, _c in server.tries)
    assert [times.count(s) for s in (0.0, 1.0, 2.0)] == [30, 30, 10]


def test_a_flood_wait_holds_back_its_chat_alone() -> None:
    clock, server, limiter = setup()
    server.floods[GROUP] = [30]  # Telegram refuses the group's next message for 30 s

    async def main() -> None:
        first = asyncio.ensure_future(server.request(limiter, "sendPhoto", GROUP))
        await asyncio.sleep(0.5)
        # Meanwhile: another group, a private chat, a button answer and the bot's own
        # requests go at once; a later message to the held group waits behind the first.
        await server.request(limiter, "sendMessage", OTHER_GROUP)
        await server.request(limiter, "sendMessage", ADA)
        await server.request(limiter, "answerCallbackQuery", callback_query_id="7")
        await server.request(limiter, "getMe")
        later = asyncio.ensure_future(server.request(limiter, "sendMessage", GROUP))
        # A request to the held group that posts nothing waits the flood wait out too.
        member = asyncio.ensure_future(server.request(limiter, "getChatMember", GROUP))
        await asyncio.gather(first, later, member)

    run(clock, main)
    assert server.times(OTHER_GROUP) == [0.5]
    assert server.times(ADA) == [0.5]
    assert server.times(None) == [0.5, 0.5]
    # The refused board is sent again when the wait is over, then the group's next one at
    # the minute's steady pace (Telegram's count was fuller than ours: see the next tests).
    assert server.times(GROUP, "sendPhoto") == [0.0, 30.0]
    assert server.times(GROUP, "sendMessage") == [33.0]
    assert server.times(GROUP, "getChatMember") == [30.0]
    assert [e for _t, e, c in server.tries if c == GROUP][:2] == ["sendPhoto", "sendPhoto"]


def test_a_flood_wait_is_tried_again_a_bounded_number_of_times() -> None:
    clock, server, limiter = setup()
    server.floods[GROUP] = [5] * 10

    async def main() -> None:
        with pytest.raises(RetryAfter):
            await server.request(limiter, "sendMessage", GROUP)

    run(clock, main)
    assert server.times(GROUP) == [0.0, 5.0, 10.0, 15.0]
    assert len(server.times(GROUP)) == FLOOD_RETRIES + 1
    # A request may name its own number of retries (python-telegram-bot's rate_limit_args).
    clock, server, limiter = setup()
    server.floods[GROUP] = [5] * 10
    data = {"chat_id": GROUP}

    async def once() -> None:
        async def callback(*args: Any, **kwargs: Any) -> Any:
            server.tries.append((clock.now - START, "sendMessage", GROUP))
            raise RetryAfter(5)

        with pytest.raises(RetryAfter):
            await limiter.process_request(callback, (), {}, "sendMessage", data, 0)

    run(clock, once)
    assert server.times(GROUP) == [0.0]


def test_after_a_flood_wait_the_group_goes_on_at_a_steady_pace() -> None:
    # Telegram counted messages this process does not know of (a restart, another worker):
    # after the wait the group's messages go one every 3 s (its minute's pace), not in a
    # burst that would draw the next 429 at once.
    clock, server, limiter = setup()
    server.floods[GROUP] = [10]

    async def main() -> None:
        await asyncio.gather(*(server.request(limiter, "sendMessage", GROUP) for _ in range(5)))

    run(clock, main)
    # The first try refused, sent again at 10 s; the other four 3 s apart.
    assert server.times(GROUP) == [0.0, 10.0, 13.0, 16.0, 19.0, 22.0]


def test_the_outbox_reads_the_limiters_budget() -> None:
    # One notion of a group's minute: what the limiter sent is what the outbox sees.
    clock, server, limiter = setup()
    pace = limiter.pace

    async def main() -> None:
        for _ in range(GROUP_RATE - RESERVE - 1):
            await server.request(limiter, "editMessageReplyMarkup", GROUP)
        assert pace.spare(GROUP)
        await server.request(limiter, "sendPhoto", GROUP)
        assert not pace.spare(GROUP)
        await server.request(limiter, "getChatMember", GROUP)  # posts nothing, costs nothing
        assert pace.used(GROUP) == GROUP_RATE - RESERVE
        assert pace.spare(ADA)  # a private chat never holds housekeeping back
        await asyncio.sleep(60)
        assert pace.used(GROUP) == 0 and pace.spare(GROUP)

    run(clock, main)


def test_without_pacing_nothing_waits_but_every_message_counts() -> None:
    clock = Clock()
    server = Server(clock)
    limiter = ChatRateLimiter(Pace(clock), pacing=False)

    async def main() -> None:
        await asyncio.gather(*(server.request(limiter, "sendMessage", GROUP) for _ in range(30)))

    run(clock, main)
    assert server.times(GROUP) == [0.0] * 30
    assert limiter.pace.used(GROUP) == 30 and not limiter.pace.spare(GROUP)


def test_chats_gone_quiet_leave_the_budget() -> None:
    # A message to each of 5000 private chats, one every 10 ms: about 100 are within their
    # second at any time, and the budget keeps no more than a sweep's worth.
    clock = Clock()
    window = Window(1, 1.0, clock)
    for chat in range(5000):
        window.start(chat, 1)
        window.answered(chat, 1, clock.now)
        clock.advance(0.01)
        assert len(window._times) <= SWEEP + 1
    clock.advance(1.0)
    assert window.used(4999) == 0 and 4999 not in window._times


# --- Requests that reach Telegram later than the limiter let them go ----------------------
#
# Under load (a busy event loop, a slow connection, a full pool) a request can arrive at
# the Bot API well after the limiter let it go, and after requests let go later. Telegram
# counts each message when it arrives; the server below does too, strictly, and refuses
# with a 429 whatever goes past a limit then.


def test_late_arrivals_never_crowd_the_overall_second() -> None:
    # 60 private chats, one message each. The first 30 go at once and take 1.5 s to arrive
    # (answered then); the next 30 would arrive 0.1 s after they go. Counting the first 30
    # only from when they went, the second 30 would go at 1.0 s, arrive at 1.1 s, and the
    # first 30 arriving at 1.5 s would find 30 others in their second: 30 refused. Counted
    # until a full second after their answer, the second 30 go at 2.5 s and arrive at 2.6 s.
    clock, server, limiter = setup()
    server.strict()
    chats = range(1000, 1060)
    for n, chat in enumerate(chats):
        server.delays[chat] = [1.5 if n < 30 else 0.1]

    async def main() -> None:
        await asyncio.gather(*(server.request(limiter, "sendMessage", c) for c in chats))

    run(clock, main)
    assert server.refused == []
    arrivals = sorted(t for t, _e, _c in server.tries)
    assert arrivals == pytest.approx([1.5] * 30 + [2.6] * 30)


def test_a_late_arrival_in_a_private_chat_is_not_overtaken() -> None:
    # Ada's first message takes 1.2 s to arrive, her second 0.1 s. Let go at 1.0 s (a
    # second after the first went), the second would arrive at 1.1 s, before the first,
    # which Telegram would then refuse; it goes a second after the first's answer instead.
    clock, server, limiter = setup()
    server.strict()
    server.delays[ADA] = [1.2, 0.1]

    async def main() -> None:
        await asyncio.gather(*(server.request(limiter, "sendMessage", ADA) for _ in range(2)))

    run(clock, main)
    assert server.refused == []
    assert server.times(ADA) == pytest.approx([1.2, 2.3])


def test_a_group_stays_within_its_minute_whatever_the_delays() -> None:
    # 40 messages to a group at once; the first takes 70 s to arrive (a connection stuck
    # behind a long retry), the others none. 20 go at once, 19 of them answered at 0 s.
    # Counted from when it went, the first would leave the window at 60 s with the 19, and
    # 20 more would go at 60 s: the first, arriving at 70 s, would find 20 in its minute.
    # Counted while under way, it leaves room for 19 at 60 s; and counted for a minute from
    # its answer (70 s), the last goes when the 19 of 60 s leave the window, at 120 s.
    clock, server, limiter = setup()
    server.strict()
    server.delays[GROUP] = [70.0] + [0.0] * 39

    async def main() -> None:
        await asyncio.gather(*(server.request(limiter, "sendMessage", GROUP) for _ in range(40)))

    run(clock, main)
    assert server.refused == []
    assert server.times(GROUP) == pytest.approx([0.0] * 19 + [60.0] * 19 + [70.0, 120.0])


@pytest.mark.parametrize("seed", range(6))
def test_random_delays_never_draw_a_429(seed: int) -> None:
    # Groups, private chats and the overall second under delays drawn at random (up to
    # 3 s for each try, up to 90 s for one in ten), messages asked for over two minutes:
    # Telegram refuses none.
    clock, server, limiter = setup()
    server.strict()
    rng = random.Random(seed)
    chats = [-2001, -2002, -2003, *range(3001, 3041)]
    asks = sorted((rng.uniform(0, 120), rng.choice(chats)) for _ in range(400))
    for chat in chats:
        server.delays[chat] = [
            rng.uniform(60, 90) if rng.random() < 0.1 else rng.uniform(0, 3) for _ in range(400)
        ]

    async def main() -> None:
        sends = []
        for at, chat in asks:
            await asyncio.sleep(max(0.0, at - (clock.now - START)))
            sends.append(asyncio.ensure_future(server.request(limiter, "sendMessage", chat)))
        await asyncio.gather(*sends)

    run(clock, main)
    assert server.refused == []
    assert len(server.tries) == 400
