"""The Telegram adapter: updates in as commands, the service's outbounds out as messages.

Thin on purpose: the table service decides everything; this module only speaks Telegram.
Slash commands (also ``/cmd@Bot``) and button presses become command texts; each outbound
becomes a message, a photo with its caption, a document, an edit of the lobby message, or
a pop-up answer to a button press. Racks go only to private chats; a player whose private
chat is not open (Telegram answers 403) presses "My tiles" and sees the rack in a pop-up
that only they see.

The service is synchronous and may render images or let computer players think, so every
call into it runs in a worker thread (``asyncio.to_thread``); a lock per table keeps the
messages of one table in order while other tables go on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from telegram import (
    BotCommand,
    CallbackQuery,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputFile,
    Message,
    MessageEntity,
    ReplyParameters,
    Update,
)
from telegram import User as TelegramUser
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import BadRequest, Forbidden, NetworkError, TelegramError
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ContextTypes,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot.commands import (
    COMMAND_WORDS,
    LANGUAGES,
    Abort,
    AddBot,
    Board,
    Command,
    CommandError,
    Hand,
    Hint,
    Join,
    Keep,
    Kick,
    Play,
    SetOption,
    Start,
    Swap,
    parse_command,
)
from bot.outbound import Button, Chat, Outbound, User
from bot.service import Service
from bot.table import CLOSED, PLAYING, Table
from bot.telegram import limits as fmt
from bot.texts import Texts

log = logging.getLogger(__name__)
T = TypeVar("T")

#: The updates the bot asks Telegram for.
ALLOWED_UPDATES = [Update.MESSAGE, Update.CALLBACK_QUERY]
#: Commands that only the host or a chat admin may give (or a seated player, for some).
MANAGER_COMMANDS = (AddBot, Start, SetOption, Kick, Abort)
#: Commands a player may send from the private chat for the group table they play at.
PLAYER_COMMANDS = (Play, Swap, Keep, Hand, Hint)
#: How long a chat admin check is trusted before Telegram is asked again.
ADMIN_CACHE_SECONDS = 60.0
_GROUP_TYPES = (ChatType.GROUP, ChatType.SUPERGROUP)


@dataclass
class Origin:
    """Where a command came from, so answers go back the way people expect: errors as a
    reply (or a toast on the pressed button), the lobby edited in place."""

    table: str  # the chat whose table the command is for
    chat: str  # where it was typed or clicked (the private chat, for moves sent privately)
    user: User
    command: Command | None
    message_id: int | None  # the typed message, or the message whose button was pressed
    query: CallbackQuery | None = None
    answered: bool = False

    @property
    def typed(self) -> bool:
        return self.query is None


class TelegramAdapter:
    """Connects a :class:`~bot.service.Service` to a python-telegram-bot Application."""

    def __init__(
        self,
        service: Service,
        *,
        send_retries: int = 3,
        backoff: float = 0.5,
        due_interval: float = 30.0,
        on_handled: Callable[[int], None] | None = None,
    ) -> None:
        """
        Args:
            service: the table service.
            send_retries: how often a request that failed on the network is sent again.
            backoff: seconds before the first retry; doubled for each further one.
            due_interval: seconds between looks at the clock for deadlines (reminders,
                turns that time out).
            on_handled: called with each update's id once it is fully handled (for tests
                and monitoring).
        """
        self.service = service
        self.send_retries = send_retries
        self.backoff = backoff
        self.due_interval = due_interval
        self.on_handled = on_handled
        self._app: Application[Any, Any, Any, Any, Any, Any] | None = None
        self._locks: dict[str, asyncio.Lock] = {}
        # The lobby message of each chat, edited in place as people join (in memory: after
        # a restart the next lobby is a new message).
        self._lobby: dict[str, int] = {}
        # Users whose private chat with the bot is not open (Telegram answered 403).
        self._unreachable: set[str] = set()
        # (table, user) pairs already told in the group how to see their tiles.
        self._told: set[tuple[str, str]] = set()
        # Answers to "is this user a chat admin?", with when they were given.
        self._admins: dict[tuple[str, str], tuple[bool, float]] = {}

    # --- wiring -----------------------------------------------------------------------

    def attach(self, app: Application[Any, Any, Any, Any, Any, Any]) -> None:
        """Register the handlers with ``app``."""
        self._app = app
        app.add_handler(
            MessageHandler(filters.COMMAND & filters.UpdateType.MESSAGE, self.on_command)
        )
        app.add_handler(CallbackQueryHandler(self.on_button))
        # A later group runs once the handlers above are done with the update.
        app.add_handler(TypeHandler(Update, self._handled), group=1)
        app.add_error_handler(self.on_error)

    @property
    def bot(self) -> Any:
        assert self._app is not None, "attach() the adapter to an Application first"
        return self._app.bot

    @property
    def username(self) -> str:
        return str(self.bot.username)

    def _lock(self, chat: str) -> asyncio.Lock:
        lock = self._locks.get(chat)
        if lock is None:
            lock = self._locks[chat] = asyncio.Lock()
        return lock

    async def register_commands(self) -> None:
        """The command list in each language (and the default language for the rest), so
        Telegram clients complete commands with a description."""
        default = self.service.settings.language
        for lang in (None, *LANGUAGES):
            texts = Texts(lang or default)
            commands = [
                BotCommand(word, texts(f"telegram.commands.{word}"))
                for word in COMMAND_WORDS
                if texts.has(f"telegram.commands.{word}")
            ]
            try:
                await self._retry(self.bot.set_my_commands, commands, language_code=lang)
            except TelegramError as exc:
                log.warning("could not register the commands for %s: %s", lang or "all", exc)

    # --- updates in ---------------------------------------------------------------------

    async def on_command(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A slash command typed in a group or in the private chat."""
        msg, sender = update.effective_message, update.effective_user
        if msg is None or sender is None or msg.text is None or sender.is_bot:
            return
        parsed = self._command_word(msg)
        if parsed is None:  # meant for another bot
            return
        word, addressed = parsed
        chat = str(msg.chat.id)
        user = _user(sender)
        private = msg.chat.type == ChatType.PRIVATE
        if private and word == "start" and await self._private_start(msg, user):
            return
        try:
            cmd: Command | None = parse_command(msg.text)
        except CommandError as exc:
            # In a group, an unknown bare command may be another bot's: stay quiet unless
            # it was addressed to us.
            if exc.key == "command.unknown" and not private and not addressed:
                return
            cmd = None
        table = chat
        if private and isinstance(cmd, PLAYER_COMMANDS):
            found = await self._table_for_private(chat, user, msg.message_id)
            if found is None:
                return
            table = found
        title = (msg.chat.title or "") if not private else sender.full_name
        origin = Origin(table, chat, user, cmd, msg.message_id)
        await self._run(origin, msg.text, Chat(table, title if table == chat else ""))

    async def on_button(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A press on one of our inline buttons."""
        query = update.callback_query
        if query is None or query.data is None:
            return
        msg = query.message
        where = str(msg.chat.id) if msg is not None else str(query.from_user.id)
        target = fmt.parse_callback_data(query.data, where)
        user = _user(query.from_user)
        if target is None:
            texts = await self._texts(where)
            await self._answer(query, texts("error.stale"), alert=False)
            return
        table, text = target
        try:
            cmd: Command | None = parse_command(text)
        except CommandError:
            cmd = None
        origin = Origin(table, where, user, cmd, msg.message_id if msg is not None else None, query)
        title = ""
        if msg is not None and table == where and msg.chat.type in _GROUP_TYPES:
            title = msg.chat.title or ""
        await self._run(origin, text, Chat(table, title))

    async def on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        log.error("error while handling an update", exc_info=context.error)

    async def _handled(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
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
        if at and target.casefold() != self.username.casefold():
            return None
        return word.lower(), bool(at)

    async def _private_start(self, msg: Message, user: User) -> bool:
        """``/start`` in the private chat: the player opened it (often by the deep link from
        a group's lobby), so racks can come here now. ``False`` when it is the game's
        ``/start`` of a table in the private chat itself."""
        self._unreachable.discard(user.id)
        chat = str(msg.chat.id)
        args = (msg.text or "").split()[1:]
        table_chat = fmt.parse_start_payload(args[0]) if args else None
        if table_chat is None:
            own = await asyncio.to_thread(self.service.table, chat)
            if own is not None and own.status != CLOSED and own.seats:
                return False
            texts = await self._texts(chat)
            await self._retry(
                self.bot.send_message, msg.chat.id, texts("telegram.welcome", name=user.name)
            )
            return True
        table = await asyncio.to_thread(self.service.table, table_chat)
        if table is not None and table.status == PLAYING and table.seat_of(user.id) is not None:
            origin = Origin(table_chat, chat, user, Hand(), msg.message_id)
            await self._run(origin, "/hand", Chat(table_chat))
            return True
        texts = Texts(table.options.lang) if table else await self._texts(chat)
        name = (table.title if table else "") or table_chat
        await self._retry(self.bot.send_message, msg.chat.id, texts("telegram.linked", table=name))
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
        texts = await self._texts(chat)
        titles = []
        for table in tables:
            t = await asyncio.to_thread(self.service.table, table)
            titles.append((t.title if t else "") or table)
        text = texts("telegram.which_table", tables=", ".join(titles))
        await self._retry(
            self.bot.send_message,
            int(chat),
            text,
            reply_parameters=_reply(reply_to) if reply_to else None,
        )
        return None

    # --- one command, start to end ------------------------------------------------------

    async def _run(self, origin: Origin, text: str, chat: Chat) -> None:
        """Hand the command to the service, answer the button press, deliver what the
        service says, then let computer players move (all in order for this table)."""
        async with self._lock(origin.table):
            try:
                admin = await self._is_admin(origin)
                outs = await asyncio.to_thread(
                    self.service.handle, chat, origin.user, text, admin=admin
                )
            except Exception:
                log.exception("the service failed on a command")
                texts = await self._texts(origin.table)
                outs = [Outbound(origin.table, texts("telegram.failed"), "error")]
            try:
                outs = await self._answer_press(origin, outs)
            finally:
                if origin.query is not None and not origin.answered:
                    await self._answer(origin.query, "", alert=False)
            await self.deliver(outs, origin)
            await self._due(origin.table)

    async def _due(self, table: str, now: float | None = None) -> None:
        try:
            outs = await asyncio.to_thread(self.service.due, now, chat=table)
        except Exception:
            log.exception("the service failed on what was due at a table")
            return
        await self.deliver(outs, None)

    async def tick(self) -> None:
        """Everything due by the clock: computer players' turns, reminders, timeouts."""
        now = self.service.clock()
        chats = await asyncio.to_thread(self.service.store.due, now)
        for chat in chats:
            async with self._lock(chat):
                await self._due(chat, now)

    async def due_loop(self, stop: asyncio.Event) -> None:
        """:meth:`tick` every ``due_interval`` seconds until ``stop`` is set (a tick under
        way is finished, so no computer move is made without being shown)."""
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.due_interval)
            if stop.is_set():
                break
            try:
                await self.tick()
            except Exception:
                log.exception("the deadline check failed")

    async def _is_admin(self, origin: Origin) -> bool:
        """Whether the user administers the table's chat; asked of Telegram only when it
        matters (a host's command from someone who is not the host)."""
        if origin.table == origin.user.id:  # the user's own private chat
            return True
        if not isinstance(origin.command, MANAGER_COMMANDS):
            return False
        table = await asyncio.to_thread(self.service.table, origin.table)
        if table is None or table.host is None or table.host == origin.user.id:
            return False
        key = (origin.table, origin.user.id)
        cached = self._admins.get(key)
        now = time.monotonic()
        if cached is not None and now - cached[1] < ADMIN_CACHE_SECONDS:
            return cached[0]
        try:
            member = await self._retry(
                self.bot.get_chat_member, int(origin.table), int(origin.user.id)
            )
        except TelegramError as exc:
            log.warning("could not check whether a user is a chat admin: %s", exc)
            return False
        admin = member.status in (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)
        self._admins[key] = (admin, now)
        return bool(admin)

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
                texts = await self._texts(out.chat)
                first = texts("telegram.popup", rack=look.rack_text)
                text = "\n".join([first, *text.split("\n")[1:]])
        return fmt.fit(text, fmt.ALERT_LIMIT, 0)

    async def _answer(self, query: CallbackQuery, text: str, *, alert: bool) -> None:
        try:
            await self._retry(query.answer, text or None, show_alert=alert)
        except TelegramError as exc:  # too late (15 s), or already answered
            log.warning("could not answer a button press: %s", exc)

    # --- outbounds out ------------------------------------------------------------------

    async def deliver(self, outs: Sequence[Outbound], origin: Origin | None) -> None:
        """Send each outbound in Telegram's idiom; one that fails does not stop the rest."""
        for out in outs:
            try:
                await self._deliver_one(out, origin)
            except TelegramError as exc:
                log.warning("could not deliver a %s message: %s", out.kind, exc)

    async def _deliver_one(self, out: Outbound, origin: Origin | None) -> None:
        if out.user is not None and out.user != out.chat:
            await self._send_private(out, origin)
            return
        if out.kind == "error":
            # Errors go back where the command came from: a move sent from the private
            # chat is answered there, not in the group.
            where = origin.chat if origin is not None else out.chat
            reply_to = origin.message_id if origin is not None and origin.typed else None
            await self._send(where, out, reply_to=reply_to)
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
        if out.kind in ("turn", "result") or (
            origin is not None and isinstance(origin.command, Abort)
        ):
            await self._close_lobby(out.chat)
        document = origin is not None and isinstance(origin.command, Board)
        await self._send(out.chat, out, document=document)

    async def _show_lobby(self, out: Outbound, origin: Origin | None) -> None:
        """The lobby message, edited in place (the one whose Join was pressed, or the last
        one posted) instead of posted again."""
        target = self._lobby.get(out.chat)
        if (
            origin is not None
            and origin.query is not None
            and isinstance(origin.command, (Join, AddBot))
            and origin.chat == out.chat
            and origin.message_id is not None
        ):
            target = origin.message_id
        if target is not None and await self._edit(out, target):
            self._lobby[out.chat] = target
            return
        sent = await self._send(out.chat, out)
        self._lobby[out.chat] = sent.message_id

    async def _close_lobby(self, chat: str) -> None:
        """The game began (or the table closed): the lobby's buttons go, they would only be
        stale now, and the next lobby is a new message."""
        message_id = self._lobby.pop(chat, None)
        if message_id is None:
            return
        try:
            await self._retry(
                self.bot.edit_message_reply_markup, int(chat), message_id, reply_markup=None
            )
        except TelegramError as exc:
            log.info("could not take the buttons off the lobby message: %s", exc)

    async def _edit(self, out: Outbound, message_id: int) -> bool:
        """Replace the text and buttons of one of our messages; ``False`` if it is gone."""
        chat = int(out.chat)
        text = fmt.fit(out.text, fmt.TEXT_LIMIT)
        markup = await self._markup(out, out.chat)
        try:
            await self._retry(
                self.bot.edit_message_text,
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
        return True

    async def _send_private(self, out: Outbound, origin: Origin | None) -> None:
        """A rack or hint to one player's private chat; if that chat is not open, the group
        says (once, or whenever the player asks) how to see the tiles."""
        user = out.user
        assert user is not None
        if user not in self._unreachable:
            try:
                await self._send(user, out)
                return
            except Forbidden:
                pass
            except BadRequest as exc:
                if "chat not found" not in str(exc).lower():
                    raise
            self._unreachable.add(user)
        asked = origin is not None and origin.typed and origin.user.id == user
        if not asked and (out.chat, user) in self._told:
            return
        self._told.add((out.chat, user))
        texts = await self._texts(out.chat)
        names = await self._names(out.chat)
        name = names.get(user, "")
        buttons = [Button(texts("button.hand"), "/hand")] if out.kind == "rack" else []
        notice = Outbound(
            out.chat,
            texts("telegram.unreachable", name=name),
            "info",
            buttons=tuple(buttons),
            mentions=(user,),
        )
        reply_to = None
        if asked and origin is not None and origin.chat == out.chat:
            reply_to = origin.message_id
        await self._send(out.chat, notice, reply_to=reply_to, private_link=True)

    async def _send(
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
        reply = _reply(reply_to) if reply_to is not None else None
        target = int(chat)
        if attachment is None:
            return await self._retry(
                self.bot.send_message,
                target,
                text,
                entities=entities,
                reply_markup=markup,
                reply_parameters=reply,
            )
        send = self.bot.send_photo if as_photo else self.bot.send_document
        return await self._retry(
            send,
            target,
            InputFile(attachment.data, filename=attachment.filename),
            caption=text,
            caption_entities=entities,
            reply_markup=markup,
            reply_parameters=reply,
        )

    async def _markup(
        self, out: Outbound, chat: str, *, full_size: bool = False, private_link: bool = False
    ) -> InlineKeyboardMarkup | None:
        """Our buttons in rows, plus "Full size" under a turn's photo and, in a group, the
        deep link that opens the private chat under the lobby (where racks arrive)."""
        buttons: list[InlineKeyboardButton] = []
        for button in out.buttons:
            try:
                data = fmt.callback_data(out.chat, chat, button.command)
            except ValueError as exc:
                log.warning("button left out: %s", exc)
                continue
            buttons.append(InlineKeyboardButton(button.label, callback_data=data))
        texts: Texts | None = None
        if full_size and out.kind in ("turn", "result"):
            texts = texts or await self._texts(out.chat)
            buttons.append(
                InlineKeyboardButton(
                    texts("telegram.full_size"),
                    callback_data=fmt.callback_data(out.chat, chat, "/board"),
                )
            )
        layout = [[buttons[i] for i in row] for row in fmt.rows([b.text for b in buttons])]
        if (private_link or out.kind == "lobby") and _is_group(chat):
            texts = texts or await self._texts(out.chat)
            url = fmt.deep_link(self.username, out.chat)
            layout.append([InlineKeyboardButton(texts("telegram.private_link"), url=url)])
        return InlineKeyboardMarkup(layout) if layout else None

    async def _mentions(self, out: Outbound, text: str) -> list[MessageEntity] | None:
        """Mentions of the addressed players, so Telegram notifies them."""
        if not out.mentions:
            return None
        names = await self._names(out.chat)
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

    # --- small helpers ------------------------------------------------------------------

    async def _table(self, chat: str) -> Table | None:
        return await asyncio.to_thread(self.service.table, chat)

    async def _texts(self, chat: str) -> Texts:
        """The texts in the language of a chat's table (the default language if none)."""
        table = await self._table(chat)
        return Texts(table.options.lang if table else self.service.settings.language)

    async def _names(self, chat: str) -> dict[str, str]:
        table = await self._table(chat)
        if table is None:
            return {}
        return {s.user: s.name for s in table.seats if s.user is not None}

    async def _retry(self, call: Callable[..., Awaitable[T]], /, *args: Any, **kwargs: Any) -> T:
        """``call(*args, **kwargs)``, sent again after network errors with growing pauses.
        Telegram's answers (bad request, forbidden) are final; flood waits are the rate
        limiter's."""
        delay = self.backoff
        for attempt in range(self.send_retries + 1):
            try:
                return await call(*args, **kwargs)
            except BadRequest:
                raise
            except NetworkError as exc:
                if attempt >= self.send_retries:
                    raise
                log.warning("network error (%s); trying again in %.1f s", exc, delay)
                await asyncio.sleep(delay)
                delay *= 2
        raise AssertionError("unreachable")


def _user(user: TelegramUser) -> User:
    return User(str(user.id), user.full_name)


def _reply(message_id: int) -> ReplyParameters:
    return ReplyParameters(message_id, allow_sending_without_reply=True)


def _is_group(chat: str) -> bool:
    # Telegram's group and supergroup ids are negative; private chats' are the user's id.
    return chat.startswith("-")
