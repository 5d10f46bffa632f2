"""What the Telegram adapter remembers of each table across restarts, as the service's notes.

Telegram knows nothing of our tables, and a restart must not post a second lobby, leave old
buttons pressable or tell a player twice that their private chat is closed. So the adapter
notes beside the table (see :meth:`~bot.service.Service.note`): the lobby message, the
messages whose buttons still work, the latest turn message that links lead to, a forum
topic's name, who was told that their private chat is not open, and, by user, whose private
chat is closed. Each read and write runs in a worker thread, like every call into the
service.
"""

from __future__ import annotations

import asyncio
import json

from telegram import Message

from bot.core.outbound import NOTE_WHERE, Where
from bot.service import Service
from bot.telegram import limits as fmt

#: This platform's name in a table's :data:`~bot.core.outbound.NOTE_WHERE`.
PLATFORM = "telegram"

# Notes kept in the store (see Service.note), by table unless said otherwise.
#: The lobby message id, edited in place as people come and go.
NOTE_LOBBY = "telegram.lobby"
#: The messages whose buttons still work, as a JSON list of [chat id, message id].
NOTE_LIVE = "telegram.live"
#: Who was told in the group that their private chat is not open: {"game": seed, "users"}.
NOTE_TOLD = "telegram.told"
#: A forum topic's name (Telegram says it only in some messages).
NOTE_TOPIC = "telegram.topic"
#: By the user's private chat: the bot may not write there (Telegram answered 403).
NOTE_CLOSED = "telegram.closed"
#: The table's latest turn (or result) message, for links to it (/games, turn pings):
#: {"message": message id, "username": the group's public username or null}.
NOTE_LATEST = "telegram.latest"
#: A table's older messages whose buttons are still to come off (the group had no request
#: to spare when the turn passed: bot.telegram.pace), as [chat id, message id] pairs.
NOTE_STALE = "telegram.stale"
#: By the id a table had before its group became a supergroup: the table's id now.
NOTE_MOVED = "telegram.moved"
#: By table played in an inline message (issue 49): the message's inline_message_id, the
#: one way to edit it; what it shows now (bot.telegram.inline); and which game was chosen
#: (bot.telegram.challenge).
NOTE_INLINE = "telegram.inline"
NOTE_INLINE_SHOWN = "telegram.inline.shown"
NOTE_INLINE_KIND = "telegram.inline.kind"
#: By table, per person: the turn ping sent to them privately (its message id), deleted
#: when that turn passes.
NOTE_PING = "telegram.ping.{user}"


class Notes:
    """The adapter's notes in the store, by table (or by user, for a private chat)."""

    def __init__(self, service: Service) -> None:
        self.service = service

    async def note_int(self, table: str, key: str) -> int | None:
        """A note that holds a message id; ``None`` if there is none (or not a number)."""
        raw = await asyncio.to_thread(self.service.note, table, key)
        return int(raw) if raw is not None and raw.lstrip("-").isdigit() else None

    async def set_note(self, table: str, key: str, value: str | None) -> None:
        await asyncio.to_thread(self.service.set_note, table, key, value)

    async def live(self, table: str, key: str = NOTE_LIVE) -> list[tuple[int, int]]:
        """The table's messages whose buttons still work, as (chat id, message id) (with
        ``key`` :data:`NOTE_STALE`: those whose buttons are still to come off)."""
        raw = await asyncio.to_thread(self.service.note, table, key)
        try:
            entries = json.loads(raw) if raw else []
            return [(int(chat), int(message_id)) for chat, message_id in entries]
        except (ValueError, TypeError):  # a note we did not write: forget it
            return []

    async def add_live(self, table: str, message: Message) -> None:
        """Note one more message of the table whose buttons work (a private rack with Swap
        and Keep), to be retired with the turn message."""
        live = await self.live(table)
        live.append((message.chat.id, message.message_id))
        await self.set_note(table, NOTE_LIVE, json.dumps([list(e) for e in live]))

    async def note_latest(self, table: str, sent: Message, chat: str | None = None) -> None:
        """Keep the table's newest turn message (and the group's public username, which
        makes a nicer link) for the links that lead back to the table; ``chat``: where it
        was posted, when that is not the table's own chat (a tournament's table)."""
        latest = {"message": sent.message_id, "username": sent.chat.username}
        if chat is not None:
            latest["chat"] = chat
        await self.set_note(table, NOTE_LATEST, json.dumps(latest))
        # Where the table is, for Discord's listings of a person linked on both (issue 49).
        try:
            link = fmt.message_link(chat or table, sent.message_id, sent.chat.username)
        except ValueError:
            link = None
        await self.set_note(table, NOTE_WHERE, Where(PLATFORM, link).dump())

    async def latest_link(self, table: str) -> str | None:
        """The link to the table's latest turn message; ``None`` if none was noted or the
        chat has no message links (a basic group, a private chat)."""
        raw = await asyncio.to_thread(self.service.note, table, NOTE_LATEST)
        try:
            latest = json.loads(raw) if raw else None
            message_id = int(latest["message"]) if latest else None
            username = str(latest["username"]) if latest and latest.get("username") else None
            where = str(latest.get("chat") or table) if latest else table
        except (ValueError, TypeError, KeyError, AttributeError):  # not a note we wrote
            return None
        if message_id is None:
            return None
        try:
            return fmt.message_link(where, message_id, username)
        except ValueError:
            return None

    async def opened(self, user: str) -> None:
        """The user wrote to the bot privately: their private chat is open now."""
        if await asyncio.to_thread(self.service.note, user, NOTE_CLOSED) is not None:
            await self.set_note(user, NOTE_CLOSED, None)


def read_told(raw: str | None, game: str) -> list[str]:
    """Who was told (in the game ``game``) that their private chat is not open."""
    try:
        told = json.loads(raw) if raw else {}
        if isinstance(told, dict) and told.get("game") == game:
            return [str(u) for u in told.get("users", [])]
    except ValueError:
        pass
    return []
