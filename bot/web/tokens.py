"""Who a page's player is: seat tokens and table ids (from :mod:`bot.pages.links`, shared
with the service, which puts links in its messages), Telegram's Mini App ``initData``
check, and the Discord application whose Activity the board is (:mod:`bot.web.activity`
asks Discord)."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time
from dataclasses import dataclass
from urllib.parse import parse_qsl

from bot.core.config import Settings
from bot.pages.links import (
    ID_CHAT,
    ID_LENGTH,
    MAX_TOKEN,
    SECRET_ENV,
    TOKEN_LIFE,
    BadToken,
    Seat,
    Signer,
    web_secret,
)

__all__ = [
    "ID_CHAT",
    "ID_LENGTH",
    "INIT_DATA_LIFE",
    "SECRET_ENV",
    "TOKEN_LIFE",
    "BadToken",
    "DiscordApp",
    "Seat",
    "Signer",
    "telegram_user",
    "web_secret",
]

log = logging.getLogger(__name__)

#: Seconds Discord has to answer each call of an Activity's sign-in (the player waits).
DISCORD_TIMEOUT = 10.0
#: Oldest Telegram ``initData`` accepted, in seconds.
INIT_DATA_LIFE = 24 * 3600.0


def telegram_user(init_data: str, bot_token: str, now: float | None = None) -> tuple[str, str]:
    """The Telegram user (id, name) a Mini App's ``initData`` names, checked as Telegram's
    Web App documentation says: the fields but ``hash``, sorted, joined by new lines,
    signed with HMAC-SHA256 under the key HMAC-SHA256("WebAppData", bot token).

    Raises:
        BadToken: for data that is unsigned, forged, older than a day or names nobody.
    """
    if not init_data or len(init_data) > 4 * MAX_TOKEN or not bot_token:
        raise BadToken("malformed")
    fields = dict(parse_qsl(init_data, keep_blank_values=True))
    given = fields.pop("hash", "")
    check = "\n".join(f"{k}={fields[k]}" for k in sorted(fields))
    key = hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()
    want = hmac.new(key, check.encode(), hashlib.sha256).hexdigest()
    # A hash is hex: anything else (a non-ASCII one too) is forged, never compared.
    if not given or not given.isascii() or not hmac.compare_digest(want, given):
        raise BadToken("forged")
    try:
        signed_at = int(fields.get("auth_date", ""))
        user = json.loads(fields.get("user", ""))
        uid = str(int(user["id"]))
    except (ValueError, TypeError, KeyError) as exc:
        raise BadToken("malformed") from exc
    if (time.time() if now is None else now) - signed_at > INIT_DATA_LIFE:
        raise BadToken("expired")
    first = str(user.get("first_name", "")).strip()
    last = str(user.get("last_name", "")).strip()
    name = " ".join(p for p in (first, last) if p) or str(user.get("username", "")) or uid
    return uid, name


@dataclass(frozen=True)
class DiscordApp:
    """The Discord application whose Activity the board is.

    Args:
        client_id: the application's id.
        client_secret: its OAuth2 client secret (exchanges the page's code).
        bot_token: the bot's token, to ask where an Activity's instance runs; empty (a
            board in a process without it): the table of the person's last press only.
        api_url: Discord's API (tests: a fake on 127.0.0.1).
    """

    client_id: str
    client_secret: str
    bot_token: str = ""
    api_url: str = "https://discord.com/api/v10"
    timeout: float = DISCORD_TIMEOUT

    @classmethod
    def of(cls, settings: Settings) -> DiscordApp | None:
        """The app of ``[discord] activity`` (``None`` when it is off or has no secret)."""
        secret = settings.discord_secret()
        if not settings.discord_activity or not settings.discord_client_id:
            return None
        if not secret:
            log.warning(
                "[discord] activity is on, but %s is not set: the Activity cannot tell who "
                "its player is, so it is off",
                settings.discord_secret_env,
            )
            return None
        return cls(
            settings.discord_client_id,
            secret,
            settings.token("discord") or "",
            settings.discord_api_url,
        )
