"""What a failed call to Discord means: try again later, close the table, or give it up.

The outbox (:mod:`bot.discord.delivery`) asks :func:`failure` what to do about a public
message Discord did not take; every part says in the log why a call failed with :func:`why`.
"""

from __future__ import annotations

import discord

#: Discord's error codes that mean the channel is gone for the bot: Unknown Channel (it was
#: deleted), Missing Access (the bot was removed or may no longer see it).
GONE_CODES = frozenset({10003, 50001})
#: Missing Permissions: someone may grant it again, so the messages wait.
MISSING_PERMISSIONS = 50013

#: What to do about a failed call: try again later, close the table, or give it up.
RETRY, GONE, DROP = "retry", "gone", "drop"


def failure(exc: BaseException) -> tuple[str, float | None]:
    """What a failed call to Discord means: (:data:`RETRY`, :data:`GONE` or :data:`DROP`,
    the wait Discord asked for, if it did). discord.py has already retried rate limits,
    server errors and reset connections a few times before an error reaches us."""
    if isinstance(exc, discord.RateLimited):
        return RETRY, exc.retry_after
    if isinstance(exc, discord.HTTPException):
        if exc.status == 429:
            return RETRY, _retry_after(exc)
        if exc.status >= 500 or exc.code == MISSING_PERMISSIONS:
            return RETRY, None
        if exc.code in GONE_CODES:
            return GONE, None
        return DROP, None  # a request Discord will never take (our mistake): not again
    # Timeouts, dropped connections, a gateway that went away: the call may or may not have
    # reached Discord; the nonce keeps a second try from doubling a message.
    return RETRY, None


def _retry_after(exc: discord.HTTPException) -> float | None:
    headers = getattr(exc.response, "headers", None) or {}
    try:
        return float(headers.get("Retry-After", ""))
    except ValueError:
        return None


def why(exc: BaseException) -> str:
    """A failed call in a few words for the log: Discord's status and message, or the
    kind of error (a timeout, a dropped connection)."""
    if isinstance(exc, discord.HTTPException):
        return f"{exc.status} {exc.text}".strip()
    return type(exc).__name__
