"""A fake Telegram Bot API server on 127.0.0.1, and a runner for the real bot against it.

:class:`FakeBotAPI` speaks the Bot API over HTTP as python-telegram-bot uses it (form or
multipart bodies, JSON answers): it hands out updates by ``getUpdates`` with Telegram's
offset rule, records every request, keeps the messages the bot sent so tests can press
their buttons, answers 403 for private chats that were never opened, and fails requests
on demand (a 429 flood wait, a 502). Only the methods the bot uses are implemented.

Faults (:meth:`FakeBotAPI.inject` for the next calls of a method, :meth:`FakeBotAPI.chaos`
at a seeded rate): a 429 with ``retry_after``, a 502, a timeout (the request is carried
out, the client's read of the answer times out: see :data:`LATE`), a dropped connection
(carried out, then the connection closes without an answer), "message is not modified"
and "message to edit not found" (someone deleted it) for edits. With
:meth:`FakeBotAPI.flood_limits` it refuses, as Telegram does, a message past its flood
limits (20 in any 60 s in a group, one a second in a private chat, 30 a second in all),
with a 429 and the ``retry_after`` until one fits, on a clock the test moves. The world can turn
against the bot too: :meth:`FakeBotAPI.kick` removes it from a group,
:meth:`FakeBotAPI.block` has a user block it, both answered 403 as Telegram does.

Inline mode (issue 49): :meth:`FakeBotAPI.inline_query` is someone typing the bot's name
in any chat, :meth:`FakeBotAPI.choose` their choice of one of the results the bot answered
(the message appears in that chat, known to the bot only by its ``inline_message_id``,
and with :attr:`FakeBotAPI.feedback`, BotFather's /setinlinefeedback, the bot hears of
it as a ``chosen_inline_result``), :meth:`FakeBotAPI.press_inline` a press on its buttons.
The bot edits such a message by its ``inline_message_id`` only, as Telegram allows: text,
caption, media (a file uploaded before, by its ``file_id``: an inline message takes no
upload) and buttons, with Telegram's refusals ("message is not modified", no text in a
photo, no caption in a text).

Forum groups have topics (a message in one carries ``message_thread_id`` and
``is_topic_message``; the General topic carries neither, and a thread id that names no
topic is refused), and a group can become a supergroup (:meth:`FakeBotAPI.migrate`): the
old chat then refuses messages with Telegram's ``migrate_to_chat_id``.

:class:`BotRunner` runs the real Application with the real adapter and service in a
thread of its own, as ``genial-bot telegram`` would, and lets a test wait until an update
has been handled completely.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.message
import email.parser
import email.policy
import itertools
import json
import math
import random
import re
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from bot.words.texts import letters
from tests.patience import PATIENCE

BOT_ID = 7_000_000_001
#: Fields python-telegram-bot sends as plain strings (everything else is JSON).
_TEXT_FIELDS = frozenset(
    {
        "text",
        "caption",
        "callback_query_id",
        "url",
        "secret_token",
        "language_code",
        "inline_message_id",
        "inline_query_id",
    }
)
FORBIDDEN_PRIVATE = "Forbidden: bot can't initiate conversation with a user"
MIGRATED = "Bad Request: group chat was upgraded to a supergroup chat"
#: For :meth:`FakeBotAPI.last_message`: a message in any topic (or none).
ANY_TOPIC = -1
KICKED = "Forbidden: bot was kicked from the supergroup chat"
BLOCKED = "Forbidden: bot was blocked by the user"
NOT_MODIFIED = "Bad Request: message is not modified: specified new message"

# Faults the fake can inject.
FLOOD = "429"
SERVER = "502"
TIMEOUT = "timeout"
DROP = "drop"
SAME = "not modified"
DELETED = "deleted"
#: Methods that change a message already posted.
EDITS = frozenset(
    {
        "editMessageText",
        "editMessageReplyMarkup",
        "editMessageCaption",
        "editMessageMedia",
        "deleteMessage",
    }
)
#: Telegram's answers to edits of an inline message that cannot be made so.
NO_TEXT = "Bad Request: there is no text in the message to edit"
NO_CAPTION = "Bad Request: there is no caption in the message to edit"
INLINE_UPLOAD = "Bad Request: can't upload a new file to an inline message"
WRONG_FILE = "Bad Request: wrong file identifier/HTTP URL specified"
INLINE_GONE = "Bad Request: MESSAGE_ID_INVALID"
#: What Telegram counts against its flood limits: messages posted, and messages changed.
COUNTED = frozenset(
    {
        "sendMessage",
        "sendPhoto",
        "sendDocument",
        "sendAnimation",
        "sendMediaGroup",
        "editMessageText",
        "editMessageReplyMarkup",
        "editMessageCaption",
        "editMessageMedia",
    }
)
#: Faults any call may meet, and those only an edit may.
ANY_CALL = (FLOOD, SERVER, TIMEOUT, DROP)
EDIT_ONLY = (SAME, DELETED)


@dataclass
class Call:
    """One request the bot made."""

    method: str
    params: dict[str, Any]
    files: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    status: int = 200
    #: When it arrived, by the flood limits' clock (``None`` while they are off).
    at: float | None = None

    @property
    def chat(self) -> int | None:
        chat = self.params.get("chat_id")
        return int(chat) if chat is not None else None

    @property
    def text(self) -> str:
        return str(self.params.get("text") or self.params.get("caption") or "")

    @property
    def thread(self) -> int | None:
        """The forum topic the request named (``None``: none, as for the General topic)."""
        thread = self.params.get("message_thread_id")
        return int(thread) if thread is not None else None


#: The header of an answer that comes too late. A bot in this process does not wait for
#: its timeout to run out: its HTTP client (httpx, patched by :func:`time_out_late_answers`)
#: raises the read timeout at once, as it would once the bot's timeout ran out. So a timed
#: out request costs no wall-clock time, and a bot's timeout need not be short for the
#: tests to be quick, nor an answer quick for it not to time out when the machine is busy.
LATE = "X-Fake-Answer-Too-Late"


def time_out_late_answers() -> None:
    """Patch httpx (once) so that an answer with the :data:`LATE` header times out."""
    import httpx

    client: Any = httpx.AsyncClient
    if getattr(client.send, "_fake_late", False):
        return
    send = client.send

    async def timing_out(self: Any, request: Any, *args: Any, **kw: Any) -> Any:
        response = await send(self, request, *args, **kw)
        if LATE in response.headers:
            await response.aclose()
            raise httpx.ReadTimeout("the answer came after the timeout", request=request)
        return response

    timing_out._fake_late = True  # type: ignore[attr-defined]
    client.send = timing_out


class _Late(Exception):
    """The request was carried out; its answer comes after the client's timeout."""

    def __init__(self, result: Any) -> None:
        super().__init__("late")
        self.result = result


class _Dropped(Exception):
    """The request was carried out; the connection closes without an answer."""


class ApiError(Exception):
    def __init__(self, status: int, description: str, **parameters: Any) -> None:
        super().__init__(description)
        self.status = status
        self.description = description
        self.parameters = parameters


