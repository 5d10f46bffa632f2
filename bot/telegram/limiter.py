"""The rate limiter: each chat paced on its own, and a flood wait holds back its chat only.

python-telegram-bot sends every Bot API request but ``getUpdates`` through the
Application's rate limiter (its documented extension point, :class:`BaseRateLimiter`).
Its own :class:`~telegram.ext.AIORateLimiter` lets a group have a burst and then one
request every 3 s, which Telegram's rolling minute refuses once a minute, and on a 429
it pauses every request of the bot, in every chat, for the whole wait. This one:

- holds a message back until it fits its chat's window and the overall one
  (:mod:`bot.telegram.pace`: 20 in any 60 s in a group, one a second in a private chat,
  30 a second over all), each chat's messages in the order they came; a message counts
  there from the moment it is let go until a full window after its answer, so however late
  a request reaches Telegram no window there is fuller than the limiter's (a window full
  of messages under way waits for an answer, not for the clock);
- on a 429 (:class:`~telegram.error.RetryAfter`) holds back that chat alone for the
  ``retry_after`` Telegram named, fills its window (Telegram counted more than we did),
  and sends the request again, up to ``max_retries`` times; other chats go on;
- lets requests to no chat (``answerCallbackQuery``, ``getMe``, ``setMyCommands``) go at
  once, whatever any chat waits for; other requests to a chat that post nothing
  (``getChatMember``, ``deleteMessage``) take no budget but wait out their chat's 429.

The clock and the sleep are the budget's and the caller's: tests run it on a clock they
move by hand.
"""

from __future__ import annotations

import asyncio
import datetime as dtm
import logging
import math
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any

from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter
from telegram.warnings import PTBDeprecationWarning

from bot.telegram.pace import ChatKey, Pace, chat_key, messages

log = logging.getLogger(__name__)

#: How often a request refused with a flood wait (429) is sent again after the wait.
FLOOD_RETRIES = 3

#: What a request answers (python-telegram-bot's ``JSONDict`` is a plain dict).
Result = bool | dict[str, Any] | list[dict[str, Any]]


class ChatRateLimiter(BaseRateLimiter[int]):
    """Paces the bot's messages per chat within Telegram's limits; a flood wait holds back
    only the chat it came for. ``rate_limit_args``, if a request names any: how often
    that request is sent again after a flood wait."""

    def __init__(
        self,
        pace: Pace | None = None,
        *,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        max_retries: int = FLOOD_RETRIES,
        pacing: bool = True,
    ) -> None:
        """
        Args:
            pace: the chats' budget, with its clock (Telegram's limits on
                ``time.monotonic`` if ``None``).
            sleep: how to wait a number of the clock's seconds.
            max_retries: how often a request refused with a flood wait is sent again.
            pacing: ``False``: every message is counted in the budget but none is held
                back to fit it (a flood wait still holds its chat): for tests that play
                whole games in a few seconds.
        """
        self.pace = pace or Pace()
        self.clock = self.pace.clock
        self.sleep = sleep
        self.max_retries = max_retries
        self.pacing = pacing
        # Until when each chat is held back by a flood wait.
        self._held: dict[ChatKey, float] = {}
        # Each chat's queue (a lock, and how many hold or wait for it; dropped at none).
        self._lines: dict[ChatKey, tuple[asyncio.Lock, int]] = {}
        # Done at the next answer to a message, for those whose window is full of messages
        # under way (made when the first of them waits).
        self._answered: asyncio.Future[None] | None = None

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to close."""

    def held(self, chat: ChatKey) -> float:
        """Seconds the chat is still held back by a flood wait (0: none)."""
        until = self._held.get(chat)
        if until is None:
            return 0.0
        left = until - self.clock()
        if left <= 0:
            del self._held[chat]
            return 0.0
        return left

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, Result]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> Result:
        """Send one request when its chat's budget and flood wait allow, and again after a
        flood wait (see the module's words)."""
        chat = chat_key(data.get("chat_id"))
        if chat is None:
            return await callback(*args, **kwargs)
        count = messages(endpoint, data)
        retries = self.max_retries if rate_limit_args is None else rate_limit_args
        attempt = 0
        while True:
            counted = await self._turn(chat, count)
            try:
                return await callback(*args, **kwargs)
            except RetryAfter as exc:
                wait = _seconds(exc)
                now = self.clock()
                free_at = now + wait
                # Flood waits are rare: the ones over are dropped as a new one comes.
                self._held = {c: t for c, t in self._held.items() if t > now}
                self._held[chat] = max(self._held.get(chat, free_at), free_at)
                if count:
                    self.pace.refused(chat, free_at)
                if attempt >= retries:
                    log.warning(
                        "Telegram refused a %s to chat %s for %.0f s more, after %d tries",
                        endpoint,
                        chat,
                        wait,
                        attempt + 1,
                    )
                    raise
                attempt += 1
                log.info(
                    "Telegram asked for a pause of %.0f s in chat %s: that chat waits,"
                    " the others go on",
                    wait,
                    chat,
                )
            finally:
                if counted:
                    self.pace.answered(chat, count)
                    self._wake()

    async def _turn(self, chat: ChatKey, count: int) -> bool:
        """Wait until a request may go to ``chat``: its flood wait is over and, for one
        that carries ``count`` messages, they fit the budget (noted there as they go, to
        be answered: ``True``)."""
        if not count:
            while (left := self.held(chat)) > 0:
                await self.sleep(left)
            return False
        async with self._line(chat):
            while True:
                left = self.held(chat)
                if self.pacing:
                    left = max(left, self.pace.wait(chat, count))
                if left <= 0:
                    break
                if math.isinf(left):
                    # The window is full of messages under way: only an answer makes room.
                    await self._answer()
                else:
                    await self.sleep(left)
            self.pace.note(chat, count)
            return True

    async def _answer(self) -> None:
        """Until the next answer to a message comes (a window's room is looked at again)."""
        if self._answered is None:
            self._answered = asyncio.get_running_loop().create_future()
        await asyncio.shield(self._answered)

    def _wake(self) -> None:
        """An answer came: whoever waits for one looks at their window again."""
        if self._answered is not None:
            if not self._answered.done():
                self._answered.set_result(None)
            self._answered = None

    @asynccontextmanager
    async def _line(self, chat: ChatKey) -> AsyncIterator[None]:
        """The chat's queue: its messages take their turns in the order they came. It lives
        only while someone holds or waits for it (one event loop: no guard around the
        count)."""
        lock, users = self._lines.get(chat) or (asyncio.Lock(), 0)
        self._lines[chat] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._lines[chat]
            if users == 1:
                del self._lines[chat]
            else:
                self._lines[chat] = (lock, users - 1)


def _seconds(exc: RetryAfter) -> float:
    """The flood wait's seconds (python-telegram-bot 22 warns on reading it as a number)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        value = exc.retry_after
    if isinstance(value, dtm.timedelta):
        return value.total_seconds()
    return float(value)
