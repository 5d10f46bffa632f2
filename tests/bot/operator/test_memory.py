"""Giving freed memory back: on glibc (this project's Linux machines and CI) a heap with
freed holes shrinks in resident size once the bot gives it back."""

from __future__ import annotations

import json
import logging
import os
import platform
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from bot.operator import memory
from tests.patience import PATIENCE

#: Run in a process of its own: a heap that has served a thousand tests before (hundreds of
#: MB, some of it in huge pages the kernel made of it) does not show what one trim gives
#: back, and the figures below are about a bot's heap, not pytest's.
HOLES = """
import gc, json, os
from bot.operator import memory

PAGE = os.sysconf("SC_PAGE_SIZE")

def resident_mb():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE / 2**20

gc.collect()
memory.give_back()  # start from a trimmed heap
# 60,000 blocks of about 1 KiB (above Python's small-object size, so from malloc), and
# every eighth kept: the other seven of each eight leave 7 KiB holes in the middle of the
# heap, whole pages that glibc keeps for later unless asked to give them back.
blocks = [bytes(1000) for _ in range(60_000)]
kept = blocks[::8]
del blocks
gc.collect()
before = resident_mb()
trimmed = memory.give_back()
after = resident_mb()
print(json.dumps({"before": before, "after": after, "trimmed": trimmed, "kept": len(kept)}))
"""


def run_alone(script: str) -> Any:
    """What ``script`` prints (JSON), run in a new process with the project importable."""
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    return json.loads(done.stdout)


def test_glibc_gives_the_holes_of_its_heap_back() -> None:
    assert platform.libc_ver()[0] == "glibc"  # the machines this bot is run and tested on
    got = run_alone(HOLES)
    assert got["trimmed"] is True and got["kept"] == 7500
    # About 7/8 of 60 MB is free, in holes of 7 KiB: at least one whole 4 KiB page in each.
    assert got["before"] - got["after"] >= 15, got


def test_the_thread_is_started_once() -> None:
    assert memory.keep_giving_back(every=3600) is True
    first = memory._thread
    assert first is not None and first.is_alive() and first.daemon
    assert memory.keep_giving_back(every=3600) is True
    assert memory._thread is first
    assert sum(t.name == "genial-memory" for t in threading.enumerate()) == 1


def test_without_malloc_trim_nothing_is_tried(monkeypatch: pytest.MonkeyPatch) -> None:
    """musl and macOS have no ``malloc_trim``, and a C library may not load at all: then
    nothing is given back and no thread is started, and the bot runs on."""

    def no_library(name: object) -> object:
        raise OSError("no C library")

    monkeypatch.setattr(memory.ctypes, "CDLL", no_library)
    assert memory._malloc_trim() is None
    monkeypatch.setattr(memory.ctypes, "CDLL", lambda name: object())  # no malloc_trim
    assert memory._malloc_trim() is None
    monkeypatch.setattr(memory, "_TRIM", None)
    monkeypatch.setattr(memory, "_thread", None)
    assert memory.give_back() is False
    assert memory.keep_giving_back(every=0.01) is False
    assert memory._thread is None


def test_the_thread_trims_again_and_again_and_outlives_a_failed_trim(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Every ``every`` seconds a trim; one that fails is logged and the next ones come."""
    calls: list[int] = []
    third = threading.Event()

    def trim(pad: int) -> int:
        calls.append(pad)
        if len(calls) == 1:
            raise RuntimeError("the allocator said no")
        if len(calls) == 3:
            third.set()
            threading.Event().wait()  # parks this test's thread for good (a daemon)
        return 1

    monkeypatch.setattr(memory, "_TRIM", trim)
    monkeypatch.setattr(memory, "_thread", None)
    with caplog.at_level(logging.ERROR, logger=memory.__name__):
        assert memory.keep_giving_back(every=0.01) is True
        mine = memory._thread
        assert mine is not None and mine.daemon and mine.is_alive()
        mine.name = "genial-memory-under-test"  # not the process's own trimming thread
        assert third.wait(PATIENCE), "no more trims after a failed one"
    assert calls == [0, 0, 0]  # malloc_trim(0): keep no padding at the top of the heap
    assert [r.getMessage() for r in caplog.records] == ["giving memory back failed"]


#: A started bot's objects frozen: run in a process of its own (freezing pytest's heap would
#: keep the test run's garbage for good).
SETTLE = """
import gc, json
import bot.service, render
from bot.operator import memory
held = [{"table": n} for n in range(1000)]  # a start's tables, say
frozen = memory.settle()
made_after = [{"turn": 1}]
tracked = gc.get_objects()  # generations 0-2: what a collection walks
print(json.dumps({
    "frozen": frozen,
    "held_walked": any(o is held for o in tracked),
    "after_walked": any(o is made_after for o in tracked),
}))
"""


def test_settle_takes_the_start_ups_objects_out_of_the_collectors_walks() -> None:
    """After :func:`memory.settle` a full collection walks only what was made since: what
    the start built (modules, the 1000 tables made before it) is frozen, a list made after
    is not."""
    got = run_alone(SETTLE)
    assert got["frozen"] > 10_000  # the bot's modules and the tables: tens of thousands
    assert got["held_walked"] is False
    assert got["after_walked"] is True
