"""The web board faces the internet: hostile requests to a real aiohttp server on
127.0.0.1 (non-ASCII token signatures and ``initData`` hashes, JSON nested 2,000 deep,
wrong JSON types, slow heads and bodies, a huge ``Content-Length``, clients that leave
mid-body, requests aiohttp cannot even read) each get the documented short JSON
``{"error": ...}`` with a 4xx, never a 500, change nothing, and log one line at most,
never a traceback (docs/web.md, Security and Limits).

Timeouts are the board's own :class:`Limits`, set small here: nothing waits on a clock,
every wait is for the server to answer or close, with a ceiling of minutes."""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from bot.web import actions
from bot.web.guard import Limits
from bot.web.tokens import BadToken, Signer, telegram_user
from tests.bot.helpers import START
from tests.bot.web.board import Site, running, started_room
from tests.bot.web.test_telegram_app import BOT_TOKEN, signed
from tests.patience import PATIENCE, wait_until

#: Small timeouts for the tests of slow clients (seconds).
QUICK = Limits(
    pages_burst=10_000, seat_burst=10_000, moves_burst=10_000, idle_timeout=0.5, body_timeout=0.5
)


def _raw(site: Site, data: bytes) -> socket.socket:
    """A connection to the board that has sent ``data`` (and may send more)."""
    sock = socket.create_connection(("127.0.0.1", site.port), timeout=PATIENCE)
    sock.sendall(data)
    return sock


def _until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    got = b""
    with sock:
        while chunk := sock.recv(65536):
            got += chunk
    return got


def _answer(raw: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.lower(): v.strip() for k, _, v in (h.partition(":") for h in lines[1:])}
    return status, headers, body


def _short_json(status: int, headers: dict[str, str], body: bytes) -> str:
    """The refusal's text, once it is checked to be the documented short JSON with a 4xx."""
    assert 400 <= status < 500, (status, body)
    assert headers["content-type"].startswith("application/json"), headers
    assert "script-src 'self'" in headers["content-security-policy"]
    assert len(body) < 200
    answer = json.loads(body)
    assert list(answer) == ["error"] and isinstance(answer["error"], str)
    return str(answer["error"])


def _state_of(site: Site) -> dict[str, Any]:
    table = site.service.table(site.chat)
    assert table is not None
    return table.to_dict()


def _web_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name.startswith(("bot.web", "aiohttp"))]


# --- item 5: non-ASCII signatures ------------------------------------------------------


def test_a_token_or_hash_with_non_ascii_characters_is_a_bad_token() -> None:
    with pytest.raises(BadToken, match="malformed"):
        Signer(b"secret").check("a.\u00e9")
    with pytest.raises(BadToken, match="forged"):
        telegram_user("auth_date=1&user=%7B%7D&hash=%C3%A9", BOT_TOKEN, START)


