"""What every route of the web board shares: the service, the signer of seat tokens, the
limits, the table ids and their links, the page's static files, and the request's table
and seat (:class:`BoardBase`, which the pages and the seat's actions extend).
"""

from __future__ import annotations

import asyncio
import html
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from importlib import resources

from aiohttp import web

from bot.core.outbound import Outbound
from bot.service import TOURNAMENT_PREFIX, Service
from bot.web.guard import Buckets, Limits, _refuse
from bot.web.live import POLL, Live
from bot.web.tokens import ID_CHAT, ID_LENGTH, BadToken, DiscordApp, Signer, web_secret

_ID = re.compile(rf"[A-Za-z0-9_-]{{{ID_LENGTH}}}")
#: Where what a page's command at a table said goes in a process without a chat platform's
#: own way (``page_runner``): ``(table, outs)``, called after every accepted command, also
#: when it said nothing yet (a move the computer players answer in one message with it).
Deliver = Callable[[str, list[Outbound]], None]

#: The page's one HTML file, its script and its style sheet, in ``static/``; and the
#: script of aiming on the board (zoom, the placement drawn, hints: issue 48).
PAGE, SCRIPT, STYLE = "page.html", "app.js", "app.css"
AIM = "aim.js"
#: The Embedded App SDK's protocol, spoken by the page as a Discord Activity.
DISCORD = "discord.js"
#: The page's keyboard and screen-reader play (issue 48), a script of its own.
ACCESS, ACCESS_STYLE = "access.js", "access.css"


def _static(name: str) -> bytes:
    return resources.files(__package__ or "").joinpath("static", name).read_bytes()


class BoardBase:
    """The state of a web board and the helpers its routes share (the routes are in
    :class:`bot.web.pages.Pages` and :class:`bot.web.actions.SeatActions`)."""

    def __init__(
        self,
        service: Service,
        public_url: str,
        *,
        deliver: Deliver | None = None,
        telegram_token: str | None = None,
        discord: DiscordApp | None = None,
        secret: bytes | None = None,
        limits: Limits | None = None,
        poll: float = POLL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.service = service
        self.public_url = public_url.rstrip("/")
        self.deliver = deliver
        self.telegram_token = telegram_token
        #: The Discord application whose Activity the board is (``None``: none).
        self.discord = discord
        self.signer = Signer(secret or web_secret(service), clock=service.clock)
        self.limits = limits or Limits()
        self.live = Live(self._version_of, poll)
        #: Set when the board stops: open live pages end at once (a browser keeps its
        #: event stream open, and would hold the shutdown up).
        self._closing = False
        limits = self.limits
        #: Requests without a seat, by address; a seat's looks, and its moves, by seat.
        self._pages = Buckets(limits.pages_burst, limits.pages_rate, clock)
        self._seat_pages = Buckets(limits.seat_burst, limits.seat_rate, clock)
        self._moves = Buckets(limits.moves_burst, limits.moves_rate, clock)
        #: Open live pages by address (a watcher's) or by seat.
        self._open: dict[str, int] = {}
        self._chats: dict[str, str] = {}
        self._looks: OrderedDict[str, tuple[int, dict[str | None, bytes]]] = OrderedDict()
        self._building: dict[tuple[str, int, str | None], asyncio.Future[bytes]] = {}
        self._changes: OrderedDict[tuple[str, str | None, int, int], asyncio.Future[bytes | None]]
        self._changes = OrderedDict()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        #: The port it listens on, once started.
        self.port = 0
        self._page = _static(PAGE).decode("utf-8")

    def _page_html(self, table: str = "", seat: str = "", **data: str) -> str:
        """The page with its table id, seat token, and (a Discord Activity) the app's id
        and the words said when Discord does not say who the player is, all escaped."""
        fields = {"table": table, "seat": seat, "discord": "", "refused": "", **data}
        text = self._page
        for key, value in fields.items():
            text = text.replace("{" + key + "}", html.escape(value))
        return text

    # --- links -------------------------------------------------------------------------

    def table_id(self, chat: str) -> str:
        """The table's id, noted in the store so every process finds its chat."""
        tid = self.signer.table_id(chat)
        if self._chats.get(tid) != chat:
            if self.service.note(ID_CHAT + tid, "chat") != chat:
                self.service.set_note(ID_CHAT + tid, "chat", chat)
            self._chats[tid] = chat
        return tid

    def table_link(self, chat: str) -> str:
        return f"{self.public_url}/t/{self.table_id(chat)}"

    def seat_link(self, chat: str, user: str) -> str:
        return f"{self.public_url}/s/{self.signer.seat_token(self.table_id(chat), user)}"

    def chat_of(self, tid: str) -> str | None:
        if not _ID.fullmatch(tid):
            return None
        chat = self._chats.get(tid)
        if chat is None:
            chat = self.service.note(ID_CHAT + tid, "chat")
            if chat is None or self.signer.table_id(chat) != tid:
                return None
            self._chats[tid] = chat
        return chat

    def tournament_link(self, tid: str) -> str:
        """The web page of tournament ``tid``'s standings (a keyed id, like a table's)."""
        return f"{self.public_url}/c/{self.table_id(TOURNAMENT_PREFIX + tid)}"

    # --- what the routes share ---------------------------------------------------------

    async def _version_of(self, chat: str) -> int | None:
        table = await asyncio.to_thread(self.service.table, chat)
        return None if table is None else table.version

    def _seat(self, request: web.Request, tid: str) -> str | None:
        """The player a request's ``seat`` token names (``None``: a watcher).

        Raises:
            Refused: 403 for a forged, expired or other table's token.
        """
        token = request.query.get("seat", "")
        return self._check_seat(request, token, tid) if token else None

    def _check_seat(self, request: web.Request, token: str, tid: str) -> str:
        """The player ``token`` names at table ``tid``.

        Raises:
            Refused: 403 for a forged, expired or other table's token (counted against
                the address, as what has no seat is: 429 once it is spent).
        """
        try:
            seat = self.signer.check(token)
        except BadToken as exc:
            self._limit(request)
            raise _refuse(403, f"seat token {exc}") from None
        if seat.table != tid:
            self._limit(request)
            raise _refuse(403, "seat token of another table")
        return seat.user

    def _address(self, request: web.Request) -> str:
        return request.remote or "?"

    @staticmethod
    def _seat_key(tid: str, user: str) -> str:
        return f"{tid}:{user}"

    def _limit(self, request: web.Request, tid: str = "", user: str | None = None) -> None:
        """Count a request against its seat (``user`` at table ``tid``), or its address
        when it has none.

        Raises:
            Refused: 429 when that budget is spent.
        """
        if user is not None:
            if not self._seat_pages.allow(self._seat_key(tid, user)):
                raise _refuse(429, "too many requests from this seat: wait a little")
        elif not self._pages.allow(self._address(request)):
            raise _refuse(429, "too many requests: wait a little")

    def _table(self, request: web.Request) -> tuple[str, str]:
        return self._chat(request.match_info["tid"])

    def _chat(self, tid: str) -> tuple[str, str]:
        chat = self.chat_of(tid)
        if chat is None:
            raise _refuse(404, "no such table")
        return tid, chat
