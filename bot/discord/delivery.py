"""The table service's outbounds out to Discord: private ones at once, public ones through
the table's outbox, in order, until Discord takes them.

What a command or the clock changed at a table is said through the service's stored
outbox: written with the change itself, it waits in the store until Discord took it, so a
bot killed between the commit and the post says it after the restart (any process on the
store does). When Discord misbehaves (rate limits, server errors, timeouts, dropped
connections, a missing permission), a table's public messages wait there, in order, and go
out once Discord takes them again: each carries the nonce fixed when it was stored, which
Discord enforces, so a message whose answer was lost on the way (or whose bot was killed
before it heard the answer) is not posted twice. A table whose channel is gone (deleted, or
the bot removed from the server) is closed as an admin's ``/abort`` would close it, so its
computer players stop.

Failures to post or to send a direct message are logged and never stop the table.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from functools import partial

import discord

from bot.core.outbound import Button, Chat, Outbound, User
from bot.core.table import CLOSED
from bot.discord.answers import Answers
from bot.discord.failures import DROP, GONE, failure, why
from bot.discord.links import Links
from bot.discord.lobby import IN_PLACE, Lobby
from bot.discord.parts import Part
from bot.discord.private import Private, Reply
from bot.discord.views import ACTIVITY
from bot.service import Service
from bot.store import StoreError
from bot.store.base import CLAIM_BATCH

log = logging.getLogger(__name__)

#: Waits before posting a table's held-back messages again: doubling from the first, up to
#: the last (unless Discord says how long to wait). discord.py has already retried for a
#: few seconds before a failure reaches us, so the first wait is not short either.
RETRY_FIRST = 8.0
RETRY_LONGEST = 300.0
#: How long a message waits in an outbox at most; then it is given up, with a warning.
PATIENCE = 24 * 3600.0


@dataclass
class Pending:
    """A public message being posted from a table's outbox."""

    outbound: Outbound
    reply: Reply | None
    #: Discord keeps the first message sent with a nonce and answers a second send with
    #: the same nonce (a retry after a lost answer) with that message.
    nonce: int
    since: float
    #: The person who acted has been told privately what the channel did not get.
    told: bool = False


