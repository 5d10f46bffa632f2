"""The web board's pages and what they show: a table's page and a seat's, the Telegram
Mini App, a tournament's standings, the static files, the table's look (built once per
table version and seat) and its live updates, and a finished game's replay.
"""

from __future__ import annotations

import asyncio
import base64
import html
import json
import re
import zlib
from dataclasses import asdict
from typing import Any

from aiohttp import web

from bot.core.looks import PageLook
from bot.core.table import PLAYING
from bot.service import TOURNAMENT_PREFIX, is_tournament_table
from bot.web.base import ACCESS, ACCESS_STYLE, AIM, DISCORD, SCRIPT, STYLE, BoardBase, _static
from bot.web.deltas import change
from bot.web.guard import _headers, _refuse
from bot.web.tokens import BadToken

#: A cell's label as a page asks for its lines.
_CELL = re.compile(r"[A-Za-z]{1,2}[0-9]{1,2}")

#: Tables whose looks are kept ready to send (each table's latest version only: the
#: watchers' look and each seat's).
LOOKS_KEPT = 256
#: Changes from one look to the next kept ready to send (every watcher of a table is sent
#: the same one, worked out once).
CHANGES_KEPT = 256


class _EventGzip:
    """An event stream's gzip, flushed after every event (``Z_SYNC_FLUSH``) so that the
    browser unpacks each event as it comes. aiohttp's own compression flushes only when a
    stream ends, so the stream is compressed here and named so in its headers."""

    def __init__(self) -> None:
        self._z = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)  # a gzip wrapper

    def pack(self, data: bytes) -> bytes:
        return self._z.compress(data) + self._z.flush(zlib.Z_SYNC_FLUSH)


def _gzip_events(request: web.Request, response: web.StreamResponse) -> _EventGzip | None:
    """A gzip for the event stream of a browser that accepts it (before ``prepare``)."""
    response.headers["Vary"] = "Accept-Encoding"
    if "gzip" not in request.headers.get("Accept-Encoding", "").lower():
        return None
    response.headers["Content-Encoding"] = "gzip"
    return _EventGzip()


def look_json(look: PageLook) -> dict[str, Any]:
    data = asdict(look)
    data["cells"] = {k: list(v) for k, v in look.cells.items()}
    return data


