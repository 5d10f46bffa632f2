"""Telegram's updates in: slash commands, button presses, a group's move to a supergroup,
a forum topic's new name.

Slash commands (also ``/cmd@Bot``) and button presses become command texts for the table
service, which decides everything; a command for another bot (``/cmd@OtherBot``, or an
unknown bare command in a group) is left alone. Any command in the private chat opens it
for racks; ``/start`` there (often by the deep link under a group's lobby) says so, or
shows the rack at once if the player's game runs. A move sent from the private chat is for
the player's own table there, else for the running game they sit at (the one where it is
their turn, if several; they are asked which, if that does not tell).

Each command runs with its table's lock held: the service in a worker thread, the button
answered (an error as a short notice, "My tiles" as a pop-up only the presser sees), what
the service says delivered through the outbox, then what became due (computer players'
moves); then the clock is woken, since the command may have brought a deadline nearer.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from telegram import CallbackQuery, Message, MessageEntity, Update
from telegram import User as TelegramUser
from telegram.constants import ChatType
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from bot.core.commands import Command, CommandError, Hand, Hint, Keep, Play, Swap
from bot.core.outbound import Chat, Outbound, User
from bot.core.parsing import UNKNOWN_KEYS, parse_command
from bot.core.table import CLOSED, PLAYING
from bot.service import Service
from bot.telegram import limits as fmt
from bot.telegram.admins import ChatAdmins
from bot.telegram.botapi import BotAPI
from bot.telegram.clock import Clock
from bot.telegram.messages import Origin, as_reply
from bot.telegram.notes import NOTE_TOPIC, Notes
from bot.telegram.outbox import Outbox, TableLocks
from bot.telegram.tables import Tables
from bot.words.texts import LANGUAGES, Texts, shown_name

log = logging.getLogger(__name__)

#: Commands a player may send from the private chat for the group table they play at.
PLAYER_COMMANDS = (Play, Swap, Keep, Hand, Hint)
_GROUP_TYPES = (ChatType.GROUP, ChatType.SUPERGROUP)


class Updates:
    """Handles the updates the adapter registers with the Application."""

    def __init__(
        self,
        service: Service,
        *,
        api: BotAPI,
        notes: Notes,
        tables: Tables,
        admins: ChatAdmins,
        locks: TableLocks,
        outbox: Outbox,
        clock: Clock,
        on_handled: Callable[[int], None] | None,
    ) -> None:
        self.service = service
        self.api = api
        self.notes = notes
        self.tables = tables
        self.admins = admins
        self.locks = locks
        self.outbox = outbox
        self.clock = clock
        self.on_handled = on_handled

    async def on_command(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A slash command typed in a group or in the private chat."""
        msg, sender = update.effective_message, update.effective_user
        if msg is None or sender is None or msg.text is None or sender.is_bot:
            return
        parsed = self._command_word(msg)
        if parsed is None:  # meant for another bot
            return
        word, addressed = parsed
        chat = _where(msg)
        user = _user(sender)
        private = msg.chat.type == ChatType.PRIVATE
        if private:
            await self.notes.opened(user.id)  # writing to the bot opens the private chat
        if private and word == "start" and await self._private_start(msg, user):
            return
        try:
            cmd: Command | None = parse_command(msg.text)
        except CommandError as exc:
            # In a group, an unknown bare command may be another bot's: stay quiet unless
            # it was addressed to us.
            if exc.key in UNKNOWN_KEYS and not private and not addressed:
                return
            cmd = None
        table = chat
        if private and isinstance(cmd, PLAYER_COMMANDS):
            found = await self._table_for_private(chat, user, msg.message_id)
            if found is None:
                return
            table = found
        title = await self._title(msg, chat) if not private else sender.full_name
        origin = Origin(table, chat, user, cmd, msg.message_id)
        await self._run(origin, msg.text, Chat(table, title if table == chat else ""))

    async def on_button(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A press on one of our inline buttons."""
        query = update.callback_query
        if query is None or query.data is None:
            return
        msg = query.message
        where = _where(msg) if msg is not None else str(query.from_user.id)
        target = fmt.parse_callback_data(query.data, where)
        user = _user(query.from_user)
        if target is None:
            texts = await self.tables.texts(where)
            await self._answer(query, texts("error.stale"), alert=False)
            return
        table, text = target
        moved = await self.tables.moved_to(table)
        if moved is not None:
            # A button left in a group that became a supergroup: say where the table went
            # (not "no table in this chat").
            texts = await self.tables.texts(moved)
            there = await self.tables.table(moved)
            title = shown_name((there.title if there else "") or moved)
            await self._answer(query, texts("telegram.moved_there", title=title), alert=True)
            return
        try:
            cmd: Command | None = parse_command(text)
        except CommandError:
            cmd = None
        origin = Origin(table, where, user, cmd, msg.message_id if msg is not None else None, query)
        title = ""
        if isinstance(msg, Message) and table == where and msg.chat.type in _GROUP_TYPES:
            title = await self._title(msg, where)
        await self._run(origin, text, Chat(table, title))

    async def press(self, query: CallbackQuery, table: str, text: str) -> None:
        """A press on the buttons of a table's inline message (bot.telegram.challenge):
        the message is the table, so no chat and no message id; ``text`` empty for data we
        never made."""
        if not text:
            texts = await self.tables.texts(table)
            await self._answer(query, texts("error.stale"), alert=False)
            return
        try:
            cmd: Command | None = parse_command(text)
        except CommandError:
            cmd = None
        origin = Origin(table, table, _user(query.from_user), cmd, None, query)
        await self._run(origin, text, Chat(table))

    async def run(self, origin: Origin, text: str, chat: Chat) -> None:
        """One command at its table, as if typed or pressed (see :meth:`_run`)."""
        await self._run(origin, text, chat)

    async def answer(self, query: CallbackQuery, text: str) -> None:
        """Answer a button press (a short notice, or nothing)."""
        await self._answer(query, text, alert=False)

    async def on_member_left(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Someone left the group (or was removed): they leave its tournaments, their
        remaining games lost (issue 30)."""
        msg = update.effective_message
        gone = msg.left_chat_member if msg is not None else None
        if msg is None or gone is None or gone.is_bot:
            return
        outs = await asyncio.to_thread(self.service.left_chat, str(msg.chat.id), str(gone.id))
        await self.outbox.deliver(outs, None)

    async def on_migrate(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A group became a supergroup (Telegram says so in both chats): its tables move to
        the new chat id and their games go on there."""
        msg = update.effective_message
        if msg is None:
            return
        if msg.migrate_to_chat_id:
            old, new = msg.chat.id, msg.migrate_to_chat_id
        elif msg.migrate_from_chat_id:
            old, new = msg.migrate_from_chat_id, msg.chat.id
        else:
            return
        # Not while a command of the old chat's table is under way (it may be moving the
        # table itself, if Telegram refused one of its messages).
        async with self.locks.hold(str(old)):
            moved = await self.tables.migrate(old, new)
        for table in moved:
            # A message in the new chat: links to the table (/games, turn pings) lead
            # there at once, not only after the next turn.
            texts = await self.tables.texts(table)
            chat, thread = fmt.split_table(table)
            try:
                sent = await self.api.retry(
                    self.api.bot.send_message,
                    chat,
                    texts("telegram.moved_here"),
                    message_thread_id=thread,
                    resend=False,
                )
            except TelegramError as exc:
                log.warning("could not tell table %s that it moved: %s", table, exc)
                continue
            if isinstance(sent, Message):
                await self.notes.note_latest(table, sent)

    async def on_topic_renamed(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A forum topic got a new name: its table is called so from now on."""
        msg = update.effective_message
        edited = msg.forum_topic_edited if msg is not None else None
        if msg is None or edited is None or not edited.name or not msg.is_topic_message:
            return
        await asyncio.to_thread(self.service.set_note, _where(msg), NOTE_TOPIC, edited.name)

    async def on_topic_closed(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A forum topic was closed: its table's messages wait until it is reopened."""
        msg = update.effective_message
        if msg is not None and msg.is_topic_message:
            self.outbox.paused.add(_where(msg))

    async def on_topic_reopened(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A forum topic was reopened: what waited for its table goes out now."""
        msg = update.effective_message
        if msg is None or not msg.is_topic_message:
            return
        table = _where(msg)
        async with self.locks.hold(table):
            await self.outbox.reopened(table)

    async def on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        log.error("error while handling an update", exc_info=context.error)

    async def handled(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        app = context.application
        if app.persistence is None:
            # python-telegram-bot (22.x) marks the chat and the user of every update for
            # its persistence even when there is none, and only a persistence run empties
            # those sets: without this, every chat and person ever heard stays in memory.
            # What the updates before this one marked is dropped here.
            app._chat_ids_to_be_updated_in_persistence.clear()
            app._user_ids_to_be_updated_in_persistence.clear()
        if self.on_handled is not None:
            self.on_handled(update.update_id)

    def _command_word(self, msg: Message) -> tuple[str, bool] | None:
        """The command word and whether it named this bot (``/join@Bot``); ``None`` when
        it names another bot."""
        entity = next(
            (e for e in msg.entities if e.type == MessageEntity.BOT_COMMAND and e.offset == 0),
            None,
        )
        if entity is None:
            return None
        token = msg.parse_entity(entity)[1:]
        word, at, target = token.partition("@")
        if at and target.casefold() != self.api.username.casefold():
            return None
        return word.lower(), bool(at)

    async def _private_start(self, msg: Message, user: User) -> bool:
        """``/start`` in the private chat: the player opened it (often by the deep link from
        a group's lobby), so racks can come here now. ``False`` when it is the game's
        ``/start`` of a table in the private chat itself."""
        chat = str(msg.chat.id)
        args = (msg.text or "").split()[1:]
        table_chat = fmt.parse_start_payload(args[0]) if args else None
        if table_chat is None:
            own = await asyncio.to_thread(self.service.table, chat)
            if own is not None and own.status != CLOSED and own.seats:
                return False
            texts = Texts(own.options.lang) if own else person_texts(msg.from_user, self.service)
            await self.api.retry(
                self.api.bot.send_message,
                msg.chat.id,
                texts("telegram.welcome", name=shown_name(user.name)),
                resend=False,
            )
            return True
        table = await asyncio.to_thread(self.service.table, table_chat)
        if table is not None and table.status == PLAYING and table.seat_of(user.id) is not None:
            origin = Origin(table_chat, chat, user, Hand(), msg.message_id)
            await self._run(origin, "/hand", Chat(table_chat))
            return True
        texts = Texts(table.options.lang) if table else person_texts(msg.from_user, self.service)
        name = (table.title if table else "") or table_chat
        await self.api.retry(
            self.api.bot.send_message,
            msg.chat.id,
            texts("telegram.linked", table=name),
            resend=False,
        )
        return True

    async def _table_for_private(self, chat: str, user: User, reply_to: int) -> str | None:
        """The table a move sent in the private chat is for: the private chat's own game,
        else the one running game the player sits at (the one where it is their turn, if
        several). ``None`` (after saying so) when that is ambiguous."""
        own = await asyncio.to_thread(self.service.table, chat)
        if own is not None and own.status == PLAYING:
            return chat
        tables = await asyncio.to_thread(self.service.playing_tables, user.id)
        if len(tables) <= 1:
            return tables[0] if tables else chat
        mine = []
        for table in tables:
            look = await asyncio.to_thread(self.service.seat_look, table, user.id)
            if look is not None and look.my_turn:
                mine.append(table)
        if len(mine) == 1:
            return mine[0]
        texts = await self.tables.texts(chat)
        titles = []
        for table in tables:
            t = await asyncio.to_thread(self.service.table, table)
            titles.append((t.title if t else "") or table)
        text = texts("telegram.which_table", tables=", ".join(titles))
        await self.api.retry(
            self.api.bot.send_message,
            int(chat),
            text,
            reply_parameters=as_reply(reply_to) if reply_to else None,
            resend=False,
        )
        return None

    # --- one command, start to end ------------------------------------------------------

    async def from_page(self, table: str, user: User, text: str) -> list[Outbound]:
        """A command from the web board's page (docs/web.md): carried out as a typed one in
        its turn at the table, what the service says delivered in the chat (its errors go
        back to the page), then computer players move. What the service said is returned."""
        async with self.locks.hold(table):
            outs = await asyncio.to_thread(self.service.handle, Chat(table), user, text)
            await self.outbox.deliver([o for o in outs if o.kind != "error"], None)
            await self.clock.due(table)
        self.clock.wake()
        return outs

    async def _run(self, origin: Origin, text: str, chat: Chat) -> None:
        """Hand the command to the service, answer the button press, deliver what the
        service says, then let computer players move (all in order for this table)."""
        async with self.locks.hold(origin.table):
            try:
                admin = await self.admins.is_admin(origin)
                outs = await asyncio.to_thread(
                    self.service.handle, chat, origin.user, text, admin=admin
                )
            except Exception:
                log.exception("the service failed on a command")
                texts = await self.tables.texts(origin.table)
                outs = [Outbound(origin.table, texts("telegram.failed"), "error")]
            said = outs
            try:
                outs = await self._answer_press(origin, outs)
            finally:
                if origin.query is not None and not origin.answered:
                    await self._answer(origin.query, "", alert=False)
            left = {id(out) for out in outs}
            for out in said:  # answered on the pressed button: done with
                if out.stored is not None and id(out) not in left:
                    await asyncio.to_thread(self.service.delivered, out)
            await self.outbox.deliver(outs, origin)
            await self.clock.due(origin.table)
        # The command may have brought a deadline nearer (a game started, an option set).
        self.clock.wake()

    # --- answers to button presses ------------------------------------------------------

    async def _answer_press(self, origin: Origin, outs: list[Outbound]) -> list[Outbound]:
        """A button press is answered on the button: an error as a short notice, the
        presser's own tiles ("My tiles") as a pop-up only they see. Returns the outbounds
        still to deliver."""
        query = origin.query
        if query is None:
            return outs
        for i, out in enumerate(outs):
            if out.kind == "error":
                await self._answer(query, fmt.fit(out.text, fmt.ALERT_LIMIT, 0), alert=False)
                origin.answered = True
                return outs[:i] + outs[i + 1 :]
            if out.user == origin.user.id and isinstance(origin.command, Hand):
                await self._answer(query, await self._popup(out), alert=True)
                origin.answered = True
                return outs[:i] + outs[i + 1 :]
        return outs

    async def _popup(self, out: Outbound) -> str:
        """A rack as pop-up text (at most 200 characters): the message as it would be sent
        privately, or, if that is too long (a long group name), the tiles first."""
        text = out.text
        if fmt.utf16_len(text) > fmt.ALERT_LIMIT and out.user is not None:
            look = await asyncio.to_thread(self.service.seat_look, out.chat, out.user)
            if look is not None and look.rack:
                texts = await self.tables.texts(out.chat)
                first = texts("telegram.popup", rack=look.rack_text)
                text = "\n".join([first, *text.split("\n")[1:]])
        return fmt.fit(text, fmt.ALERT_LIMIT, 0)

    async def _answer(self, query: CallbackQuery, text: str, *, alert: bool) -> None:
        try:
            await self.api.retry(query.answer, text or None, show_alert=alert)
        except TelegramError as exc:  # too late (15 s), or already answered
            log.warning("could not answer a button press: %s", exc)

    async def _title(self, msg: Message, table: str) -> str:
        """The table's name: the group's title, and for a forum topic its name too, so a
        private rack says which of the group's tables it is for. Telegram names a topic
        only in some messages (the topic's first message, which a message in the topic
        replies to, keeps the name it was created with): the name is noted once, and
        changed when the topic is renamed."""
        group = msg.chat.title or ""
        _chat, thread = fmt.split_table(table)
        if thread is None:
            return group
        name = await asyncio.to_thread(self.service.note, table, NOTE_TOPIC)
        reply = msg.reply_to_message
        created = reply.forum_topic_created if reply is not None else None
        if name is None and created is not None:
            name = created.name
            await self.notes.set_note(table, NOTE_TOPIC, name)
        return f"{group} › {name}" if name else f"{group} #{thread}"


def _user(user: TelegramUser) -> User:
    return User(str(user.id), user.full_name)


def person_texts(person: TelegramUser | None, service: Service) -> Texts:
    """The texts for a person where no table sets a language: their Telegram app's
    language (``de-AT`` is ``de``) if the bot speaks it, else the bot's default."""
    code = ((person.language_code if person else None) or "").split("-")[0].lower()
    return Texts(code if code in LANGUAGES else service.settings.language)


def _where(msg: Any) -> str:
    """The table id of where a message is: its chat, or its forum topic. Only a topic
    message's thread counts: in other supergroups a reply has a thread id too."""
    thread = msg.message_thread_id if getattr(msg, "is_topic_message", False) else None
    return fmt.table_id(msg.chat.id, thread)
