"""Watchers get changes, not the whole look (issue 48, item 4): after the first look an
event carries what changed, compressed where the client accepts it, and a change for a
look the page does not have makes it fetch the whole look again."""

from __future__ import annotations

import http.client
import json
import zlib
from pathlib import Path

from bot.web import deltas
from bot.web.pages import look_json
from tests.bot.web.board import Events, running, started_room
from tests.patience import PATIENCE

A1 = '<g class="cell" data-cell="A1">x</g>'
A2 = '<g class="cell" data-cell="A2">y</g>'
JOINT = '<line x1="1"/>'
HEAD, TAIL = '<svg v="1"><rect/>', "</svg>"


def test_a_board_patch_replaces_only_the_cells_that_changed() -> None:
    old = HEAD + A1 + A2 + TAIL
    a2_now = '<g class="cell" data-cell="A2">z</g>'
    new = HEAD + JOINT + A1 + a2_now + TAIL
    # Worked out by hand: the joint goes in before A1 (at the end of the head), and A2
    # (with the closing tag, the last piece) is replaced.
    at_a1 = len(HEAD)
    at_a2 = len(HEAD) + len(A1)
    assert deltas.board_patch(old, new) == [
        [at_a1, at_a1, JOINT],
        [at_a2, len(old), a2_now + TAIL],
    ]


def _look(version: int, board: str, moves: list[str], **more: object) -> dict[str, object]:
    # The page's words: the bulk of a look that never changes.
    words = {"rack": "Your tiles " * 50}
    return {
        "version": version,
        "board": board,
        "moves": moves,
        "turn": "Ann",
        "words": words,
        **more,
    }


def test_a_change_carries_only_what_changed_and_rebuilds_the_look() -> None:
    old = _look(4, HEAD + A1 + A2 + TAIL, ["1. Ann"], cell_names={"A1": "red"}, sides=[1])
    new = _look(
        5, HEAD + A1 + A2.replace("y", "w") + TAIL, ["1. Ann", "2. Bob"], cell_names={}, sides=[2]
    )
    new["turn"] = "Ann"  # unchanged: not sent
    sent = json.loads(deltas.change(json.dumps(old).encode(), json.dumps(new).encode()) or b"")
    assert sent["delta"] is True and (sent["from"], sent["version"]) == (4, 5)
    assert sent["set"] == {"sides": [2]}
    assert sent["moves_added"] == ["2. Bob"]
    assert sent["drop"] == {"cell_names": ["A1"]}
    assert deltas.apply(old, sent) == new
    # For a look the page does not have (it missed version 5), or a board that comes out
    # of another length: nothing, so the page fetches the whole look.
    assert deltas.apply(_look(3, "", []), sent) is None
    assert deltas.apply({**old, "board": old["board"] + " "}, sent) is None  # type: ignore[operator]
    # A whole look passes as it is.
    assert deltas.apply(None, new) == new


def test_every_move_of_a_game_reaches_watchers_and_seats_as_changes(tmp_path: Path) -> None:
    room = started_room(tmp_path, ("Ann", "Bob", "Cy", "Dee"))
    with running(room) as site:
        watcher = Events(site.port, f"/api/t/{site.tid}/events")
        ann = Events(site.port, f"/api/t/{site.tid}/events?seat={site.token('Ann')}")
        watcher.next(), ann.next()
        sizes = []
        for _ in range(8):
            mover = next(n for n in room.people if site.state(n)["my_turn"])
            state = site.state(mover)
            if state["awaiting"] == "swap":
                assert site.command(mover, "keep")[0] == 200
            else:
                first = sorted(state["cells"])[0]
                move = f"1 {first} {state['cells'][first][0]}"
                assert site.command(mover, "play", move)[0] == 200
            seen, seen_ann = watcher.next(), ann.next()
            # Each change, applied, is the look the server would send whole.
            assert seen == site.state() and seen_ann == site.state("Ann")
            assert watcher.sent[-1]["delta"] and ann.sent[-1]["delta"]
            assert "board" not in watcher.sent[-1]["set"]
            sizes.append(len(watcher.raw[-1]))
        watcher.close()
        ann.close()
        # The goal of the issue: at most 5 KB a move to a watcher of a 4-player game
        # (the whole look is over 20 KB already at the start).
        assert max(sizes) < 5000, sizes
        assert len(json.dumps(site.state())) > 20_000


def test_a_browser_that_accepts_gzip_gets_each_event_compressed_at_once(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        conn = http.client.HTTPConnection("127.0.0.1", site.port, timeout=PATIENCE)
        conn.request("GET", f"/api/t/{site.tid}/events", headers={"Accept-Encoding": "gzip"})
        res = conn.getresponse()
        assert res.getheader("Content-Encoding") == "gzip"
        unpack = zlib.decompressobj(16 + zlib.MAX_WBITS)
        got = b""
        # The first look, whole, arrives unpacked before the stream ends (each event is
        # flushed): read chunk by chunk until its blank line.
        while b"\n\n" not in got:
            got += unpack.decompress(res.read1(65536))
        first = json.loads(got.split(b"\n\n")[0][len(b"data: ") :])
        version = first["version"]
        state = site.state("Ann")
        cell = sorted(state["cells"])[0]
        assert site.command("Ann", "play", f"1 {cell} {state['cells'][cell][0]}")[0] == 200
        rest = got.split(b"\n\n", 1)[1]
        while b"\n\n" not in rest.replace(b": still here\n\n", b""):
            rest += unpack.decompress(res.read1(65536))
        event = next(e for e in rest.split(b"\n\n") if e.startswith(b"data: "))
        sent = json.loads(event[len(b"data: ") :])
        assert sent["delta"] and sent["from"] == version and sent["version"] == version + 1
        assert deltas.apply(first, sent) == site.state()
        conn.close()


def test_the_whole_look_is_compressed_for_a_browser_that_accepts_it(tmp_path: Path) -> None:
    room = started_room(tmp_path)
    with running(room) as site:
        status, headers, body = site.request(
            "GET", f"/api/t/{site.tid}/state", headers={"Accept-Encoding": "gzip"}
        )
        assert status == 200 and headers["content-encoding"] == "gzip"
        look = site.service.page_look(site.chat)
        assert look is not None
        assert json.loads(zlib.decompress(body, 16 + zlib.MAX_WBITS)) == json.loads(
            json.dumps(look_json(look))
        )
