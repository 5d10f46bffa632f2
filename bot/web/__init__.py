"""The web board platform: every table's page, live, and each seat's page to play by taps
(docs/web.md). :class:`bot.web.server.WebBoard` serves it inside another platform's process
(the console's ``--web``) or, through :func:`main`, in a process of its own
(``genial-bot web``) on a store shared with the bot's processes."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import Callable

from bot.core.config import Settings
from bot.core.outbound import Outbound
from bot.operator import logs
from bot.pages.links import LINKED
from bot.service import Service
from bot.store import open_store
from bot.web.server import WebBoard
from bot.web.tokens import DiscordApp

log = logging.getLogger(__name__)


def links(board: WebBoard) -> Callable[[Outbound], str | None]:
    """What a host platform prints under a message: the seat link under a player's
    private rack, the table link under a turn, a result or a lobby; and the pages of the
    message's table look at once (a typed move shows without waiting for the poll)."""

    def link(outbound: Outbound) -> str | None:
        board.poke([outbound.chat])
        if outbound.user is not None and outbound.kind == "rack":
            return board.seat_link(outbound.chat, outbound.user)
        if outbound.user is None and outbound.kind in LINKED:
            return board.table_link(outbound.chat)
        return None

    return link


#: The boards started beside a chat platform in this process (kept from the collector).
_BESIDE: list[WebBoard] = []


def start_beside(service: Service, settings: Settings, telegram_token: str | None) -> None:
    """Serve the web board from a thread of its own on a chat platform's service (``[web]
    port`` set): its pages' moves go through that platform (:meth:`Service.set_page_runner`)
    and its messages carry links to the pages."""
    web = settings.web
    board = WebBoard(
        service, web.url, telegram_token=telegram_token, discord=DiscordApp.of(settings)
    )
    port = board.start_in_thread(web.listen, web.port)
    log.info("web board on %s:%d, links %s", web.listen, port, web.url)
    _BESIDE.append(board)


def through_outbox(service: Service) -> Callable[[str, list[Outbound]], None]:
    """Delivery for a board in a process without a chat platform: what a page's move says
    (and what computer players then do) is left in the stored outbox, where the bot's own
    processes find it and post it in the chat: the nudge wakes their clocks at once."""

    def hand_over(table: str, outs: list[Outbound]) -> None:
        service.undelivered(outs)
        # The computer players answer now (what they say waits in the outbox with it).
        for chat in dict.fromkeys([table, *(o.chat for o in outs)]):
            service.undelivered(service.due(chat=chat))
        service.nudge()

    return hand_over


def main(settings: Settings) -> int:
    """``genial-bot web``: the pages of every table on the configured store. What a page's
    move says is left in the stored outbox for the bot's processes to post
    (:func:`through_outbox`)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.getLogger().addHandler(logs.apply(handler, settings))
    web = settings.web
    if not web.port:
        from bot.core.config import ConfigError

        raise ConfigError("genial-bot web needs [web] port (docs/web.md)")
    store = open_store(settings.storage, wait=settings.store_wait)
    service = Service(store, settings, pictures=False)
    board = WebBoard(
        service, web.url, deliver=through_outbox(service), discord=DiscordApp.of(settings)
    )

    async def serve() -> None:
        port = await board.start(web.listen, web.port)
        log.info("web board on %s:%d, links %s", web.listen, port, web.url)
        # SIGTERM (a service manager's stop) ends it as Ctrl-C does: status 0, the store
        # closed (docs/operating.md, What restarts what).
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, stop.set)
        try:
            await stop.wait()
        finally:
            await board.stop()

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        pass
    finally:
        store.close()
    return 0
