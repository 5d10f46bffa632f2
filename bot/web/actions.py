"""What a seat's page may do: preview a placement's points, send a move (carried out as
the typed command, through the chat platform of this process or the service), and a
Telegram Mini App's session (its ``initData`` checked, a seat token back).
"""

from __future__ import annotations

import asyncio
import re
from urllib.parse import parse_qsl

from aiohttp import web

from bot.core.outbound import Chat, Outbound, User
from bot.web.base import BoardBase
from bot.web.edge import read_json
from bot.web.guard import Refused, _refuse
from bot.web.tokens import BadToken, telegram_user

#: A move as the page sends it: a rack slot or colour letters and two cells.
_MOVE = re.compile(
    r"(?:[1-6]|[A-Za-z]{2})?\s*[A-Za-z]{1,2}\d{1,2}\s+[A-Za-z]{1,2}\d{1,2}(?:\s+[A-Za-z]{1,2})?"
)
#: Commands a page may send, as typed.
COMMANDS = {"play": "/play", "swap": "/swap", "keep": "/keep", "hint": "/hint"}


class SeatActions(BoardBase):
    """The routes a seat's token opens: the preview, the move, the Mini App's session."""

    async def preview(self, request: web.Request) -> web.Response:
        tid = request.match_info["tid"]
        user = self._seat(request, tid)
        self._limit(request, tid, user)
        if user is None:
            raise _refuse(403, "a seat's page only")
        _, chat = self._chat(tid)
        move = request.query.get("move", "")
        if not _MOVE.fullmatch(move.strip()):
            raise _refuse(400, "not a placement")
        points = await asyncio.to_thread(self.service.preview, chat, user, move.strip())
        if points is None:
            raise _refuse(409, "not a legal placement now")
        return web.json_response(points, headers={"Cache-Control": "no-store"})

    async def command(self, request: web.Request) -> web.Response:
        tid = request.match_info["tid"]
        try:  # what has no seat yet is counted by address
            body = await read_json(request, self.limits)
            if not isinstance(body, dict):
                raise _refuse(400, "the body is not a JSON object")
            token = body.get("seat")
            if not isinstance(token, str) or not token:
                raise _refuse(403, "a seat's page only")
        except Refused:
            self._limit(request)
            raise
        user = self._check_seat(request, token, tid)
        if not self._moves.allow(self._seat_key(tid, user)):
            raise _refuse(429, "too many moves: wait a little")
        word, version, move = body.get("command"), body.get("version"), body.get("move", "")
        if not isinstance(word, str) or word not in COMMANDS:
            raise _refuse(400, "unknown command")
        if not isinstance(version, int) or isinstance(version, bool) or version < 0:
            raise _refuse(400, "no table version")
        if word == "play" and (not isinstance(move, str) or not _MOVE.fullmatch(move.strip())):
            raise _refuse(400, "not a placement")
        _, chat = self._chat(tid)
        if word == "hint":  # suggestions to draw on the board: nothing changes, none told
            found = await asyncio.to_thread(self.service.page_hints, chat, user, version)
            if "error" in found:
                return web.json_response({"error": found["error"]}, status=409)
            return web.json_response({"ok": True, "hints": found["hints"]})
        if self.deliver is None and self.service.page_runner is None:
            raise _refuse(503, "moves are taken by the bot's own process")
        text = COMMANDS[word]
        if word == "play":
            text += " " + " ".join(str(move).split())
        text += f" #{version}"
        out = await asyncio.to_thread(self._handle, chat, user, text)
        self.live.poke(chat)
        errors = [o.text for o in out if o.kind == "error"]
        if errors:
            return web.json_response({"error": errors[0]}, status=409)
        said = [o.text for o in out if o.user == user and o.kind == "hint"]
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
            if self.deliver is not None and (told or not out):
                # Said nothing yet: a move that computer players answer, in one message
                # with it, at once, as a typed one is answered.
                self.deliver(chat, told)
        for o in out:
            if o.kind == "error" and o.stored is not None:
                self.service.delivered(o)  # told on the page, never in the chat
        return out

    async def telegram_session(self, request: web.Request) -> web.Response:
        self._limit(request)
        body = await read_json(request, self.limits)
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


def _pairs(data: str) -> list[tuple[str, str]]:
    return parse_qsl(data, keep_blank_values=True)
