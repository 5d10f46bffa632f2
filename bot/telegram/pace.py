"""Each chat's budget of messages: Telegram's flood limits as rolling windows.

One budget, read by two: the rate limiter (:mod:`bot.telegram.limiter`) holds a message
back until it fits its chat's window and the bot's, and the outbox's choices ask it
whether a group has room to spare. Telegram's limits (its Bot FAQ): about 20 messages a
minute in one group, about one a second in a private chat (short bursts pass, then 429s
come), about 30 a second over all chats. Each is kept as a rolling window of the times the
messages went out, counted as Telegram counts them: the 21st message in any 60 s of a
group is the one refused, so a leaky bucket (a burst, then one every 3 s) draws a 429
where a window does not.

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
    """The times of the last ``period`` seconds' messages, by chat: ``rate`` fit in."""

    def __init__(self, rate: int, period: float, clock: Callable[[], float]) -> None:
        self.rate = rate
        self.period = period
        self.clock = clock
        # Oldest first; after a flood wait some lie ahead of the clock (see :meth:`fill`).
        # A chat is here only while it has messages in the window (swept now and then).
        self._times: dict[ChatKey, deque[float]] = {}
        self._sweep_at = SWEEP

    def used(self, key: ChatKey) -> int:
        """How many messages count in the window now."""
        return len(self._recent(key))

    def wait(self, key: ChatKey, count: int = 1) -> float:
        """Seconds until ``count`` more messages fit (0: now)."""
        times = self._recent(key)
        over = len(times) + min(count, self.rate) - self.rate
        if over <= 0:
            return 0.0
        return times[over - 1] + self.period - self.clock()

    def note(self, key: ChatKey, count: int, at: float) -> None:
        """``count`` messages go out at ``at`` (now)."""
        times = self._recent(key)
        ahead = bool(times) and times[-1] > at  # a flood wait's fill: keep the order
        times.extend([at] * count)
        self._keep(key, deque(sorted(times)) if ahead else times)

    def restamp(self, key: ChatKey, stamp: float, at: float, count: int = 1) -> None:
        """The ``count`` messages noted at ``stamp`` were answered at ``at`` (now): they
        count from then on, since Telegram counted them at some moment between the two
        (so however the network delayed each, a window with room here has room there)."""
        times = self._recent(key)
        moved = 0
        while moved < count and stamp in times:
            times.remove(stamp)
            moved += 1
        if moved:
            times.extend([at] * moved)
            self._keep(key, deque(sorted(times)))

    def fill(self, key: ChatKey, free_at: float) -> None:
        """Telegram refused a message with a flood wait until ``free_at``: it counted more
        than this window holds (another process, or this one before a restart). The
        window is filled up, the messages it lacked leaving one every ``period / rate``
        seconds from ``free_at`` on: after the wait the chat goes on at the window's
        steady pace, not in a burst that would draw the next 429."""
        times = self._recent(key)
        step = self.period / self.rate
        start = free_at - self.period
        times.extend(start + n * step for n in range(self.rate - len(times)))
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

    def note(self, chat: ChatKey, count: int = 1) -> float:
        """``count`` messages go to ``chat`` now; when (their stamp)."""
        now = self.clock()
        self.window(chat).note(chat, count, now)
        self.overall.note(_ALL, count, now)
        return now

    def answered(self, chat: ChatKey, stamp: float, count: int = 1) -> None:
        """The ``count`` messages to ``chat`` noted at ``stamp`` were answered (or failed):
        they count from now on (:meth:`Window.restamp`)."""
        now = self.clock()
        self.window(chat).restamp(chat, stamp, now, count)
        self.overall.restamp(_ALL, stamp, now, count)

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
