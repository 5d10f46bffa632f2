"""Each chat's budget of messages: Telegram's flood limits as rolling windows.

One budget, read by two: the rate limiter (:mod:`bot.telegram.limiter`) holds a message
back until it fits its chat's window and the bot's, and the outbox's choices ask it
whether a group has room to spare. Telegram's limits (its Bot FAQ): about 20 messages a
minute in one group, about one a second in a private chat (short bursts pass, then 429s
come), about 30 a second over all chats. Each is kept as a rolling window, as Telegram
counts: the 21st message in any 60 s of a group is the one refused, so a leaky bucket (a
burst, then one every 3 s) draws a 429 where a window does not. A message counts from the
moment it is let go, the whole time it is under way, and for a full window after its
answer: however late it reaches Telegram, no window there is fuller than here
(:class:`Window`).

What counts (:func:`messages`): a message posted (``send...`` but ``sendChatAction``,
``copyMessage``, ``forwardMessage``; a media group or a batch of copies counts each of its
messages; a forum topic's creation posts its first message) and a message changed
(``editMessage...``, ``stopPoll``, ``stopMessageLiveLocation``): Telegram counts edits
against a group's 20 too. Every try counts, a refused one as well (we cannot know whether
Telegram counted it). Other requests to a chat (``deleteMessage``, ``getChatMember``,
``sendChatAction``) and requests to no chat (``getUpdates``, ``answerCallbackQuery``,
``setMyCommands``) use no budget.

A move's board is what the players wait for, so it must never queue behind housekeeping:
taking the buttons off older messages is done only while the group has :data:`RESERVE`
messages to spare in its minute (:meth:`Pace.spare`), and otherwise waits for a quieter
moment (or is skipped: an old button is answered as stale anyway).
"""

from __future__ import annotations

import inspect
import math
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

#: A chat as the budget knows it: its id, or a public chat's ``@username``.
ChatKey = int | str

#: Telegram's limit on messages in one group (supergroup, channel): this many per this
#: many seconds.
GROUP_RATE = 20
GROUP_PERIOD = 60.0
#: In one private chat: about one a second.
PRIVATE_RATE = 1
PRIVATE_PERIOD = 1.0
#: Over all chats together.
OVERALL_RATE = 30
OVERALL_PERIOD = 1.0
#: Messages of a group's minute kept free for boards: housekeeping (button removals) is
#: done only while fewer than ``GROUP_RATE - RESERVE`` messages went there in the minute.
#: 13 leave room for a board every 4 s (15 moves a minute) besides a lobby and its
#: closing, with nothing held back; at a move every 20 s every old button still comes off
#: with the next turn message.
RESERVE = 13
#: How many chats a window keeps before it drops those gone quiet (then twice as many as
#: are still within their window, so a sweep costs little per message).
SWEEP = 1024

#: Requests besides ``send...`` and ``editMessage...`` that post or change a message.
_MESSAGE_METHODS = frozenset(
    {
        "copyMessage",
        "forwardMessage",
        "stopPoll",
        "stopMessageLiveLocation",
        "createForumTopic",
    }
)
#: Requests that post several messages at once, by the parameter that lists them.
_BATCHES = {
    "sendMediaGroup": "media",
    "copyMessages": "message_ids",
    "forwardMessages": "message_ids",
}


def messages(endpoint: str, data: Mapping[str, Any]) -> int:
    """How many messages a Bot API request posts or changes: what it takes of its chat's
    budget (0: it uses none)."""
    batch = _BATCHES.get(endpoint)
    if batch is not None:
        items = data.get(batch)
        return max(1, len(items)) if isinstance(items, (list, tuple)) else 1
    if endpoint.startswith("send") and endpoint != "sendChatAction":
        return 1
    if endpoint.startswith("editMessage") or endpoint in _MESSAGE_METHODS:
        return 1
    return 0


def chat_key(chat: object) -> ChatKey | None:
    """The chat a request's ``chat_id`` names: its id (also when given as a string), a
    ``@username`` as it is, ``None`` for none."""
    if isinstance(chat, bool):
        return None
    if isinstance(chat, int):
        return chat
    if isinstance(chat, str) and chat:
        return int(chat) if chat.lstrip("-").isdigit() else chat
    return None


