"""A Discord of its own on 127.0.0.1 for ``genial-bot discord`` run as a process: the few
REST calls of a start (who the bot is, its application and its installs, the slash
commands) and a gateway that says hello and ready and answers heartbeats. Enough for the
real process to log in, connect and run, so a test can stop it at any moment of its start
or its running.

The bot process reaches it through this module run as a program, which points discord.py's
REST base and gateway at the addresses in the environment, then runs ``genial-bot`` as
``bot.__main__`` does::

    GENIAL_TEST_DISCORD_API=http://127.0.0.1:PORT/api/v10 \\
    GENIAL_TEST_DISCORD_GATEWAY=ws://127.0.0.1:PORT/gateway \\
        python -m tests.bot.discord.local_discord discord

:class:`LocalDiscord` answers everything; with ``gateway=False`` the gateway's address is a
closed port (the bot retries it, backing off); with ``status`` every REST call is answered
with that error (502: discord.py tries again for about 25 s; 503: it gives up at once).
:func:`silent_port` is a port that takes connections and never answers: a network that
swallows requests.

With ``GENIAL_TEST_BUSY_WORKER`` set, the launched bot starts, once ready, a call in a
worker thread that lasts an hour (a computer game that thinks long), so a test can stop
the bot while work is under way there.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import sys
import threading
import time
from typing import Any

from aiohttp import WSMsgType, web

BOT_ID = "1000000000000000001"
APP_ID = "1000000000000000002"
USER = {
    "id": BOT_ID,
    "username": "genial",
    "discriminator": "0",
    "global_name": "Genial",
    "avatar": None,
    "bot": True,
}
APPLICATION = {
    "id": APP_ID,
    "name": "Genial",
    "description": "",
    "icon": None,
    "bot_public": True,
    "bot_require_code_grant": False,
    "owner": {**USER, "id": "1000000000000000003", "bot": False},
    "verify_key": "0" * 64,
    "flags": 0,
}

REASONS = {502: "Bad Gateway", 503: "Service Unavailable"}


def closed_port() -> int:
    """A port of this machine that nothing listens on (connections are refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def silent_port() -> tuple[socket.socket, int]:
    """A port that takes connections (the kernel's backlog) and never answers; close the
    socket when done."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    return sock, int(sock.getsockname()[1])


class LocalDiscord:
    """The REST calls and the gateway, served from a thread of the test's process."""

    def __init__(self, *, gateway: bool = True, status: int | None = None) -> None:
        self.status = status
        #: How often the bot asked who it is (each try at logging in).
        self.logins = 0
        self._loop = asyncio.new_event_loop()
        self._runner: web.AppRunner | None = None
        started = threading.Event()
        self._thread = threading.Thread(target=self._serve, args=(started,), daemon=True)
        self._thread.start()
        started.wait()
        gateway_port = self.port if gateway else closed_port()
        self.env = {
            "GENIAL_TEST_DISCORD_API": f"http://127.0.0.1:{self.port}/api/v10",
            "GENIAL_TEST_DISCORD_GATEWAY": f"ws://127.0.0.1:{gateway_port}/gateway",
        }

    def _serve(self, started: threading.Event) -> None:
        asyncio.set_event_loop(self._loop)
        app = web.Application()
        app.router.add_get("/api/v10/users/@me", self._json(USER))
        app.router.add_get("/api/v10/oauth2/applications/@me", self._json(APPLICATION))
        app.router.add_put(f"/api/v10/applications/{APP_ID}/commands", self._json([]))
        # The bot offers its user install at its first start (a new app has none).
        app.router.add_patch("/api/v10/applications/@me", self._json(APPLICATION))
        app.router.add_get("/gateway", self._gateway)
        self._runner = web.AppRunner(app, handle_signals=False)
        self._loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        self._loop.run_until_complete(site.start())
        server = site._server
        assert server is not None
        self.port = int(server.sockets[0].getsockname()[1])  # type: ignore[attr-defined]
        started.set()
        self._loop.run_forever()

    def _json(self, body: object) -> Any:
        async def handler(request: web.Request) -> web.Response:
            if request.path.endswith("/users/@me"):
                self.logins += 1
            answer, status = body, 200
            if self.status is not None:
                status = self.status
                answer = {"code": 0, "message": REASONS.get(status, "Error")}
            # discord.py reads a body as JSON only if the type is exactly this (no charset).
            headers = {"Content-Type": "application/json"}
            return web.Response(status=status, body=json.dumps(answer), headers=headers)

        return handler

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": 41250}}))
        async for msg in ws:
            if msg.type is not WSMsgType.TEXT:
                break
            data = json.loads(msg.data)
            if data["op"] == 1:  # a heartbeat: acknowledged
                await ws.send_str(json.dumps({"op": 11}))
            elif data["op"] == 2:  # identify: ready, with no guilds
                ready = {
                    "v": 10,
                    "user": USER,
                    "guilds": [],
                    "session_id": "local",
                    "resume_gateway_url": f"ws://127.0.0.1:{self.port}/gateway",
                    "application": {"id": APP_ID, "flags": 0},
                }
                await ws.send_str(json.dumps({"op": 0, "s": 1, "t": "READY", "d": ready}))
        return ws

    def close(self) -> None:
        async def stop() -> None:
            if self._runner is not None:
                await self._runner.cleanup()

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(timeout=60)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=60)


def _launch() -> int:
    """Run ``genial-bot`` with discord.py pointed at the local Discord."""
    import discord.gateway
    import discord.http
    import yarl

    discord.http.Route.BASE = os.environ["GENIAL_TEST_DISCORD_API"]
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(
        os.environ["GENIAL_TEST_DISCORD_GATEWAY"]
    )
    if os.environ.get("GENIAL_TEST_BUSY_WORKER"):
        from bot.discord.client import GenialClient

        async def on_ready(self: GenialClient) -> None:
            logging.getLogger(__name__).info("a worker thread is busy now")
            await asyncio.to_thread(time.sleep, 3600)

        GenialClient.on_ready = on_ready  # type: ignore[attr-defined]
    from bot.__main__ import main

    return main(sys.argv[1:])


if __name__ == "__main__":
    raise SystemExit(_launch())
