"""A challenge in any Telegram chat: the bot's inline mode (issue 49).

Typing the bot's name in any chat (``@GenialBot``) offers four games: Genial for 2, Genial
for 3-4, Genial Spezial and a game against the computer. The one chosen is sent into that
chat as a message with a Join button, and that message becomes the table: the bot edits it
by its ``inline_message_id`` for the rest of the game (:mod:`bot.telegram.inline`), without
being a member of the chat. The table's id is made from that id
(:func:`~bot.telegram.limits.inline_table`), so every press on the message finds it, also
after a restart.

The table opens when Telegram says which result was chosen (a ``chosen_inline_result``,
which BotFather's /setinlinefeedback switches on), the sender seated as its host; without
that feedback, with the first press on the message's button, the presser seated. Genial
for 2 starts by itself once a second player joined; against the computer starts at once;
the others start by their Start button. Presses on the message are the table's buttons as
in a group; typed commands never reach the bot in that chat (the lobby says so once), so a
move is made on the web board (the Mini App) or typed in the private chat with the bot.
"""

from __future__ import annotations

import asyncio
import logging

from telegram import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InputTextMessageContent,
    Update,
)
from telegram import User as TelegramUser
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from bot.core.commands import Command, CommandError, Join, Start
from bot.core.outbound import Chat, User
from bot.core.parsing import parse_command
from bot.core.table import LOBBY
from bot.service import Service
from bot.telegram import limits as fmt
from bot.telegram.botapi import BotAPI
from bot.telegram.messages import Origin
from bot.telegram.notes import NOTE_INLINE, NOTE_INLINE_KIND, Notes
from bot.telegram.outbox import TableLocks
from bot.telegram.updates import Updates, person_texts
from bot.words.texts import shown_name

log = logging.getLogger(__name__)

#: The games offered, as the results' ids: for two, for three or four, Genial Spezial,
#: against the computer.
PAIR, PARTY, SPEZIAL, COMPUTER = "pair", "party", "spezial", "computer"
KINDS = (PAIR, PARTY, SPEZIAL, COMPUTER)
#: The data of the Join button of a message just chosen, before its table opens.
NEW = "~new "
#: Seconds Telegram may keep the offer for the same person (their language names it).
CACHE_SECONDS = 300


class Challenges:
    """Inline queries, chosen results and presses on inline messages."""

    def __init__(
        self, service: Service, *, api: BotAPI, notes: Notes, locks: TableLocks, updates: Updates
    ) -> None:
        self.service = service
        self.api = api
        self.notes = notes
        self.locks = locks
        self.updates = updates

    async def on_inline_query(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Someone typed the bot's name in a chat: the four games, in their language."""
        query = update.inline_query
        if query is None:
            return
        texts = person_texts(query.from_user, self.service)
        name = shown_name(query.from_user.full_name)
        results = [
            InlineQueryResultArticle(
                kind,
                texts(f"telegram.inline.{kind}"),
                InputTextMessageContent(
                    texts("telegram.inline.offer", name=name, game=texts(f"telegram.inline.{kind}"))
                ),
                reply_markup=InlineKeyboardMarkup(
                    [[InlineKeyboardButton(texts("button.join"), callback_data=NEW + kind)]]
                ),
                description=texts(f"telegram.inline.{kind}_about"),
            )
            for kind in KINDS
        ]
        try:
            await self.api.retry(query.answer, results, cache_time=CACHE_SECONDS, is_personal=True)
        except TelegramError as exc:  # too late (10 s), or answered already
            log.warning("could not answer an inline query: %s", exc)

    async def on_chosen(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A game was chosen and sent: its table opens, the sender seated as host."""
        chosen = update.chosen_inline_result
        if chosen is None or chosen.inline_message_id is None or chosen.result_id not in KINDS:
            return
        await self.open(chosen.inline_message_id, chosen.from_user, chosen.result_id)

    async def on_button(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A press on one of our buttons: on an inline message the table's (opening it if
        Telegram sent no feedback), elsewhere as in any chat."""
        query = update.callback_query
        if query is None or query.data is None:
            return
        inline_id = query.inline_message_id
        if inline_id is None:
            await self.updates.on_button(update, context)
            return
        table = fmt.inline_table(inline_id)
        if query.data.startswith(NEW):
            kind = query.data.removeprefix(NEW)
            if kind in KINDS and await self.open(inline_id, query.from_user, kind):
                await self.updates.answer(query, "")
                return
            # Opened already (the sender's choice came first): this press is a Join.
            command = "/join"
        else:
            target = fmt.parse_callback_data(query.data, table)
            command = target[1] if target is not None else ""
        await self.updates.press(query, table, command)
        if isinstance(_parsed(command), Join):
            await self._start_for_two(table, query.from_user)

    async def open(self, inline_id: str, sender: TelegramUser, kind: str) -> bool:
        """Open the table of the inline message ``inline_id`` for game ``kind``, the sender
        seated as host, in their language. Done once: ``False`` (and nothing changed) when
        the table was open already."""
        table = fmt.inline_table(inline_id)
        texts = person_texts(sender, self.service)
        user = User(str(sender.id), sender.full_name)
        chat = Chat(table, texts("telegram.inline.title", name=shown_name(sender.full_name)))
        options = []
        if texts.lang != self.service.settings.language:
            options.append(f"/option lang {texts.lang}")
        if kind == SPEZIAL:
            options.append("/option game spezial")
        async with self.locks.hold(table):
            if await asyncio.to_thread(self.service.table, table) is not None:
                return False
            await self.notes.set_note(table, NOTE_INLINE, inline_id)
            await self.notes.set_note(table, NOTE_INLINE_KIND, kind)
            # The options the choice implies, set before anyone sits: not told, the lobby
            # that follows shows them.
            for text in options:
                said = await asyncio.to_thread(self.service.handle, chat, user, text)
                for out in said:
                    if out.stored is not None:
                        await asyncio.to_thread(self.service.delivered, out)
        commands = ["/join"]
        if kind == COMPUTER:
            commands += ["/addbot", "/start"]
        for text in commands:
            origin = Origin(table, table, user, _parsed(text), None)
            await self.updates.run(origin, text, chat)
        return True

    async def _start_for_two(self, table: str, presser: TelegramUser) -> None:
        """Genial for 2 starts by itself once a second person sat down."""
        if await self.notes_kind(table) != PAIR:
            return
        there = await asyncio.to_thread(self.service.table, table)
        if there is None or there.status != LOBBY:
            return
        people = [s for s in there.seats if s.user is not None and not s.computer]
        user = User(str(presser.id), presser.full_name)
        if len(people) != 2 or there.seat_of(user.id) is None:
            return
        origin = Origin(table, table, user, Start(), None)
        await self.updates.run(origin, "/start", Chat(table))

    async def notes_kind(self, table: str) -> str | None:
        return await asyncio.to_thread(self.service.note, table, NOTE_INLINE_KIND)


def _parsed(text: str) -> Command | None:
    try:
        return parse_command(text)
    except CommandError:
        return None