def is_group(chat: ChatKey) -> bool:
    """Whether a chat takes a group's limit: a group, supergroup or channel (a negative
    id, or a ``@username``: only those of supergroups and channels are accepted)."""
    return isinstance(chat, str) or chat < 0


class Window:
    """The messages of the last ``period`` seconds, by chat: ``rate`` fit in.

    When does a message count? Telegram counts it when it arrives, at a moment we never
    see: after we let it go, before its answer comes back, and nothing bounds how long it
    takes to get there (a busy event loop, a full connection pool, a slow network). So a
    message counts from the moment it is let go (:meth:`start`), the whole time it is
    under way (it never leaves the window then, however long that takes), and for a full
    ``period`` after its answer (:meth:`answered`). Take any ``period`` at Telegram and,
    of the messages it counted in it, the one let go last: when that one was let go, each
    other one was counted here, being under way or answered after that period began (an
    answer comes after the arrival), which is less than a period before (the last one was
    let go before it arrived, by the period's end). So, whatever the delays, no period at
    Telegram holds more than ``rate``. Counting only from when a message was let go (or
    from its answer once it came) is not enough: one under way longer than ``period`` left
    the window before it arrived, and the next one, arriving sooner, crowded it at
    Telegram (the benchmark's 429s in the overall second). No extra margin is added: with
    the above the window is never fuller at Telegram than here, and a margin would only
    slow every chat down. The one case left: a request that failed without an answer (a
    timeout) counts from its failure, and if it still reaches Telegram after that, the 429
    it may draw holds back its own chat alone.
    """

    def __init__(self, rate: int, period: float, clock: Callable[[], float]) -> None:
        self.rate = rate
        self.period = period
        self.clock = clock
        # When the answered messages were answered, oldest first; after a flood wait some
        # lie ahead of the clock (see :meth:`fill`). A chat is here only while it has
        # messages in the window (swept now and then).
        self._times: dict[ChatKey, deque[float]] = {}
        # How many messages are under way, by chat (none: not here).
        self._flying: dict[ChatKey, int] = {}
        self._sweep_at = SWEEP

    def used(self, key: ChatKey) -> int:
        """How many messages count in the window now (those under way too)."""
        return len(self._recent(key)) + self._flying.get(key, 0)

    def wait(self, key: ChatKey, count: int = 1) -> float:
        """Seconds until ``count`` more messages fit (0: now; ``math.inf``: not before
        some message under way is answered)."""
        times = self._recent(key)
        over = len(times) + self._flying.get(key, 0) + min(count, self.rate) - self.rate
        if over <= 0:
            return 0.0
        if over > len(times):
            return math.inf
        return times[over - 1] + self.period - self.clock()

    def start(self, key: ChatKey, count: int) -> None:
        """``count`` messages are let go now: they count until :meth:`answered`."""
        self._flying[key] = self._flying.get(key, 0) + count

    def answered(self, key: ChatKey, count: int, at: float) -> None:
        """``count`` messages under way were answered (or failed) at ``at`` (now): they
        count for a full period from then on."""
        flying = self._flying.get(key, 0) - count
        if flying > 0:
            self._flying[key] = flying
        else:
            self._flying.pop(key, None)
        times = self._recent(key)
        ahead = bool(times) and times[-1] > at  # a flood wait's fill: keep the order
        times.extend([at] * count)
        self._keep(key, deque(sorted(times)) if ahead else times)

    def fill(self, key: ChatKey, free_at: float) -> None:
        """Telegram refused a message with a flood wait until ``free_at``: it counted more
        than this window holds (another process, or this one before a restart). The
        window is filled up (those under way taking their place), the messages it lacked
        leaving one every ``period / rate`` seconds from ``free_at`` on: after the wait
        the chat goes on at the window's steady pace, not in a burst that would draw the
        next 429."""
        times = self._recent(key)
        step = self.period / self.rate
        start = free_at - self.period
        missing = self.rate - len(times) - self._flying.get(key, 0)
        times.extend(start + n * step for n in range(missing))
        self._keep(key, deque(sorted(times)))

    def _recent(self, key: ChatKey) -> deque[float]:
        """The chat's times within the window (a quiet chat's entry is dropped)."""
        times = self._times.get(key)
        if times is None:
            return deque()
        since = self.clock() - self.period
        while times and times[0] <= since:
            times.popleft()
        if not times:
            del self._times[key]
        return times

    def _keep(self, key: ChatKey, times: deque[float]) -> None:
        self._times[key] = times
        if len(self._times) > self._sweep_at:
            # Chats gone quiet since their last message leave the window.
            for other in list(self._times):
                self._recent(other)
            self._sweep_at = max(SWEEP, 2 * len(self._times))