class Pages(BoardBase):
    """The routes anyone with a link may ask: the pages, the looks and the replay."""

    # --- the looks ---------------------------------------------------------------------

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

    async def _change(self, key: tuple[str, str | None, int, int], old: bytes, new: bytes) -> bytes:
        """What a live page is sent when the look goes from ``old`` to ``new``: the change
        (worked out once for every page that needs the same one), or ``new`` whole."""
        task = self._changes.get(key)
        if task is None:
            task = asyncio.ensure_future(asyncio.to_thread(change, old, new))
            self._changes[key] = task
            while len(self._changes) > CHANGES_KEPT:
                self._changes.popitem(last=False)
        try:
            found = await asyncio.shield(task)
        except Exception:  # a look that is no JSON object: the whole look
            found = None
        return new if found is None else found

    # --- handlers ----------------------------------------------------------------------

    async def page(self, request: web.Request) -> web.Response:
        tid, seat, user = request.match_info.get("tid", ""), "", None
        if "token" in request.match_info:
            seat = request.match_info["token"]
            try:
                named = self.signer.check(seat)
            except BadToken as exc:
                self._limit(request)
                raise _refuse(403, f"seat token {exc}") from None
            tid, user = named.table, named.user
        self._limit(request, tid, user)
        if tid and self.chat_of(tid) is None:
            raise _refuse(404, "no such table")
        text = self._page_html(tid, seat)
        return web.Response(text=text, content_type="text/html", charset="utf-8")

    async def tournament_page(self, request: web.Request) -> web.Response:
        """A tournament's standings and the tables of its round, each linked to its table's
        page; the page looks again every minute."""
        self._limit(request)
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
        self._limit(request)
        text = self._page_html()
        return web.Response(text=text, content_type="text/html", charset="utf-8")

    async def static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        kinds = {
            SCRIPT: "text/javascript",
            AIM: "text/javascript",
            DISCORD: "text/javascript",
            ACCESS: "text/javascript",
            STYLE: "text/css",
            ACCESS_STYLE: "text/css",
        }
        if name not in kinds:
            raise _refuse(404, "no such file")
        response = web.Response(
            body=_static(name),
            content_type=kinds[name],
            charset="utf-8",
            headers={"Cache-Control": "public, max-age=3600"},
        )
        response.enable_compression()  # where the browser accepts it
        return response

    async def state(self, request: web.Request) -> web.Response:
        tid = request.match_info["tid"]
        user = self._seat(request, tid)
        self._limit(request, tid, user)
        _, chat = self._chat(tid)
        found = await self._look(chat, user)
        if found is None:
            raise _refuse(404, "no such table")
        response = web.Response(
            body=found[1], content_type="application/json", headers={"Cache-Control": "no-store"}
        )
        response.enable_compression()  # where the browser accepts it
        return response

    async def events(self, request: web.Request) -> web.StreamResponse:
        tid = request.match_info["tid"]
        user = self._seat(request, tid)
        self._limit(request, tid, user)
        _, chat = self._chat(tid)
        if user is None:  # a watcher's page: counted by address, a seat's by seat
            opener, most = "a:" + self._address(request), self.limits.live_per_address
        else:
            opener, most = "s:" + self._seat_key(tid, user), self.limits.live_per_seat
        if self._open.get(opener, 0) >= most:
            raise _refuse(429, f"too many open pages from this {'seat' if user else 'address'}")
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
        gzip = _gzip_events(request, response)
        await response.prepare(request)

        async def send(data: bytes) -> None:
            await response.write(gzip.pack(data) if gzip is not None else data)

        self._open[opener] = self._open.get(opener, 0) + 1
        event = self.live.join(chat, found[0])
        shown, sent = found
        try:
            await send(b"data: " + found[1] + b"\n\n")
            while True:
                if self._closing:
                    break
                try:  # asyncio.timeout: wait_for on 3.11 can swallow a stop's cancel
                    async with asyncio.timeout(20.0):
                        await event.wait()
                except TimeoutError:
                    await send(b": still here\n\n")  # keeps proxies from closing it
                    continue
                if self._closing:
                    break
                event.clear()
                found = await self._look(chat, user)
                if found is None:
                    break
                if found[0] != shown:
                    # After the first look, only what changed (a page that missed one
                    # fetches the whole look again: the change names its version).
                    data = await self._change((chat, user, shown, found[0]), sent, found[1])
                    shown, sent = found
                    await send(b"data: " + data + b"\n\n")
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            self.live.leave(chat, event)
            self._open[opener] -= 1
            if not self._open[opener]:
                del self._open[opener]
        return response

    async def lines(self, request: web.Request) -> web.Response:
        """A cell and its lines in words (``?cell=F7``), as ``/look`` tells them."""
        tid = request.match_info["tid"]
        user = self._seat(request, tid)
        self._limit(request, tid, user)
        _, chat = self._chat(tid)
        cell = request.query.get("cell", "")
        if not _CELL.fullmatch(cell):
            raise _refuse(400, "name a cell like F7")
        found = await asyncio.to_thread(self.service.cell_look, chat, cell)
        if found is None:
            raise _refuse(404, "no such cell on this board")
        return web.json_response({"lines": found})

    async def replay(self, request: web.Request) -> web.Response:
        self._limit(request)
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

    async def chances(self, request: web.Request) -> web.Response:
        self._limit(request)
        _, chat = self._table(request)
        png = await asyncio.to_thread(self.service.review_chart, chat)
        if png is None:  # no review (yet): an empty picture, which the page keeps hidden
            # (a 404 would be an error in the browser's console)
            png = NO_CHART
        return web.Response(
            body=png, content_type="image/png", headers={"Cache-Control": "no-store"}
        )


#: A 1 x 1 transparent PNG: the chart's answer while there is no review to chart.
NO_CHART = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR4nGNgYAAAAAMAAbitOmMAAAAASUVORK5CYII="
)


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