class Delivery(Part):
    """What the service says, posted in the table's channel or answered privately, from
    the stored outbox; what this process remembers of it (the interaction each letter
    answers, when to try a table again) needs no restart."""

    def __init__(
        self,
        client: discord.Client,
        service: Service,
        *,
        lobby: Lobby,
        links: Links,
        private: Private,
        answers: Answers,
        wake: Callable[[], None],
    ) -> None:
        """
        Args:
            lobby: edits the lobby and options in place, takes buttons off old messages.
            links: notes each table's latest turn message.
            private: answers the person who acted, sends direct messages.
            answers: posts at tables in chats the bot is not a member of.
            wake: makes the clock look again now (a held-back message set a retry time).
        """
        super().__init__(client, service)
        self.lobby = lobby
        self.links = links
        self.private = private
        self.answers = answers
        self.wake = wake
        #: One table's public messages go out one after another (each reads and writes notes).
        self.posting: dict[str, asyncio.Lock] = {}
        #: The interaction each letter this process is delivering answers, by letter.
        self.replies: dict[int, Reply] = {}
        #: Letters whose person was told privately what the channel did not get.
        self.told: set[int] = set()
        #: When to try a table's outbox again, and how many tries failed in a row.
        self.retry_at: dict[str, float] = {}
        self.failures: dict[str, int] = {}
        #: Tables where Discord said how long to wait (a rate limit): no try before that.
        self.told_to_wait: set[str] = set()
        #: The clock's deliveries of waiting letters under way, by table.
        self.flushing: dict[str, asyncio.Task[None]] = {}

    def forget(self, chat: str) -> None:
        """No message waits for the table any more."""
        self.retry_at.pop(chat, None)
        self.failures.pop(chat, None)
        self.told_to_wait.discard(chat)

    def post_lock(self, chat: str) -> asyncio.Lock:
        """Held while the table's messages are posted or their buttons taken off, so
        that no edit overtakes the post it follows."""
        return self.posting.setdefault(chat, asyncio.Lock())

    async def deliver(self, out: list[Outbound], reply: Reply | None) -> None:
        """Send each outbound in Discord's idiom. What a command changed comes stored and
        goes out through its table's outbox; of the answers that changed nothing, a private
        one is sent at once (one that fails is logged and skipped: the person can ask
        again) and a public one is stored to wait in the outbox like the rest."""
        chats: list[str] = []
        public: list[Outbound] = []
        for outbound in out:
            if outbound.stored is not None:
                if reply is not None:
                    self.replies[outbound.stored.id] = reply
                chats.append(outbound.chat)
            elif _public(outbound, reply):
                public.append(outbound)
                chats.append(outbound.chat)
            else:
                await self._private(outbound, reply)
        if public:
            for kept in await asyncio.to_thread(self.service.undelivered, public):
                if kept.stored is not None and reply is not None:
                    self.replies[kept.stored.id] = reply
        for chat in dict.fromkeys(chats):
            # A new message tries the waiting ones again at once (unless Discord said how
            # long to wait): people act at their own pace, and Discord may be back.
            await self.flush(chat, eager=True)

    async def flush_all(
        self, ours: Callable[[str], Awaitable[bool]], *, eager: bool = False
    ) -> None:
        """The waiting letters of every table ``ours`` says this process delivers now (the
        clock's look; the gateway back): not those of a table a command is busy at, which
        delivers them with its interaction, nor another shard's. Each table's in a task of
        its own, and none of a table whose letters are being delivered already: a table
        waits out its channel's rate limit (discord.py sleeps inside the call, a 429's
        ``retry_after`` too) without holding the clock or any other table."""
        for chat in await asyncio.to_thread(self.service.waiting_tables):
            if chat in self.flushing or self.post_lock(chat).locked():
                continue
            if await ours(chat):
                task = asyncio.create_task(self._flush_alone(chat, eager), name="genial-flush")
                self.flushing[chat] = task
                task.add_done_callback(partial(self._flushed, chat))

    async def _flush_alone(self, chat: str, eager: bool) -> None:
        try:
            await self.flush(chat, eager=eager)
        except Exception:
            log.exception("could not deliver the waiting messages of table %s", chat)

    def _flushed(self, chat: str, task: asyncio.Task[None]) -> None:
        if self.flushing.get(chat) is task:
            del self.flushing[chat]

    async def flush(self, chat: str, *, eager: bool = False) -> None:
        """Deliver a table's waiting letters in order: private ones at once, public ones
        until Discord refuses one (then those wait, and the clock tries again later); the
        turn pings last, so their link leads to the board."""
        gone: BaseException | None = None
        pings: list[Outbound] = []
        async with self.post_lock(chat):
            early = self.retry_at.get(chat, 0.0) > self.service.clock()
            holding = early and (not eager or chat in self.told_to_wait)
            answers_only = await self.answers.only(chat)
            done: set[int] = set()
            while gone is None:
                batch = await asyncio.to_thread(self.service.waiting, chat)
                todo = [o for o in batch if o.stored is not None and o.stored.id not in done]
                held: list[Outbound] = []
                for outbound in todo:
                    assert outbound.stored is not None
                    letter = outbound.stored.id
                    done.add(letter)
                    reply = self.replies.get(letter)
                    if outbound.kind in ("ping", "unping"):  # in their order, after the rest
                        pings.append(outbound)
                        continue
                    if not _public(outbound, reply):
                        await self._private(outbound, reply)
                        continue
                    if holding:
                        held.append(outbound)
                        continue
                    if answers_only:
                        if not await self._answer(outbound, reply):
                            held.append(outbound)  # until the next command or button
                        continue
                    pending = Pending(
                        outbound,
                        reply,
                        outbound.stored.key,
                        outbound.stored.since,
                        letter in self.told,
                    )
                    try:
                        await self._post(pending)
                    except Exception as exc:
                        what, wait = failure(exc)
                        if what == GONE:
                            gone = exc
                            break
                        if await self._held_back(chat, pending, exc, what, wait):
                            holding = True
                            held.append(outbound)
                        else:
                            await self._done(outbound)
                        continue
                    await self._done(outbound)
                    self.failures.pop(chat, None)
                if held:
                    await asyncio.to_thread(self.service.undelivered, held)
                if not todo or len(batch) < CLAIM_BATCH:
                    break
            if not holding:
                self.forget(chat)
        for ping in pings:
            await self._private(ping, self.replies.get(ping.stored.id) if ping.stored else None)
        if gone is not None:
            await self.gone(chat, why(gone))

    async def _answer(self, outbound: Outbound, reply: Reply | None) -> bool:
        """A public message at a table in a chat the bot is not a member of: posted as an
        answer to the interaction it follows, or to the table's latest one while its token
        lasts (:mod:`bot.discord.answers`); ``False`` if it must wait for the next one."""
        chat = outbound.chat
        live = self.answers.reply_for(chat, reply)
        if live is None:
            return False
        try:
            message = await self.answers.post(await self._linked(outbound), live)
        except discord.HTTPException as exc:
            log.info("could not answer at table %s: %s; it waits", chat, why(exc))
            self.answers.expired(chat, live)
            return False
        if message is not None and outbound.kind in ("turn", "result"):
            await self.links.note_latest(chat, live.interaction.channel, message)
        await self._done(outbound)
        return True

    async def _private(self, outbound: Outbound, reply: Reply | None) -> None:
        """One outbound for one person (or the person who acted): sent once; a failure is
        logged and the message given up (the person can ask again)."""
        try:
            await self.private.deliver(await self._linked(outbound), reply)
        except Exception as exc:
            what = "ping" if outbound.kind == "ping" else f"{outbound.kind} message"
            log.warning("could not deliver a %s for table %s: %s", what, outbound.chat, why(exc))
        await self._done(outbound)

    async def _done(self, outbound: Outbound) -> None:
        """The outbound is delivered (or given up): it leaves the outbox."""
        if outbound.stored is not None:
            await asyncio.to_thread(self.service.delivered, outbound)
            self.replies.pop(outbound.stored.id, None)
            self.told.discard(outbound.stored.id)

    async def _held_back(
        self, chat: str, pending: Pending, exc: BaseException, what: str, wait: float | None
    ) -> bool:
        """A public message Discord did not take: wait and try again (True), or, if
        Discord will never take it or it waited too long, give it up (False); the person
        who acted is told privately what the channel did not get."""
        now = self.service.clock()
        kind = pending.outbound.kind
        again = not (what == DROP or now - pending.since > PATIENCE)
        if not again:
            log.warning("gave up a %s message for table %s: %s", kind, chat, why(exc))
        else:
            tries = self.failures[chat] = self.failures.get(chat, 0) + 1
            if wait is None:
                self.told_to_wait.discard(chat)
                wait = min(RETRY_FIRST * 2 ** (tries - 1), RETRY_LONGEST)
            else:
                self.told_to_wait.add(chat)
            self.retry_at[chat] = now + wait
            log.warning(
                "could not deliver a %s message for table %s: %s; trying again in %.0f s",
                kind,
                chat,
                why(exc),
                wait,
            )
            self.wake()
        reply = pending.reply
        if reply is not None and not pending.told:
            pending.told = True
            if pending.outbound.stored is not None:
                self.told.add(pending.outbound.stored.id)
            # At least the person who acted learns at once what happened.
            try:
                await self.private.answer(reply, pending.outbound)
            except Exception as answer_exc:
                log.info("could not answer privately either: %s", why(answer_exc))
        return again

    async def _linked(self, outbound: Outbound) -> Outbound:
        """With the web board's link button when it is on (docs/web.md); with ``[discord]
        activity`` on, a button that opens the board inside Discord instead (an Activity,
        launched when pressed: :data:`ACTIVITY`)."""
        settings = self.service.settings
        if not settings.web.public_url:
            return outbound
        linked = await asyncio.to_thread(self.service.web_links, outbound)
        return as_activity(linked, settings.web.public_url) if settings.discord_activity else linked

    async def _post(self, pending: Pending) -> None:
        outbound = await self._linked(pending.outbound)
        if outbound.kind in IN_PLACE:
            await self.lobby.in_place(outbound, pending.reply, pending.nonce)
        else:
            channel = self._channel(outbound.chat)
            message = await self._send(channel, outbound, nonce=pending.nonce)
            await self.lobby.retire(outbound, message)
            if outbound.kind in ("turn", "result"):
                await self.links.note_latest(outbound.chat, channel, message)

    async def gone(self, chat: str, reason: str) -> None:
        """The table's channel is gone for the bot: close the table as an admin's ``/abort``
        would (its computer players stop), and forget what waited to be posted there."""
        self.forget(chat)
        service = self.service
        await asyncio.to_thread(service.forget_waiting, chat)
        try:
            table = await asyncio.to_thread(service.table, chat)
        except StoreError as exc:
            # Closed at its next post instead, which finds the channel gone again.
            log.warning("could not close table %s now: %s", chat, exc)
            return
        except Exception:
            log.exception("could not look at table %s", chat)
            return
        if table is None or table.status == CLOSED:
            return
        me = self.client.user
        user = User(str(me.id) if me else "0", me.display_name if me else "Genial")
        # Not under the table's lock: a command holding it may be what found the channel
        # gone (the service keeps its own lock around the store).
        try:
            said = await asyncio.to_thread(service.handle, Chat(chat), user, "/abort", admin=True)
        except Exception:
            log.exception("could not close table %s", chat)
            return
        if any(out.kind == "error" for out in said):  # the store did not answer
            log.warning("could not close table %s now: %s", chat, said[0].text)
            return
        # What /abort says goes nowhere: there is no channel to say it in.
        self.forget(chat)
        await asyncio.to_thread(service.forget_waiting, chat)
        log.warning("closed table %s: its channel is gone (%s)", chat, reason)


def as_activity(outbound: Outbound, public_url: str) -> Outbound:
    """``outbound`` with its links to the table's page or a seat's page as buttons that
    launch the board as an Activity (the command :data:`ACTIVITY`, answered by Discord's
    ``LAUNCH_ACTIVITY``); other links (a tournament's page) stay links."""
    pages = (f"{public_url}/t/", f"{public_url}/s/")
    buttons = tuple(
        Button(b.label, ACTIVITY) if b.url and b.url.startswith(pages) else b
        for b in outbound.buttons
    )
    return outbound if buttons == outbound.buttons else replace(outbound, buttons=buttons)


def _public(outbound: Outbound, reply: Reply | None) -> bool:
    """Whether an outbound is posted in the table's channel: one for the whole table,
    unless it answers the person who acted only (an error, or a quiet command)."""
    return outbound.user is None and not (
        reply is not None and (outbound.kind == "error" or reply.quiet)
    )
