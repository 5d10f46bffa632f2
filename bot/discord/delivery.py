"""The table service's outbounds out to Discord: private ones at once, public ones through
the table's outbox, in order, until Discord takes them.

When Discord misbehaves (rate limits, server errors, timeouts, dropped connections, a
missing permission), a table's public messages wait in its outbox, in order, and go out
once Discord takes them again: each carries a nonce Discord enforces, so a message whose
answer was lost on the way is not posted twice. A table whose channel is gone (deleted,
or the bot removed from the server) is closed as an admin's ``/abort`` would close it, so
its computer players stop.

Failures to post or to send a direct message are logged and never stop the table.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import discord

from bot.discord.failures import DROP, GONE, RETRY, failure, why
from bot.discord.links import Links
from bot.discord.lobby import IN_PLACE, Lobby
from bot.discord.parts import Part
from bot.discord.private import Private, Reply
from bot.outbound import Chat, Outbound, User
from bot.service import Service
from bot.table import CLOSED

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
    """A public message waiting in a table's outbox."""

    outbound: Outbound
    reply: Reply | None
    #: Discord keeps the first message sent with a nonce and answers a second send with
    #: the same nonce (a retry after a lost answer) with that message.
    nonce: int
    since: float
    #: The person who acted has been told privately what the channel did not get.
    told: bool = False


class Delivery(Part):
    """What the service says, posted in the table's channel or answered privately; the
    outboxes of this process's tables (nothing here needs to survive a restart)."""

    def __init__(
        self,
        client: discord.Client,
        service: Service,
        *,
        lobby: Lobby,
        links: Links,
        private: Private,
        wake: Callable[[], None],
    ) -> None:
        """
        Args:
            lobby: edits the lobby and options in place, takes buttons off old messages.
            links: notes each table's latest turn message.
            private: answers the person who acted, sends direct messages.
            wake: makes the clock look again now (a held-back message set a retry time).
        """
        super().__init__(client, service)
        self.lobby = lobby
        self.links = links
        self.private = private
        self.wake = wake
        #: One table's public messages go out one after another (each reads and writes notes).
        self.posting: dict[str, asyncio.Lock] = {}
        #: Public messages Discord did not take yet, per table, in order.
        self.outbox: dict[str, deque[Pending]] = {}
        #: When to try a table's outbox again, and how many tries failed in a row.
        self.retry_at: dict[str, float] = {}
        self.failures: dict[str, int] = {}
        #: Tables where Discord said how long to wait (a rate limit): no try before that.
        self.told_to_wait: set[str] = set()

    def forget(self, chat: str) -> None:
        """No message waits for the table any more."""
        self.outbox.pop(chat, None)
        self.retry_at.pop(chat, None)
        self.failures.pop(chat, None)
        self.told_to_wait.discard(chat)

    def post_lock(self, chat: str) -> asyncio.Lock:
        """Held while the table's messages are posted or their buttons taken off, so
        that no edit overtakes the post it follows."""
        return self.posting.setdefault(chat, asyncio.Lock())

    async def deliver(self, out: list[Outbound], reply: Reply | None) -> None:
        """Send each outbound in Discord's idiom. A private one that fails is logged and
        skipped (the person can ask again); a public one waits in its table's outbox until
        Discord takes it."""
        if self.service.settings.web.public_url:  # the web board's link (docs/web.md)
            out = [await asyncio.to_thread(self.service.web_links, o) for o in out]
        chats: list[str] = []
        pings: list[Outbound] = []
        for outbound in out:
            if outbound.kind == "ping":
                pings.append(outbound)  # after the turn message, so its link leads there
                continue
            if outbound.user is None and not (
                reply is not None and (outbound.kind == "error" or reply.quiet)
            ):
                pending = Pending(outbound, reply, secrets.randbits(63), self.service.clock())
                self.outbox.setdefault(outbound.chat, deque()).append(pending)
                chats.append(outbound.chat)
                continue
            try:
                await self.private.deliver(outbound, reply)
            except Exception as exc:
                log.warning(
                    "could not deliver a %s message for table %s: %s",
                    outbound.kind,
                    outbound.chat,
                    why(exc),
                )
        for chat in dict.fromkeys(chats):
            # A new message tries the waiting ones again at once (unless Discord said how
            # long to wait): people act at their own pace, and Discord may be back.
            await self.flush(chat, eager=True)
        for ping in pings:
            try:
                await self.private.deliver(ping, reply)
            except Exception as exc:
                log.warning("could not ping %s for table %s: %s", ping.user, ping.chat, why(exc))

    async def flush(self, chat: str, *, eager: bool = False) -> None:
        """Post a table's waiting public messages, in order, until Discord refuses one (then
        the clock tries again later) or the outbox is empty."""
        gone: BaseException | None = None
        async with self.post_lock(chat):
            box = self.outbox.get(chat)
            early = self.retry_at.get(chat, 0.0) > self.service.clock()
            if box and early and (not eager or chat in self.told_to_wait):
                return  # waiting for Discord: the clock tries again
            while box:
                pending = box[0]
                try:
                    await self._post(pending)
                except Exception as exc:
                    what, wait = failure(exc)
                    if what == GONE:
                        gone = exc
                        break
                    await self._held_back(chat, pending, exc, what, wait)
                    if what == RETRY and box and box[0] is pending:
                        return
                    continue
                box.popleft()
                self.failures.pop(chat, None)
            self.forget(chat)
        if gone is not None:
            await self.gone(chat, why(gone))

    async def _held_back(
        self, chat: str, pending: Pending, exc: BaseException, what: str, wait: float | None
    ) -> None:
        """A public message Discord did not take: wait and try again (or, if Discord will
        never take it or it waited too long, give it up); the person who acted is told
        privately what the channel did not get."""
        now = self.service.clock()
        kind = pending.outbound.kind
        if what == DROP or now - pending.since > PATIENCE:
            log.warning("gave up a %s message for table %s: %s", kind, chat, why(exc))
            self.outbox[chat].popleft()
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
            # At least the person who acted learns at once what happened.
            try:
                await self.private.answer(reply, pending.outbound)
            except Exception as answer_exc:
                log.info("could not answer privately either: %s", why(answer_exc))

    async def _post(self, pending: Pending) -> None:
        outbound = pending.outbound
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
        try:
            table = await asyncio.to_thread(service.table, chat)
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
            await asyncio.to_thread(service.handle, Chat(chat), user, "/abort", admin=True)
        except Exception:
            log.exception("could not close table %s", chat)
            return
        # What /abort says goes nowhere: there is no channel to say it in.
        self.forget(chat)
        log.warning("closed table %s: its channel is gone (%s)", chat, reason)
