"""The Discord client through a PostgreSQL restart and an outage (issue 23): every slash
command, button and autocomplete gets an answer (while the store is away, the service's
"not answering" in the table's last known language); nothing accepted is lost or doubled;
no traceback reaches a player or the log; the clock's due work waits and resumes by itself
once the server is back."""

from __future__ import annotations

import logging
import random
import re
from pathlib import Path

import pytest
from psycopg_pool.base import AttemptWithBackoff

from bot.store.postgres import PostgresStore
from bot.words.texts import Texts, letters
from engine.moves import Placement
from tests.bot.discord.support import World, make_move, move_options, only_answer, text, world
from tests.bot.pgserver import Server

pytestmark = pytest.mark.asyncio

GERMAN = Texts("de")
DOWN = GERMAN("error.store_down")
#: The pause psycopg_pool makes after its first failed attempt at reconnecting (1 s in the
#: library, doubled after each failure). An outage of 20 s leaves a pool that is still
#: pausing for seconds after the server is back; a first pause this long makes a short
#: outage end the same way, without waiting 20 s: the commands after the outage meet a
#: pool that has not noticed the server is back, and connect on their own.
RECONNECT_PAUSE = 120.0
#: Commands answered while the server is away, besides the ones named in the test.
DURING = 3
#: Seconds a command waits for a pooled connection here (5 in production) before it
#: connects on its own: the pool has no connection from the outage until its long pause
#: ends, so every statement after the outage waits this long first.
WAIT = 0.1
#: A move as the channel is told it in German: "Ada legt RG F7 F8:", "Computer 1 legt im
#: Bonuszug RG F7 F8:".
SAID = re.compile(r"^(?:Ada|Computer 1) legt (?:im Bonuszug )?(?P<move>[^:\n]+):", re.MULTILINE)


def announced(w: World) -> list[str]:
    """The placements the channel was told of, in order."""
    return [letters(m["move"]) for message in w.public() for m in SAID.finditer(text(message))]


def recorded(w: World) -> list[str]:
    record = w.table().record
    assert record is not None
    return [str(m) for m in record["moves"]]


def a_placement(w: World, rng: random.Random) -> Placement:
    moves = [m for m in w.game().legal_moves() if isinstance(m, Placement)]
    return rng.choice(moves)


async def test_a_restart_and_an_outage_under_a_running_discord_client(
    server: Server,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    caplog.set_level(logging.INFO)
    monkeypatch.setattr(AttemptWithBackoff, "INITIAL_DELAY", RECONNECT_PAUSE)
    rng = random.Random(23)
    async with world(tmp_path, store=lambda: PostgresStore(server.url, wait=WAIT)) as w:
        ada = w.person("Ada")
        await ada.slash(w.channel, "join")
        await ada.slash(w.channel, "option", setting="lang", value="de")
        await ada.slash(w.channel, "addbot")
        await ada.slash(w.channel, "option", setting="timeout", value="1m")
        await ada.slash(w.channel, "start")
        assert w.playing() and w.game().to_move == 0

        # A restart: the server closes every pooled connection.
        server.restart()
        await make_move(w, a_placement(w, rng))
        assert len(announced(w)) == len(recorded(w)) >= 2  # Ada's move and the answer

        game = w.game()
        refused = move_options(game, a_placement(w, rng))
        turn = w.last_public()
        moves = recorded(w)
        seen = len(w.public())
        server.halt()
        try:
            assert only_answer(await ada.slash(w.channel, "board")) == DOWN
            assert only_answer(await ada.slash(w.channel, "play", **refused)) == DOWN
            assert only_answer(await ada.click(turn, label="Meine Steine"), clicked=True) == DOWN
            # Autocomplete offers what it can without the store: no seat, so no tiles; an
            # option's values in the table's language.
            assert await ada.autocomplete(w.channel, "play", "tile", "") == []
            offered = await ada.autocomplete(w.channel, "option", "value", "", setting="hints")
            assert [c["name"] for c in offered] == [GERMAN("value.on"), GERMAN("value.off")]
            # Ada's time runs out while the store is away: the clock waits.
            await w.env.advance_time(61)
            assert len(w.public()) == seen
            for _ in range(DURING):
                assert only_answer(await ada.slash(w.channel, "score")) == DOWN
        finally:
            server.resume()
        # The pool is still pausing before its next attempt: it has no connection to give.
        assert pooled(w) == 0

        # The clock looks again by itself: the move made for Ada when her time ran out.
        await w.env.advance_time(10)
        timed_out = GERMAN("turn.timed_out", name="Ada")
        assert [m for m in w.public() if timed_out in text(m)] != []
        assert recorded(w)[: len(moves)] == moves
        assert len(recorded(w)) > len(moves)
        # And commands are carried out again.
        assert w.game().to_move == 0
        await make_move(w, a_placement(w, rng))
        # Each accepted move told once, in order; the time-out move once.
        assert announced(w) == recorded(w)
        assert len([m for m in w.public() if timed_out in text(m)]) == 1
        assert_no_traceback(w, caplog)


def pooled(w: World) -> int:
    """The idle connections the store's pool holds now."""
    store = w.service.store
    assert isinstance(store, PostgresStore)
    return int(store._pool.get_stats().get("pool_available", 0))


async def test_a_channel_of_threads_through_an_outage(
    server: Server, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """With a thread for each table, a /join in the channel reads which thread gathers
    players: while the store is away it is answered, and no second thread is opened."""
    caplog.set_level(logging.INFO)
    store = lambda: PostgresStore(server.url, wait=WAIT)  # noqa: E731
    async with world(tmp_path, store=store, threads=True) as w:
        ada, bob = w.person("Ada"), w.person("Bob")
        await ada.slash(w.channel, "join")
        [thread] = w.channel.threads
        server.halt()
        try:
            english = Texts("en")("error.store_down")
            assert only_answer(await bob.slash(w.channel, "join")) == english
            assert only_answer(await bob.slash(thread, "join")) == english
        finally:
            server.resume()
        await bob.slash(w.channel, "join")
        assert len(w.channel.threads) == 1
        assert [s.name for s in w.table(str(thread.id)).seats] == ["Ada", "Bob"]
        assert w.service.table(w.chat) is None
        assert_no_traceback(w, caplog)


def assert_no_traceback(w: World, caplog: pytest.LogCaptureFixture) -> None:
    """Nothing was logged as an error or with a traceback, and SimCord saw no exception
    escape the client."""
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == []
    assert [r.getMessage() for r in caplog.records if r.exc_info] == []
    assert w.env.errors == []