class _Server(ThreadingHTTPServer):
    #: Connections waiting to be accepted: a bot sending 30 messages at once opens as many
    #: (the standard library's 5 would reset some).
    request_queue_size = 128


class FloodLimits:
    """Telegram's flood limits, strictly: each chat's messages and all of them together as
    rolling windows on ``clock`` (a message refused for any reason does not count). Its
    own code, not the bot's: it checks the bot's limiter from outside. Call with the
    fake's lock held."""

    def __init__(
        self,
        clock: Callable[[], float],
        group: tuple[int, float],
        private: tuple[int, float],
        overall: tuple[int, float],
    ) -> None:
        self.clock = clock
        self.group = group
        self.private = private
        self.overall = overall
        #: When each message went out, by chat (``None``: all chats).
        self.sent: dict[int | None, list[float]] = {}

    def _windows(self, chat: int) -> list[tuple[int | None, tuple[int, float]]]:
        return [(chat, self.group if chat < 0 else self.private), (None, self.overall)]

    def take(self, chat: int) -> tuple[float, float]:
        """A message to ``chat`` now: ``(0, stamp)`` if it fits (then it counts, at
        ``stamp``), else ``(seconds until it would, 0)``."""
        now = self.clock()
        wait = 0.0
        for key, (rate, period) in self._windows(chat):
            times = [t for t in self.sent.get(key, []) if t > now - period]
            self.sent[key] = times
            if len(times) + 1 > rate:
                wait = max(wait, times[len(times) - rate] + period - now)
        if wait > 0:
            return wait, 0.0
        for key, _limit in self._windows(chat):
            self.sent.setdefault(key, []).append(now)
        return 0.0, now

    def give_back(self, chat: int, stamp: float) -> None:
        """The message taken at ``stamp`` was refused after all: it does not count."""
        for key, _limit in self._windows(chat):
            with contextlib.suppress(ValueError):
                self.sent.get(key, []).remove(stamp)


