"""The web board's weight and speed (issue 25), against its goals.

Run: ``.venv/bin/python benchmarks/bench_web.py [--watchers 200] [--tables 100]
[--pages 10]``. Needs Debian's ``chromium`` for the first-paint figure. Prints:

- the page's whole weight: HTML, script, style sheet (no fonts: the page uses the
  system's; no CDN, no build step) and the largest look it loads (a late 4-player board
  and a Genial Spezial board, whose SVG travels inside the look), goal <= 150 KB;
- first paint of a late 4-player board in headless Chromium: from navigation to the board
  in the page (a ``performance.mark`` the script sets), median of 7 loads, goal <= 1 s;
- a move to the board on watchers' pages: ``--watchers`` Server-Sent Events streams on one
  table, a move posted as the page posts it, the time until each stream has the new look;
  p50 and p95 over 10 moves, goal p95 <= 300 ms with 200 watching;
- the bytes a move costs a watcher of a 4-player game (issue 48): its event stream opened
  as a browser opens it (accepting gzip), 40 moves played, the bytes on the wire per move
  after the first look, median and largest, goal median <= 5 KB; and the same uncompressed;
- ``--tables`` x ``--pages`` open pages held by one server process, with the server's
  resident memory before and after (goal: 1,000 pages across 100 tables).

The server runs in a process of its own (``--serve``), so its memory is its own; the
streams are opened by this one with asyncio. All on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.core.outbound import Chat, User  # noqa: E402
from bot.service import Service  # noqa: E402
from bot.store import open_store  # noqa: E402
from bot.web.base import ACCESS, ACCESS_STYLE, AIM, PAGE, SCRIPT, STYLE, _static  # noqa: E402
from bot.web.guard import Limits  # noqa: E402
from bot.web.server import WebBoard  # noqa: E402

CHROMIUM = "/usr/bin/chromium"


def _play(service: Service, chat: str, people: list[User], moves: int, rng: random.Random) -> None:
    """``moves`` placements by the people of ``chat``, each a legal one taken at random
    from what their page would offer (keep when a swap is offered)."""
    for _ in range(moves):
        table = service.table(chat)
        if table is None or table.status != "playing":
            return
        for person in people:
            look = service.page_look(chat, person.id)
            if look is None or not look.my_turn:
                continue
            if look.awaiting == "swap":
                service.handle(Chat(chat), person, "/keep")
                break
            first = rng.choice(sorted(look.cells))
            second = rng.choice(look.cells[first])
            tile = "" if look.game == "spezial" else "1 "
            service.handle(Chat(chat), person, f"/play {tile}{first} {second}")
            break


def _table(service: Service, chat: str, players: int, game: str = "genial") -> list[User]:
    people = [User(f"{chat}-p{k}", f"Player {k + 1}") for k in range(players)]
    for person in people:
        service.handle(Chat(chat, chat), person, "/join")
    if game == "spezial":
        service.handle(Chat(chat, chat), people[0], "/option Spezial", admin=True)
    service.handle(Chat(chat, chat), people[0], "/start")
    return people


def serve(db: str, tables: int) -> None:
    """The server process: tables set up, their ids and tokens printed, then served."""
    service = Service(open_store(db), pictures=False, rng=random.Random(5))
    rng = random.Random(9)
    board = WebBoard(
        service,
        "http://127.0.0.1",
        deliver=lambda table, out: None,
        secret=b"bench",
        limits=Limits(
            pages_burst=1e9,
            seat_burst=1e9,
            moves_burst=1e9,
            live_per_address=1_000_000,
            live_per_seat=1_000_000,
        ),
    )
    info: dict[str, Any] = {"tables": []}
    late = _table(service, "late4", 4)
    _play(service, "late4", late, 60, rng)
    spezial = _table(service, "spezial4", 4, "spezial")
    _play(service, "spezial4", spezial, 50, rng)
    info["late4"] = board.table_id("late4")
    info["placed"] = {
        key: getattr(service.page_look(key), "placed", 0) for key in ("late4", "spezial4")
    }
    info["spezial4"] = board.table_id("spezial4")
    four = _table(service, "four", 4)
    info["four"] = board.table_id("four")
    info["four_seats"] = [board.signer.seat_token(info["four"], p.id) for p in four]
    watched = _table(service, "watched", 2)
    info["watched"] = board.table_id("watched")
    info["seats"] = [board.signer.seat_token(info["watched"], p.id) for p in watched]
    info["people"] = [p.id for p in watched]
    for k in range(tables):
        _table(service, f"t{k}", 2)
        info["tables"].append(board.table_id(f"t{k}"))

    async def run() -> None:
        port = await board.start("127.0.0.1", 0)
        info["port"] = port
        print(json.dumps(info), flush=True)
        await asyncio.Event().wait()

    asyncio.run(run())


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def _get(port: int, path: str) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    data = await reader.read()
    writer.close()
    return data.split(b"\r\n\r\n", 1)[1]


async def _post(port: int, path: str, payload: object) -> bytes:
    body = json.dumps(payload).encode()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = (
        f"POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    writer.write(head.encode() + body)
    data = await reader.read()
    writer.close()
    return data.split(b"\r\n\r\n", 1)[1]


class Stream:
    """One open ``/events`` stream, reading looks as they come."""

    def __init__(self) -> None:
        self.versions: dict[int, float] = {}
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.first = asyncio.Event()

    async def open(self, port: int, path: str) -> None:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", port, limit=2**22)
        self.writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())

    async def read(self) -> None:
        assert self.reader is not None
        while True:
            line = await self.reader.readline()
            if not line:
                return
            if line.startswith(b"data: "):
                look = json.loads(line[6:])
                self.versions[int(look["version"])] = time.perf_counter()
                self.first.set()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


class Wire:
    """A watcher's event stream as a browser opens it: the bytes each look costs on the
    wire (gzip when ``packed``), told apart by unpacking as they come."""

    def __init__(self, packed: bool) -> None:
        self.packed = packed
        self.sizes: dict[int, int] = {}
        self.reader: asyncio.StreamReader | None = None

    async def run(self, port: int, path: str) -> None:
        self.reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=2**22)
        accept = "Accept-Encoding: gzip, deflate\r\n" if self.packed else ""
        writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\n{accept}\r\n".encode())
        head = await self.reader.readuntil(b"\r\n\r\n")
        assert b" 200 " in head.split(b"\r\n")[0], head
        # aiohttp answers "gzip, deflate" with deflate (zlib's format): 32 takes either.
        unpack = zlib.decompressobj(32 + zlib.MAX_WBITS) if self.packed else None
        text, wire = b"", 0
        try:
            while True:
                size_line = await self.reader.readuntil(b"\r\n")  # chunked
                size = int(size_line.strip(), 16)
                chunk = await self.reader.readexactly(size + 2)
                wire += len(size_line) + size + 2
                data = chunk[:-2]
                text += unpack.decompress(data) if unpack is not None else data
                while b"\n\n" in text:
                    event, text = text.split(b"\n\n", 1)
                    if event.startswith(b"data: "):
                        self.sizes[int(json.loads(event[6:])["version"])] = wire
                        wire = 0
        finally:
            writer.close()


async def watcher_bytes(port: int, tid: str, seats: list[str]) -> None:
    wires = [Wire(True), Wire(False)]
    tasks = [asyncio.create_task(w.run(port, f"/api/t/{tid}/events")) for w in wires]
    while not all(w.sizes for w in wires):
        for t in tasks:
            if t.done():
                t.result()  # a stream that failed says why
        await asyncio.sleep(0.01)
    first = {w.packed: next(iter(w.sizes.values())) for w in wires}
    versions: list[int] = []
    for _ in range(40):
        for seat in seats:
            state = json.loads(await _get(port, f"/api/t/{tid}/state?seat={seat}"))
            if state.get("my_turn"):
                break
        else:
            break  # the game is over
        version = int(state["version"])
        if state["awaiting"] == "swap":
            payload = {"seat": seat, "command": "keep", "version": version}
        else:
            cell = sorted(state["cells"])[0]
            move = f"1 {cell} {state['cells'][cell][0]}"
            payload = {"seat": seat, "command": "play", "move": move, "version": version}
        answer = json.loads(await _post(port, f"/api/t/{tid}/command", payload))
        assert answer.get("ok"), answer
        while not all(version + 1 in w.sizes for w in wires):
            await asyncio.sleep(0.005)
        versions.append(version + 1)
    for t in tasks:
        t.cancel()
    for w in wires:
        sizes = [w.sizes[v] for v in versions]
        kind = "gzip" if w.packed else "uncompressed"
        print(
            f"a watcher of a 4-player game, {kind}: first look {first[w.packed] / 1000:.1f} KB,"
            f" then per move median {statistics.median(sizes) / 1000:.2f} KB, largest"
            f" {max(sizes) / 1000:.2f} KB over {len(sizes)} moves"
            + (" (goal median <= 5 KB)" if w.packed else "")
        )


def first_paint(port: int, tid: str) -> list[float]:
    from playwright.sync_api import sync_playwright

    out = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for _ in range(7):
            page = browser.new_page(viewport={"width": 390, "height": 844})
            page.goto(f"http://127.0.0.1:{port}/t/{tid}")
            for _ in range(100_000):
                mark = page.evaluate(
                    "() => performance.getEntriesByName('board').map(e => e.startTime)"
                )
                if mark:
                    out.append(float(mark[0]) / 1000)
                    break
                page.wait_for_timeout(10)
            page.close()
        browser.close()
    return out


async def measure(info: dict[str, Any], pid: int, watchers: int, pages: int) -> None:
    port = info["port"]
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"machine load {load}; boards after {info['placed']} placements")
    weight = {name: len(_static(name)) for name in (PAGE, SCRIPT, AIM, ACCESS, STYLE, ACCESS_STYLE)}
    statics = sum(weight.values())
    looks = {}
    for key in ("late4", "spezial4"):
        looks[key] = len(await _get(port, f"/api/t/{info[key]}/state"))
    print(
        f"page weight: HTML {weight[PAGE] / 1000:.1f} KB + scripts"
        f" {(weight[SCRIPT] + weight[AIM] + weight[ACCESS]) / 1000:.1f} KB + styles"
        f" {(weight[STYLE] + weight[ACCESS_STYLE]) / 1000:.1f} KB = {statics / 1000:.1f} KB,"
        " fonts none (uncompressed);"
        f" with the look of a late 4-player board {(statics + looks['late4']) / 1000:.1f} KB"
        f" (look {looks['late4'] / 1000:.1f} KB), Genial Spezial 4-player"
        f" {(statics + looks['spezial4']) / 1000:.1f} KB (goal <= 150 KB)"
    )
    if os.path.exists(CHROMIUM):
        paints = await asyncio.to_thread(first_paint, port, info["late4"])
        print(
            f"first paint of a late 4-player board in headless Chromium: median"
            f" {statistics.median(paints) * 1000:.0f} ms, slowest {max(paints) * 1000:.0f} ms"
            f" of {len(paints)} loads (goal <= 1 s)"
        )
    else:
        print("first paint: no Chromium at /usr/bin/chromium (apt-get install chromium)")

    # A move to every watcher's page.
    tid = info["watched"]
    streams = [Stream() for _ in range(watchers)]
    for s in streams:
        await s.open(port, f"/api/t/{tid}/events")
    readers = [asyncio.create_task(s.read()) for s in streams]
    await asyncio.gather(*(s.first.wait() for s in streams))
    delays: list[float] = []
    seats = info["seats"]
    for _ in range(10):
        state = json.loads(await _get(port, f"/api/t/{tid}/state?seat={seats[0]}"))
        mover = 0 if state["my_turn"] else 1
        state = json.loads(await _get(port, f"/api/t/{tid}/state?seat={seats[mover]}"))
        version = int(state["version"])
        if state["awaiting"] == "swap":
            payload = {"seat": seats[mover], "command": "keep", "version": version}
        else:
            first = sorted(state["cells"])[0]
            move = f"1 {first} {state['cells'][first][0]}"
            payload = {"seat": seats[mover], "command": "play", "move": move, "version": version}
        sent = time.perf_counter()
        answer = json.loads(await _post(port, f"/api/t/{tid}/command", payload))
        assert answer.get("ok"), answer
        new = version + 1
        while not all(new in s.versions for s in streams):
            await asyncio.sleep(0.005)
        delays += [s.versions[new] - sent for s in streams]
    for s in streams:
        s.close()
    for r in readers:
        r.cancel()
    delays.sort()
    p95 = delays[int(0.95 * (len(delays) - 1))]
    print(
        f"a move to {watchers} watchers' pages: p50 {statistics.median(delays) * 1000:.0f} ms,"
        f" p95 {p95 * 1000:.0f} ms, slowest {delays[-1] * 1000:.0f} ms over 10 moves"
        f" (goal p95 <= 300 ms)"
    )

    # The bytes a move costs a watcher of a 4-player game, gzip as a browser asks and not.
    await watcher_bytes(port, info["four"], info["four_seats"])

    # Many open pages across many tables.
    before = rss_kb(pid)
    held = [Stream() for _ in info["tables"] for _ in range(pages)]
    k = 0
    for tid in info["tables"]:
        for _ in range(pages):
            await held[k].open(port, f"/api/t/{tid}/events")
            k += 1
    readers = [asyncio.create_task(s.read()) for s in held]
    await asyncio.gather(*(s.first.wait() for s in held))
    after = rss_kb(pid)
    print(
        f"{len(held)} open pages across {len(info['tables'])} tables held by one process:"
        f" server memory {before / 1024:.0f} MB before, {after / 1024:.0f} MB with them"
        f" ({(after - before) / len(held):.0f} KB a page)"
    )
    for s in held:
        s.close()
    for r in readers:
        r.cancel()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--watchers", type=int, default=200)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--pages", type=int, default=10)
    parser.add_argument("--serve", nargs=2, metavar=("DB", "TABLES"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve[0], int(args.serve[1]))
        return
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "bench.db")
        proc = subprocess.Popen(
            [sys.executable, __file__, "--serve", db, str(args.tables)],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert proc.stdout is not None
            info = json.loads(proc.stdout.readline())
            asyncio.run(measure(info, proc.pid, args.watchers, args.pages))
        finally:
            proc.terminate()
            proc.wait()


if __name__ == "__main__":
    main()
