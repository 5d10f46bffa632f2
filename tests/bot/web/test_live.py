"""The live pages' watches (bot/web/live.py) on their own, with a fake store: one watch per
table with open pages, every page told once its table's version changes, a poke looked at
at once, a store that does not answer waited out, and the watch gone with its last page.

The poll is an hour, so every look here is one the test asked for (a join or a poke), and
each wait is for the thing itself, with the usual ceiling.
"""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.web.live import Live
from tests.patience import PATIENCE

pytestmark = pytest.mark.asyncio

HOUR = 3600.0


class Store:
    """The tables' versions as a store would answer them, counting the looks; ``down``
    makes the next looks fail as a store away does."""

    def __init__(self, **versions: int) -> None:
        self.versions: dict[str, int | None] = dict(versions)
        self.looks: list[str] = []
        self.down = False
        self.looked = asyncio.Event()

    async def version_of(self, chat: str) -> int | None:
        self.looks.append(chat)
        self.looked.set()
        if self.down:
            raise ConnectionError("the store is away")
        return self.versions.get(chat)

    async def next_look(self) -> None:
        self.looked.clear()
        await asyncio.wait_for(self.looked.wait(), PATIENCE)


async def settle() -> None:
    """Let the watches run up to their next wait (they only await the store and the poll)."""
    for _ in range(5):
        await asyncio.sleep(0)


async def test_pages_are_told_when_their_table_changes_and_only_then() -> None:
    store = Store(t1=3, t2=7)
    live = Live(store.version_of, poll=HOUR)
    first = live.join("t1", 3)
    await store.next_look()  # the watch's first look: version 3, as the page was shown
    second = live.join("t1", 3)
    other = live.join("t2", 7)
    await settle()
    assert (live.tables, live.pages) == (2, 3)
    assert live.version("t1") == 3 and live.version("nowhere") is None
    assert not first.is_set() and not second.is_set() and not other.is_set()
    # A move at t1: a poke makes the watch look now, and both of its pages are told.
    store.versions["t1"] = 4
    live.poke("t1")
    live.poke("nowhere")  # a table without open pages: nothing to look at
    await asyncio.wait_for(first.wait(), PATIENCE)
    await asyncio.wait_for(second.wait(), PATIENCE)
    assert live.version("t1") == 4
    assert not other.is_set()  # t2 did not change
    await live.close()


async def test_a_page_shown_an_older_version_is_told_at_once() -> None:
    store = Store(t1=5)
    live = Live(store.version_of, poll=HOUR)
    shown = live.join("t1", 5)
    await store.next_look()
    # Loaded while a move was made: the page saw version 4, the watch knows 5.
    late = live.join("t1", 4)
    assert late.is_set() and not shown.is_set()
    await live.close()


async def test_a_store_away_is_waited_out(caplog: pytest.LogCaptureFixture) -> None:
    store = Store(t1=1)
    live = Live(store.version_of, poll=HOUR)
    page = live.join("t1", 1)
    await store.next_look()
    store.down = True
    store.versions["t1"] = 2
    with caplog.at_level(logging.WARNING, logger="bot.web.live"):
        live.poke("t1")
        await store.next_look()
        await settle()
    # The page is not told of a change nobody could read, and the watch goes on.
    assert not page.is_set() and live.version("t1") == 1
    assert [r.getMessage() for r in caplog.records] == [
        "the version of a watched table could not be read"
    ]
    store.down = False
    live.poke("t1")
    await asyncio.wait_for(page.wait(), PATIENCE)
    assert live.version("t1") == 2
    await live.close()


async def test_the_watch_stops_with_its_last_page() -> None:
    store = Store(t1=1)
    live = Live(store.version_of, poll=HOUR)
    one, two = live.join("t1", 1), live.join("t1", 1)
    await store.next_look()
    live.leave("t1", one)
    assert (live.tables, live.pages) == (1, 1)
    live.leave("t1", two)
    assert (live.tables, live.pages) == (0, 0)
    live.leave("t1", two)  # twice, or a table never watched: nothing happens
    live.leave("t9", one)
    await settle()
    looks = len(store.looks)
    live.poke("t1")  # no watch any more: no look
    await settle()
    assert len(store.looks) == looks == 1
    # A new page starts a new watch, which looks at the table again.
    again = live.join("t1", 1)
    await store.next_look()
    assert live.tables == 1 and not again.is_set()
    await live.close()


async def test_closing_tells_every_page_and_stops_every_watch() -> None:
    store = Store(t1=1, t2=1)
    live = Live(store.version_of, poll=HOUR)
    pages = [live.join("t1", 1), live.join("t2", 1), live.join("t2", 1)]
    await settle()
    await live.close()
    assert all(p.is_set() for p in pages)  # each page ends its stream
    assert (live.tables, live.pages) == (0, 0)
    looks = len(store.looks)
    live.poke("t1")
    await settle()
    assert len(store.looks) == looks


async def test_a_stop_that_comes_with_a_poke_is_not_lost() -> None:
    # A poke and the stop in one turn of the loop: the watch's wait for the poke is over
    # when the cancel arrives. asyncio.wait_for on Python 3.11 then returns instead of
    # raising, so the watch went on looking and the board's stop waited on it for good (a
    # CI run's web test hung five minutes on it). Stopped, a watch looks no more.
    store = Store(t1=1, t2=1)
    live = Live(store.version_of, poll=HOUR)
    page = live.join("t1", 1)
    live.join("t2", 1)
    await store.next_look()
    await settle()  # both watches wait for a poke
    assert sorted(store.looks) == ["t1", "t2"]
    live.poke("t1")
    live.leave("t1", page)  # the last page of t1 goes as it is poked
    await settle()
    async with asyncio.timeout(PATIENCE):
        live.poke("t2")
        await live.close()  # its cancel goes out before the watch runs again
    await settle()
    assert sorted(store.looks) == ["t1", "t2"]
