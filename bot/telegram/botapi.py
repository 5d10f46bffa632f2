"""Requests to the Bot API: sent again after network errors, and what a failure means for
the message it carried.

The Bot API has no idempotency key, so a new message whose request went out but whose
answer was lost (a timeout, a connection dropped) may have been posted: it is not sent
again. Edits and button answers are repeated freely. Flood waits (429) are the rate
limiter's to retry (:mod:`bot.telegram.limiter`), and each chat's budget is the one it
keeps (:attr:`BotAPI.pace`); Telegram's own answers (bad request, forbidden) are final.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TimedOut
from telegram.ext import Application

from bot.telegram.limiter import ChatRateLimiter
from bot.telegram.pace import Pace, chat_of

log = logging.getLogger(__name__)
T = TypeVar("T")

#: What a failed request means (see :func:`failure`).
AGAIN, UNKNOWN, GONE, GIVE_UP = "again", "unknown", "gone", "give up"
#: The table's forum topic is closed: its messages wait until it is open again.
PAUSED = "paused"
#: How Telegram says a forum topic is closed.
CLOSED_MARKERS = ("topic_closed",)
#: Telegram's words for a chat the bot can no longer write to: removed from the group,
#: the group deleted, the private chat blocked.
GONE_MARKERS = (
    "bot was kicked",
    "bot is not a member",
    "chat was deleted",
    "chat not found",
    "bot was blocked",
    "user is deactivated",
    "message thread not found",  # the table's forum topic was deleted
    "topic_deleted",
)


class BotAPI:
    """The bot at Telegram: the Application's bot once the adapter is attached, and its
    requests, sent again after network errors."""

    def __init__(
        self, *, send_retries: int, backoff: float, clock: Callable[[], float] = time.time
    ) -> None:
        """
        Args:
            send_retries: how often a request that failed on the network is sent again.
            backoff: seconds before the first retry; doubled for each further one.
            clock: the service's clock, for a budget of our own when the Application's
                rate limiter keeps none (see :attr:`pace`).
        """
        self.send_retries = send_retries
        self.backoff = backoff
        # Used only under a rate limiter that keeps no budget: every request made here
        # counts in it.
        self._own_pace = Pace(clock)
        self.app: Application[Any, Any, Any, Any, Any, Any] | None = None

    @property
    def pace(self) -> Pace:
        """Each chat's budget: the rate limiter's (:class:`ChatRateLimiter`), so the
        outbox's choices read the windows that hold messages back; under another limiter
        (or before the adapter is attached) one of our own, counting every request."""
        limiter = self._limiter()
        return limiter.pace if limiter is not None else self._own_pace

    def crowded(self, chat: int | str, count: int = 1) -> bool:
        """Whether ``count`` more messages to ``chat`` would wait for its budget now (its
        window is full, or a flood wait holds it): only under the rate limiter that paces
        each chat (one that holds nothing back lets them go at once)."""
        limiter = self._limiter()
        if limiter is None or not limiter.pacing:
            return False
        return limiter.held(chat) > 0 or limiter.pace.window(chat).wait(chat, count) > 0

    def _limiter(self) -> ChatRateLimiter | None:
        if self.app is None:
            return None
        limiter = self.app.bot.rate_limiter
        return limiter if isinstance(limiter, ChatRateLimiter) else None

    @property
    def bot(self) -> Any:
        assert self.app is not None, "attach() the adapter to an Application first"
        return self.app.bot

    @property
    def username(self) -> str:
        return str(self.bot.username)

    async def retry(
        self,
        call: Callable[..., Awaitable[T]],
        /,
        *args: Any,
        resend: bool = True,
        **kwargs: Any,
    ) -> T:
        """``call(*args, **kwargs)``, sent again after network errors with growing pauses.
        Telegram's answers (bad request, forbidden) are final; flood waits are the rate
        limiter's. With ``resend=False`` (a new message) a failure whose outcome is unknown
        (a timeout, a connection dropped after the request went out) is not sent again:
        Telegram may have posted it, and it knows no idempotency key to refuse a double.

        Raises:
            TelegramError: the last failure, when the call did not go through.
        """
        delay = self.backoff
        # The rate limiter counts what it sends; only without one do we count here.
        chat = chat_of(call, args, kwargs) if self._limiter() is None else None
        for attempt in range(self.send_retries + 1):
            try:
                return await self._counted(chat, call, *args, **kwargs)
            except BadRequest:
                raise
            except NetworkError as exc:
                what = failure(exc)
                if attempt >= self.send_retries or (what == UNKNOWN and not resend):
                    raise
                log.warning("network error (%s); trying again in %.1f s", exc, delay)
                await asyncio.sleep(delay)
                delay *= 2
        raise AssertionError("unreachable")

    async def _counted(
        self, chat: int | None, call: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any
    ) -> T:
        """``call(*args, **kwargs)``, counted in our own budget while under way and from
        its answer (or failure) on, when it goes to ``chat``."""
        if chat is None:
            return await call(*args, **kwargs)
        self._own_pace.note(chat)
        try:
            return await call(*args, **kwargs)
        finally:
            self._own_pace.answered(chat)


def failure(exc: BaseException) -> str:
    """What a failed request means for the message it carried: :data:`AGAIN` (Telegram
    surely did not take it: a flood wait, a server error it answered, no connection),
    :data:`UNKNOWN` (it may have: a timeout, a connection dropped after the request went
    out), :data:`GONE` (the chat is gone for the bot: kicked, blocked, deleted, or the
    table's forum topic deleted), :data:`PAUSED` (the table's forum topic is closed) or
    :data:`GIVE_UP` (Telegram will never take it)."""
    if isinstance(exc, RetryAfter):
        return AGAIN
    if isinstance(exc, (Forbidden, BadRequest)):
        text = str(exc).lower()
        if any(marker in text for marker in CLOSED_MARKERS):
            return PAUSED
        return GONE if any(marker in text for marker in GONE_MARKERS) else GIVE_UP
    if isinstance(exc, TimedOut):
        # A pool timeout never sent the request; a connect timeout never reached Telegram.
        if isinstance(exc.__cause__, (httpx.PoolTimeout, httpx.ConnectTimeout)):
            return AGAIN
        return UNKNOWN
    if isinstance(exc, NetworkError):
        if isinstance(exc.__cause__, httpx.ConnectError):
            return AGAIN
        if isinstance(exc.__cause__, httpx.HTTPError):
            return UNKNOWN  # the connection broke: the request may have been read
        return AGAIN  # Telegram answered 5xx: it did not take the request
    return GIVE_UP
