"""The console with ``--web``: the links it prints open the table's page and the player's
own page, and a move made on the page is told in the room as a typed one would be."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit
from urllib.request import urlopen

import pytest

from bot.__main__ import _console_web
from bot.console import Console
from bot.core.config import ConfigError, Settings, WebSettings, parse_settings
from bot.core.outbound import User
from bot.web import links
from bot.web.server import WebBoard
from bot.words.texts import squares
from tests.bot.helpers import make_service
from tests.patience import PATIENCE, wait_until


def test_web_settings_parse_and_refuse() -> None:
    s = parse_settings(
        {"web": {"listen": "0.0.0.0", "port": 8080, "public_url": "https://g.example/"}}
    )
    assert s.web == WebSettings("0.0.0.0", 8080, "https://g.example")
    assert s.web.url == "https://g.example"
    assert WebSettings(port=8080).url == "http://127.0.0.1:8080"
    for bad, why in [
        ({"port": 70000}, "web.port"),
        ({"port": True}, "web.port"),
        ({"public_url": "genial.example"}, "web.public_url"),
        ({"host": "x"}, "unknown setting web.host"),
    ]:
        with pytest.raises(ConfigError, match=why):
            parse_settings({"web": bad})


def test_the_console_flag() -> None:
    assert _console_web(None, Settings()) is None
    got = _console_web("127.0.0.1:8080", Settings())
    assert got == WebSettings("127.0.0.1", 8080, "")
    for bad in ("8080", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:x", "h:99999"):
        with pytest.raises(ConfigError, match="--web must be HOST:PORT"):
            _console_web(bad, Settings())


def _links(text: str, kind: str, to: str = "") -> list[str]:
    """The links of ``kind`` printed, under messages to ``to`` only if given."""
    found, head = [], ""
    for line in text.splitlines():
        if line.startswith("[genial"):
            head = line
        elif (
            line.strip().startswith("web: ")
            and f"/{kind}/" in line
            and (f"-> {to}," in head if to else True)
        ):
            found.append(line.split("web: ", 1)[1])
    return found


def test_console_links_open_the_pages_and_a_page_move_is_told_in_the_room(tmp_path: Path) -> None:
    service = make_service(tmp_path / "t.db")
    out = io.StringIO()
    console = Console(service, User("ann", "ann"), None, out)
    board = WebBoard(service, "http://placeholder", deliver=console.told_elsewhere, secret=b"k")
    console.links = links(board)
    port = board.start_in_thread("127.0.0.1", 0)
    board.public_url = f"http://127.0.0.1:{port}"
    try:
        for line in ("/join", "bob: /join", "/start"):
            console.say(line)
        text = out.getvalue()
        tables, seats = _links(text, "t"), _links(text, "s", "ann")
        assert tables and seats and len(set(tables)) == 1  # one table, one address
        with urlopen(tables[0], timeout=PATIENCE) as res:
            assert res.status == 200 and b"/static/app.js" in res.read()
        token = urlsplit(seats[-1]).path.rsplit("/", 1)[1]
        tid = urlsplit(tables[0]).path.rsplit("/", 1)[1]
        with urlopen(f"{board.public_url}/api/t/{tid}/state?seat={token}", timeout=PATIENCE) as r:
            look = json.loads(r.read())
        # The link under ann's private rack opens her seat (the first to join moves first).
        assert look["seat"] == 0 and look["my_turn"] and len(look["rack"]) == 6
        first, seconds = next(iter(look["cells"].items()))
        body = json.dumps(
            {
                "seat": token,
                "command": "play",
                "move": f"1 {first} {seconds[0]}",
                "version": look["version"],
            }
        ).encode()
        from urllib.request import Request

        req = Request(
            f"{board.public_url}/api/t/{tid}/command",
            body,
            {"Content-Type": "application/json"},
        )
        with urlopen(req, timeout=PATIENCE) as r:
            assert json.loads(r.read()) == {"ok": True, "said": []}
        tile = look["rack"][0]["name"]
        wait_until(
            lambda: f"ann placed {squares(tile)} {first} {seconds[0]}" in out.getvalue(),
            "the page's move told in the room",
        )
    finally:
        board.stop_thread()


def test_a_page_move_is_answered_by_the_computer_at_once(tmp_path: Path) -> None:
    """A page's move that passes the turn to a computer player wakes the room's clock: the
    computer answers as it answers a typed move, not after the room's longest sleep (an
    hour here, so a room that only looked at its clock then would fail the wait)."""
    import queue
    import threading
    from urllib.request import Request

    service = make_service(tmp_path / "t.db")
    out = io.StringIO()
    console = Console(service, User("ann", "ann"), None, out, max_wait=3600.0)
    board = WebBoard(service, "http://placeholder", deliver=console.told_elsewhere, secret=b"k")
    console.links = links(board)
    port = board.start_in_thread("127.0.0.1", 0)
    board.public_url = f"http://127.0.0.1:{port}"
    typed: queue.Queue[str | None] = queue.Queue()

    def lines() -> Iterator[str]:
        while (line := typed.get()) is not None:
            yield line

    room = threading.Thread(target=console.run, args=(lines(),), daemon=True)
    room.start()
    try:
        for line in ("/join", "/addbot greedy", "/start"):
            typed.put(line)
        wait_until(lambda: _links(out.getvalue(), "s", "ann"), "ann's rack with her link")
        seat = urlsplit(_links(out.getvalue(), "s", "ann")[-1]).path.rsplit("/", 1)[1]
        tid = urlsplit(_links(out.getvalue(), "t")[0]).path.rsplit("/", 1)[1]
        with urlopen(f"{board.public_url}/api/t/{tid}/state?seat={seat}", timeout=PATIENCE) as r:
            look = json.loads(r.read())
        assert look["my_turn"]  # ann joined first: she moves first, the computer next
        first, seconds = next(iter(look["cells"].items()))
        move = {"seat": seat, "command": "play", "move": f"1 {first} {seconds[0]}"}
        body = json.dumps({**move, "version": look["version"]}).encode()
        headers = {"Content-Type": "application/json"}
        req = Request(f"{board.public_url}/api/t/{tid}/command", body, headers)
        with urlopen(req, timeout=PATIENCE) as r:
            assert json.loads(r.read()) == {"ok": True, "said": []}
        # Ann's placement and the computer's answer, told in the room.
        wait_until(
            lambda: out.getvalue().count(" placed ") >= 2, "the computer's answer in the room"
        )
        assert f"ann placed {squares(look['rack'][0]['name'])} {first} {seconds[0]}" in (
            out.getvalue()
        )
    finally:
        typed.put(None)
        board.stop_thread()
        room.join(PATIENCE)


def test_the_launcher_hook_starts_the_board_on_each_new_service(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot import web as web_platform
    from bot.service import Service

    settings = Settings(web=WebSettings(port=0, public_url="http://127.0.0.1"))
    monkeypatch.setattr(Service, "on_start", [])
    monkeypatch.setattr(web_platform, "_BESIDE", [])
    Service.on_start.append(lambda s: web_platform.start_beside(s, settings, None))
    service = make_service(tmp_path / "t.db", settings=settings)
    (board,) = web_platform._BESIDE
    try:
        assert board.service is service
        status = urlopen(f"http://127.0.0.1:{board.port}/static/app.js", timeout=PATIENCE).status
        assert status == 200
    finally:
        board.stop_thread()


def test_a_poke_wakes_the_pages_of_the_tables_named_at_once(tmp_path: Path) -> None:
    """A command typed in the host platform pokes the board: the pages of that table look
    now, not at the next poll (an hour here, so only the poke can wake them)."""
    import asyncio

    service = make_service(tmp_path / "t.db")
    console = Console(service, User("ann", "ann"), None, io.StringIO())
    board = WebBoard(service, "http://127.0.0.1", secret=b"k", poll=3600.0)
    board.poke(["console"])  # not serving yet: nothing to wake, nothing raised
    board.start_in_thread("127.0.0.1", 0)
    loop = board._loop
    assert loop is not None
    try:
        console.say("/join")
        table = service.table("console")
        assert table is not None

        async def watch() -> asyncio.Event:
            return board.live.join("console", None)

        async def seen() -> int | None:
            return board.live.version("console")

        def told() -> int | None:
            return asyncio.run_coroutine_threadsafe(seen(), loop).result(PATIENCE)

        page = asyncio.run_coroutine_threadsafe(watch(), loop).result(PATIENCE)
        wait_until(lambda: told() == table.version, "the watch's first look")
        page.clear()
        console.say("/option hints on")  # a change the watch has not looked for
        changed = service.table("console")
        assert changed is not None and changed.version == table.version + 1
        board.poke(["console", "console"])
        wait_until(lambda: told() == changed.version, "the poked table's watch looking")
        assert page.is_set()  # and its page woken
    finally:
        board.stop_thread()
    board.poke(["console"])  # stopped: nothing to wake, nothing raised


def test_a_poke_after_the_boards_loop_closed_is_ignored(tmp_path: Path) -> None:
    import asyncio

    board = WebBoard(make_service(tmp_path / "t.db"), "http://127.0.0.1", secret=b"k")
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(board.start("127.0.0.1", 0))
        loop.run_until_complete(board.stop())
    finally:
        loop.close()
    board.poke(["console"])  # the loop is closed: the host's command must not fail


def test_the_board_serves_on_the_port_asked_from_a_daemon_thread_and_stops_once(
    tmp_path: Path,
) -> None:
    """``[web] port`` is where the console's links point: the board listens there (not on
    a port of its own choosing), from a thread that does not keep the process alive, and
    after ``stop_thread`` nothing listens; a second stop has nothing to do."""
    import socket
    import threading

    from tests.bot.web.board import free_port

    service = make_service(tmp_path / "t.db")
    board = WebBoard(service, "http://127.0.0.1", secret=b"k")
    board.stop_thread()  # never started: nothing to stop, nothing raised
    port = free_port()
    before = set(threading.enumerate())
    assert board.start_in_thread("127.0.0.1", port) == port
    started = set(threading.enumerate()) - before
    try:
        assert started and all(thread.daemon for thread in started)
        with urlopen(f"http://127.0.0.1:{port}/static/app.css", timeout=PATIENCE) as answer:
            assert answer.status == 200
        # A second board on the same port: the OS refuses, and the caller is told so.
        other = WebBoard(service, "http://127.0.0.1", secret=b"k")
        with pytest.raises(OSError):
            other.start_in_thread("127.0.0.1", port)
    finally:
        board.stop_thread()
    assert not any(thread.is_alive() for thread in started)
    with pytest.raises(ConnectionRefusedError), socket.create_connection(("127.0.0.1", port)):
        pass
    board.stop_thread()  # stopped once: a second call has nothing to do


def test_a_stuck_stop_is_given_up_after_the_ceiling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``stop_thread`` waits for the board's stop and its thread up to ``STOP_CEILING``
    (a ceiling, not a pace): a stop that never ends raises ``TimeoutError`` rather than
    hang the host, and a thread still busy after it is left behind, not waited for."""
    import asyncio
    import threading

    from bot.web import server

    monkeypatch.setattr(server, "STOP_CEILING", 0.2)
    gate, stopped = threading.Event(), threading.Event()
    board = WebBoard(make_service(tmp_path / "t.db"), "http://127.0.0.1", secret=b"k")
    real_stop = board.stop

    async def stuck() -> None:
        while not gate.is_set():
            await asyncio.sleep(0.01)  # a stop that does not end until the gate opens
        await real_stop()
        stopped.set()

    board.stop = stuck  # type: ignore[method-assign]
    board.start_in_thread("127.0.0.1", 0)
    thread, loop = board._thread, board._loop
    assert thread is not None and loop is not None
    with pytest.raises(TimeoutError):
        board.stop_thread()
    gate.set()
    assert stopped.wait(PATIENCE)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(PATIENCE)
    assert not thread.is_alive()

    # The stop ends, but the board's thread is busy past the ceiling (a callback that
    # blocks its loop): stop_thread returns, leaving the thread to end on its own.
    busy = threading.Event()
    board = WebBoard(make_service(tmp_path / "u.db"), "http://127.0.0.1", secret=b"k")
    real_stop = board.stop
    monkeypatch.setattr(server, "STOP_CEILING", PATIENCE)  # the stop itself may take a while

    async def stop_then_block() -> None:
        await real_stop()
        monkeypatch.setattr(server, "STOP_CEILING", 0.2)  # the thread's join: 0.2 s
        loop = asyncio.get_running_loop()
        # Blocks the loop once this stop is told done (that is a callback of its own,
        # after this one) and before the loop.stop that stop_thread then sends.
        loop.call_soon(loop.call_soon, busy.wait)

    board.stop = stop_then_block  # type: ignore[method-assign]
    board.start_in_thread("127.0.0.1", 0)
    thread = board._thread
    assert thread is not None
    try:
        board.stop_thread()
        assert thread.is_alive()  # given up on, not waited for
    finally:
        busy.set()
    thread.join(PATIENCE)
    assert not thread.is_alive()
