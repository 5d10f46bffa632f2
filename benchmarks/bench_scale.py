"""The bot at scale on PostgreSQL: many tables, several bot processes on one database.

Starts a throw-away PostgreSQL server (as ``tests/bot/pgserver.py`` does for the tests),
fills it with ``--tables`` tables, then prints:

- turns per second and p95 per turn with 1, 2, ... processes (``--procs``) each playing its
  share of ``--played`` tables to their end, round robin, people on both seats (no
  computer thinking), without images and (``--images N``) with images at N tables; a turn
  is the command and marking its messages delivered, as a platform does once it posted
  them (they are written to the stored outbox with the move);
- a private-chat command (``playing_tables``) with all those tables stored, alone and while
  turns are played at other tables (how much they wait for it);
- deadline catch-up after downtime: ``Service.due`` with 1,000 and 5,000 tables due
  (half-time reminders), and the ratio of the two;
- with ``--computers N`` (issue 31): turns per second with 1, 2, ... processes, each
  playing its share of N tables where a person plays against a computer player of
  ``--level`` (default ``strong``), to their end: the person's turn is a command, the
  computer's is the clock's due work (``Service.due`` for that table), as in the bot; the
  computer turns per second are what an operator plans CPU with;
- with ``--kill``: one of two processes killed with SIGKILL mid-run, a new one taking over
  its tables; every table must finish, with no accepted move lost or made twice, counted
  from the stored records against what the players were told.

Goals (issue 12, on a 2-core machine): 2 processes >= 1.7x one process's turns per second
without images; p95 per turn <= 50 ms at 10,000 tables; catch-up of 5,000 due tables at
most 5x that of 1,000; a private-chat command <= 5 ms. Not a test: figures only.

    .venv/bin/python benchmarks/bench_scale.py [--tables 10000] [--played 1000]
        [--procs 1,2,4] [--images 0] [--due 1000,5000] [--kill] [--fast]
        [--computers 0] [--level strong]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.community import reviews as reviews_module  # noqa: E402
from bot.core import games  # noqa: E402
from bot.core import tables as tables_module  # noqa: E402
from bot.core.outbound import Chat, User  # noqa: E402
from bot.core.table import Table  # noqa: E402
from bot.service import Service  # noqa: E402
from bot.store import open_store  # noqa: E402
from tests.bot.pgserver import Server  # noqa: E402

#: Distinct games dealt by the service; the stored tables are copies of them with their own
#: chat and people (the draw order repeats, which changes nothing for the store).
TEMPLATES = 20
START = 1_700_000_000.0


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def people(i: int) -> tuple[User, User]:
    return User(f"a{i}", f"Ada {i}"), User(f"b{i}", f"Bob {i}")


def fill(url: str, count: int, *, timeout: int = 0) -> None:  # timeout: 0 or 3600
    """``count`` running two-person games at chats ``t0`` .. (Ada and Bob of each table
    are people of their own), dealt by the service and copied."""
    service = Service(open_store(url), rng=random.Random(7), pictures=False)
    templates: list[Table] = []
    for i in range(TEMPLATES):
        chat = Chat(f"template-{i}", "Template")
        for person in people(i):
            service.handle(chat, person, "/join")
        service.handle(chat, people(i)[0], "/option timeout 1h" if timeout else "/help")
        service.handle(chat, people(i)[0], "/start")
        table = service.store.load(chat.id)
        assert table is not None and table.record is not None
        templates.append(table)

    def save(i: int) -> None:
        table = copy.deepcopy(templates[i % TEMPLATES])
        a, b = people(i)
        table.chat, table.title = f"t{i}", f"Table {i}"
        table.seats[0].user, table.seats[0].name = a.id, a.name
        table.seats[1].user, table.seats[1].name = b.id, b.name
        table.host, table.host_name = a.id, a.name
        table.version = 3
        if timeout:
            table.turn_started = START
            table.due_at = START + timeout / 2
        service.store.save(table, None)

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(save, range(count)))
    service.store.close()


def worker(url: str, first: int, last: int, pictures: bool, start_at: float, log: str) -> None:
    """One bot process playing tables ``first`` .. ``last - 1`` to their end, round robin;
    prints its turn times (JSON). Each accepted move goes to ``log`` (what the players
    were told) before the next command."""
    # Every played table's game stays rebuilt in memory, with one process or several:
    # otherwise one process with more tables than the cache holds would rebuild every turn
    # and the comparison would show the cache, not the processes.
    tables_module.CACHED_GAMES = max(tables_module.CACHED_GAMES, last - first)
    store = open_store(url)
    service = Service(store, rng=random.Random(first), pictures=pictures)
    rng = random.Random(first * 31 + 1)
    replicas: dict[int, games.Game] = {}
    for i in range(first, last):
        table = store.load(f"t{i}")
        assert table is not None and table.record is not None
        if table.status == "playing":
            replicas[i] = games.rebuild(table.record)  # the players' own view, not timed
    told = open(log, "a", buffering=1) if log else None  # noqa: SIM115 - kept open all run
    while time.time() < start_at:
        time.sleep(0.01)
    times: list[float] = []
    began = time.perf_counter()
    while replicas:
        for i in list(replicas):
            game = replicas[i]
            text = games.format_move(game, rng.choice(game.legal_moves()))
            command = f"/{text}" if text in ("swap", "keep") else f"/play {text}"
            seat = game.to_move
            t0 = time.perf_counter()
            out = service.handle(Chat(f"t{i}"), people(i)[seat], command)
            for said in out:  # posted: its letter leaves the outbox, as a platform says
                service.delivered(said)
            times.append(time.perf_counter() - t0)
            errors = [o.text for o in out if o.kind == "error"]
            assert not errors, (i, command, errors)
            if told is not None:
                told.write(f"t{i} {len(game.moves)} {text}\n")
            game.play_text(text, seat)
            if game.over:
                del replicas[i]
    wall = time.perf_counter() - began
    store.close()
    print(json.dumps({"times": times, "wall": wall}))


def fill_computers(url: str, first: int, count: int, level: str) -> None:
    """``count`` running games at chats ``c<first>`` .. of a person (Ada of each table) against a
    computer player of ``level``, dealt by the service and copied."""
    service = Service(open_store(url), rng=random.Random(11), pictures=False)
    templates: list[Table] = []
    for i in range(TEMPLATES):
        chat = Chat(f"template-c{first}-{i}", "Template")
        service.handle(chat, people(i)[0], "/join")
        service.handle(chat, people(i)[0], f"/addbot {level}")
        service.handle(chat, people(i)[0], "/start")
        table = service.store.load(chat.id)
        assert table is not None and table.record is not None, "the computer table did not start"
        templates.append(table)
    for i in range(first, first + count):
        table = copy.deepcopy(templates[i % TEMPLATES])
        a = people(i)[0]
        table.chat, table.title = f"c{i}", f"Computer table {i}"
        for seat in table.seats:
            if not seat.computer:
                seat.user, seat.name = a.id, a.name
        table.host, table.host_name = a.id, a.name
        service.store.save(table, None)
    service.store.close()


def computer_worker(url: str, first: int, last: int, start_at: float) -> None:
    """One bot process playing computer tables ``first`` .. ``last - 1`` to their end, round
    robin: the person's move as a command, then the clock's due work at that table (the
    computer's turn); prints the times of both kinds of turn, in wall and CPU time (JSON)."""
    tables_module.CACHED_GAMES = max(tables_module.CACHED_GAMES, last - first)
    # Turns only: a finished game's review (the expert's, and the puzzle search) is due
    # work of its own, run at some later due call or not before this loop ends, which
    # would make the figures depend on which move ended each game; its CPU per game is
    # benchmarks/bench_review.py's figure.
    reviews_module.due = lambda tables, chat, now: None
    store = open_store(url)
    service = Service(store, rng=random.Random(first), pictures=False)
    rng = random.Random(first * 31 + 1)
    live = {i for i in range(first, last)}
    replicas: dict[int, games.Game] = {}  # each table's game as its players see it
    while time.time() < start_at:
        time.sleep(0.01)
    person: list[float] = []
    computer: list[float] = []
    computer_cpu: list[float] = []
    began, began_cpu = time.perf_counter(), time.process_time()
    while live:
        for i in sorted(live):
            chat = f"c{i}"
            table = store.load(chat)  # what the person sees (not timed)
            assert table is not None and table.record is not None
            if table.status != "playing":
                live.discard(i)
                continue
            # Brought up to date with the moves made since (replaying the whole record
            # every turn would cost this loop more than the service's turn).
            game = replicas.get(i) or replicas.setdefault(i, games.rebuild(table.record))
            for text in table.record["moves"][len(game.moves) :]:
                game.play_text(text)
            seat = table.seats[game.to_move]
            if seat.computer:  # the clock's turn: the computer player thinks and plays
                t0, c0 = time.perf_counter(), time.process_time()
                for said in service.due(chat=chat):
                    service.delivered(said)
                computer.append(time.perf_counter() - t0)
                computer_cpu.append(time.process_time() - c0)
                continue
            text = games.format_move(game, rng.choice(game.legal_moves()))
            command = f"/{text}" if text in ("swap", "keep") else f"/play {text}"
            t0 = time.perf_counter()
            out = service.handle(Chat(chat), people(i)[0], command)
            for said in out:
                service.delivered(said)
            person.append(time.perf_counter() - t0)
            errors = [o.text for o in out if o.kind == "error"]
            assert not errors, (i, command, errors)
    wall = time.perf_counter() - began
    cpu = time.process_time() - began_cpu
    store.close()
    result = {"person": person, "computer": computer, "computer_cpu": computer_cpu}
    print(json.dumps({**result, "wall": wall, "cpu": cpu}))


def drive_computers(url: str, procs: int, first: int, played: int) -> str:
    """``procs`` processes playing the ``played`` computer tables from ``first`` on; their
    figures."""
    share = played // procs
    start_at = time.time() + 3.0
    runs = [
        subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--computer-worker",
                url,
                str(first + k * share),
                str(first + (k + 1) * share),
                str(start_at),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        for k in range(procs)
    ]
    results = [json.loads(run.communicate()[0]) for run in runs]
    wall = max(r["wall"] for r in results)
    person = [t * 1000 for r in results for t in r["person"]]
    computer = [t * 1000 for r in results for t in r["computer"]]
    computer_cpu = [t * 1000 for r in results for t in r["computer_cpu"]]
    turns = len(person) + len(computer)
    return (
        f"{procs} process(es), {share * procs} tables person v computer: {turns} turns,"
        f" {turns / wall:.1f} turns/s ({len(computer) / wall:.1f} computer turns/s);"
        f" computer turn p50 {statistics.median(computer):.0f} ms, p95"
        f" {percentile(computer, 95):.0f} ms wall, CPU p50"
        f" {statistics.median(computer_cpu):.0f} ms; person turn p50"
        f" {statistics.median(person):.1f} ms"
    )


def drive(url: str, procs: int, first: int, played: int, pictures: bool) -> dict[str, float]:
    """``procs`` processes playing ``played`` tables from ``first`` on; their figures."""
    share = played // procs
    start_at = time.time() + 3.0  # every process has loaded its tables by then
    runs = [
        subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--worker",
                url,
                str(first + k * share),
                str(first + (k + 1) * share),
                "1" if pictures else "0",
                str(start_at),
                "",
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        for k in range(procs)
    ]
    results = [json.loads(run.communicate()[0]) for run in runs]
    times = [t * 1000 for r in results for t in r["times"]]
    wall = max(r["wall"] for r in results)
    return {
        "turns": len(times),
        "per_s": len(times) / wall,
        "p50": statistics.median(times),
        "p95": percentile(times, 95),
    }


def private_chat(url: str, tables: int, rounds: int = 200) -> tuple[float, float, float]:
    """p95 of ``playing_tables`` for one person; p95 of turns at other tables without and
    while another thread keeps asking for it."""
    service = Service(open_store(url), rng=random.Random(5), pictures=False)
    who = people(tables - 1)[0].id
    lookups = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        found = service.playing_tables(who)
        lookups.append((time.perf_counter() - t0) * 1000)
        assert found == [f"t{tables - 1}"], found

    def turns(base: int, n: int) -> list[float]:
        rng = random.Random(base)
        out = []
        for i in range(base, base + n):
            table = service.store.load(f"t{i}")
            assert table is not None and table.record is not None
            game = games.rebuild(table.record)
            text = games.format_move(game, rng.choice(game.legal_moves()))
            command = f"/{text}" if text in ("swap", "keep") else f"/play {text}"
            t0 = time.perf_counter()
            for said in service.handle(Chat(f"t{i}"), people(i)[game.to_move], command):
                service.delivered(said)
            out.append((time.perf_counter() - t0) * 1000)
        return out

    alone = turns(tables - 400, 150)
    stop = threading.Event()

    def ask() -> None:
        while not stop.is_set():
            service.playing_tables(who)

    asker = threading.Thread(target=ask)
    asker.start()
    busy = turns(tables - 200, 150)
    stop.set()
    asker.join()
    service.store.close()
    return percentile(lookups, 95), percentile(alone, 95), percentile(busy, 95)


def catch_up(server: Server, due: int) -> float:
    """Seconds ``Service.due`` takes for ``due`` tables whose reminders fell due while the
    bot was down (a fresh database of just those tables)."""
    url = server.url.replace("/genial", f"/due{due}")
    subprocess.run(
        [
            *server._as,
            str(server.bin / "createdb"),
            "-h",
            "127.0.0.1",
            "-p",
            str(server.port),
            "-U",
            "postgres",
            f"due{due}",
        ],
        check=True,
    )
    fill(url, due, timeout=3600)
    service = Service(
        open_store(url), rng=random.Random(1), pictures=False, clock=lambda: START + 1800
    )
    t0 = time.perf_counter()
    out = service.due(START + 1800)
    elapsed = time.perf_counter() - t0
    assert len(out) == due and {o.kind for o in out} == {"reminder"}, len(out)
    service.store.close()
    return elapsed


def killed(url: str, first: int, played: int) -> str:
    """Two processes play; one is killed mid-run and a new one finishes its tables. Checks
    the stored records against what the players were told."""
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"genial-told-{os.getpid()}.txt"
    log.unlink(missing_ok=True)
    half = played // 2

    def start(a: int, b: int) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--worker",
                url,
                str(a),
                str(b),
                "0",
                str(time.time()),
                str(log),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )

    victim = start(first, first + half)
    other = start(first + half, first + played)
    # Killed mid-run: once the two have told some hundreds of moves (starting takes a
    # while, more on a busy machine), not after a fixed time.
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if log.exists() and len(log.read_text().splitlines()) >= 3 * played:
            break
        time.sleep(0.05)
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    before_kill = len(log.read_text().splitlines())
    heir = start(first, first + half)  # a new process takes the killed one's tables over
    heir.communicate()
    other.communicate()
    store = open_store(url)
    told: dict[str, dict[int, list[str]]] = {}
    for line in log.read_text().splitlines():
        chat, index, text = line.split(" ", 2)
        told.setdefault(chat, {}).setdefault(int(index), []).append(text)
    lost = twice = unfinished = 0
    for i in range(first, first + played):
        table = store.load(f"t{i}")
        assert table is not None and table.record is not None
        unfinished += table.status == "playing"
        moves = table.record["moves"]  # the record keeps each move as its text
        for index, texts in told.get(f"t{i}", {}).items():
            twice += len(texts) - 1  # told accepted twice for one place in the game
            lost += index >= len(moves) or moves[index] != texts[0]
    store.close()
    log.unlink()
    told_moves = sum(len(v) for d in told.values() for v in d.values())
    return (
        f"kill: {played} tables, one of 2 processes killed after {before_kill} moves of"
        f" {told_moves} told accepted; unfinished {unfinished},"
        f" lost {lost}, made twice {twice}"
    )


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--computer-worker":
        url, a, b, start_at = sys.argv[2:6]
        computer_worker(url, int(a), int(b), float(start_at))
        return 0
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        url, a, b, pictures, start_at, log = sys.argv[2:8]
        worker(url, int(a), int(b), pictures == "1", float(start_at), log)
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=10_000)
    parser.add_argument("--played", type=int, default=1_000, help="tables played to the end")
    parser.add_argument("--procs", default="1,2,4", help="numbers of processes to compare")
    parser.add_argument("--images", type=int, default=0, help="tables played with images")
    parser.add_argument("--due", default="1000,5000", help="due tables at catch-up")
    parser.add_argument("--kill", action="store_true", help="the SIGKILL run")
    parser.add_argument("--fast", action="store_true", help="server without fsync")
    parser.add_argument("--computers", type=int, default=0, help="person v computer tables")
    parser.add_argument("--level", default="strong", help="the computer players' level")
    args = parser.parse_args()
    print(f"PostgreSQL, fsync {'off' if args.fast else 'on'}; {os.cpu_count()} cores")
    server = Server(fast=args.fast)
    try:
        t0 = time.perf_counter()
        fill(server.url, args.tables)
        print(f"stored {args.tables} tables in {time.perf_counter() - t0:.1f} s")
        if args.computers:
            n = args.computers
            print(f"computer players: {args.level}; load average {os.getloadavg()[0]:.1f}")
            for k, procs in enumerate(int(p) for p in args.procs.split(",")):
                # Fresh tables for each count of processes, dealt alike: the same games.
                fill_computers(server.url, k * n, n, args.level)
                print(drive_computers(server.url, procs, k * n, n), flush=True)
        first = 0
        per_s: dict[int, float] = {}
        for images, played in ((False, args.played), (True, args.images)):
            if not played:
                continue
            for procs in (int(p) for p in args.procs.split(",")):
                r = drive(server.url, procs, first, played, images)
                first += played
                per_s[procs] = r["per_s"] if not images else per_s.get(procs, 0.0)
                print(
                    f"{procs} process(es), {played} tables {'with' if images else 'without'}"
                    f" images: {r['turns']:.0f} turns, {r['per_s']:.0f} turns/s,"
                    f" p50 {r['p50']:.1f} ms, p95 {r['p95']:.1f} ms (goal <= 50)"
                )
        for procs in sorted(p for p in per_s if p > 1 and 1 in per_s):
            goal = " (goal >= 1.7x)" if procs == 2 else ""
            print(f"{procs} processes / 1 process: {per_s[procs] / per_s[1]:.2f}x{goal}")
        if args.tables < 600:  # it plays at tables from the 400th last on
            print("private-chat command: skipped (needs --tables 600 or more)")
        else:
            lookup, alone, busy = private_chat(server.url, args.tables)
            print(
                f"private-chat command (playing_tables) at {args.tables} tables:"
                f" p95 {lookup:.2f} ms (goal <= 5); turns at other tables p95 {alone:.1f} ms"
                f" alone, {busy:.1f} ms while it runs in a loop"
            )
        if args.kill:
            print(killed(server.url, first, min(args.played, 200)))
        spans = {}
        for due in (int(d) for d in args.due.split(",") if d):
            spans[due] = catch_up(server, due)
            print(f"catch-up: {due} tables due, {spans[due]:.2f} s")
        if len(spans) == 2:
            (a, ta), (b, tb) = sorted(spans.items())
            print(f"catch-up {b} / {a}: {tb / ta:.2f}x (goal <= {b / a:.0f}x)")
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
