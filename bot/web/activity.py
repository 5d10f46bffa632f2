"""The board as a Discord Activity: the page Discord shows in its iframe, and who its
player is (docs/operating.md, "The board inside Discord").

Discord opens the app's root URL mapping (``/``, also served as ``/activity``) with
``?frame_id=..&instance_id=..&platform=..&channel_id=..``. The page speaks the Embedded
App SDK's ``postMessage`` protocol itself (``static/discord.js``: the handshake to the
parent frame, Discord's ``READY``, then ``AUTHORIZE`` with the scope ``identify``), so
nothing loads from elsewhere, and posts the code Discord gave it here (``POST
/activity/token``). This side exchanges the code at Discord's OAuth2 token endpoint with
the app's client secret, asks ``/users/@me`` who that is, and asks Discord (with the
bot's token) where the Activity's instance runs and who is in it. The table is that
channel's, else the one whose board button the person pressed last, lately (a table in a
thread, a button in a private message: :func:`bot.pages.links.pressed`); the page gets
that person's seat token when they sit at it, else the watcher's look. Nothing the page
says is believed but the code and the instance, both checked with Discord.
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

import aiohttp
from aiohttp import web

from bot.pages.links import pressed
from bot.web.base import BoardBase
from bot.web.edge import read_json
from bot.web.guard import ACTIVITY_CSP, _refuse
from bot.web.tokens import DiscordApp
from bot.words.texts import Texts

log = logging.getLogger(__name__)

#: An OAuth2 code and an instance id as Discord makes them (short, URL-safe).
_CODE = re.compile(r"[A-Za-z0-9_.~-]{1,200}")
_INSTANCE = re.compile(r"[A-Za-z0-9_-]{1,200}")


class Unanswered(Exception):
    """Discord did not answer (a timeout, a refused connection, a 5xx, a 429)."""


class ActivityRoutes(BoardBase):
    """``GET /activity``: the page in Discord's iframe; ``POST /activity/token``: its code
    exchanged for the table and the player's seat."""

    async def activity_page(self, request: web.Request) -> web.Response:
        self._limit(request)
        app = self.discord
        if app is None:
            raise _refuse(404, "the board is no Discord Activity here")
        texts = Texts(self.service.settings.language)
        text = self._page_html(discord=app.client_id, refused=texts("web.activity_refused"))
        return web.Response(
            text=text,
            content_type="text/html",
            charset="utf-8",
            headers={"Content-Security-Policy": ACTIVITY_CSP},
        )

    async def activity_token(self, request: web.Request) -> web.Response:
        self._limit(request)
        app = self.discord
        if app is None:
            raise _refuse(404, "the board is no Discord Activity here")
        body = await read_json(request, self.limits)
        if not isinstance(body, dict):
            raise _refuse(400, "the body is not a JSON object")
        code, instance = body.get("code"), body.get("instance_id")
        if not isinstance(code, str) or not _CODE.fullmatch(code):
            raise _refuse(400, "no OAuth2 code")
        if not isinstance(instance, str) or not _INSTANCE.fullmatch(instance):
            raise _refuse(400, "no instance_id")
        try:
            async with aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=app.timeout)
            ) as session:
                user = await self._who(session, app, code)
                where = await self._where(session, app, instance, user) if app.bot_token else ""
        except Unanswered as exc:
            log.info("Discord did not answer an Activity's sign-in: %s", exc)
            raise _refuse(502, "Discord did not answer: try again") from None
        chat = await asyncio.to_thread(self._activity_chat, user, where)
        if chat is None:
            raise _refuse(404, "no table in this channel")
        table = await asyncio.to_thread(self.service.table, chat)
        tid = await asyncio.to_thread(self.table_id, chat)
        seated = table is not None and table.seat_of(user) is not None
        seat = self.signer.seat_token(tid, user) if seated else ""
        return web.json_response(
            {"table": tid, "seat": seat}, headers={"Cache-Control": "no-store"}
        )

    def _activity_chat(self, user: str, where: str) -> str | None:
        """The table the Activity shows: the instance's channel's, else the one whose
        button ``user`` pressed last, lately (:func:`bot.pages.links.pressed`)."""
        if where and self.service.table(where) is not None:
            return where
        chat = pressed(self.service, user, self.service.clock())
        if chat is not None and self.service.table(chat) is not None:
            return chat
        return None

    async def _who(self, session: aiohttp.ClientSession, app: DiscordApp, code: str) -> str:
        """The Discord user id the page's OAuth2 ``code`` stands for.

        Raises:
            Refused: 403 for a code Discord refuses (forged, used, expired).
            Unanswered: when Discord does not answer.
        """
        form = {
            "client_id": app.client_id,
            "client_secret": app.client_secret,
            "grant_type": "authorization_code",
            "code": code,
        }
        status, token = await _call(session, "POST", f"{app.api_url}/oauth2/token", data=form)
        access = token.get("access_token") if isinstance(token, dict) else None
        if status != 200 or not isinstance(access, str) or not access:
            raise _refuse(403, "Discord refused the code: open the board again")
        headers = {"Authorization": f"Bearer {access}"}
        status, me = await _call(session, "GET", f"{app.api_url}/users/@me", headers=headers)
        uid = me.get("id") if isinstance(me, dict) else None
        if status != 200 or not isinstance(uid, str) or not uid.isdigit():
            raise _refuse(403, "Discord did not say who you are")
        return uid

    async def _where(
        self, session: aiohttp.ClientSession, app: DiscordApp, instance: str, user: str
    ) -> str:
        """The channel the Activity's ``instance`` runs in, asked of Discord with the bot's
        token; ``user`` must be in it.

        Raises:
            Refused: 403 for an instance Discord does not know or ``user`` is not in.
            Unanswered: when Discord does not answer.
        """
        url = f"{app.api_url}/applications/{app.client_id}/activity-instances/{instance}"
        headers = {"Authorization": f"Bot {app.bot_token}"}
        status, found = await _call(session, "GET", url, headers=headers)
        if status != 200 or not isinstance(found, dict):
            raise _refuse(403, "no such Activity")
        users = found.get("users")
        location = found.get("location")
        channel = location.get("channel_id") if isinstance(location, dict) else None
        if not isinstance(users, list) or user not in users:
            raise _refuse(403, "you are not in this Activity")
        return channel if isinstance(channel, str) and channel.isdigit() else ""


async def _call(
    session: aiohttp.ClientSession, method: str, url: str, **kw: Any
) -> tuple[int, Any]:
    """``(status, JSON or None)`` of a call to Discord.

    Raises:
        Unanswered: a timeout, a connection that failed, a 5xx, or a 429 (too many of
            the app's sign-ins at once: the player tries again).
    """
    try:
        async with session.request(method, url, **kw) as res:
            if res.status >= 500 or res.status == 429:  # down, or asking us to wait
                raise Unanswered(f"{method} {url.rsplit('/', 2)[-2:]}: {res.status}")
            try:
                return res.status, await res.json(content_type=None)
            except ValueError:
                return res.status, None
    except (aiohttp.ClientError, TimeoutError) as exc:
        raise Unanswered(f"{type(exc).__name__}") from exc
