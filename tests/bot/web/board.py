"""A web board on 127.0.0.1 for tests: a service with a table of two people, the server in
a thread of its own, and plain HTTP to it (urllib; Server-Sent Events read line by line)."""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bot.core.outbound import Outbound, User
from bot.service import Service
from bot.web import deltas
from bot.web.guard import Limits
from bot.web.server import WebBoard
from tests.bot.helpers import Clock, Room, make_service
from tests.patience import PATIENCE

SECRET = b"test secret"


@dataclass
class Site:
    """A running web board and the room whose table it shows."""

    board: WebBoard
    room: Room
    port: int
    delivered: list[Outbound] = field(default_factory=list)

    @property
    def service(self) -> Service:
        return self.room.service

    @property
    def chat(self) -> str:
        return self.room.chat.id

    @property
    def tid(self) -> str:
        return self.board.table_id(self.chat)

    def token(self, name: str) -> str:
        return self.board.signer.seat_token(self.tid, self.room.person(name).id)

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=PATIENCE)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            res = conn.getresponse()
            return res.status, {k.lower(): v for k, v in res.getheaders()}, res.read()
        finally:
            conn.close()

    def get(self, path: str) -> tuple[int, Any]:
        status, _, data = self.request("GET", path)
        return status, json.loads(data)

    def post(self, path: str, payload: object) -> tuple[int, Any]:
        body = json.dumps(payload).encode()
        status, _, data = self.request("POST", path, body, {"Content-Type": "application/json"})
        return status, json.loads(data)

    def command(self, name: str, command: str, move: str = "", version: int | None = None):
        if version is None:
            table = self.service.table(self.chat)
            assert table is not None
            version = table.version
        return self.post(
            f"/api/t/{self.tid}/command",
            {"seat": self.token(name), "command": command, "move": move, "version": version},
        )

    def state(self, name: str | None = None) -> dict[str, Any]:
        seat = f"?seat={self.token(name)}" if name else ""
        status, data = self.get(f"/api/t/{self.tid}/state{seat}")
        assert status == 200, data
        return dict(data)


class Events:
    """An open ``/events`` stream: each ``next()`` is the next look, as JSON: the whole
    look sent first, then each change sent applied to it as the page applies it
    (``sent`` holds what came, a whole look or a change)."""

    def __init__(self, port: int, path: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=PATIENCE)
        self.conn.request("GET", path)
        self.res = self.conn.getresponse()
        self.raw: list[bytes] = []
        self.sent: list[dict[str, Any]] = []
        self.look: dict[str, Any] | None = None
        assert self.res.status == 200

    def next(self) -> dict[str, Any]:
        while True:
            line = self.res.fp.readline()
            self.raw.append(line)
            if not line:
                raise AssertionError("the event stream ended")
            if line.startswith(b"data: "):
                sent = dict(json.loads(line[6:]))
                self.sent.append(sent)
                look = deltas.apply(self.look, sent)
                assert look is not None, "a change for a look this stream was not sent"
                self.look = look
                return look

    def close(self) -> None:
        self.conn.close()


def started_room(
    tmp_path: Path,
    names: tuple[str, ...] = ("Ann", "Bob"),
    ids: tuple[str, ...] = (),
    **options: str,
) -> Room:
    """A running game of ``names`` (ids ``id-<name>``, or ``ids`` as a platform's)."""
    service = make_service(tmp_path / "t.db", clock=Clock())
    room = Room(service)
    for name, uid in zip(names, ids, strict=False):
        room.people[name] = User(uid, name)
    for name in names:
        room.say(name, "/join")
    for option in options.values():
        room.say(names[0], f"/option {option}")
    room.say(names[0], "/start")
    return room


@contextmanager
def running(room: Room, limits: Limits | None = None, **kw: Any) -> Iterator[Site]:
    delivered: list[Outbound] = []
    kw.setdefault("deliver", lambda table, outs: delivered.extend(outs))
    board = WebBoard(
        room.service,
        "http://board.example",
        secret=SECRET,
        limits=limits or Limits(pages_burst=10_000, seat_burst=10_000, moves_burst=10_000),
        **kw,
    )
    port = board.start_in_thread("127.0.0.1", 0)
    try:
        yield Site(board, room, port, delivered)
    finally:
        board.stop_thread()


def path_of(link: str) -> str:
    return urlsplit(link).path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
