"""The web board: an aiohttp server for every table's page and every seat's page.

Routes (``<id>`` is a table id, :mod:`bot.web.tokens`):

- ``GET /t/<id>``: the table's page (anyone with the link watches);
- ``GET /s/<token>``: a seat's page (the same page with that player's rack);
- ``GET /tg``: the Telegram Mini App (who the player is comes from ``initData``);
- ``GET /static/...``: the page's script and style sheet (no inline script, no CDN);
- ``GET /api/t/<id>/state`` and ``/events`` (Server-Sent Events): the page's look, and
  again on every change; ``?seat=<token>`` for a seat's;
- ``GET /api/t/<id>/preview?seat=&move=``: the points a placement would score;
- ``GET /api/t/<id>/replay/<n>``: a finished game's board after ``n`` moves, as SVG;
- ``POST /api/t/<id>/command``: ``{"seat", "command", "move", "version"}``, carried out
  by :meth:`Service.handle` exactly as the typed command with the table version (a stale
  page is refused); what it says to the chat goes to the host platform's ``deliver``;
- ``POST /api/tg/session``: ``{"init_data"}`` checked, a seat token back.

Every answer but a page is JSON; every error is a short JSON ``{"error": ...}`` that
changed nothing. A watcher's look is built without a seat, so no byte of it names a rack.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import asdict, dataclass
from importlib import resources
from typing import Any
from urllib.parse import parse_qsl

from aiohttp import web

from bot.core.looks import PageLook
from bot.core.outbound import Chat, Outbound, User
from bot.core.table import PLAYING
from bot.service import TOURNAMENT_PREFIX, Service, is_tournament_table
from bot.store import StoreError
from bot.web.live import POLL, Live
from bot.web.tokens import ID_CHAT, ID_LENGTH, BadToken, Signer, telegram_user, web_secret

log = logging.getLogger(__name__)

#: Largest request body read (a command is a few dozen bytes).
MAX_BODY = 4096
#: A move as the page sends it: a rack slot or colour letters and two cells.
_MOVE = re.compile(
    r"(?:[1-6]|[A-Za-z]{2})?\s*[A-Za-z]{1,2}\d{1,2}\s+[A-Za-z]{1,2}\d{1,2}(?:\s+[A-Za-z]{1,2})?"
)
_ID = re.compile(rf"[A-Za-z0-9_-]{{{ID_LENGTH}}}")
#: Commands a page may send, as typed.
COMMANDS = {"play": "/play", "swap": "/swap", "keep": "/keep", "hint": "/hint"}
#: Tables whose looks are kept ready to send (each table's latest version only: the
#: watchers' look and each seat's).
LOOKS_KEPT = 256
#: Content-Security-Policy of every answer: nothing inline, nothing from elsewhere.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'self' https://web.telegram.org"
)
Deliver = Callable[[list[Outbound]], None]


@dataclass(frozen=True)
class Limits:
    """Requests allowed: a burst and a steady rate (per second), per address and per
    player; open live pages per address."""

    pages_burst: float = 60
    pages_rate: float = 2.0
    moves_burst: float = 20
    moves_rate: float = 2.0
    live_per_address: int = 64


class Buckets:
    """Token buckets by key: ``allow(key)`` takes one token if there is one."""

    def __init__(self, burst: float, rate: float, clock: Callable[[], float]) -> None:
        self.burst, self.rate, self.clock = burst, rate, clock
        self._level: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def allow(self, key: str) -> bool:
        now = self.clock()
        level, at = self._level.pop(key, (self.burst, now))
        level = min(self.burst, level + (now - at) * self.rate)
        ok = level >= 1.0
        self._level[key] = (level - 1.0 if ok else level, now)
        while len(self._level) > 100_000:  # forget the oldest addresses, never grow forever
            self._level.popitem(last=False)
        return ok


#: The page's one HTML file, its script and its style sheet, in ``static/``.
PAGE, SCRIPT, STYLE = "page.html", "app.js", "app.css"


def _static(name: str) -> bytes:
    return resources.files(__package__ or "").joinpath("static", name).read_bytes()


def look_json(look: PageLook) -> dict[str, Any]:
    data = asdict(look)
    data["cells"] = {k: list(v) for k, v in look.cells.items()}
    return data


def error(status: int, text: str) -> web.Response:
    return web.json_response({"error": text}, status=status, headers={"Cache-Control": "no-store"})


class WebBoard:
    """Every table's web page, served from one process.

    Args:
        service: the table service (its public surface only).
        public_url: the address pages are reached at (links are made with it).
        deliver: where what a page's command says to the chat goes (the host platform);
            ``None`` in a process of its own, whose pages then only watch.
        telegram_token: the bot token, to check a Mini App's ``initData``.
    """

    def __init__(
        self,
        service: Service,
        public_url: str,
        *,
        deliver: Deliver | None = None,
        telegram_token: str | None = None,
        secret: bytes | None = None,
        limits: Limits | None = None,
        poll: float = POLL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.service = service
        self.public_url = public_url.rstrip("/")
        self.deliver = deliver
        self.telegram_token = telegram_token
        self.signer = Signer(secret or web_secret(service), clock=service.clock)
        self.limits = limits or Limits()
        self.live = Live(self._version_of, poll)
        #: Set when the board stops: open live pages end at once (a browser keeps its
        #: event stream open, and would hold the shutdown up).
        self._closing = False
        self._pages = Buckets(self.limits.pages_burst, self.limits.pages_rate, clock)
        self._moves = Buckets(self.limits.moves_burst, self.limits.moves_rate, clock)
        self._open: dict[str, int] = {}
        self._chats: dict[str, str] = {}
        self._looks: OrderedDict[str, tuple[int, dict[str | None, bytes]]] = OrderedDict()
        self._building: dict[tuple[str, int, str | None], asyncio.Future[bytes]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        #: The port it listens on, once started.
        self.port = 0
        self._page = _static(PAGE).decode("utf-8")

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

    # --- the looks ---------------------------------------------------------------------

    async def _version_of(self, chat: str) -> int | None:
        table = await asyncio.to_thread(self.service.table, chat)
        return None if table is None else table.version

    async def _look(self, chat: str, user: str | None) -> tuple[int, bytes] | None:
        """The look of ``chat`` for ``user`` as JSON bytes, built once per table version and
        seat however many pages ask at once."""
        table = await asyncio.to_thread(self.service.table, chat)
        if table is None:
            return None
        if user is not None and (table.status != PLAYING or table.seat_of(user) is None):
            user = None  # no seat: the watcher's look, shared
        key = (chat, table.version, user)
        version, kept = self._looks.get(chat, (None, {}))
        if version == table.version and user in kept:
            return table.version, kept[user]
        building = self._building.get(key)
        if building is None:
            building = asyncio.get_running_loop().create_future()
            self._building[key] = building
            try:
                look = await asyncio.to_thread(self.service.page_look, chat, user)
                data = b"null" if look is None else json.dumps(look_json(look)).encode()
                building.set_result(data)
            except BaseException as exc:
                building.set_exception(exc)
                building.exception()  # retrieved: the asker raises it
                raise
            finally:
                del self._building[key]
            version, kept = self._looks.pop(chat, (None, {}))
            if version is not None and version > table.version:
                self._looks[chat] = (version, kept)  # a newer one came meanwhile: kept
            else:
                if version != table.version:
                    kept = {}  # an older version's looks are never sent again
                kept[user] = data
                self._looks[chat] = (table.version, kept)
            while len(self._looks) > LOOKS_KEPT:
                self._looks.popitem(last=False)
            return table.version, data
        return table.version, await asyncio.shield(building)

    def _seat(self, request: web.Request, tid: str) -> str | None:
        """The player a request's ``seat`` token names (``None``: a watcher).

        Raises:
            web.HTTPForbidden: for a forged, expired or other table's token.
        """
        token = request.query.get("seat", "")
        if not token:
            return None
        try:
            seat = self.signer.check(token)
        except BadToken as exc:
            raise _refuse(403, f"seat token {exc}") from None
        if seat.table != tid:
            raise _refuse(403, "seat token of another table")
        return seat.user

    def _address(self, request: web.Request) -> str:
        return request.remote or "?"

    def _limit_page(self, request: web.Request) -> None:
        if not self._pages.allow(self._address(request)):
            raise _refuse(429, "too many requests: wait a little")

    def _table(self, request: web.Request) -> tuple[str, str]:
        tid = request.match_info["tid"]
        chat = self.chat_of(tid)
        if chat is None:
            raise _refuse(404, "no such table")
        return tid, chat

    # --- handlers ----------------------------------------------------------------------

    async def page(self, request: web.Request) -> web.Response:
        self._limit_page(request)
        tid, seat = request.match_info.get("tid", ""), ""
        if "token" in request.match_info:
            seat = request.match_info["token"]
            try:
                tid = self.signer.check(seat).table
            except BadToken as exc:
                raise _refuse(403, f"seat token {exc}") from None
        if tid and self.chat_of(tid) is None:
            raise _refuse(404, "no such table")
        text = self._page.replace("{table}", html.escape(tid)).replace("{seat}", html.escape(seat))
        return web.Response(text=text, content_type="text/html", charset="utf-8")

    def tournament_link(self, tid: str) -> str:
        """The web page of tournament ``tid``'s standings (a keyed id, like a table's)."""
        return f"{self.public_url}/c/{self.table_id(TOURNAMENT_PREFIX + tid)}"

    async def tournament_page(self, request: web.Request) -> web.Response:
        """A tournament's standings and the tables of its round, each linked to its table's
        page; the page looks again every minute."""
        self._limit_page(request)
        key = self.chat_of(request.match_info["cid"])
        tid = key[len(TOURNAMENT_PREFIX) :] if key and is_tournament_table(key) else ""
        look = await asyncio.to_thread(self.service.tournament_look, tid) if tid else None
        if look is None:
            raise _refuse(404, "no such tournament")
        tables = {
            t["chat"]: f"/t/{self.table_id(t['chat'])}"
            for t in (look["round"] or {}).get("tables", [])
        }
        text = tournament_html(look, tables)
        return web.Response(text=text, content_type="text/html", charset="utf-8")

    async def telegram_page(self, request: web.Request) -> web.Response:
        self._limit_page(request)
        text = self._page.replace("{table}", "").replace("{seat}", "")
        return web.Response(text=text, content_type="text/html", charset="utf-8")

    async def static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        kinds = {SCRIPT: "text/javascript", STYLE: "text/css"}
        if name not in kinds:
            raise _refuse(404, "no such file")
        return web.Response(
            body=_static(name),
            content_type=kinds[name],
            charset="utf-8",
            headers={"Cache-Control": "public, max-age=3600"},
        )

    async def state(self, request: web.Request) -> web.Response:
        self._limit_page(request)
        tid, chat = self._table(request)
        found = await self._look(chat, self._seat(request, tid))
        if found is None:
            raise _refuse(404, "no such table")
        return web.Response(
            body=found[1], content_type="application/json", headers={"Cache-Control": "no-store"}
        )

    async def events(self, request: web.Request) -> web.StreamResponse:
        self._limit_page(request)
        tid, chat = self._table(request)
        user = self._seat(request, tid)
        address = self._address(request)
        if self._open.get(address, 0) >= self.limits.live_per_address:
            raise _refuse(429, "too many open pages from this address")
        found = await self._look(chat, user)
        if found is None:
            raise _refuse(404, "no such table")
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-store",
                "X-Accel-Buffering": "no",
            }
        )
        _headers(response)
        await response.prepare(request)
        self._open[address] = self._open.get(address, 0) + 1
        event = self.live.join(chat, found[0])
        shown = found[0]
        try:
            await response.write(b"data: " + found[1] + b"\n\n")
            while True:
                if self._closing:
                    break
                try:
                    await asyncio.wait_for(event.wait(), 20.0)
                except TimeoutError:
                    await response.write(b": still here\n\n")  # keeps proxies from closing it
                    continue
                if self._closing:
                    break
                event.clear()
                found = await self._look(chat, user)
                if found is None:
                    break
                if found[0] != shown:
                    shown = found[0]
                    await response.write(b"data: " + found[1] + b"\n\n")
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            self.live.leave(chat, event)
            self._open[address] -= 1
            if not self._open[address]:
                del self._open[address]
        return response

    async def preview(self, request: web.Request) -> web.Response:
        self._limit_page(request)
        tid, chat = self._table(request)
        user = self._seat(request, tid)
        move = request.query.get("move", "")
        if user is None:
            raise _refuse(403, "a seat's page only")
        if not _MOVE.fullmatch(move.strip()):
            raise _refuse(400, "not a placement")
        points = await asyncio.to_thread(self.service.preview, chat, user, move.strip())
        if points is None:
            raise _refuse(409, "not a legal placement now")
        return web.json_response(points, headers={"Cache-Control": "no-store"})

    async def replay(self, request: web.Request) -> web.Response:
        self._limit_page(request)
        _, chat = self._table(request)
        try:
            placed = int(request.match_info["n"])
        except ValueError:
            raise _refuse(400, "not a move number") from None
        svg = await asyncio.to_thread(self.service.replay_board, chat, placed)
        if svg is None:
            raise _refuse(409, "no finished game to replay")
        review = await asyncio.to_thread(self.service.review_of_move, chat, placed)
        return web.json_response({"board": svg, "review": review})

    async def command(self, request: web.Request) -> web.Response:
        tid, chat = self._table(request)
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError):
            raise _refuse(400, "the body is not JSON") from None
        if not isinstance(body, dict):
            raise _refuse(400, "the body is not a JSON object")
        token, word = body.get("seat"), body.get("command")
        version, move = body.get("version"), body.get("move", "")
        if not isinstance(token, str) or not token:
            raise _refuse(403, "a seat's page only")
        try:
            seat = self.signer.check(token)
        except BadToken as exc:
            raise _refuse(403, f"seat token {exc}") from None
        if seat.table != tid:
            raise _refuse(403, "seat token of another table")
        if not self._moves.allow("u:" + seat.user) or not self._moves.allow(
            "a:" + self._address(request)
        ):
            raise _refuse(429, "too many moves: wait a little")
        if word not in COMMANDS:
            raise _refuse(400, "unknown command")
        if not isinstance(version, int) or isinstance(version, bool) or version < 0:
            raise _refuse(400, "no table version")
        if word == "play" and (not isinstance(move, str) or not _MOVE.fullmatch(move.strip())):
            raise _refuse(400, "not a placement")
        if self.deliver is None and self.service.page_runner is None:
            raise _refuse(503, "moves are taken by the bot's own process")
        text = COMMANDS[word]
        if word == "play":
            text += " " + " ".join(str(move).split())
        text += f" #{version}"
        out = await asyncio.to_thread(self._handle, chat, seat.user, text)
        self.live.poke(chat)
        errors = [o.text for o in out if o.kind == "error"]
        if errors:
            return web.json_response({"error": errors[0]}, status=409)
        said = [o.text for o in out if o.user == seat.user and o.kind == "hint"]
        return web.json_response({"ok": True, "said": said})

    def _handle(self, chat: str, user: str, text: str) -> list[Outbound]:
        table = self.service.table(chat)
        seat = None if table is None else table.seat_of(user)
        name = table.seats[seat].name if table is not None and seat is not None else user
        title = table.title if table is not None else ""
        runner = self.service.page_runner
        if runner is not None:  # the chat platform of this process carries it out
            out = runner(chat, User(user, name), text)
        else:
            out = self.service.handle(Chat(chat, title), User(user, name), text)
            told = [o for o in out if o.kind != "error"]
            if told and self.deliver is not None:
                self.deliver(told)
        for o in out:
            if o.kind == "error" and o.stored is not None:
                self.service.delivered(o)  # told on the page, never in the chat
        return out

    async def telegram_session(self, request: web.Request) -> web.Response:
        self._limit_page(request)
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError):
            raise _refuse(400, "the body is not JSON") from None
        data = body.get("init_data") if isinstance(body, dict) else None
        if not isinstance(data, str) or self.telegram_token is None:
            raise _refuse(400, "no initData")
        try:
            uid, _ = telegram_user(data, self.telegram_token, self.service.clock())
        except BadToken as exc:
            raise _refuse(403, f"initData {exc}") from None
        fields = dict(_pairs(data))
        tid = fields.get("start_param", "")
        if self.chat_of(tid) is None:
            raise _refuse(404, "no such table")
        return web.json_response({"table": tid, "seat": self.signer.seat_token(tid, uid)})

    # --- the app -----------------------------------------------------------------------

    def app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY, middlewares=[_guard])
        app.add_routes(
            [
                web.get("/t/{tid}", self.page),
                web.get("/s/{token}", self.page),
                web.get("/tg", self.telegram_page),
                web.get("/c/{cid}", self.tournament_page),
                web.get("/static/{name}", self.static),
                web.get("/api/t/{tid}/state", self.state),
                web.get("/api/t/{tid}/events", self.events),
                web.get("/api/t/{tid}/preview", self.preview),
                web.get("/api/t/{tid}/replay/{n}", self.replay),
                web.post("/api/t/{tid}/command", self.command),
                web.post("/api/tg/session", self.telegram_session),
            ]
        )
        app.on_shutdown.append(lambda _: self.live.close())
        return app

    async def start(self, host: str, port: int) -> int:
        """Serve in the running loop; the port it listens on (``0``: any free one)."""
        self._loop = asyncio.get_running_loop()
        self._runner = web.AppRunner(self.app(), access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        self.port = int(sockets[0].getsockname()[1]) if sockets else port
        return self.port

    async def stop(self) -> None:
        self._closing = True
        await self.live.close()  # wakes every open page, which then ends
        if self._runner is not None:
            await self._runner.cleanup()

    def start_in_thread(self, host: str, port: int) -> int:
        """Serve from a thread of its own (a host platform without an event loop, like the
        console); the port it listens on."""
        started = threading.Event()
        found: list[int | BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            try:
                found.append(loop.run_until_complete(self.start(host, port)))
            except BaseException as exc:
                found.append(exc)
                started.set()
                return
            started.set()
            loop.run_forever()

        self._thread = threading.Thread(target=run, name="web-board", daemon=True)
        self._thread.start()
        started.wait()
        if isinstance(found[0], BaseException):
            raise found[0]
        return found[0]

    def stop_thread(self) -> None:
        loop = self._loop
        if loop is None or self._thread is None:
            return
        self._loop = None  # stopped once: a second call has nothing to do
        asyncio.run_coroutine_threadsafe(self.stop(), loop).result(timeout=60)
        loop.call_soon_threadsafe(loop.stop)
        self._thread.join(timeout=60)

    def poke(self, chats: Iterable[str]) -> None:
        """Tell the pages of ``chats`` to look now (from any thread): the host platform
        calls it after a command, so a typed move shows without waiting for the poll."""
        loop = self._loop
        if loop is None:
            return
        for chat in set(chats):
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self.live.poke, chat)


def _pairs(data: str) -> list[tuple[str, str]]:
    return parse_qsl(data, keep_blank_values=True)


class Refused(Exception):
    """A request refused with a short JSON error; nothing changed."""

    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status, self.text = status, text


def _refuse(status: int, text: str) -> Refused:
    return Refused(status, text)


def tournament_html(look: dict[str, Any], tables: dict[str, str]) -> str:
    """A tournament's page as HTML, from :meth:`Service.tournament_look` (every text
    escaped); ``tables``: the path of each round table's page, by its chat."""
    e = html.escape
    rows = []
    for r in look["rows"]:
        name = e(r["name"]) + (e(look["out_mark"]) if r["out"] else "")
        cells = (str(r["rank"]), name, e(r["points"]), e(r["buchholz"]), e(r["sb"]))
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    head = "".join(f"<th>{e(c)}</th>" for c in look["columns"])
    body = [
        f"<h1>{e(look['title'])}</h1>",
        f"<p>{e(look['head'])}</p>",
        f"<p class=status>{e(look['status'])}</p>",
        f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
        if rows
        else f"<p>{e(look['nobody'])}</p>",
    ]
    if look["teams"]:
        items = "".join(f"<li>{e(t['name'])}: {e(t['points'])}</li>" for t in look["teams"])
        body.append(f"<ul class=teams>{items}</ul>")
    current = look["round"]
    if current:
        body.append(f"<h2>{e(current['title'])}</h2><ul class=round>")
        body += [f"<li>{e(b)}</li>" for b in current["byes"]]
        for t in current["tables"]:
            path = tables.get(t["chat"])
            link = f' <a href="{e(path)}">{e(look["watch"])}</a>' if path and not t["done"] else ""
            body.append(f"<li>{e(t['text'])}{link}</li>")
        body.append("</ul>")
    return (
        f'<!doctype html><html lang="{e(look["lang"])}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta http-equiv="refresh" content="60">'
        f"<title>{e(look['title'])}</title><style>"
        "body{font-family:system-ui,sans-serif;margin:1em auto;max-width:40em;padding:0 1em;"
        "background:#efe6d2;color:#2b2118}table{border-collapse:collapse;width:100%}"
        "td,th{padding:.3em .5em;text-align:left;border-bottom:1px solid #cbb99a}"
        "a{color:#b0205f}</style></head><body>" + "".join(body) + "</body></html>"
    )


@web.middleware
async def _guard(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """Security headers on every answer; every error a short JSON one."""
    try:
        response = await handler(request)
    except Refused as exc:
        response = error(exc.status, exc.text)
    except web.HTTPException as exc:
        response = error(exc.status, exc.reason.lower())
    except StoreError:
        response = error(503, "the store does not answer: try again soon")
    _headers(response)
    return response


def _headers(response: web.StreamResponse) -> None:
    if response.prepared:
        return
    response.headers["Content-Security-Policy"] = CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers.setdefault("Cache-Control", "no-store")
