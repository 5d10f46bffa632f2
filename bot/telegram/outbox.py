"""A table's messages go out in order, through its outbox, whatever Telegram does.

A lock per table lets one command (or look of the clock) at a table at a time, so its
messages keep their order while other tables go on. A table's waiting letters are flushed by
one delivery at a time as well: a command delivers the letters it wrote for other tables (a
tournament's tables in their forum topics) without holding their locks, and the clock may
flush those tables meanwhile; the store hands this process's own claims to both, so without
that a letter would be posted twice. What a command or the clock changed at
a table is said through the service's stored outbox: written with the change itself, it
waits in the store until Telegram took it, so a bot killed between the commit and the post
says it after the restart (any process on the store does: a letter is claimed by one at a
time). What Telegram surely did not take (a 429 after the rate limiter's retries, a 5xx, no
connection) waits there too, ahead of the table's later messages, until the next command or
the clock's next look (within :data:`OUTBOX_RETRY`); so does an answer that changed nothing
(it is stored only then; an answer goes out at once, not behind what waits).

What can still be said twice: a message Telegram took whose answer never came back to the
bot, because the bot was killed in that instant (the Bot API has no idempotency key, so the
restarted bot cannot ask). A new message whose outcome is unknown in a running bot (a
timeout, a connection dropped after the request went out) is counted as posted and never
sent again: such a request has mostly reached Telegram, which was only slow to answer; a
double board would confuse the table more than a missing one, which the next board's
position makes up for. Edits and button answers are repeated freely ("not modified" means
done). A table whose chat is gone for the bot (removed from the group, the group deleted,
its forum topic deleted, the private chat blocked) is closed as an admin's ``/abort`` would
close it, so its computer players stop, and its players are told why in their private
chats; a player who blocked the bot only loses their private racks. A table whose forum
topic is closed keeps its game and its waiting messages, tells its players privately (once
a pause) that its boards wait, and delivers them when the topic is reopened (or someone
writes there).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace

from telegram.error import TelegramError

from bot.core.commands import Abort, Board
from bot.core.outbound import Chat, Outbound, User
from bot.service import Service
from bot.store.base import CLAIM_BATCH
from bot.telegram import limits as fmt
from bot.telegram.botapi import AGAIN, GONE, PAUSED, UNKNOWN, BotAPI, failure
from bot.telegram.messages import Messages, Origin
from bot.words.texts import Texts

log = logging.getLogger(__name__)

#: How soon the clock tries again a table's messages Telegram did not take.
OUTBOX_RETRY = 2.0
#: The most turn messages of computer players that wait for the next ones while their chat
#: has no room (a round at a table of four), to be told together as one message.
MERGED_TURNS = 4
#: What separates the turns told in one message.
TURN_BREAK = "\n\n"


class TableLocks:
    """The tables' locks: one command (or look of the clock) at a table at a time."""

    def __init__(self, same: Callable[[str], str] | None = None) -> None:
        """
        Args:
            same: the id a table's lock is kept under: a table that moved with its group
                to a supergroup keeps the lock of its first id, so a delivery under way
                from the old chat and a command or the clock at the new one take turns.
        """
        # Each table's lock with how many hold or wait for it; dropped at none, so a table
        # that finished leaves nothing here.
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}
        self._same = same

    @asynccontextmanager
    async def hold(self, chat: str) -> AsyncIterator[None]:
        """Hold the table's lock: one command (or look of the clock) at a table at a time.
        The lock lives only while someone holds or waits for it (one event loop: no guard
        needed around the count)."""
        chat = self._same(chat) if self._same is not None else chat
        lock, users = self._locks.get(chat) or (asyncio.Lock(), 0)
        self._locks[chat] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[chat]
            if users == 1:
                del self._locks[chat]
            else:
                self._locks[chat] = (lock, users - 1)


