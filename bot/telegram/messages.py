"""What each of the table service's outbounds becomes on Telegram.

A message to the table is posted in its chat or forum topic: a photo with its caption (the
board), a document (``/board`` at full size), an animation (the replay) or text, with our
buttons and the mention of the player to act. The lobby is edited in place as people come
and go, and so are the options when their button was pressed; only the newest turn message
keeps its buttons. Errors go back where the command came from, as a reply.

Racks and hints go only to a player's private chat. If it is not open (Telegram answers
403), the group says how to see the tiles, once per player and game and again whenever the
player asks: the "My tiles" button shows them in a pop-up that only the player sees.

A table played in an inline message (issue 49) has no chat to post in: what it says to
the chat edits its one message (:mod:`bot.telegram.inline`), under buttons that open the
private chat; the notice to a player whose private chat is not open is shown there too,
above the turn and its "My tiles" button.

A request that finds the group became a supergroup moves the group's tables along
(:meth:`~bot.telegram.tables.Tables.migrate`) and goes to the new chat.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass, replace

from telegram import (
    CallbackQuery,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputFile,
    Message,
    MessageEntity,
    ReplyParameters,
    WebAppInfo,
)
from telegram import User as TelegramUser
from telegram.error import BadRequest, ChatMigrated, Forbidden, TelegramError

from bot.core.commands import Abort, AddBot, Board, Command, Join, SetOption
from bot.core.outbound import NOTE_WHERE, Button, Outbound, User, Where, with_places
from bot.service import Service
from bot.telegram import limits as fmt
from bot.telegram.botapi import BotAPI
from bot.telegram.inline import InlineMessages
from bot.telegram.notes import (
    NOTE_CLOSED,
    NOTE_LIVE,
    NOTE_LOBBY,
    NOTE_PING,
    NOTE_STALE,
    NOTE_TOLD,
    PLATFORM,
    Notes,
    read_told,
)
from bot.telegram.tables import Tables
from bot.words.texts import Texts

log = logging.getLogger(__name__)


@dataclass
class Origin:
    """Where a command came from, so answers go back the way people expect: errors as a
    reply (or a toast on the pressed button), the lobby edited in place."""

    table: str  # the id of the table the command is for
    chat: str  # where it was typed or clicked, as a table id (a chat, or a forum topic)
    user: User
    command: Command | None
    message_id: int | None  # the typed message, or the message whose button was pressed
    query: CallbackQuery | None = None
    answered: bool = False

    @property
    def typed(self) -> bool:
        return self.query is None


class Messages:
    """Posts, edits and sends privately what the service says, in Telegram's idiom."""

    def __init__(
        self,
        service: Service,
        api: BotAPI,
        notes: Notes,
        tables: Tables,
        inline: InlineMessages | None = None,
    ) -> None:
        self.service = service
        self.api = api
        self.notes = notes
        self.tables = tables
        self.inline = inline or InlineMessages(service, api, notes)
        #: Tables with stale messages whose buttons are still to come off.
        self.untidy: set[str] = set()

    async def deliver_one(self, out: Outbound, origin: Origin | None) -> None:
        """One outbound, in Telegram's idiom. The outbox calls it in order, with the table's
        lock held, and judges what it raises (see :func:`~bot.telegram.botapi.failure`)."""
        if out.kind == "unping":
            await self._unping(out)
            return
        if self.service.settings.web.public_url:  # the web board's link (docs/web.md)
            out = await asyncio.to_thread(self.service.web_links, out)
        if out.tables:  # /games: a link to each table's latest message
            out = await self._with_links(out)
        if out.user is not None and out.user != out.chat:
            await self._send_private(out, origin)
            return
        if out.kind == "error":
            # Errors go back where the command came from: a move sent from the private
            # chat is answered there, not in the group.
            where = origin.chat if origin is not None else out.chat
            if fmt.is_inline(where):  # a press there is answered on the button; else none
                log.info("an error at inline table %s not shown: %s", where, out.text)
                return
            reply_to = origin.message_id if origin is not None and origin.typed else None
            await self._send(where, out, reply_to=reply_to)
            return
        if fmt.is_inline(out.chat):
            await self._show_inline(out)
            return
        if out.kind == "lobby":
            await self._show_lobby(out, origin)
            return
        if (
            out.kind == "options"
            and origin is not None
            and origin.query is not None
            and isinstance(origin.command, SetOption)
            and origin.message_id is not None
            and origin.chat == out.chat
        ):
            await self._edit(out, origin.message_id)
            return
        document = origin is not None and isinstance(origin.command, Board)
        # The board first: the buttons of older messages come off after it, when the group
        # has requests to spare (bot.telegram.pace).
        sent = await self._send(out.chat, out, document=document)
        if out.kind in ("turn", "result") or (
            origin is not None and isinstance(origin.command, Abort)
        ):
            await self._close_lobby(self.tables.current(out.chat))
        if out.kind in ("turn", "result"):
            await self._retire_buttons(self.tables.current(out.chat), sent)
            await self.notes.note_latest(self.tables.current(out.chat), sent)
            if out.source:  # a table seen in this chat among others: its own latest too
                await self.notes.note_latest(out.source, sent, self.tables.current(out.chat))

    async def _show_inline(self, out: Outbound) -> None:
        """What an inline message's table says to its chat: the message edited. Its lobby
        says, once, that typed commands do not reach the bot in that chat."""
        if out.kind == "lobby":
            texts = await self.tables.texts(out.chat)
            out = replace(out, text=f"{out.text}\n{texts('telegram.inline.typed')}")
        if out.kind == "result":
            # The result's "/start plays again" would be typed where it reaches no one:
            # the way on is the Play again button.
            texts = await self.tables.texts(out.chat)
            labels = {k: texts(f"button.{k}") for k in ("again", "join", "leave")}
            again = texts("telegram.inline.again", **labels)
            lines = [
                again if line == texts("result.again") else line for line in out.text.split("\n")
            ]
            out = replace(out, text="\n".join(lines))
        markup = await self._markup(out, out.chat)
        if out.kind == "turn":
            await self._note_board(out)

        async def mentions(text: str, users: tuple[str, ...]) -> list[MessageEntity] | None:
            return await self._mentions(replace(out, mentions=users), text)

        await self.inline.show(out, markup, mentions)

    async def _note_board(self, out: Outbound) -> None:
        """Where an inline message's table is, for /games (issue 49): Telegram links no
        inline message, so the link is to the table's board, the Mini App (or the web page),
        when the web board runs. Written once: it stays the same for the whole game."""
        pages = [b.url for b in out.buttons if b.url and "/t/" in b.url]
        where = Where(PLATFORM, self._app_url(pages[0]), board=True) if pages else Where(PLATFORM)
        noted = await asyncio.to_thread(self.service.note, out.chat, NOTE_WHERE)
        if Where.read(noted) != where:
            await self.notes.set_note(out.chat, NOTE_WHERE, where.dump())

    async def with_ping(self, rack: Outbound, ping: Outbound) -> Outbound:
        """A player's rack with their turn ping said first: one private message, with the
        rack's image only (the ping's link leads to the board in the group, posted
        already)."""
        lines = [ping.text]
        link = await self.notes.latest_link(ping.chat)
        if link is not None:
            texts = await self.tables.texts(ping.chat)
            lines.append(texts("notify.link", link=link))
        return replace(rack, text="\n".join([*lines, rack.text]))

    async def _with_links(self, out: Outbound) -> Outbound:
        """A listing of tables (/games) with a link to each table's latest message; a table
        in a basic group says it has none (Telegram links only supergroups' messages); an
        inline message's table links its board (the Mini App), a Discord table its latest
        message there, as noted by the Discord bot (a person linked on both, issue 49)."""
        texts = await self.tables.texts(out.chat)
        places: dict[str, Where] = {}
        for table in out.tables:
            link = await self.notes.latest_link(table)
            if link is not None:
                places[table] = Where(PLATFORM, link)
                continue
            if _is_group(table) and not table.startswith(fmt.SUPERGROUP_PREFIX):
                places[table] = Where(PLATFORM, why=texts("telegram.no_link"))
                continue
            noted = Where.read(await asyncio.to_thread(self.service.note, table, NOTE_WHERE))
            if noted is not None:
                places[table] = noted
            elif fmt.is_telegram_chat(table):
                places[table] = Where(PLATFORM)
        return with_places(out, PLATFORM, places, texts)

    async def _show_lobby(self, out: Outbound, origin: Origin | None) -> None:
        """The lobby message, edited in place (the one whose Join was pressed, or the last
        one posted, also before a restart) instead of posted again."""
        noted = await self.notes.note_int(out.chat, NOTE_LOBBY)
        target = noted
        if (
            origin is not None
            and origin.query is not None
            and isinstance(origin.command, (Join, AddBot))
            and origin.chat == out.chat
            and origin.message_id is not None
        ):
            target = origin.message_id
        if target is not None and await self._edit(out, target):
            if target != noted:
                await self.notes.set_note(out.chat, NOTE_LOBBY, str(target))
            return
        sent = await self._send(out.chat, out)
        await self.notes.set_note(self.tables.current(out.chat), NOTE_LOBBY, str(sent.message_id))

    async def _close_lobby(self, table: str) -> None:
        """The game began (or the table closed): the lobby's buttons go, they would only be
        stale now, and the next lobby is a new message. In a group with no request to
        spare, the lobby joins the older messages whose buttons come off later."""
        message_id = await self.notes.note_int(table, NOTE_LOBBY)
        if message_id is None:
            return
        await self.notes.set_note(table, NOTE_LOBBY, None)
        chat, _thread = fmt.split_table(table)
        if not self.api.pace.spare(chat):
            await self._keep_stale(
                table, [(chat, message_id), *await self.notes.live(table, NOTE_STALE)]
            )
            return
        try:
            await self.api.retry(
                self.api.bot.edit_message_reply_markup, chat, message_id, reply_markup=None
            )
        except TelegramError as exc:
            log.info("could not take the buttons off the lobby message: %s", exc)

    async def _retire_buttons(self, table: str, newest: Message) -> None:
        """A new turn message was posted: the buttons of the table's older messages go
        (one edit each, the newest of them first), so only the newest message looks
        pressable, as far as the group has requests to spare after its boards
        (:mod:`bot.telegram.pace`); those left are noted as stale, to lose their buttons
        with a later turn message or the clock's next look (a press on one is answered as
        stale meanwhile). The newest is noted as live if it has buttons."""
        now = (newest.chat.id, newest.message_id)
        older = [e for e in reversed(await self.notes.live(table)) if e != now]
        left = await self._strip([*older, *await self.notes.live(table, NOTE_STALE)])
        live = [list(now)] if newest.reply_markup else []
        await self.notes.set_note(table, NOTE_LIVE, json.dumps(live) if live else None)
        await self._keep_stale(table, left)

    async def tidy(self, table: str) -> None:
        """Take the buttons off the table's stale messages, as far as their groups have
        requests to spare now (the clock's look, once a fast game slowed down)."""
        await self._keep_stale(table, await self._strip(await self.notes.live(table, NOTE_STALE)))

    async def _strip(self, entries: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """Take the buttons off these messages in this order, one edit each, while their
        chat has requests to spare; the ones left, in order."""
        left: list[tuple[int, int]] = []
        for chat, message_id in entries:
            if not self.api.pace.spare(chat):
                left.append((chat, message_id))
                continue
            try:
                await self.api.retry(
                    self.api.bot.edit_message_reply_markup, chat, message_id, reply_markup=None
                )
            except TelegramError as exc:  # deleted, too old, or already without buttons
                log.info("could not take the buttons off message %s: %s", message_id, exc)
        return left

    async def _keep_stale(self, table: str, entries: list[tuple[int, int]]) -> None:
        """Note the table's stale messages (the tables with some, for the clock)."""
        value = json.dumps([list(e) for e in dict.fromkeys(entries)]) if entries else None
        await self.notes.set_note(table, NOTE_STALE, value)
        if entries:
            self.untidy.add(table)
        else:
            self.untidy.discard(table)

    async def _edit(self, out: Outbound, message_id: int) -> bool:
        """Replace the text and buttons of one of our messages; ``False`` if it is gone."""
        chat, _thread = fmt.split_table(out.chat)
        text = fmt.fit(out.text, fmt.TEXT_LIMIT)
        markup = await self._markup(out, out.chat)
        try:
            await self.api.retry(
                self.api.bot.edit_message_text,
                text,
                chat_id=chat,
                message_id=message_id,
                reply_markup=markup,
            )
        except BadRequest as exc:
            if "not modified" in str(exc).lower():
                return True
            log.info("could not edit message %s, sending a new one: %s", message_id, exc)
            return False
        except ChatMigrated as exc:  # the message stayed behind in the old group
            await self.tables.migrate(chat, int(exc.new_chat_id))
            return False
        return True

    async def _send_private(self, out: Outbound, origin: Origin | None) -> None:
        """A rack or hint to one player's private chat; if that chat is not open, the group
        says how to see the tiles: once per player and game, and again whenever the player
        asks. Both facts are kept in the store, so a restart does not repeat the notice."""
        user = out.user
        assert user is not None
        if out.kind == "ping":  # the turn message is posted already: it is the latest
            link = await self.notes.latest_link(out.chat)
            if link is not None:
                texts = await self.tables.texts(out.chat)
                out = replace(out, text=f"{out.text}\n{texts('notify.link', link=link)}")
        if await asyncio.to_thread(self.service.note, user, NOTE_CLOSED) is None:
            try:
                sent = await self._send(user, out)
                if sent.reply_markup is not None:
                    await self.notes.add_live(out.chat, sent)
                if out.kind == "ping":
                    key = NOTE_PING.format(user=user)
                    await self.notes.set_note(out.chat, key, str(sent.message_id))
                return
            except Forbidden:
                pass
            except BadRequest as exc:
                if "chat not found" not in str(exc).lower():
                    raise
            await self.notes.set_note(user, NOTE_CLOSED, "1")
        if out.kind == "ping":
            return  # a turn ping is private or nothing: the turn message already says it
        asked = origin is not None and origin.typed and origin.user.id == user
        table = await self.tables.table(out.chat)
        game = str(table.seed) if table is not None else ""
        told = read_told(await asyncio.to_thread(self.service.note, out.chat, NOTE_TOLD), game)
        if not asked and user in told:
            return
        told.append(user)
        await self.notes.set_note(out.chat, NOTE_TOLD, json.dumps({"game": game, "users": told}))
        texts = await self.tables.texts(out.chat)
        names = await self.tables.names(out.chat)
        name = names.get(user, "")
        # Only a rack can be shown by the My tiles button; anything else (/mydata, /games,
        # a hint) needs the private chat, which the button under the notice opens.
        rack = out.kind == "rack"
        buttons = [Button(texts("button.hand"), "/hand")] if rack else []
        notice = Outbound(
            out.chat,
            texts("telegram.unreachable" if rack else "telegram.unreachable_ask", name=name),
            "info",
            buttons=tuple(buttons),
            mentions=(user,),
        )
        if fmt.is_inline(out.chat):
            # Said in the table's one message, above the turn, whose buttons show the
            # tiles and open the private chat.
            await self._show_inline(replace(notice, buttons=()))
            return
        reply_to = None
        if asked and origin is not None and origin.chat == out.chat:
            reply_to = origin.message_id
        await self._send(out.chat, notice, reply_to=reply_to, private_link=True)

    async def _unping(self, out: Outbound) -> None:
        """The turn a private ping was sent for has passed: the ping is deleted (a message
        Telegram no longer lets the bot delete, older than 48 hours or deleted by the
        person already, stays or is gone: either way nothing is left to do)."""
        assert out.user is not None
        key = NOTE_PING.format(user=out.user)
        message_id = await self.notes.note_int(out.chat, key)
        if message_id is None:
            return
        try:
            await self.api.bot.delete_message(chat_id=int(out.user), message_id=message_id)
        except (BadRequest, Forbidden) as exc:
            log.info("could not delete a turn ping to %s: %s", out.user, exc)
        # Kept until here: a flood wait or a network failure raises, and the outbox tries
        # again later with the note still there.
        await self.notes.set_note(out.chat, key, None)

    async def _send(
        self,
        chat: str,
        out: Outbound,
        *,
        document: bool = False,
        reply_to: int | None = None,
        private_link: bool = False,
    ) -> Message:
        """One message to a chat or forum topic (``chat`` is a table id); if the group has
        become a supergroup meanwhile, its tables move along and the message goes there."""
        try:
            return await self._post(
                chat, out, document=document, reply_to=reply_to, private_link=private_link
            )
        except ChatMigrated as exc:
            old, thread = fmt.split_table(chat)
            await self.tables.migrate(old, int(exc.new_chat_id))
            return await self._post(
                fmt.table_id(int(exc.new_chat_id), thread),
                replace(out, chat=self.tables.current(out.chat)),
                document=document,
                reply_to=None,  # the message replied to stayed in the old group
                private_link=private_link,
            )

    async def _post(
        self,
        chat: str,
        out: Outbound,
        *,
        document: bool = False,
        reply_to: int | None = None,
        private_link: bool = False,
    ) -> Message:
        """One message: a photo with its caption, a document, or text, with buttons and
        the mention of the player to act."""
        attachment = out.attachment
        as_photo = attachment is not None and attachment.is_image and not document
        limit = fmt.CAPTION_LIMIT if attachment is not None else fmt.TEXT_LIMIT
        text = fmt.fit(out.text, limit)
        markup = await self._markup(out, chat, full_size=as_photo, private_link=private_link)
        entities = await self._mentions(out, text)
        reply = as_reply(reply_to) if reply_to is not None else None
        # The General topic of a forum, like any chat, is addressed without a thread id.
        target, thread = fmt.split_table(chat)
        if attachment is None:
            return await self.api.retry(
                self.api.bot.send_message,
                target,
                text,
                message_thread_id=thread,
                entities=entities,
                reply_markup=markup,
                reply_parameters=reply,
                resend=False,
            )
        send = self.api.bot.send_photo if as_photo else self.api.bot.send_document
        if attachment.is_animation and not document:
            send = self.api.bot.send_animation  # the replay plays in the chat, like a GIF
        return await self.api.retry(
            send,
            target,
            InputFile(attachment.data, filename=attachment.filename),
            message_thread_id=thread,
            caption=text,
            caption_entities=entities,
            reply_markup=markup,
            reply_parameters=reply,
            resend=False,
        )

    async def _markup(
        self, out: Outbound, chat: str, *, full_size: bool = False, private_link: bool = False
    ) -> InlineKeyboardMarkup | None:
        """Our buttons in rows, plus "Full size" under a turn's photo and, in a group, the
        deep link that opens the private chat under the lobby (where racks arrive)."""
        buttons: list[InlineKeyboardButton] = []
        for button in out.buttons:
            if button.url and "/s/" in button.url and _is_private(chat):
                # The player's own page, in their private chat: opened as a Mini App.
                app = WebAppInfo(button.url)
                buttons.append(InlineKeyboardButton(button.label, web_app=app))
                continue
            if button.url:  # the table's web page: in Telegram, the bot's Mini App
                buttons.append(InlineKeyboardButton(button.label, url=self._app_url(button.url)))
                continue
            try:
                data = fmt.callback_data(out.chat, chat, button.command)
            except ValueError as exc:
                log.warning("button left out: %s", exc)
                continue
            buttons.append(InlineKeyboardButton(button.label, callback_data=data))
        texts: Texts | None = None
        if full_size and out.kind in ("turn", "result"):
            texts = texts or await self.tables.texts(out.chat)
            buttons.append(
                InlineKeyboardButton(
                    texts("telegram.full_size"),
                    callback_data=fmt.callback_data(out.chat, chat, "/board"),
                )
            )
        layout = [[buttons[i] for i in row] for row in fmt.rows([b.text for b in buttons])]
        inline = fmt.is_inline(chat) and out.kind in ("lobby", "turn")
        if ((private_link or out.kind == "lobby") and _is_group(chat)) or inline:
            texts = texts or await self.tables.texts(out.chat)
            url = fmt.deep_link(self.api.username, out.chat)
            row = [InlineKeyboardButton(texts("telegram.private_link"), url=url)]
            if inline:
                # No chat there to type /leave in: the button is it, pressed by a seated
                # player (anyone else is told on the button that they sit nowhere).
                leave = fmt.callback_data(out.chat, chat, "/leave")
                row.insert(0, InlineKeyboardButton(texts("button.leave"), callback_data=leave))
            layout.append(row)
        return InlineKeyboardMarkup(layout) if layout else None

    def _app_url(self, url: str) -> str:
        """A table page's address as the bot's direct Mini App link when ``[web]
        telegram_app`` names the app (``t.me/<bot>/<app>?startapp=<table id>``)."""
        app = self.service.settings.web.telegram_app
        if not app or "/t/" not in url:
            return url
        return f"https://t.me/{self.api.username}/{app}?startapp={url.rsplit('/t/', 1)[1]}"

    async def _mentions(self, out: Outbound, text: str) -> list[MessageEntity] | None:
        """Mentions of the addressed players, so Telegram notifies them."""
        if not out.mentions:
            return None
        names = await self.tables.names(out.chat)
        wanted = [(user, names[user]) for user in out.mentions if user in names]
        entities = [
            MessageEntity(
                MessageEntity.TEXT_MENTION,
                offset,
                length,
                user=TelegramUser(int(user), names[user], is_bot=False),
            )
            for offset, length, user in fmt.mention_spans(text, wanted)
        ]
        return entities or None


def as_reply(message_id: int) -> ReplyParameters:
    return ReplyParameters(message_id, allow_sending_without_reply=True)


def _is_group(chat: str) -> bool:
    # Telegram's group and supergroup ids are negative; private chats' are the user's id.
    return chat.startswith("-")


def _is_private(chat: str) -> bool:
    """A private chat (a Mini App button works only there): neither a group nor an
    inline message's table."""
    return not _is_group(chat) and not fmt.is_inline(chat)