class FakeBotAPI:
    """The Bot API of one bot, with a small world of users, groups and messages."""

    def __init__(self, token: str, username: str = "GenialTestBot") -> None:
        # A bot in this process hears a late answer as a timeout (a bot in a process of
        # its own does not: give it no timeout faults).
        time_out_late_answers()
        self.token = token
        self.username = username
        self.calls: list[Call] = []
        self.users: dict[int, dict[str, Any]] = {}
        self.chats: dict[int, dict[str, Any]] = {}
        #: Users who never opened the private chat with the bot.
        self.closed: set[int] = set()
        #: (chat, user) pairs of chat admins.
        self.admins: set[tuple[int, int]] = set()
        self.messages: dict[tuple[int, int], dict[str, Any]] = {}
        #: The command menus set, by (scope type, language code or ``None``).
        self.commands: dict[tuple[str, str | None], list[dict[str, str]]] = {}
        self.webhook: dict[str, Any] | None = None
        self.answers: dict[str, dict[str, Any]] = {}
        #: The query id of each button-press update.
        self.queries: dict[int, str] = {}
        #: The message that opened each forum topic, by (chat, thread id); the closed ones.
        self.topics: dict[tuple[int, int], dict[str, Any]] = {}
        self.closed_topics: set[tuple[int, int]] = set()
        #: Groups that became supergroups: old chat id -> new.
        self.migrated: dict[int, int] = {}
        self._failures: dict[str, list[ApiError | str]] = {}
        #: Groups the bot was removed from, users who blocked it.
        self.kicked: set[int] = set()
        #: Chats deleted (Telegram: "chat not found"), messages deleted (kept here: what
        #: people were told before someone deleted it).
        self.gone: set[int] = set()
        self.deleted: dict[tuple[int, int], dict[str, Any]] = {}
        self.blocked: set[int] = set()
        #: Every fault injected, as (method, fault).
        self.faults: list[tuple[str, str]] = []
        self._chaos: tuple[float, random.Random, tuple[str, ...], frozenset[str] | None] | None = (
            None
        )
        #: Telegram's flood limits, once :meth:`flood_limits` switched them on.
        self.limits: FloodLimits | None = None
        #: What happens to the next request that matches (see :meth:`cut_at`), and the
        #: requests cut so far.
        self.cut: tuple[Callable[[Call], bool], Callable[[], None]] | None = None
        self.cuts: list[Call] = []
        #: Chats whose requests get no answer until released (see :meth:`stall`), and the
        #: requests held so far.
        self.stalled: set[int] = set()
        self.held: list[Call] = []
        #: Inline mode (BotFather's /setinline) and its feedback (/setinlinefeedback).
        self.inline_mode = True
        self.feedback = True
        #: The bot's answers to inline queries, by query id; the query id of each update.
        self.inline_answers: dict[str, dict[str, Any]] = {}
        self.inline_queries: dict[int, str] = {}
        #: Messages sent through the bot in chats it does not see, by inline_message_id.
        self.inline_messages: dict[str, dict[str, Any]] = {}
        #: The file ids of the photos the bot uploaded (what an inline message may show).
        self.uploaded: set[str] = set()
        self._inline_ids = itertools.count(1)
        self._updates: list[dict[str, Any]] = []
        #: The id of the last update queued (0: none yet).
        self.last_update = 0
        self._update_ids = itertools.count(1)
        self._message_ids: dict[int, Iterator[int]] = {}
        self._query_ids = itertools.count(1)
        self._cond = threading.Condition()
        self._closing = False
        self._server = _Server(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    # --- running -----------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeBotAPI:
        self._thread.start()
        return self

    def close(self) -> None:
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self._server.shutdown()
        self._server.server_close()

    # --- the world -----------------------------------------------------------------------

    def user(self, user_id: int, first_name: str, *, opened: bool = True) -> dict[str, Any]:
        """A person; ``opened=False``: they never started the private chat with the bot."""
        user = {"id": user_id, "is_bot": False, "first_name": first_name, "language_code": "en"}
        self.users[user_id] = user
        self.chats[user_id] = {"id": user_id, "type": "private", "first_name": first_name}
        if not opened:
            self.closed.add(user_id)
        return user

    def group(
        self,
        chat_id: int,
        title: str,
        *,
        forum: bool = False,
        kind: str = "supergroup",
        username: str | None = None,
    ) -> dict[str, Any]:
        """A group: a supergroup (with topics if ``forum``; public if it has a
        ``username``), or a basic ``"group"``."""
        chat: dict[str, Any] = {"id": chat_id, "type": kind, "title": title}
        if forum:
            chat["is_forum"] = True
        if username is not None:
            chat["username"] = username
        self.chats[chat_id] = chat
        return chat

    def topic(self, chat_id: int, user_id: int, name: str) -> int:
        """``user`` opens a topic called ``name`` in forum ``chat``; returns its thread id
        (the id of the service message that opened it, as on Telegram)."""
        assert self.chats[chat_id].get("is_forum"), "topics exist only in forum groups"
        message_id = self._next_message_id(chat_id)
        message = {
            "message_id": message_id,
            "message_thread_id": message_id,
            "is_topic_message": True,
            "date": int(time.time()),
            "chat": self.chats[chat_id],
            "from": self.users.get(user_id, {"id": user_id, "is_bot": True, "first_name": "Bot"}),
            "forum_topic_created": {"name": name, "icon_color": 7322096},
        }
        with self._cond:
            self.messages[(chat_id, message_id)] = message
            self.topics[(chat_id, message_id)] = message
        return message_id

    def rename_topic(self, chat_id: int, thread: int, user_id: int, name: str) -> int:
        """``user`` renames a topic: the bot gets the service message (its update id). The
        topic's first message keeps the old name, as on Telegram."""
        message = {
            "message_id": self._next_message_id(chat_id),
            "message_thread_id": thread,
            "is_topic_message": True,
            "date": int(time.time()),
            "chat": self.chats[chat_id],
            "from": self.users[user_id],
            "reply_to_message": self.topics[(chat_id, thread)],
            "forum_topic_edited": {"name": name},
        }
        with self._cond:
            self.messages[(chat_id, message["message_id"])] = message
        return self.push("message", message)

    def close_topic(self, chat_id: int, thread: int, user_id: int) -> int:
        """``user`` closes a topic: the bot gets the service message (its update id), and
        Telegram refuses its messages there ("TOPIC_CLOSED") until it is reopened."""
        with self._cond:
            self.closed_topics.add((chat_id, thread))
        return self._topic_service(chat_id, thread, user_id, {"forum_topic_closed": {}})

    def reopen_topic(
        self, chat_id: int, thread: int, user_id: int, *, announce: bool = True
    ) -> int:
        """``user`` reopens a topic; with ``announce`` the bot gets the service message (its
        update id; else 0)."""
        with self._cond:
            self.closed_topics.discard((chat_id, thread))
        if not announce:
            return 0
        return self._topic_service(chat_id, thread, user_id, {"forum_topic_reopened": {}})

    def delete_topic(self, chat_id: int, thread: int) -> None:
        """A topic is deleted with its messages: Telegram tells the bot nothing, and answers
        its messages there with "message thread not found"."""
        with self._cond:
            self.topics.pop((chat_id, thread), None)

    def _topic_service(
        self, chat_id: int, thread: int, user_id: int, field_: dict[str, Any]
    ) -> int:
        message = {
            "message_id": self._next_message_id(chat_id),
            "message_thread_id": thread,
            "is_topic_message": True,
            "date": int(time.time()),
            "chat": self.chats[chat_id],
            "from": self.users[user_id],
            "reply_to_message": self.topics[(chat_id, thread)],
            **field_,
        }
        return self.push("message", message)

    def migrate(self, old: int, new: int, user_id: int, *, announce: bool = True) -> list[int]:
        """Basic group ``old`` becomes supergroup ``new`` (upgraded by ``user``). With
        ``announce``, the bot gets Telegram's two service messages (returns their update
        ids); either way the old chat refuses messages from now on."""
        chat = {**self.chats[old], "id": new, "type": "supergroup"}
        self.chats[new] = chat
        with self._cond:
            self.migrated[old] = new
        if not announce:
            return []
        notes = [(old, {"migrate_to_chat_id": new}), (new, {"migrate_from_chat_id": old})]
        updates = []
        for chat_id, field_ in notes:
            message = {
                "message_id": self._next_message_id(chat_id),
                "date": int(time.time()),
                "chat": self.chats[chat_id],
                "from": self.users[user_id],
                **field_,
            }
            updates.append(self.push("message", message))
        return updates

    def leave(self, chat_id: int, user_id: int) -> int:
        """``user`` leaves group ``chat``: Telegram's service message about it (its update
        id)."""
        message = {
            "message_id": self._next_message_id(chat_id),
            "date": int(time.time()),
            "chat": self.chats[chat_id],
            "from": self.users[user_id],
            "left_chat_member": self.users[user_id],
        }
        return self.push("message", message)

    def fail(self, method: str, status: int, description: str, **parameters: Any) -> None:
        """The next ``method`` request fails so (``retry_after=1`` for a flood wait)."""
        with self._cond:
            self._failures.setdefault(method, []).append(
                ApiError(status, description, **parameters)
            )

    def pending_failures(self, method: str) -> int:
        """How many failures queued for ``method`` have not been met yet."""
        with self._cond:
            return len(self._failures.get(method, ()))

    def inject(self, method: str, fault: str, times: int = 1) -> None:
        """The next ``times`` ``method`` requests meet ``fault`` (:data:`FLOOD`,
        :data:`SERVER`, :data:`TIMEOUT`, :data:`DROP`, :data:`SAME`, :data:`DELETED`)."""
        with self._cond:
            self._failures.setdefault(method, []).extend([fault] * times)

    def heal(self, method: str) -> None:
        """The failures queued for ``method`` and not met yet are dropped."""
        with self._cond:
            self._failures.pop(method, None)

    def chaos(
        self,
        rate: float,
        seed: int,
        faults: tuple[str, ...] = ANY_CALL + EDIT_ONLY,
        methods: frozenset[str] | None = None,
    ) -> None:
        """From now on each request (of ``methods``, or any but getMe) fails with chance
        ``rate``, with one of ``faults`` drawn from a ``seed``-ed generator (an edit-only
        fault only on edits); ``rate=0`` ends it."""
        with self._cond:
            self._chaos = (rate, random.Random(seed), faults, methods) if rate > 0 else None

    def flood_limits(
        self,
        clock: Callable[[], float],
        *,
        group: tuple[int, float] = (20, 60.0),
        private: tuple[int, float] = (1, 1.0),
        overall: tuple[int, float] = (30, 1.0),
    ) -> None:
        """From now on messages (:data:`COUNTED`) past Telegram's flood limits are refused
        as Telegram refuses them: 429, "Too Many Requests: retry after N", with
        ``retry_after`` N, the whole seconds until the message would fit. ``group``,
        ``private``, ``overall``: how many messages per how many seconds of ``clock`` a
        group, a private chat and all chats together take."""
        with self._cond:
            self.limits = FloodLimits(clock, group, private, overall)

    def busy(self, chat: int, count: int, *, spread: float = 0.0) -> None:
        """``count`` messages went to ``chat`` that the bot does not know of (it sent them
        before a restart, or another process of it did), evenly over the last ``spread``
        seconds, the last just now: they count against the chat's flood limit (see
        :meth:`flood_limits`)."""
        with self._cond:
            assert self.limits is not None, "switch the flood limits on first"
            now = self.limits.clock()
            step = spread / (count - 1) if count > 1 else 0.0
            times = [now - spread + n * step for n in range(count)]
            self.limits.sent[chat] = sorted([*self.limits.sent.get(chat, []), *times])

    def cut_at(self, matches: Callable[[Call], bool], then: Callable[[], None]) -> None:
        """The next request that ``matches`` is cut off: ``then`` runs (it kills the bot
        that sent it) and the request is never carried out nor answered, as a post the bot
        was killed before it reached Telegram. Once."""
        with self._cond:
            self.cut = (matches, then)

    def stall(self, chat: int) -> None:
        """Requests for ``chat`` get no answer until :meth:`release`: a chat whose posts
        take as long as a group over its budget, or a slow connection to it."""
        with self._cond:
            self.stalled.add(chat)

    def release(self, chat: int) -> None:
        """The requests held for ``chat`` are carried out and answered, and later ones at
        once."""
        with self._cond:
            self.stalled.discard(chat)
            self._cond.notify_all()

    def kick(self, chat: int) -> None:
        """The bot is removed from group ``chat``: everything it sends there is refused."""
        with self._cond:
            self.kicked.add(chat)

    def block(self, user: int) -> None:
        """``user`` blocks the bot: its private messages to them are refused."""
        with self._cond:
            self.blocked.add(user)

    def delete(self, chat: int, message_id: int) -> None:
        """Someone deletes a message (an admin, or the bot's own older message)."""
        with self._cond:
            message = self.messages.pop((chat, message_id), None)
            if message is not None:
                self.deleted[(chat, message_id)] = message

    def delete_chat(self, chat: int) -> None:
        """The group is deleted: Telegram no longer finds it."""
        with self._cond:
            self.gone.add(chat)

    def _fault(self, method: str) -> ApiError | str | None:
        with self._cond:
            queued = self._failures.get(method)
            if queued:
                return queued.pop(0)
            if self._chaos is None or method == "getMe":
                return None
            rate, rng, faults, methods = self._chaos
            if methods is not None and method not in methods:
                return None
            if rng.random() >= rate:
                return None
            fitting = [f for f in faults if f in ANY_CALL or method in EDITS]
            return rng.choice(fitting) if fitting else None

    # --- updates from people -----------------------------------------------------------

    def push(self, kind: str, payload: dict[str, Any]) -> int:
        """Queue an update; returns its id."""
        with self._cond:
            update_id = next(self._update_ids)
            self.last_update = update_id
            self._updates.append({"update_id": update_id, kind: payload})
            self._cond.notify_all()
        return update_id

    def say(
        self,
        chat_id: int,
        user_id: int,
        text: str,
        *,
        thread: int | None = None,
        reply_to: int | None = None,
    ) -> int:
        """``user`` sends ``text`` in ``chat`` (a command gets its bot_command entity), in
        forum topic ``thread`` or as a reply to message ``reply_to``."""
        message = self.new_message(chat_id, user_id, text, thread=thread, reply_to=reply_to)
        return self.push("message", message)

    def new_message(
        self,
        chat_id: int,
        user_id: int,
        text: str,
        *,
        thread: int | None = None,
        reply_to: int | None = None,
    ) -> dict[str, Any]:
        """A message of ``user`` in ``chat``, as Telegram would deliver it: in a topic it
        carries the thread and, unless it replies to another message, the topic's opening
        message as the one it replies to; a reply outside forums carries the thread of
        replies, but is no topic message."""
        if chat_id == user_id and user_id in self.closed:
            self.closed.discard(user_id)  # writing to the bot opens the private chat
        message: dict[str, Any] = {
            "message_id": self._next_message_id(chat_id),
            "date": int(time.time()),
            "chat": self.chats[chat_id],
            "from": self.users[user_id],
            "text": text,
        }
        if text.startswith("/"):
            word = text.split()[0]
            message["entities"] = [{"type": "bot_command", "offset": 0, "length": len(word)}]
        if thread is not None:
            opening = self.topics[(chat_id, thread)]
            message["message_thread_id"] = thread
            message["is_topic_message"] = True
            message["reply_to_message"] = opening
        if reply_to is not None:
            replied = self.messages[(chat_id, reply_to)]
            message["reply_to_message"] = replied
            if thread is None and self.chats[chat_id]["type"] == "supergroup":
                message["message_thread_id"] = replied.get("message_thread_id", reply_to)
        with self._cond:
            self.messages[(chat_id, message["message_id"])] = message
        return message

    def press(self, user_id: int, message: dict[str, Any], label: str) -> int:
        """``user`` presses the button labelled ``label`` on one of the bot's messages."""
        data = next((b["callback_data"] for b in buttons(message) if b["text"] == label), None)
        if data is None:
            raise AssertionError(f"no button {label!r} on {buttons(message)}")
        return self.press_data(user_id, message, data)

    def press_data(self, user_id: int, message: dict[str, Any], data: str) -> int:
        query_id = str(next(self._query_ids))
        query = {
            "id": query_id,
            "from": self.users[user_id],
            "message": message,
            "chat_instance": f"ci{message['chat']['id']}",
            "data": data,
        }
        update_id = self.push("callback_query", query)
        self.queries[update_id] = query_id
        return update_id

    def inline_query(self, user_id: int, query: str = "", chat_type: str = "supergroup") -> int:
        """``user`` types ``@<bot> query`` in a chat of ``chat_type``: the inline query's
        update id."""
        query_id = f"iq{next(self._query_ids)}"
        payload = {
            "id": query_id,
            "from": self.users[user_id],
            "query": query,
            "offset": "",
            "chat_type": chat_type,
        }
        update_id = self.push("inline_query", payload)
        self.inline_queries[update_id] = query_id
        return update_id

    def inline_results(self, update_id: int) -> list[dict[str, Any]]:
        """The results the bot answered the inline query of update ``update_id`` with."""
        with self._cond:
            answer = self.inline_answers[self.inline_queries[update_id]]
        return list(answer["results"])

    def choose(self, user_id: int, update_id: int, result_id: str) -> tuple[int | None, str]:
        """``user`` chooses result ``result_id`` of the inline query of update
        ``update_id``: its message appears in the chat (from the user, via the bot), and
        with :attr:`feedback` the bot hears a ``chosen_inline_result``, which names the
        message only if it has buttons (Telegram's rule). Returns that update's id
        (``None`` without feedback) and the message's ``inline_message_id``."""
        result = next(r for r in self.inline_results(update_id) if r["id"] == result_id)
        content = result["input_message_content"]
        inline_id = f"AgAAAF{next(self._inline_ids):08d}xQk-fake"
        message: dict[str, Any] = {"text": content["message_text"], "from": self.users[user_id]}
        if content.get("entities"):
            message["entities"] = content["entities"]
        if result.get("reply_markup"):
            message["reply_markup"] = result["reply_markup"]
        with self._cond:
            self.inline_messages[inline_id] = message
        if not self.feedback:
            return None, inline_id
        chosen: dict[str, Any] = {
            "result_id": result_id,
            "from": self.users[user_id],
            "query": "",
        }
        if result.get("reply_markup"):
            chosen["inline_message_id"] = inline_id
        return self.push("chosen_inline_result", chosen), inline_id

    def inline_message(self, inline_id: str) -> dict[str, Any]:
        """The inline message as people in its chat see it now."""
        with self._cond:
            return json.loads(json.dumps(self.inline_messages[inline_id]))

    def press_inline(self, user_id: int, inline_id: str, label: str) -> int:
        """``user`` presses the button labelled ``label`` on an inline message (Telegram
        names the message by its inline_message_id; the bot sees no chat)."""
        message = self.inline_message(inline_id)
        data = next((b["callback_data"] for b in buttons(message) if b["text"] == label), None)
        if data is None:
            raise AssertionError(f"no button {label!r} on {buttons(message)}")
        query_id = str(next(self._query_ids))
        query = {
            "id": query_id,
            "from": self.users[user_id],
            "inline_message_id": inline_id,
            "chat_instance": "ci-inline-chat",
            "data": data,
        }
        update_id = self.push("callback_query", query)
        self.queries[update_id] = query_id
        return update_id

    def answer(self, update_id: int) -> dict[str, Any]:
        """How the bot answered the button press of update ``update_id``."""
        with self._cond:
            return self.answers[self.queries[update_id]]

    # --- what the bot did --------------------------------------------------------------

    def sent(self, chat: int | None = None, *methods: str) -> list[Call]:
        """Successful requests that post into ``chat`` (any chat if ``None``)."""
        wanted = methods or ("sendMessage", "sendPhoto", "sendDocument", "sendAnimation")
        with self._cond:
            return [
                c
                for c in self.calls
                if c.method in wanted and c.status == 200 and (chat is None or c.chat == chat)
            ]

    def of(self, *methods: str) -> list[Call]:
        with self._cond:
            return [c for c in self.calls if c.method in methods]

    def message(self, chat: int, message_id: int) -> dict[str, Any]:
        with self._cond:
            return json.loads(json.dumps(self.messages[(chat, message_id)]))

    def last_message(
        self, chat: int, having: str = "", thread: int | None = ANY_TOPIC
    ) -> dict[str, Any]:
        """The bot's latest message in ``chat`` (with a button labelled ``having``; in
        topic ``thread``, ``None`` for the General topic)."""
        with self._cond:
            found = [
                m
                for (c, _), m in self.messages.items()
                if c == chat
                and m.get("from", {}).get("id") == BOT_ID
                and (not having or any(b["text"] == having for b in buttons(m)))
                and (thread == ANY_TOPIC or m.get("message_thread_id") == thread)
            ]
        if not found:
            raise AssertionError(f"no message of the bot in {chat} with {having!r}")
        return json.loads(json.dumps(max(found, key=lambda m: m["message_id"])))

    # --- the API -----------------------------------------------------------------------

    def _next_message_id(self, chat: int) -> int:
        with self._cond:
            ids = self._message_ids.setdefault(chat, itertools.count(1))
            return next(ids)

    def _call(self, method: str, params: dict[str, Any], files: dict[str, Any]) -> Any:
        fault = self._fault(method)
        if isinstance(fault, ApiError):
            raise fault
        if fault is not None:
            with self._cond:
                self.faults.append((method, fault))
        if fault == FLOOD:
            raise ApiError(429, "Too Many Requests: retry after 1", retry_after=1)
        if fault == SERVER:
            raise ApiError(502, "Bad Gateway")
        if fault == SAME and method in EDITS:
            raise ApiError(400, NOT_MODIFIED)
        if fault == DELETED and method in EDITS:
            self.delete(int(params.get("chat_id", 0)), int(params.get("message_id", 0)))
        handler = getattr(self, f"_api_{method}", None)
        if handler is None:
            raise ApiError(404, "Not Found: method not found")
        chat = params.get("chat_id")
        stamp = None
        if self.limits is not None and method in COUNTED and chat is not None:
            with self._cond:
                wait, stamp = self.limits.take(int(chat))
            if wait > 0:
                seconds = max(1, math.ceil(wait))
                raise ApiError(
                    429, f"Too Many Requests: retry after {seconds}", retry_after=seconds
                )
        try:
            result = handler(params, files)
        except ApiError:
            if stamp is not None and self.limits is not None:
                with self._cond:
                    self.limits.give_back(int(chat), stamp)
            raise
        if fault == TIMEOUT:
            raise _Late(result)
        if fault == DROP:
            raise _Dropped()
        return result

    def _api_getMe(self, params: dict[str, Any], files: dict[str, Any]) -> Any:
        return {
            "id": BOT_ID,
            "is_bot": True,
            "first_name": "Genial",
            "username": self.username,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": self.inline_mode,
        }

    def _api_deleteWebhook(self, params: dict[str, Any], files: dict[str, Any]) -> Any:
        self.webhook = None
        return True

    def _api_setWebhook(self, params: dict[str, Any], files: dict[str, Any]) -> Any:
        self.webhook = dict(params)
        return True

    def _api_getUpdates(self, params: dict[str, Any], files: dict[str, Any]) -> Any:
        offset = int(params.get("offset") or 0)
        limit = int(params.get("limit") or 100)
        deadline = time.monotonic() + float(params.get("timeout") or 0)
        with self._cond:
            if offset > 0:  # Telegram's rule: an offset confirms every update before it
                self._updates = [u for u in self._updates if u["update_id"] >= offset]
            while not self._updates and not self._closing:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            return self._updates[:limit]

    def _post(self, chat_id: Any, content: dict[str, Any], params: dict[str, Any]) -> Any:
        chat = int(chat_id)
        if chat not in self.chats or chat in self.gone:
            raise ApiError(400, "Bad Request: chat not found")
        if chat in self.migrated:
            raise ApiError(400, MIGRATED, migrate_to_chat_id=self.migrated[chat])
        if chat in self.kicked:
            raise ApiError(403, KICKED)
        if chat in self.blocked:
            raise ApiError(403, BLOCKED)
        if chat in self.closed:
            raise ApiError(403, FORBIDDEN_PRIVATE)
        thread = params.get("message_thread_id")
        topic: dict[str, Any] = {}
        if thread is not None:
            opening = self.topics.get((chat, int(thread)))
            if opening is None:  # not a forum, or no such topic (General has no thread id)
                raise ApiError(400, "Bad Request: message thread not found")
            if (chat, int(thread)) in self.closed_topics:
                raise ApiError(400, "Bad Request: TOPIC_CLOSED")
            topic = {
                "message_thread_id": int(thread),
                "is_topic_message": True,
                "reply_to_message": opening,
            }
        message = {
            "message_id": self._next_message_id(chat),
            "date": int(time.time()),
            "chat": self.chats[chat],
            "from": {"id": BOT_ID, "is_bot": True, "first_name": "Genial"},
            **topic,
            **content,
        }
        if params.get("reply_markup"):
            message["reply_markup"] = params["reply_markup"]
        reply = params.get("reply_parameters")
        if reply:
            message["reply_to_message_id"] = reply["message_id"]
        with self._cond:
            self.messages[(chat, message["message_id"])] = message
        return message

    def _api_sendMessage(self, params: dict[str, Any], files: dict[str, Any]) -> Any:
        content = {"text": params["text"]}
        if params.get("entities"):
            content["entities"] = params["entities"]
        return self._post(params["chat_id"], content, params)

    def _file(self, files: dict[str, Any], name: str) -> tuple[str, bytes]:
        if name not in files:
            raise ApiError(400, f"Bad Request: there is no {name} in the request")
        return files[name]  # type: ignore[no-any-return]

    def _api_sendPhoto(self, params: dict[str, Any], files: dict[str, Any]) -> Any:
        _filename, data = self._file(files, "photo")
        if not data.startswith(b"\x89PNG"):
            raise ApiError(400, "Bad Request: IMAGE_PROCESS_FAILED")
        if len(params.get("caption", "").encode("utf-16-le")) // 2 > 1024:
            raise ApiError(400, "Bad Request: message caption is too long")
        file_id = f"photo-{next(self._inline_ids)}-{len(data)}"
        with self._cond:
            self.uploaded.add(file_id)
        size = {"file_id": file_id, "file_unique_id": "p", "width": 8, "height": 8}
        content: dict[str, Any] = {"photo": [size], "caption": params.get("caption", "")}
        return self._post(params["chat_id"], content, params)

    def _api_sendDocument(self, params: dict[str, Any], files: dict[str, Any]) -> Any:
        filename, data = self._file(files, "document")
        document = {"file_id": f"doc-{len(data)}", "file_unique_id": "d", "file_name": filename}
        content = {"document": document, "caption": params.get("caption", "")}
        return self._post(params["chat_id"], content, params)

    def _api_sendAnimation(self, params: dict[str, Any], files: dict[str, Any]) -> Any:
        filename, data = self._file(files, "animation")
        if not data.startswith(b"GIF8"):
            raise ApiError(400, "Bad Request: wrong file type for an animation")
        animation = {"file_id": f"gif-{len(data)}", "file_unique_id": "g", "file_name": filename}
        content = {"animation": animation, "caption": params.get("caption", "")}
        return self._post(params["chat_id"], content, params)

    def _inline(self, params: dict[str, Any]) -> dict[str, Any] | None:
        """The inline message an edit names (``None``: it names a chat's message)."""
        inline_id = params.get("inline_message_id")
        if inline_id is None:
            return None
        if "chat_id" in params or "message_id" in params:
            raise ApiError(400, "Bad Request: message identifier is not specified")
        with self._cond:
            message = self.inline_messages.get(str(inline_id))
        if message is None:
            raise ApiError(400, INLINE_GONE)
        return message

    def _set_markup(self, message: dict[str, Any], markup: Any) -> None:
        if markup:
            message["reply_markup"] = markup
        else:
            message.pop("reply_markup", None)

    def _api_editMessageCaption(self, params: dict[str, Any], files: dict[str, Any]) -> Any:
        message = self._inline(params)
        if message is None:
            message = self._edit(params)
        elif "photo" not in message:
            raise ApiError(400, NO_CAPTION)
        markup = params.get("reply_markup")
        caption = params.get("caption", "")
        if len(caption.encode("utf-16-le")) // 2 > 1024:
            raise ApiError(400, "Bad Request: message caption is too long")
        if message.get("caption") == caption and message.get("reply_markup") == markup:
            raise ApiError(400, NOT_MODIFIED)
        with self._cond:
            message["caption"] = caption
            if params.get("caption_entities"):
                message["caption_entities"] = params["caption_entities"]
            self._set_markup(message, markup)
        return True if "inline_message_id" in params else message

    def _api_editMessageMedia(self, params: dict[str, Any], files: dict[str, Any]) -> Any:
        """Only an inline message's media is edited here: to a photo uploaded before."""
        message = self._inline(params)
        if message is None:
            raise ApiError(400, "Bad Request: there is no media in the message to edit")
        media = params["media"]
        if files or str(media.get("media", "")).startswith("attach://"):
            raise ApiError(400, INLINE_UPLOAD)
        if media.get("type") != "photo" or media.get("media") not in self.uploaded:
            raise ApiError(400, WRONG_FILE)
        caption = media.get("caption", "")
        if len(caption.encode("utf-16-le")) // 2 > 1024:
            raise ApiError(400, "Bad Request: message caption is too long")
        markup = params.get("reply_markup")
        if (
            message.get("photo") == media["media"]
            and message.get("caption") == caption
            and message.get("reply_markup") == markup
        ):
            raise ApiError(400, NOT_MODIFIED)
        with self._cond:
            # A text message sent through the bot becomes a photo with a caption.
            message.pop("text", None)
            message.pop("entities", None)
            message["photo"] = media["media"]
            message["caption"] = caption
            message["caption_entities"] = media.get("caption_entities", [])
            self._set_markup(message, markup)
        return True

    def _edit(self, params: dict[str, Any]) -> dict[str, Any]:
        key = (int(params["chat_id"]), int(params["message_id"]))
        if key[0] in self.kicked:
            raise ApiError(403, KICKED)
        if key[0] in self.gone:
            raise ApiError(400, "Bad Request: chat not found")
        if key[0] in self.migrated:
            raise ApiError(400, MIGRATED, migrate_to_chat_id=self.migrated[key[0]])
        with self._cond:
            message = self.messages.get(key)
        if message is None or message.get("from", {}).get("id") != BOT_ID:
            raise ApiError(400, "Bad Request: message to edit not found")
        return message

    def _api_editMessageText(self, params: dict[str, Any], files: dict[str, Any]) -> Any:
        inline = self._inline(params)
        if inline is not None:
            return self._edit_inline_text(inline, params)
        message = self._edit(params)
        markup = params.get("reply_markup")
        if message.get("text") == params["text"] and message.get("reply_markup") == markup:
            raise ApiError(400, NOT_MODIFIED)
        with self._cond:
            message["text"] = params["text"]
            message["edit_date"] = int(time.time())
            if markup:
                message["reply_markup"] = markup
            else:
                message.pop("reply_markup", None)
        return message

    def _edit_inline_text(self, message: dict[str, Any], params: dict[str, Any]) -> Any:
        if "photo" in message:
            raise ApiError(400, NO_TEXT)
        text = params["text"]
        if not text or len(text.encode("utf-16-le")) // 2 > 4096:
            raise ApiError(400, "Bad Request: MESSAGE_TOO_LONG")
        markup = params.get("reply_markup")
        if message.get("text") == text and message.get("reply_markup") == markup:
            raise ApiError(400, NOT_MODIFIED)
        with self._cond:
            message["text"] = text
            message["entities"] = params.get("entities") or []
            self._set_markup(message, markup)
        return True

    def _api_editMessageReplyMarkup(self, params: dict[str, Any], files: dict[str, Any]) -> Any:
        inline = self._inline(params)
        if inline is not None:
            if inline.get("reply_markup") == (params.get("reply_markup") or None):
                raise ApiError(400, NOT_MODIFIED)
            with self._cond:
                self._set_markup(inline, params.get("reply_markup"))
            return True
        message = self._edit(params)
        if message.get("reply_markup") == (params.get("reply_markup") or None):
            raise ApiError(400, NOT_MODIFIED)
        with self._cond:
            if params.get("reply_markup"):
                message["reply_markup"] = params["reply_markup"]
            else:
                message.pop("reply_markup", None)
        return message

    def _api_deleteMessage(self, params: dict[str, Any], files: dict[str, Any]) -> Any:
        """The bot deletes one of its messages (Telegram's 48-hour limit is not faked)."""
        key = (int(params["chat_id"]), int(params["message_id"]))
        if key[0] in self.gone:
            raise ApiError(400, "Bad Request: chat not found")
        with self._cond:
            message = self.messages.get(key)
            if message is None:
                raise ApiError(400, "Bad Request: message to delete not found")
            if message.get("from", {}).get("id") != BOT_ID:
                raise ApiError(400, "Bad Request: message can't be deleted")
            self.deleted[key] = self.messages.pop(key)
        return True

    def _api_answerCallbackQuery(self, params: dict[str, Any], files: dict[str, Any]) -> Any:
        query = str(params["callback_query_id"])
        with self._cond:
            if query in self.answers:
                raise ApiError(400, "Bad Request: query is too old or query ID is invalid")
            self.answers[query] = dict(params)
        text = params.get("text", "")
        if len(text.encode("utf-16-le")) // 2 > 200:
            raise ApiError(400, "Bad Request: MESSAGE_TOO_LONG")
        return True

    def _api_answerInlineQuery(self, params: dict[str, Any], files: dict[str, Any]) -> Any:
        """The bot's results for an inline query: at most 50, ids unique and at most 64
        bytes; an article needs a title and the message it sends (and buttons, for the
        bot to hear which was chosen: see :meth:`choose`)."""
        query = str(params["inline_query_id"])
        results = params["results"]
        ids = [str(r.get("id", "")) for r in results]
        if len(results) > 50 or len(set(ids)) != len(ids):
            raise ApiError(400, "Bad Request: RESULTS_TOO_MUCH")
        for result in results:
            if not 0 < len(str(result.get("id", "")).encode()) <= 64:
                raise ApiError(400, "Bad Request: RESULT_ID_INVALID")
            if result.get("type") == "article" and not (
                result.get("title") and result.get("input_message_content", {}).get("message_text")
            ):
                raise ApiError(400, "Bad Request: MESSAGE_EMPTY")
        with self._cond:
            if query in self.inline_answers:
                raise ApiError(400, "Bad Request: query is too old and response timeout expired")
            self.inline_answers[query] = dict(params)
        return True

    def _api_setMyCommands(self, params: dict[str, Any], files: dict[str, Any]) -> Any:
        self.commands[_menu_key(params)] = params["commands"]
        return True

    def _api_getMyCommands(self, params: dict[str, Any], files: dict[str, Any]) -> Any:
        # Telegram answers the list set for exactly this scope and language (an empty
        # one if none was), not the one a client would fall back to.
        return self.commands.get(_menu_key(params), [])

    def _api_createForumTopic(self, params: dict[str, Any], files: dict[str, Any]) -> Any:
        chat = int(params["chat_id"])
        if chat not in self.chats:
            raise ApiError(400, "Bad Request: chat not found")
        if not self.chats[chat].get("is_forum"):
            raise ApiError(400, "Bad Request: the chat is not a forum")
        name = str(params["name"])
        if not 1 <= len(name) <= 128:
            raise ApiError(400, "Bad Request: TOPIC_NAME_INVALID")
        thread = self.topic(chat, BOT_ID, name)
        return {"message_thread_id": thread, "name": name, "icon_color": 7322096}

    def _api_getChatMember(self, params: dict[str, Any], files: dict[str, Any]) -> Any:
        chat, user = int(params["chat_id"]), int(params["user_id"])
        if (chat, user) in self.admins:
            return {"status": "creator", "user": self.users[user], "is_anonymous": False}
        return {"status": "member", "user": self.users[user]}

    # --- HTTP --------------------------------------------------------------------------

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                api._serve(self)

            do_GET = do_POST

        return Handler

    def _serve(self, request: BaseHTTPRequestHandler) -> None:
        path = urllib.parse.urlsplit(request.path).path
        prefix, _, method = path.rpartition("/")
        length = int(request.headers.get("Content-Length") or 0)
        body = request.rfile.read(length) if length else b""
        params, files = _parse_body(request.headers.get("Content-Type", ""), body)
        call = Call(method, params, files)
        limits = self.limits
        if limits is not None:
            call.at = limits.clock()
        late = dropped = False
        with self._cond:
            cut = self.cut
            if cut is not None and cut[0](call):
                self.cut = None
                self.cuts.append(call)
            else:
                cut = None
        if cut is not None:  # the bot dies with this request under way: never carried out
            cut[1]()
            request.close_connection = True
            return
        with self._cond:
            if call.chat in self.stalled:
                self.held.append(call)
            while call.chat in self.stalled and not self._closing:
                self._cond.wait()
        try:
            if prefix != f"/bot{self.token}":
                raise ApiError(401, "Unauthorized")
            result = self._call(method, params, files)
            status, answer = 200, {"ok": True, "result": result}
        except _Late as exc:
            late = True
            status, answer = 200, {"ok": True, "result": exc.result}
        except _Dropped:
            dropped = True
            status, answer = 200, {}
        except ApiError as exc:
            status = exc.status
            answer = {"ok": False, "error_code": exc.status, "description": exc.description}
            if exc.parameters:
                answer["parameters"] = exc.parameters
        call.status = status
        if method != "getUpdates":
            with self._cond:
                self.calls.append(call)
        if dropped:  # carried out, but the client hears nothing: the connection just ends
            request.close_connection = True
            return
        data = json.dumps(answer).encode()
        try:
            request.send_response(status)
            request.send_header("Content-Type", "application/json")
            request.send_header("Content-Length", str(len(data)))
            if late:  # the client gives up waiting first
                request.send_header(LATE, "1")
            request.end_headers()
            request.wfile.write(data)
        except OSError:  # the bot hung up (a long poll cancelled at shutdown, a timeout)
            pass


def _menu_key(params: dict[str, Any]) -> tuple[str, str | None]:
    """A command menu's scope type (``default`` when none is named) and language."""
    scope = params.get("scope") or {"type": "default"}
    return str(scope["type"]), params.get("language_code") or None


def _parse_body(content_type: str, body: bytes) -> tuple[dict[str, Any], dict[str, Any]]:
    params: dict[str, Any] = {}
    files: dict[str, tuple[str, bytes]] = {}
    if content_type.startswith("multipart/form-data"):
        head = f"Content-Type: {content_type}\r\n\r\n".encode()
        # The compat32 policy: the modern one's header parser took twice as long, and a
        # tenth of the Telegram board tests' CPU went into parsing uploads.
        parsed = email.parser.BytesParser(policy=email.policy.compat32).parsebytes(head + body)
        for part in parsed.get_payload():
            assert isinstance(part, email.message.Message)
            name = part.get_param("name", header="content-disposition")
            data = part.get_payload(decode=True) or b""
            assert isinstance(data, bytes)
            filename = part.get_filename()
            if filename is not None:
                files[str(name)] = (filename, data)
            else:
                params[str(name)] = data.decode()
    elif body:
        for name, values in urllib.parse.parse_qs(body.decode(), keep_blank_values=True).items():
            params[name] = values[-1]
    for name, value in list(params.items()):
        if name not in _TEXT_FIELDS:
            with contextlib.suppress(ValueError):
                params[name] = json.loads(value)
    return params, files


def post_update(url: str, token: str, update: dict[str, Any]) -> int:
    """Post ``update`` to a bot's webhook at ``url`` as Telegram does (with the secret
    derived from ``token``), on a connection of its own; the HTTP status."""
    from bot.telegram.app import webhook_secret

    request = urllib.request.Request(
        url,
        data=json.dumps(update).encode(),
        headers={
            "Content-Type": "application/json",
            "X-Telegram-Bot-Api-Secret-Token": webhook_secret(token),
        },
    )
    with urllib.request.urlopen(request, timeout=PATIENCE) as response:
        return int(response.status)


def bot_texts(api: FakeBotAPI, chat: int, *, deleted: bool = True) -> list[str]:
    """The texts (or captions) of the bot's messages posted in ``chat``, oldest first
    (with those deleted since, unless ``deleted`` is false): what people there were
    actually told, whatever the bot heard back."""
    with api._cond:
        held = [*api.messages.items(), *(api.deleted.items() if deleted else ())]
        found = [
            (i, m) for (c, i), m in held if c == chat and m.get("from", {}).get("id") == BOT_ID
        ]
    return [
        str(m.get("text") or m.get("caption") or "") for _i, m in sorted(found, key=lambda e: e[0])
    ]


#: The lines that tell a move (en): a placement or bonus placement, a swap, a keep.
_TOLD = (
    (re.compile(r"^.+ (placed|made a bonus placement,) [^:]+:"), "placed"),
    (re.compile(r"^.+ swapped all tiles\.$"), "swapped"),
    (re.compile(r"^.+ kept the tiles\.$"), "kept"),
)


def announced(texts: list[str]) -> list[str]:
    """The moves told in ``texts``, in order, as ``placed``, ``swapped`` or ``kept``."""
    out = []
    for text in texts:
        for line in text.split("\n"):
            for pattern, kind in _TOLD:
                if pattern.match(line):
                    out.append(kind)
                    break
    return out


def told_moves(texts: list[str]) -> list[str]:
    """The moves told in ``texts``, in order, as the record writes them (RECORD.md): a
    placement's notation (its tile told as coloured squares, ``🟥🟩 A2 B3``, is the move
    ``RG A2 B3``), ``swap`` or ``keep``."""
    out = []
    for text in texts:
        for line in text.split("\n"):
            if " placed " in line or " made a bonus placement, " in line:
                head = line.split(":", 1)[0]
                told = head.split(" placed ", 1)[-1].split(" bonus placement, ", 1)[-1]
                out.append(letters(told))
            elif line.endswith(" swapped all tiles."):
                out.append("swap")
            elif line.endswith(" kept the tiles."):
                out.append("keep")
    return out


def told_in(record: dict[str, Any]) -> list[str]:
    """The moves a stored record holds (RECORD.md: a placement's notation, ``swap`` or
    ``keep``), as :func:`announced` names them."""
    kinds = {"swap": "swapped", "keep": "kept"}
    return [kinds.get(str(move), "placed") for move in record["moves"]]


def buttons(message: dict[str, Any]) -> list[dict[str, str]]:
    """The inline buttons of a message, row after row."""
    rows = message.get("reply_markup", {}).get("inline_keyboard", [])
    return [b for row in rows for b in row]


def _sleep_on(clock: Any) -> Callable[[float], Awaitable[None]]:
    """A sleep of ``clock``'s seconds: a clock a test moves by hand (``advance``) is moved
    on by the wait (a 429's, the only one the runner's own limiter makes); the wall clock
    is slept on."""
    advance = getattr(clock, "advance", None)
    if advance is None:
        return asyncio.sleep

    async def sleep(seconds: float) -> None:
        advance(seconds)
        await asyncio.sleep(0)

    return sleep


class BotRunner:
    """The real bot (Application, adapter, service, SQLite store) in a thread of its own."""

    def __init__(
        self,
        api: FakeBotAPI,
        db: Path,
        *,
        token: str | None = None,
        make_service: Callable[[Path], Any],
        telegram: Any = None,
        due_interval: float = 3600,
        sleep: Any = None,
        timeout: float | None = PATIENCE,
        flood_retries: int = 3,
        rate_limiter: Any = None,
    ) -> None:
        from bot.core.config import TelegramSettings

        self.api = api
        self.db = db
        self.token = token or api.token
        self.make_service = make_service
        self.telegram = telegram or TelegramSettings(base_url=api.base_url)
        self.due_interval = due_interval
        self.sleep = sleep
        #: How long the bot waits for an answer: the tests' patience, not
        #: python-telegram-bot's 5 s, which 70 requests at once overran on a busy machine
        #: (a timeout fault needs no wait: :data:`LATE`; ``None``: the library's defaults).
        self.timeout = timeout
        #: How often the rate limiter sends a request again after a 429 (0: never, so the
        #: adapter's own handling of a flood wait is what the test sees).
        self.flood_retries = flood_retries
        #: The bot's rate limiter; ``None``: the bot's own (bot.telegram.limiter) on the
        #: service's clock, counting each chat's messages but holding none back (the fake
        #: has no flood limits unless told), and waiting out a 429 in its chat.
        self.rate_limiter = rate_limiter
        self.handled: set[int] = set()
        self.service: Any = None
        self.adapter: Any = None
        self.error: BaseException | None = None
        self._cond = threading.Condition()
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread: threading.Thread | None = None

    def start(self, timeout: float = PATIENCE) -> BotRunner:
        self._thread = threading.Thread(target=self._main, daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise AssertionError("the bot did not start")
        if self.error is not None:
            raise self.error
        return self

    def stop(self, timeout: float = PATIENCE) -> None:
        """Stop the bot as SIGTERM would, and close its store (again: a no-op)."""
        thread, self._thread = self._thread, None
        if thread is None:
            return
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        thread.join(timeout)
        assert not thread.is_alive(), "the bot did not stop"
        if self.service is not None:
            self.service.store.close()
        if self.error is not None:
            raise self.error

    def wait(self, *update_ids: int, timeout: float = PATIENCE) -> None:
        """Until the bot has handled these updates completely (answers sent)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not set(update_ids) <= self.handled:
                left = deadline - time.monotonic()
                if left <= 0 or self.error is not None:
                    raise AssertionError(f"updates {update_ids} not handled; error {self.error}")
                self._cond.wait(left)

    def tick(self, timeout: float = PATIENCE) -> None:
        """One look at the clock by the bot (what its periodic check does), waited for."""
        assert self._loop is not None
        asyncio.run_coroutine_threadsafe(self.adapter.tick(), self._loop).result(timeout)

    def _on_handled(self, update_id: int) -> None:
        with self._cond:
            self.handled.add(update_id)
            self._cond.notify_all()

    def _main(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as exc:
            self.error = exc
            with self._cond:
                self._cond.notify_all()
        finally:
            self._ready.set()

    async def _serve(self) -> None:
        from bot.telegram.adapter import TelegramAdapter
        from bot.telegram.app import build_application, serve
        from bot.telegram.limiter import ChatRateLimiter
        from bot.telegram.pace import Pace

        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self.service = self.make_service(self.db)
        self.adapter = TelegramAdapter(
            self.service,
            backoff=0.01,
            due_interval=self.due_interval,
            on_handled=self._on_handled,
            sleep=self.sleep,
        )
        limiter = self.rate_limiter
        if limiter is None:
            clock = self.service.clock
            limiter = ChatRateLimiter(
                Pace(clock),
                sleep=_sleep_on(clock),
                max_retries=self.flood_retries,
                pacing=False,
            )
        app = build_application(
            self.token, self.telegram, rate_limiter=limiter, timeout=self.timeout
        )
        await serve(
            self.adapter,
            app,
            self.telegram,
            self._stop,
            ready=self._ready.set,
            poll_timeout=10,
            backoff=0.01,
        )