class Outbox:
    """Each table's messages, delivered from the stored outbox in order."""

    def __init__(self, service: Service, api: BotAPI, messages: Messages) -> None:
        self.service = service
        self.api = api
        self.messages = messages
        # The command each letter this process is delivering answers, by letter: a letter
        # delivered after a restart goes out without (errors to the table, no edit of the
        # pressed message).
        self.origins: dict[int, Origin] = {}
        # Tables with letters Telegram did not take: a command there tries them first.
        self.held: set[str] = set()
        # Tables whose forum topic is closed: their letters wait, untried, until it is
        # reopened (or someone writes there, which only an open topic allows).
        self.paused: set[str] = set()
        #: Tables whose last turn messages wait for the next computer turns, to be told
        #: with them as one message (their chat has no room now): the clock's next step
        #: there delivers them, not a flush of its own.
        self.gathering: set[str] = set()
        # Paused tables whose players were told privately that their boards wait.
        self.told_paused: set[str] = set()
        # Each table's flush, one at a time (see the module's words).
        self._flushing = TableLocks()

    async def deliver(
        self, outs: Sequence[Outbound], origin: Origin | None, *, gather: bool = False
    ) -> None:
        """Send each outbound in Telegram's idiom: what a command or the clock changed
        (stored in the outbox) through its table's outbox, in order after what waited
        there; an answer that changed nothing at once, or, if Telegram does not take it
        now, into the outbox. ``gather``: see :meth:`flush`. Call with the table's lock
        held."""
        stored = [out for out in outs if out.stored is not None]
        for out in stored:
            assert out.stored is not None
            if origin is not None:
                self.origins[out.stored.id] = origin
        tables = dict.fromkeys(out.chat for out in stored)
        if origin is not None and origin.chat in self.paused:
            # A command from the topic: it is open again, and what waited goes first.
            self.paused.discard(origin.chat)
            self.told_paused.discard(origin.chat)
            tables = {origin.chat: None, **tables}
        for table in tables:
            await self.flush(table, gather=gather)
        fresh = [out for out in outs if out.stored is None]
        for n, out in enumerate(fresh):
            if await self._send(out, origin) == AGAIN:
                # Stored now, to wait with the table's letters (with the command they answer).
                waiting = await asyncio.to_thread(self.service.undelivered, fresh[n:])
                for kept in waiting:
                    if kept.stored is not None and origin is not None:
                        self.origins[kept.stored.id] = origin
                self.held.add(out.chat)
                return

    async def flush(self, table: str, *, gather: bool = False) -> None:
        """Deliver a table's waiting letters, oldest first, until Telegram refuses one for
        now (it waits, with the rest, for the next try). A letter whose outcome is unknown
        counts as sent (see the module's words); one Telegram will never take is given up;
        if the table's chat is gone for the bot, the table is closed. While the table's
        forum topic is closed, what goes to the topic waits and the private letters (racks)
        go out. Turn messages that wait together while their chat has no room for each
        are told as one (:func:`merged`); ``gather`` (the clock's step, with a computer
        player to move next): the last turn messages wait for the next ones while the
        chat has no room, up to :data:`MERGED_TURNS` (they are in :attr:`gathering`)."""
        async with self._flushing.hold(table):
            await self._flush(table, gather=gather)

    async def _flush(self, table: str, *, gather: bool) -> None:
        """:meth:`flush`, with the table's flush lock held."""
        self.gathering.discard(table)
        # An inline message's table has no chat of its own: its edits are paced as one.
        chat: int | str = table if fmt.is_inline(table) else fmt.split_table(table)[0]
        done: set[int] = set()
        while True:
            batch = await asyncio.to_thread(self.service.waiting, table)
            letters = [out for out in batch if out.stored is not None and out.stored.id not in done]
            if not letters:
                self.held.discard(table)
                return
            held: list[Outbound] = []
            pings = _pings_with_racks(letters)
            by_id = {out.stored.id: out for out in letters if out.stored is not None}
            n = 0
            while n < len(letters):
                out = letters[n]
                assert out.stored is not None
                letter = out.stored.id
                origin = self.origins.get(letter)
                if table in self.paused and _destination(out, origin) == table:
                    done.add(letter)
                    await self._tell_paused(table)
                    held.append(out)
                    n += 1
                    continue
                run = self._turns(letters, n, table)
                if (
                    gather
                    and run
                    and n + len(run) == len(letters)
                    and len(batch) < CLAIM_BATCH
                    and len(run) < MERGED_TURNS
                    and self.api.crowded(chat)
                ):
                    # The chat has no room now: the next computer turns join these.
                    await asyncio.to_thread(self.service.undelivered, held + run)
                    self.gathering.add(table)
                    return
                if len(run) > 1 and self.api.crowded(chat, len(run)):
                    part = _fitting(run)
                    out = merged(part)
                    origin = self._origin(part[-1])
                else:
                    part = [out]
                    if letter in pings.values():
                        # Said with the player's rack, which went out before it.
                        await self._delivered(out)
                        done.add(letter)
                        n += 1
                        continue
                    ping = by_id.get(pings.get(letter, -1))
                    if ping is not None:
                        out = await self.messages.with_ping(out, ping)
                done.update(p.stored.id for p in part if p.stored is not None)
                what = await self._send(out, origin, table)
                if what == AGAIN:
                    await asyncio.to_thread(self.service.undelivered, held + letters[n:])
                    self.held.add(table)
                    return
                if what == PAUSED:
                    self.paused.add(table)
                    await self._tell_paused(table)
                    held.extend(part)
                    n += len(part)
                    continue
                if what == GONE:
                    return
                for told in part:
                    await self._delivered(told)
                n += len(part)
            if held:
                await asyncio.to_thread(self.service.undelivered, held)
                self.held.add(table)
                return
            if len(batch) < CLAIM_BATCH:
                self.held.discard(table)
                return

    async def _delivered(self, out: Outbound) -> None:
        """The letter is done with: out of the outbox, and its command forgotten."""
        await asyncio.to_thread(self.service.delivered, out)
        if out.stored is not None:
            self.origins.pop(out.stored.id, None)

    def _origin(self, out: Outbound) -> Origin | None:
        """The command a letter answers, if this process knows it."""
        return None if out.stored is None else self.origins.get(out.stored.id)

    def _turns(self, letters: Sequence[Outbound], n: int, table: str) -> list[Outbound]:
        """The turn messages to the table's chat from ``letters[n]`` on, one after another
        (none if that letter is not one): what may be told as one message."""
        run: list[Outbound] = []
        for out in letters[n:]:
            assert out.stored is not None
            origin = self.origins.get(out.stored.id)
            if out.kind != "turn" or _destination(out, origin) != table:
                break
            if origin is not None and isinstance(origin.command, (Board, Abort)):
                break  # a board asked for (a document) or a table closed: as it is
            run.append(out)
        return run

    async def _send(self, out: Outbound, origin: Origin | None, table: str | None = None) -> str:
        """Deliver one outbound; what its failure means (:data:`AGAIN`: Telegram did not
        take it, try later; :data:`GONE`: the table's chat is gone, and the table closed),
        or ``""`` when it is done with (posted, or given up)."""
        try:
            await self.messages.deliver_one(out, origin)
        except Exception as exc:
            what = failure(exc)
            if what == AGAIN:
                log.warning(
                    "could not deliver a %s message of table %s (%s); it waits",
                    out.kind,
                    out.chat,
                    exc,
                )
                return AGAIN
            if what == PAUSED and _destination(out, origin) == out.chat:
                log.info("the forum topic of table %s is closed: its messages wait", out.chat)
                return PAUSED
            if what == GONE and _destination(out, origin) == out.chat:
                await self._gone(out.chat, exc)
                return GONE
            if what == UNKNOWN:
                log.warning(
                    "a %s message of table %s may not have arrived (%s); not sent again",
                    out.kind,
                    out.chat,
                    exc,
                )
            elif isinstance(exc, TelegramError):
                log.warning("could not deliver a %s message: %s", out.kind, exc)
            else:
                log.exception("could not deliver a %s message", out.kind)
        return ""

    async def reopened(self, table: str) -> None:
        """The table's forum topic was reopened: what waited goes out now. Call with the
        table's lock held."""
        self.paused.discard(table)
        self.told_paused.discard(table)
        await self.flush(table)

    async def _tell_paused(self, table: str) -> None:
        """The players learn privately, once a pause, that the table's topic is closed and
        its boards wait there (the topic itself takes no word)."""
        if table not in self.told_paused:
            self.told_paused.add(table)
            await self._tell_players(table, "telegram.topic_closed")

    async def _tell_players(self, table: str, key: str) -> None:
        """A private word to each person seated at ``table``; one the bot cannot write to
        is skipped (the chat they would be told in is the one that cannot be reached)."""
        try:
            found = await asyncio.to_thread(self.service.table, table)
        except Exception as exc:
            log.info("could not tell the players of table %s: %s", table, exc)
            return
        if found is None:
            return
        text = Texts(found.options.lang)(key, table=found.title or table)
        for seat in found.seats:
            if seat.user is None or seat.left or seat.user == table:
                continue
            try:
                await self.api.retry(self.api.bot.send_message, int(seat.user), text, resend=False)
            except (TelegramError, ValueError) as exc:
                log.info("could not tell %s about table %s: %s", seat.user, table, exc)

    async def _gone(self, table: str, why: BaseException) -> None:
        """The table's chat is gone for the bot (it was removed from the group, the group
        was deleted, the player blocked it): the table is closed as a chat admin's
        ``/abort`` would close it, so its computer players stop, and what waited to be
        posted there is forgotten. Call with the table's lock held."""
        self.held.discard(table)
        self.paused.discard(table)
        self.told_paused.discard(table)
        # Before it closes: who sat there learns privately why their game ended.
        await self._tell_players(table, "telegram.table_gone")
        me = User(str(self.api.bot.id), str(self.api.bot.first_name or "Genial"))
        try:
            await asyncio.to_thread(self.service.handle, Chat(table), me, "/abort", admin=True)
        except Exception:
            log.exception("could not close table %s", table)
        else:
            log.warning("closed table %s: its chat is gone for the bot (%s)", table, why)
        # What waited, and what /abort says, goes nowhere: there is no chat to say it in.
        await asyncio.to_thread(self.service.forget_waiting, table)
        for letter, origin in list(self.origins.items()):
            if origin.table == table:
                del self.origins[letter]