def test_a_non_ascii_token_signature_is_a_403_on_every_route(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        before = _state_of(site)
        bad = "a.%C3%A9"  # a signature part holding "é", as curl would send it
        for path in (
            f"/s/{bad}",
            f"/api/t/{site.tid}/state?seat={bad}",
            f"/api/t/{site.tid}/events?seat={bad}",
            f"/api/t/{site.tid}/preview?seat={bad}&move=1+A1+A2",
        ):
            text = _short_json(*site.request("GET", path))
            assert text == "seat token malformed", path
        body = json.dumps({"seat": "a.\u00e9", "command": "keep", "version": 1}).encode()
        answer = site.request("POST", f"/api/t/{site.tid}/command", body)
        assert answer[0] == 403 and _short_json(*answer) == "seat token malformed"
        assert _state_of(site) == before


def test_a_non_ascii_init_data_hash_is_a_403(tmp_path: Path) -> None:
    room = started_room(tmp_path, ids=("42", "43"))
    with running(room, telegram_token=BOT_TOKEN) as site:
        user = json.dumps({"id": 42, "first_name": "Ann"})
        good = signed({"auth_date": str(int(START)), "user": user, "start_param": site.tid})
        data = good.rsplit("hash=", 1)[0] + "hash=%C3%A9"
        body = json.dumps({"init_data": data}).encode()
        answer = site.request("POST", "/api/tg/session", body)
        assert answer[0] == 403 and _short_json(*answer) == "initData forged"


# --- item 6: deep and wrongly typed JSON -----------------------------------------------


def test_json_nested_2000_deep_is_a_400_on_both_posts(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    with running(room, telegram_token=BOT_TOKEN) as site:
        before = _state_of(site)
        deep = b"[" * 2000 + b"]" * 2000
        in_object = b'{"seat": ' + b"[" * 2000 + b"]" * 2000 + b"}"
        assert len(in_object) <= 4096  # it fits under the body limit
        for path in (f"/api/t/{site.tid}/command", "/api/tg/session"):
            for body in (deep, in_object):
                answer = site.request("POST", path, body)
                assert answer[0] == 400
                assert _short_json(*answer) == "the body is nested too deep"
        assert _state_of(site) == before


@pytest.mark.parametrize(
    ("change", "status", "text"),
    [
        ({"command": ["play"]}, 400, "unknown command"),
        ({"command": {"play": 1}}, 400, "unknown command"),
        ({"command": 7}, 400, "unknown command"),
        ({"command": None}, 400, "unknown command"),
        ({"version": "3"}, 400, "no table version"),
        ({"version": [3]}, 400, "no table version"),
        ({"version": True}, 400, "no table version"),
        ({"move": ["1 A1 A2"]}, 400, "not a placement"),
        ({"move": {"a": 1}}, 400, "not a placement"),
        ({"seat": ["x.y"]}, 403, "a seat's page only"),
        ({"seat": {"a": 1}}, 403, "a seat's page only"),
    ],
)
def test_wrong_json_types_from_a_seat_holder_are_a_4xx(
    tmp_path: Path, change: dict[str, Any], status: int, text: str
) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        before = _state_of(site)
        payload = {"seat": site.token("Ann"), "command": "play", "move": "1 A1 A2"}
        payload["version"] = before["version"]
        payload.update(change)
        body = json.dumps(payload).encode()
        answer = site.request("POST", f"/api/t/{site.tid}/command", body)
        assert answer[0] == status and _short_json(*answer) == text
        assert _state_of(site) == before


@pytest.mark.parametrize("init_data", [["a"], {"hash": "x"}, 5, None])
def test_wrong_json_types_at_the_mini_app_session_are_a_400(
    tmp_path: Path, init_data: object
) -> None:
    room = started_room(tmp_path)
    with running(room, telegram_token=BOT_TOKEN) as site:
        answer = site.request(
            "POST", "/api/tg/session", json.dumps({"init_data": init_data}).encode()
        )
        assert answer[0] == 400 and _short_json(*answer) == "no initData"


# --- item 7: slow clients ---------------------------------------------------------------


def test_a_slow_head_and_an_idle_connection_are_closed(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    with running(room, QUICK) as site:
        # Half a request line and header, the rest never sent: closed, nothing answered.
        assert _until_closed(_raw(site, b"GET /t/x HTTP/1.1\r\nHost: exa")) == b""
        # A connection that sends nothing at all.
        assert _until_closed(_raw(site, b"")) == b""
        # One that asked once and keeps the connection: the answer, then closed when idle.
        status, _, page = _answer(
            _until_closed(_raw(site, f"GET /t/{site.tid} HTTP/1.1\r\nHost: x\r\n\r\n".encode()))
        )
        assert status == 200 and b"data-table" in page


def test_a_slow_body_gets_408_and_the_connection_closes(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    with running(room, QUICK) as site:
        before = _state_of(site)
        for path in (f"/api/t/{site.tid}/command", "/api/tg/session"):
            head = f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n"
            answer = _answer(_until_closed(_raw(site, head.encode() + b'{"seat": ')))
            assert answer[0] == 408 and _short_json(*answer) == "the body came too slowly"
        assert _state_of(site) == before


def test_a_huge_content_length_is_a_413_at_once(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    # The body's and the idle timeout are beyond the test's patience: only the size answers,
    # and the connection closes after the 413 (the rest of the body is no next request).
    limits = Limits(
        pages_burst=10_000,
        seat_burst=10_000,
        body_timeout=10 * PATIENCE,
        idle_timeout=10 * PATIENCE,
        linger=0.1,
    )
    with running(room, limits) as site:
        for path in (f"/api/t/{site.tid}/command", "/api/tg/session"):
            head = f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {10**12}\r\n\r\n{{"
            sock = _raw(site, head.encode())
            answer = _answer(_until_closed(sock))
            assert answer[0] == 413 and _short_json(*answer) == "the body is too large"
        # Without a length (chunked), a body found larger than 4 KB: 413 too.
        chunk = b"1000\r\n" + b" " * 4096 + b"\r\n"
        head = b"POST /api/tg/session HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        answer = _answer(_until_closed(_raw(site, head + chunk * 2 + b"0\r\n\r\n")))
        assert answer[0] == 413 and _short_json(*answer) == "the body is too large"


# --- item 8: clients that leave, requests that cannot be read ---------------------------


def test_a_client_leaving_mid_body_logs_one_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.INFO)
    reading = threading.Event()
    read_json = actions.read_json

    async def noted(request: Any, limits: Limits) -> Any:
        reading.set()
        return await read_json(request, limits)

    monkeypatch.setattr(actions, "read_json", noted)
    room = started_room(tmp_path)
    with running(room) as site:
        before = _state_of(site)
        head = f"POST /api/t/{site.tid}/command HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n"
        sock = _raw(site, head.encode() + b'{"seat": "')
        wait_until(reading.is_set, "the body awaited")  # the head is in, the body is not
        sock.close()
        wait_until(lambda: _web_lines(caplog), "a line about the client that left")
    lines = _web_lines(caplog)  # the board has stopped: whatever it would log is in
    assert [r.getMessage() for r in lines] == [
        "a client left in the middle of its request (POST /api/t/{tid}/command)"
    ]
    assert lines[0].levelno == logging.INFO and lines[0].exc_info is None
    assert _state_of(site) == before


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET /t/\x01<script> HTTP/1.1\r\nHost: x\r\n\r\n",  # a bad character in the path
        b"GET /t/x HTTP/1.1\r\nHost: x\r\nX-Long: " + b"A" * 9000 + b"\r\n\r\n",  # too long
        b"GET /t/x HTTP/1.1\r\nHost: x\r\nBad Header Name: 1\r\n\r\n",
        b"POST /api/tg/session HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 not HTTP at all\r\n\r\n",  # TLS
        b"GET /t/x HTTP/9.9\r\nHost: x\r\n\r\n",
    ],
)
def test_a_request_aiohttp_cannot_read_gets_the_short_json(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, request_bytes: bytes
) -> None:
    caplog.set_level(logging.INFO)
    room = started_room(tmp_path)
    with running(room) as site:
        raw = _until_closed(_raw(site, request_bytes))
    status, headers, body = _answer(raw)
    text = _short_json(status, headers, body)
    assert "script" not in text and "AAAA" not in text and "HTTP" not in text  # no echo
    lines = _web_lines(caplog)
    assert len(lines) <= 1 and all(r.exc_info is None for r in lines)
    assert all(r.levelno < logging.WARNING for r in lines)
    assert all(len(r.getMessage()) < 120 and "AAAA" not in r.getMessage() for r in lines)


def test_unknown_routes_and_methods_are_the_short_json(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        answer = site.request("GET", "/nothing/here")
        assert answer[0] == 404 and _short_json(*answer) == "not found"
        answer = site.request("DELETE", f"/t/{site.tid}")
        assert answer[0] == 405 and _short_json(*answer) == "method not allowed"


def test_each_route_is_found_at_its_own_path_and_no_other(tmp_path: Path) -> None:
    """The routes of docs/web.md, each at its path in lower case (a path's case is its
    own: ``/TG`` is no page), answered by their own handler: the Mini App's page, a cell's
    lines as ``/look B2`` tells them (tests/bot/play/test_look.py works them out), and the
    Discord Activity's page, root and token refused by the Activity's own words on a board
    that is no Activity, not by the unknown route's "not found"."""
    room = started_room(tmp_path)
    with running(room) as site:
        status, headers, page = site.request("GET", "/tg")
        assert status == 200 and headers["content-type"].startswith("text/html")
        assert page.startswith(b"<!doctype html>")
        status, lines = site.get(f"/api/t/{site.tid}/lines?seat={site.token('Bob')}&cell=B2")
        assert status == 200 and lines == {
            "lines": [
                "B2: free.",
                "right: nothing",
                "up right: nothing",
                "up left: red burst",
                "left: nothing",
                "down left: nothing",
                "down right: nothing",
            ]
        }
        no_activity = "the board is no Discord Activity here"
        for method, path in (("GET", "/activity"), ("GET", "/"), ("POST", "/activity/token")):
            answer = site.request(method, path, b"{}" if method == "POST" else None)
            assert answer[0] == 404 and _short_json(*answer) == no_activity, path
        for path in ("/TG", f"/api/t/{site.tid}/LINES", "/ACTIVITY", "/XX/XX"):
            answer = site.request("GET", path)
            assert answer[0] == 404 and _short_json(*answer) == "not found", path


def test_a_fault_of_ours_is_a_json_500_with_its_traceback_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    room = started_room(tmp_path)
    with running(room) as site:

        def broken(chat: str, user: str | None = None) -> object:
            raise RuntimeError("a bug")

        site.service.page_look = broken  # type: ignore[method-assign]
        status, headers, body = site.request("GET", f"/api/t/{site.tid}/state")
    assert status == 500 and headers["content-type"].startswith("application/json")
    assert json.loads(body) == {"error": "something went wrong here: try again"}
    faults = [r for r in _web_lines(caplog) if r.exc_info is not None]
    assert len(faults) == 1 and "GET /api/t/{tid}/state" in faults[0].getMessage()


# --- Telegram's initData, field by field (bot/web/tokens.py) ----------------------------


def _refused(data: str, token: str = BOT_TOKEN, now: float | None = START + 60) -> str:
    """Why ``telegram_user`` refuses ``data``: the exact word, not a text containing it."""
    with pytest.raises(BadToken) as info:
        telegram_user(data, token, now)
    return str(info.value)


def _user(**fields: object) -> str:
    return json.dumps(fields)


def test_init_data_names_the_person_as_telegram_shows_them() -> None:
    at = str(int(START))

    def name(user: str, **more: str) -> tuple[str, str]:
        return telegram_user(signed({"auth_date": at, "user": user, **more}), BOT_TOKEN, START)

    assert name(_user(id=42, first_name=" Ann ", last_name=" B ")) == ("42", "Ann B")
    assert name(_user(id=42, first_name="Ann")) == ("42", "Ann")
    assert name(_user(id=42, last_name="Brown")) == ("42", "Brown")
    assert name(_user(id=42, first_name=" ", username="annb")) == ("42", "annb")
    assert name(_user(id=42)) == ("42", "42")
    assert name(_user(id="0042", first_name="Ann")) == ("42", "Ann")  # the id as a number
    # Every field Telegram signed counts, an empty one too (the Mini App's query_id may be).
    assert name(_user(id=7, first_name="Bo"), query_id="") == ("7", "Bo")


def test_init_data_is_refused_with_its_reason() -> None:
    at = str(int(START))
    good = signed({"auth_date": at, "user": _user(id=42, first_name="Ann")})
    assert _refused("") == "malformed"
    assert _refused(good, token="") == "malformed"
    assert _refused(good + "&x=" + "y" * 4096) == "malformed"  # longer than 4 KiB
    # 4 KiB exactly is read.
    fields = {"auth_date": at, "user": _user(id=42, first_name="Ann"), "pad": ""}
    fields["pad"] = "x" * (4096 - len(signed(fields)))
    assert len(signed(fields)) == 4096
    assert telegram_user(signed(fields), BOT_TOKEN, START) == ("42", "Ann")
    assert _refused(urlencode({"auth_date": at, "user": _user(id=42)})) == "forged"
    assert _refused(good[: good.rindex("=") + 1] + "0" * 64) == "forged"
    assert _refused(signed({"auth_date": at, "user": _user(id=42)}, "1:other")) == "forged"
    assert _refused(signed({"auth_date": "soon", "user": _user(id=42)})) == "malformed"
    assert _refused(signed({"user": _user(id=42)})) == "malformed"  # no date
    assert _refused(signed({"auth_date": at})) == "malformed"  # nobody named
    assert _refused(signed({"auth_date": at, "user": "{"})) == "malformed"
    assert _refused(signed({"auth_date": at, "user": _user(first_name="Ann")})) == "malformed"
    assert _refused(signed({"auth_date": at, "user": _user(id="ann")})) == "malformed"
    assert _refused(signed({"auth_date": at, "user": "[42]"})) == "malformed"


def test_init_data_is_good_for_a_day_to_the_second() -> None:
    data = signed({"auth_date": str(int(START)), "user": _user(id=42, first_name="Ann")})
    day = 24 * 3600
    assert telegram_user(data, BOT_TOKEN, START + day) == ("42", "Ann")
    assert _refused(data, now=START + day + 1) == "expired"
    # Without a time given, the machine's: data signed now is good, data of 2023 is not.
    fresh = signed({"auth_date": str(int(time.time())), "user": _user(id=42)})
    assert telegram_user(fresh, BOT_TOKEN) == ("42", "42")
    assert _refused(data, now=None) == "expired"
