"""The tables of Telegram chats as the adapter sees them: where each one is now, and what the
service says of it (its language, its players).

A table's id is its chat (or forum topic, see :func:`~bot.telegram.limits.table_id`). When a
group becomes a supergroup its chat id changes, and its tables move along to the new id:
Telegram says so in both chats, or answers a request with the new id. The message ids noted
for the old chat mean nothing in the new one, so those notes are forgotten.
"""

from __future__ import annotations

import asyncio
import json
import logging

from bot.core.table import Table
from bot.service import Service
from bot.telegram import limits as fmt
from bot.telegram.notes import NOTE_LATEST, NOTE_LIVE, NOTE_LOBBY, NOTE_MOVED, Notes
from bot.words.texts import Texts

log = logging.getLogger(__name__)


class Tables:
    """Looks up tables in the service, and moves them when their group moves."""

    def __init__(self, service: Service, notes: Notes) -> None:
        self.service = service
        self.notes = notes
        # Tables that moved with their group to a supergroup in this run, old id -> new,
        # and the id each had first, new id -> old (their lock's).
        self._moved: dict[str, str] = {}
        self._first: dict[str, str] = {}

    async def table(self, chat: str) -> Table | None:
        return await asyncio.to_thread(self.service.table, chat)

    async def texts(self, chat: str) -> Texts:
        """The texts in the language of a chat's table (the default language if none)."""
        return Texts(await asyncio.to_thread(self.service.language, chat))

    async def names(self, chat: str) -> dict[str, str]:
        table = await self.table(chat)
        if table is None:
            return {}
        return {s.user: s.name for s in table.seats if s.user is not None}

    async def migrate(self, old: int, new: int) -> list[str]:
        """Move the tables of group ``old`` (and of its topics) to supergroup ``new``. The
        message ids noted for the old chat mean nothing in the new one: forgotten, so the
        next lobby there is a new message. Doing it twice changes nothing. Returns the
        ids the tables moved to (none the second time)."""
        old_id, new_id = str(old), str(new)
        prefix = old_id + fmt.TOPIC_SEPARATOR
        tables = await asyncio.to_thread(self.service.chats)
        moved: list[str] = []
        for table in tables:
            if table != old_id and not table.startswith(prefix):
                continue
            target = new_id + table[len(old_id) :]
            # Before the move: from the moment the table's letters are at the new id, a
            # command or the clock there waits for the delivery under way here (which
            # claimed them: they would go out twice). Kept if the move does not happen:
            # two ids sharing a lock only take turns.
            self._first.setdefault(target, self.first_id(table))
            if not await asyncio.to_thread(self.service.move_table, table, target):
                continue
            self._moved[table] = target
            log.info("the table of chat %s moved with its group to %s", table, target)
            await self.notes.set_note(target, NOTE_LOBBY, None)
            await self.notes.set_note(target, NOTE_LATEST, None)  # a basic group's: no link
            live = [e for e in await self.notes.live(target) if e[0] != old]
            await self.notes.set_note(target, NOTE_LIVE, json.dumps([list(e) for e in live]))
            await self.notes.set_note(table, NOTE_MOVED, target)  # for old buttons there
            moved.append(target)
        # The tournaments played from the group (or its topics) follow it there.
        cups = await asyncio.to_thread(
            self.service.move_tournaments, old_id, new_id, fmt.TOPIC_SEPARATOR
        )
        if cups:
            log.info("tournaments %s moved with chat %s to %s", ", ".join(cups), old_id, new_id)
        return moved

    async def moved_to(self, table: str) -> str | None:
        """Where the table of ``table`` went with its group (a supergroup), if it moved and
        no table was opened there since."""
        target = self._moved.get(table)
        if target is None:
            target = await asyncio.to_thread(self.service.note, table, NOTE_MOVED)
        if target is None or await self.table(table) is not None:
            return None
        return target

    def first_id(self, table: str) -> str:
        """The id the table had when this run first saw it (its lock's id)."""
        return self._first.get(table, table)

    def current(self, table: str) -> str:
        """The id a table has now (it moved if its group became a supergroup)."""
        return self._moved.get(table, table)
