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
- ``GET /api/t/<id>/chances.png``: the review's chart of each side's chance to win (a
  1 x 1 transparent picture until the finished game has a review);
- ``POST /api/t/<id>/command``: ``{"seat", "command", "move", "version"}``, carried out
  by :meth:`Service.handle` exactly as the typed command with the table version (a stale
  page is refused); what it says to the chat goes to the host platform's ``deliver``;
- ``POST /api/tg/session``: ``{"init_data"}`` checked, a seat token back;
- ``GET /activity`` (and ``GET /``, where Discord opens an Activity's root URL mapping):
  the page as a Discord Activity, and ``POST /activity/token``:
  ``{"code", "instance_id"}`` exchanged with Discord, the table and a seat token back
  (:mod:`bot.web.activity`).

Every answer but a page is JSON; every error is a short JSON ``{"error": ...}`` that
changed nothing. A watcher's look is built without a seat, so no byte of it names a rack.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Iterable

from aiohttp import web

from bot.web.actions import SeatActions
from bot.web.activity import ActivityRoutes
from bot.web.edge import Runner
from bot.web.guard import MAX_BODY, _guard
from bot.web.pages import Pages

log = logging.getLogger(__name__)

#: Seconds a thread-served board may take to stop before it is taken for stuck.
STOP_CEILING = 300.0


class WebBoard(Pages, SeatActions, ActivityRoutes):
    """Every table's web page, served from one process.

    Args:
        service: the table service (its public surface only).
        public_url: the address pages are reached at (links are made with it).
        deliver: where what a page's command says to the chat goes (the host platform);
            ``None`` in a process of its own, whose pages then only watch.
        telegram_token: the bot token, to check a Mini App's ``initData``.
        discord: the Discord application whose Activity the board is
            (:mod:`bot.web.activity`), or ``None``.
    """

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
                web.get("/api/t/{tid}/lines", self.lines),
                web.get("/api/t/{tid}/chances.png", self.chances),
                web.post("/api/t/{tid}/command", self.command),
                web.post("/api/tg/session", self.telegram_session),
                web.get("/activity", self.activity_page),
                web.get("/", self.activity_page),  # the URL mapping's root, as Discord opens it
                web.post("/activity/token", self.activity_token),
            ]
        )
        app.on_shutdown.append(lambda _: self.live.close())
        return app

    async def start(self, host: str, port: int) -> int:
        """Serve in the running loop; the port it listens on (``0``: any free one)."""
        self._loop = asyncio.get_running_loop()
        self._runner = Runner(self.app(), self.limits, shutdown_timeout=1.0)
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
        # A ceiling, not a pace: a stop that is under way on a crowded machine (the
        # board's thread getting a sliver of a core beside eight busy processes) once took
        # more than a minute; only one that is stuck should raise.
        asyncio.run_coroutine_threadsafe(self.stop(), loop).result(timeout=STOP_CEILING)
        loop.call_soon_threadsafe(loop.stop)
        self._thread.join(timeout=STOP_CEILING)

    def poke(self, chats: Iterable[str]) -> None:
        """Tell the pages of ``chats`` to look now (from any thread): the host platform
        calls it after a command, so a typed move shows without waiting for the poll."""
        loop = self._loop
        if loop is None:
            return
        for chat in set(chats):
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self.live.poke, chat)
