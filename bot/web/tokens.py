"""The web page's secrets: table ids nobody can work out from a chat id, seat tokens that
say who a player is for a while, and Telegram's Mini App ``initData`` check.

Everything is signed with one secret: ``GENIAL_WEB_SECRET`` from the environment, else a
random one kept in the store (so every process on one store signs alike). A table id is a
keyed hash of the chat id; a seat token carries the table id, the player's id and an
expiry, with a keyed hash of the three. Comparisons take constant time.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import time
from dataclasses import dataclass
from urllib.parse import parse_qsl

from bot.service import Service

#: The environment variable that holds the secret.
SECRET_ENV = "GENIAL_WEB_SECRET"
#: Where the secret is kept in the store when the environment has none.
SECRET_CHAT = "~web"
SECRET_KEY = "secret"
#: Where a table id's chat is noted: the note ``chat`` of the chat ``web:<table id>``.
ID_CHAT = "web:"
#: Characters of a table id (base64url of 15 bytes of the keyed hash: 120 bits).
ID_LENGTH = 20
#: Seconds a seat token is good for.
TOKEN_LIFE = 7 * 24 * 3600.0
#: Oldest Telegram ``initData`` accepted, in seconds.
INIT_DATA_LIFE = 24 * 3600.0
#: Longest token or initData looked at (anything longer is refused unread).
MAX_TOKEN = 1024


class BadToken(ValueError):
    """A seat token or an ``initData`` that is forged, damaged or expired."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def web_secret(service: Service) -> bytes:
    """The signing secret: the environment's, else the store's (made once, then shared)."""
    env = os.environ.get(SECRET_ENV, "")
    if env:
        return env.encode("utf-8")
    kept = service.note(SECRET_CHAT, SECRET_KEY)
    if not kept:
        service.set_note(SECRET_CHAT, SECRET_KEY, secrets.token_urlsafe(32))
        kept = service.note(SECRET_CHAT, SECRET_KEY)  # another process may have won: theirs
    assert kept
    return kept.encode("utf-8")


@dataclass(frozen=True)
class Seat:
    """Who a valid token names: the table's id and the player's id."""

    table: str
    user: str


class Signer:
    """Table ids and seat tokens under one secret."""

    def __init__(self, secret: bytes, clock: object = time.time) -> None:
        self._secret = secret
        self._clock = clock

    def _mac(self, purpose: str, text: str) -> bytes:
        return hmac.new(self._secret, f"{purpose}\n{text}".encode(), hashlib.sha256).digest()

    def table_id(self, chat: str) -> str:
        return _b64(self._mac("table", chat))[:ID_LENGTH]

    def seat_token(self, table: str, user: str, now: float | None = None) -> str:
        """A token for ``user`` at the table with id ``table``, good for :data:`TOKEN_LIFE`."""
        now = self._now() if now is None else now
        body = _b64(json.dumps([table, user, int(now + TOKEN_LIFE)]).encode("utf-8"))
        return f"{body}.{_b64(self._mac('seat', body)[:18])}"

    def _now(self) -> float:
        clock = self._clock
        assert callable(clock)
        return float(clock())

    def check(self, token: str, now: float | None = None) -> Seat:
        """The seat a token names.

        Raises:
            BadToken: for a token that is forged, damaged or expired.
        """
        if not token or len(token) > MAX_TOKEN or token.count(".") != 1:
            raise BadToken("malformed")
        body, mac = token.split(".")
        if not hmac.compare_digest(_b64(self._mac("seat", body)[:18]), mac):
            raise BadToken("forged")
        try:
            table, user, expires = json.loads(_unb64(body))
        except (ValueError, TypeError) as exc:
            raise BadToken("malformed") from exc
        if not isinstance(table, str) or not isinstance(user, str) or not isinstance(expires, int):
            raise BadToken("malformed")
        if (self._now() if now is None else now) > expires:
            raise BadToken("expired")
        return Seat(table, user)


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
    if not given or not hmac.compare_digest(want, given):
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
