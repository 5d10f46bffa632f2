"""Links to the web board's pages, signed: table ids nobody can work out from a chat id,
and seat tokens that say who a player is for a while (docs/web.md). The service adds them
to its messages as link buttons when the board is on (:meth:`Service.web_links`); the web
platform checks them.

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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

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
#: Public messages that carry a link to their table's page.
LINKED = frozenset({"turn", "result", "lobby"})
#: Private messages that carry a link to the player's own page.
SEAT_LINKED = frozenset({"rack", "ping"})
#: Longest token looked at (anything longer is refused unread).
MAX_TOKEN = 1024
#: Where a Discord board button's press is noted (``[discord] activity``): the note
#: ``activity_press`` under the person's id (so ``/mydata`` shows it and ``/forget me``
#: forgets it), the table's chat and the time, so the Activity it launches finds that
#: table when its channel has none (a thread, a private message).
PRESS_KEY = "activity_press"
#: Seconds a noted press names the table of an Activity launched after it.
PRESS_LIFE = 600.0


class Notes(Protocol):
    """Where the secret and the table ids' chats are kept (the service's notes)."""

    def note(self, chat: str, key: str) -> str | None: ...

    def set_note(self, chat: str, key: str, value: str | None) -> None: ...


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def web_secret(notes: Notes) -> bytes:
    """The signing secret: the environment's, else the store's (made once, then shared)."""
    env = os.environ.get(SECRET_ENV, "")
    if env:
        return env.encode("utf-8")
    kept = notes.note(SECRET_CHAT, SECRET_KEY)
    if not kept:
        notes.set_note(SECRET_CHAT, SECRET_KEY, secrets.token_urlsafe(32))
        kept = notes.note(SECRET_CHAT, SECRET_KEY)  # another process may have won: theirs
    assert kept
    return kept.encode("utf-8")


def note_press(notes: Notes, user: str, chat: str, now: float) -> None:
    """Note that ``user`` pressed a board button of ``chat``'s table at ``now`` (the
    Discord platform, before it launches the Activity)."""
    notes.set_note(user, PRESS_KEY, f"{chat} {int(now)}")


def pressed(notes: Notes, user: str, now: float) -> str | None:
    """The chat whose board button ``user`` pressed within :data:`PRESS_LIFE`, if any."""
    kept = notes.note(user, PRESS_KEY)
    chat, _, at = (kept or "").partition(" ")
    if not chat or not at.isdigit() or not 0 <= now - int(at) <= PRESS_LIFE:
        return None
    return chat


class BadToken(ValueError):
    """A seat token or an ``initData`` that is forged, damaged or expired."""


@dataclass(frozen=True)
class Seat:
    """Who a valid token names: the table's id and the player's id."""

    table: str
    user: str


class Signer:
    """Table ids and seat tokens under one secret."""

    def __init__(self, secret: bytes, clock: Callable[[], float] = time.time) -> None:
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
        return float(self._clock())

    def check(self, token: str, now: float | None = None) -> Seat:
        """The seat a token names.

        Raises:
            BadToken: for a token that is forged, damaged or expired.
        """
        if not token or len(token) > MAX_TOKEN or token.count(".") != 1 or not token.isascii():
            raise BadToken("malformed")  # a token is base64url: ASCII only
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

    def note_table(self, notes: Notes, chat: str) -> str:
        """The table id of ``chat``, noted in the store so every process finds its chat."""
        tid = self.table_id(chat)
        if notes.note(ID_CHAT + tid, "chat") != chat:
            notes.set_note(ID_CHAT + tid, "chat", chat)
        return tid