#: The overall window's one key.
_ALL = ""


class Pace:
    """Every chat's budget: a window per group, per private chat, and one over all."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        *,
        group: tuple[int, float] = (GROUP_RATE, GROUP_PERIOD),
        private: tuple[int, float] = (PRIVATE_RATE, PRIVATE_PERIOD),
        overall: tuple[int, float] = (OVERALL_RATE, OVERALL_PERIOD),
        reserve: int = RESERVE,
    ) -> None:
        """
        Args:
            clock: seconds (the rate limiter's clock; tests move one by hand).
            group, private, overall: how many messages per how many seconds a group, a
                private chat and all chats together take.
            reserve: how many of a group's messages are kept for boards.
        """
        self.clock = clock
        self.groups = Window(*group, clock)
        self.privates = Window(*private, clock)
        self.overall = Window(*overall, clock)
        self.reserve = reserve

    def window(self, chat: ChatKey) -> Window:
        """The window of the chat's kind."""
        return self.groups if is_group(chat) else self.privates

    def used(self, chat: ChatKey) -> int:
        """How many messages went to the chat in its window (the last minute of a group)."""
        return self.window(chat).used(chat)

    def spare(self, chat: ChatKey) -> bool:
        """Whether a message that can wait (a button removal) may go to ``chat`` now
        without taking a board's room: always in a private chat."""
        return not is_group(chat) or self.used(chat) + 1 <= self.groups.rate - self.reserve

    def wait(self, chat: ChatKey, count: int = 1) -> float:
        """Seconds until ``count`` more messages fit the chat's window and the overall one
        (0: now)."""
        return max(self.window(chat).wait(chat, count), self.overall.wait(_ALL, count))

    def note(self, chat: ChatKey, count: int = 1) -> None:
        """``count`` messages to ``chat`` are let go now: they count in its window and the
        overall one until :meth:`answered`, and a full window after (see :class:`Window`)."""
        self.window(chat).start(chat, count)
        self.overall.start(_ALL, count)

    def answered(self, chat: ChatKey, count: int = 1) -> None:
        """The ``count`` messages to ``chat`` let go by :meth:`note` were answered (or
        failed): they count for a full window from now on."""
        now = self.clock()
        self.window(chat).answered(chat, count, now)
        self.overall.answered(_ALL, count, now)

    def refused(self, chat: ChatKey, free_at: float) -> None:
        """Telegram refused a message to ``chat`` until ``free_at`` (a 429): its window is
        full until then (:meth:`Window.fill`)."""
        self.window(chat).fill(chat, free_at)


_FIRST_IS_CHAT: dict[str, bool] = {}


def chat_of(call: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> int | None:
    """The chat a Bot API request goes to: its ``chat_id``, named or first (``None`` for a
    request to no chat, or a chat named by its ``@username``)."""
    chat = kwargs.get("chat_id")
    if chat is None and args:
        name = getattr(call, "__qualname__", "")
        first = _FIRST_IS_CHAT.get(name)
        if first is None:
            try:
                params = list(inspect.signature(call).parameters)
            except (TypeError, ValueError):
                params = []
            first = _FIRST_IS_CHAT[name] = bool(params) and params[0] == "chat_id"
        if first:
            chat = args[0]
    key = chat_key(chat)
    return key if isinstance(key, int) else None
