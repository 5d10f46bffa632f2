"""How many requests went to each group in the last minute, so the board comes first.

Telegram takes about 20 messages a minute in one group (edits count); the rate limiter
holds back every request past that (python-telegram-bot's :class:`AIORateLimiter`, set up
with :data:`GROUP_RATE` and :data:`GROUP_PERIOD` in :mod:`bot.telegram.app`). A move's
board is what the players wait for, so it must never queue behind housekeeping: taking
the buttons off older messages is done only while the group has :data:`RESERVE` requests
to spare in its minute, and otherwise waits for a quieter moment (or is skipped: an old
button is answered as stale anyway). Every request to a group counts, counted when it is
made (each try of a request that is sent again too: Telegram counts it).
"""

from __future__ import annotations

import inspect
from collections import deque
from collections.abc import Callable
from typing import Any

#: Telegram's limit on messages in one group: this many per this many seconds.
GROUP_RATE = 20
GROUP_PERIOD = 60.0
#: Requests of a group's minute kept free for boards: housekeeping (button removals) is
#: done only while fewer than ``GROUP_RATE - RESERVE`` requests went there in the minute.
#: 13 leave room for a board every 4 s (15 moves a minute) besides a lobby and its
#: closing, with nothing held back; at a move every 20 s every old button still comes off
#: with the next turn message.
RESERVE = 13


class Pace:
    """The requests of the last :data:`GROUP_PERIOD` seconds, by group."""

    def __init__(
        self,
        clock: Callable[[], float],
        *,
        rate: int = GROUP_RATE,
        period: float = GROUP_PERIOD,
        reserve: int = RESERVE,
    ) -> None:
        """
        Args:
            clock: seconds, as the service counts them (tests move it by hand).
            rate: how many requests a group takes per ``period`` seconds.
            reserve: how many of those are kept for boards.
        """
        self.clock = clock
        self.rate = rate
        self.period = period
        self.reserve = reserve
        self._times: dict[int, deque[float]] = {}

    def note(self, chat: int) -> None:
        """A request to ``chat`` is being made (only groups are counted)."""
        if chat < 0:
            self._recent(chat).append(self.clock())

    def used(self, chat: int) -> int:
        """How many requests went to the group in the last period."""
        return len(self._recent(chat)) if chat < 0 else 0

    def spare(self, chat: int) -> bool:
        """Whether a request that can wait (a button removal) may go to ``chat`` now
        without taking a board's room: always in a private chat."""
        return chat >= 0 or self.used(chat) + 1 <= self.rate - self.reserve

    def _recent(self, chat: int) -> deque[float]:
        times = self._times.setdefault(chat, deque())
        since = self.clock() - self.period
        while times and times[0] <= since:
            times.popleft()
        if not times:
            # A quiet group leaves nothing behind (its entry comes back with its next request).
            del self._times[chat]
            times = self._times.setdefault(chat, deque())
        return times


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
    if isinstance(chat, int):
        return chat
    if isinstance(chat, str) and chat.lstrip("-").isdigit():
        return int(chat)
    return None
