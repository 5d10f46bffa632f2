"""What every part of the Discord client shares: the client (its channels and users), the
table service, and the looks at a table each part takes: its channel, its notes, its texts.

What must survive a restart is kept in the store as notes beside the table (see
:meth:`Service.note`); each part names its own notes (``discord.…``) beside its code.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord

from bot.core.outbound import Outbound
from bot.discord.messages import send_kwargs
from bot.service import Service
from bot.store import StoreError
from bot.words.texts import Texts

log = logging.getLogger(__name__)


def title(channel: Any) -> str:
    """A channel as people know it, ``#genial (Board games)``, to name the table in private
    messages; empty if it is not in the cache (then the table is named by its id)."""
    name = getattr(channel, "name", None)
    if not name:
        return ""
    guild = getattr(channel, "guild", None)
    return f"#{name} ({guild.name})" if guild is not None else f"#{name}"


class Part:
    """One part of the client: it reaches Discord through the client, the tables through
    the service."""

    def __init__(self, client: discord.Client, service: Service) -> None:
        self.client = client
        self.service = service

    def _channel(self, chat: str) -> Any:
        """The table's channel: from the cache, or else a bare one to send to by its id
        (this process may not receive that channel's guild: see :mod:`bot.discord.shards`)."""
        return self.client.get_channel(int(chat)) or self.client.get_partial_messageable(int(chat))

    async def _send(
        self,
        channel: Any,
        outbound: Outbound,
        view: discord.ui.View | None = None,
        *,
        nonce: int | None = None,
    ) -> discord.Message:
        kw = send_kwargs(outbound)
        if view is not None:
            kw["view"] = view
        if nonce is not None:
            # Discord keeps one message however often a lost answer has us send it again.
            kw["nonce"] = nonce
        message: discord.Message = await channel.send(**kw)
        return message

    def _texts(self, chat: str) -> Texts:
        """The table's texts, in its language; the bot's default language where there is no
        table. Never fails: while the store does not answer, the language the table spoke
        when last seen (:meth:`Service.language`), so a failure is still answered in it;
        the same if the store fails in a way of its own (a bug, a closed store). It may wait
        for the store: call it in a worker thread."""
        try:
            return Texts(self.service.language(chat))
        except Exception:
            return Texts(self.service.last_language(chat))

    async def _note(self, chat: str, key: str) -> str | None:
        """A note kept for ``chat``; ``None`` if there is none or the store failed (a note
        is a convenience: without it a message is posted anew or a DM tried)."""
        try:
            return await asyncio.to_thread(self.service.note, chat, key)
        except StoreError as exc:  # away for now (a restart, an outage): no traceback
            log.warning("could not read the note %s of %s: %s", key, chat, exc)
        except Exception:
            log.exception("could not read the note %s of %s", key, chat)
        return None

    async def _set_note(self, chat: str, key: str, value: str | None) -> None:
        try:
            await asyncio.to_thread(self.service.set_note, chat, key, value)
        except StoreError as exc:
            log.warning("could not keep the note %s of %s: %s", key, chat, exc)
        except Exception:
            log.exception("could not keep the note %s of %s", key, chat)
