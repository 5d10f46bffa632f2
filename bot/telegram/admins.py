"""Who may give a host's command at a table: its host, or an admin of its chat.

The service decides who may do what; the adapter only tells it whether the user
administers the table's chat (a forum topic's admins are the group's; a private chat is
its user's own). Telegram is asked only when it matters, a host's command from someone who
is not the host, and its answer is trusted for :data:`ADMIN_CACHE_SECONDS`, so a burst of
one person's commands asks once.
"""

from __future__ import annotations

import asyncio
import logging
import time

from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError

from bot.core.commands import Abort, AddBot, Kick, SetOption, Start, Tournament
from bot.service import Service
from bot.store import StoreError
from bot.telegram import limits as fmt
from bot.telegram.botapi import BotAPI
from bot.telegram.messages import Origin

log = logging.getLogger(__name__)

#: Commands that only the host or a chat admin may give (or a seated player, for some).
MANAGER_COMMANDS = (AddBot, Start, SetOption, Kick, Abort)
#: What a chat admin may do to a tournament besides its host (``/tournament team``
#: enters the chat as a team: its admins only).
TOURNAMENT_MANAGING = ("start", "cancel", "invite", "team")
#: How long a chat admin check is trusted before Telegram is asked again.
ADMIN_CACHE_SECONDS = 60.0


class ChatAdmins:
    """Whether a user administers a table's chat, asked of Telegram and kept a minute."""

    def __init__(self, service: Service, api: BotAPI) -> None:
        self.service = service
        self.api = api
        # Answers to "is this user a chat admin?", with when they were given.
        self._admins: dict[tuple[str, str], tuple[bool, float]] = {}

    async def is_admin(self, origin: Origin) -> bool:
        """Whether the user administers the table's chat; asked of Telegram only when it
        matters (a host's command from someone who is not the host)."""
        if origin.table == origin.user.id:  # the user's own private chat
            return True
        cup = origin.command
        if isinstance(cup, Tournament) and cup.action in TOURNAMENT_MANAGING:
            pass  # a tournament's (issue 30): the chat's table and its host do not matter
        elif not isinstance(origin.command, MANAGER_COMMANDS):
            return False
        else:
            try:
                table = await asyncio.to_thread(self.service.table, origin.table)
            except StoreError:  # the store is away: the service answers the command so
                return False
            if table is None or table.host is None or table.host == origin.user.id:
                return False
        if fmt.is_inline(origin.table):
            return False  # an inline message's chat is none the bot may ask about
        group, _thread = fmt.split_table(origin.table)  # a topic's admins are the group's
        key = (str(group), origin.user.id)
        cached = self._admins.get(key)
        now = time.monotonic()
        if cached is not None and now - cached[1] < ADMIN_CACHE_SECONDS:
            return cached[0]
        try:
            member = await self.api.retry(self.api.bot.get_chat_member, group, int(origin.user.id))
        except TelegramError as exc:
            log.warning("could not check whether a user is a chat admin: %s", exc)
            return False
        admin = member.status in (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)
        # Answers too old to use are dropped, so the cache holds only the last minute's.
        for old in [
            k for k, (_, when) in self._admins.items() if now - when >= ADMIN_CACHE_SECONDS
        ]:
            del self._admins[old]
        self._admins[key] = (admin, now)
        return bool(admin)