def _destination(out: Outbound, origin: Origin | None) -> str:
    """Where an outbound goes: a player's private chat, back where a command was typed
    (an error), or the table's chat."""
    if out.user is not None and out.user != out.chat:
        return out.user
    if out.kind == "error" and origin is not None:
        return origin.chat
    return out.chat


def _pings_with_racks(letters: Sequence[Outbound]) -> dict[int, int]:
    """The turn pings said with the same player's rack of the same turn (one private
    message with one image instead of two), as rack letter -> ping letter: a ping that
    follows its player's rack among the letters delivered together."""
    racks: dict[str, int] = {}
    pairs: dict[int, int] = {}
    for out in letters:
        if out.stored is None or out.user is None:
            continue
        if out.kind == "rack":
            racks[out.user] = out.stored.id
        elif out.kind == "ping" and out.user in racks:
            pairs[racks.pop(out.user)] = out.stored.id
    return pairs


def merged(turns: Sequence[Outbound]) -> Outbound:
    """Turn messages told as one: their texts one after another, in order, with the last
    one's board, buttons and mentions (the board shows every move told before it; the
    buttons and the player to act are the latest turn's)."""
    return replace(turns[-1], text=TURN_BREAK.join(out.text for out in turns))


def _fitting(turns: Sequence[Outbound]) -> list[Outbound]:
    """The first of these turn messages that fit in one message whole (Telegram's limit
    for a caption, or for a text without a board): at least the first."""
    part = [turns[0]]
    for out in turns[1:]:
        limit = fmt.CAPTION_LIMIT if out.attachment is not None else fmt.TEXT_LIMIT
        if fmt.utf16_len(merged([*part, out]).text) > limit:
            break
        part.append(out)
    return part
