"""Discord misbehaves (issue 17): the bot keeps running, every accepted move is announced
exactly once, in order, once Discord takes messages again, and a table whose channel is gone
is closed with its computer players stopped."""

from __future__ import annotations

import itertools
import logging
import random
import re
from pathlib import Path
from typing import Any

import pytest

from bot.core import games
from bot.core.table import CLOSED
from bot.discord.delivery import RETRY_LONGEST
from bot.store import StoreDown
from bot.words.texts import letters
from engine.moves import SwapChoice
from tests.bot.discord.faults import (
    RETRY_AFTER,
    Faults,
    disconnect,
    injecting,
    resume,
)
from tests.bot.discord.support import World, move_options, text, world

pytestmark = pytest.mark.asyncio

NAMES = "Ada|Bob|Computer 1"
#: A move as the channel is told it: "Ada placed RG F7 F8:", "... made a bonus placement,
#: RG F7 F8:", "Ada swapped all tiles.", "Ada kept the tiles."
SAID = re.compile(
    rf"^(?:(?:{NAMES}) (?:placed|made a bonus placement,) (?P<move>.+?):"
    rf"|(?:{NAMES}) (?P<swap>swapped all tiles|kept the tiles)\.)",
    re.MULTILINE,
)
#: Everything the bot says is in a channel message, never twice: one per kind of call.
KINDS = ("post", "edit", "ack", "followup", "original")


def announced(w: World) -> list[str]:
    """The moves the channel was told of, in order, as the record writes them."""
    out: list[str] = []
    for message in w.public():
        for m in SAID.finditer(text(message)):
            swap = m.group("swap")
            out.append(
                letters(m.group("move")) if swap is None else swap.split()[0].replace("ped", "")
            )
    return out


def recorded(w: World) -> list[str]:
    record = w.table().record
    assert record is not None
    return [str(m) for m in record["moves"]]


async def seat_ada_and_a_computer(w: World) -> None:
    ada = w.person("Ada")
    await ada.slash(w.channel, "join")
    await ada.slash(w.channel, "addbot")
    await ada.slash(w.channel, "start")


async def ada_plays(w: World, rng: random.Random, turns: int) -> int:
    """Ada makes up to ``turns`` random legal moves by slash commands (the computer player
    answers each); how many she made."""
    made = 0
    for _ in range(turns):
        if not w.playing():
            break
        game = w.game()
        assert game.to_move == 0, "the computer player has moved by itself"
        move = rng.choice(game.legal_moves())
        ada = w.person("Ada")
        if isinstance(move, SwapChoice):
            await ada.slash(w.channel, games.format_move(game, move))
        else:
            await ada.slash(w.channel, "play", **move_options(game, move))
        made += 1
    return made


async def recover(w: World, faults: Faults) -> None:
    """Discord works again; the clock's next look posts what waited."""
    faults.clear()
    await w.env.advance_time(RETRY_LONGEST + 1)


def assert_each_move_said_once(w: World) -> None:
    moves = recorded(w)
    assert len(moves) > 4
    assert announced(w) == moves


# --- Discord refuses or loses calls, then recovers ---------------------------------------


@pytest.mark.parametrize(
    "fault", ["rate_limit", "server_error", "timeout", "dropped", "lost_answer"]
)
async def test_flaky_discord_loses_and_doubles_nothing(tmp_path: Path, fault: str) -> None:
    faults = Faults(seed=5)
    with injecting(faults):
        async with world(tmp_path) as w:
            await seat_ada_and_a_computer(w)
            for kind in KINDS:
                faults.inject(kind, fault, rate=0.3)
            made = await ada_plays(w, random.Random(11), 14)
            # The bot kept going: every command reached the table.
            assert made == 14 or not w.playing()
            assert sum(faults.injected.values()) > 5
            await recover(w, faults)
            assert_each_move_said_once(w)
            # Nothing stays held back.
            assert w.client._delivery.retry_at == {} and not w.service.anything_waiting()
    if fault == "lost_answer":
        # Messages Discord had made though the answer was lost were sent again with the same
        # nonce and not made a second time.
        assert faults.repeated > 0


async def test_no_board_is_posted_twice(tmp_path: Path) -> None:
    faults = Faults(seed=8)
    with injecting(faults):
        async with world(tmp_path, pictures=True) as w:
            await seat_ada_and_a_computer(w)
            faults.inject("post", "lost_answer", rate=0.4)
            await ada_plays(w, random.Random(12), 5)
            await recover(w, faults)
            assert faults.injected["post", "lost_answer"] > 0
            assert_each_move_said_once(w)
            boards = [
                a.filename
                for m in w.public()
                for a in m.attachments
                if a.filename.startswith("board-")
            ]
            # One board per message the channel was told: the start, then each of Ada's
            # moves told together with the computer player's answer, each once.
            assert len(boards) == len(set(boards)) == 1 + 5


async def test_moves_wait_while_discord_says_wait(tmp_path: Path) -> None:
    faults = Faults()
    with injecting(faults):
        async with world(tmp_path) as w:
            await seat_ada_and_a_computer(w)
            before = announced(w)
            faults.inject("post", "rate_limit")
            await ada_plays(w, random.Random(2), 3)
            # Held back, not lost: the moves are in the record, the channel not told yet.
            assert len(recorded(w)) >= 6
            assert announced(w) == before
            await recover(w, faults)
            assert_each_move_said_once(w)


async def test_a_rate_limit_is_waited_out(tmp_path: Path) -> None:
    faults = Faults()
    with injecting(faults):
        async with world(tmp_path) as w:
            await seat_ada_and_a_computer(w)
            faults.clock = w.service.clock
            faults.inject("post", "rate_limit")
            await ada_plays(w, random.Random(3), 3)
            await w.env.advance_time(4 * RETRY_AFTER)
            # The moves after the refused post wait behind it, and no try comes before
            # Discord's Retry-After has passed.
            tries = [at for at, kind, _ in faults.log if kind == "post"]
            assert len(tries) >= 3
            gaps = [b - a for a, b in itertools.pairwise(tries)]
            # ... and the clock tries again as soon as it has.
            assert all(RETRY_AFTER <= gap < RETRY_AFTER + 1 for gap in gaps), gaps
            await recover(w, faults)
            assert_each_move_said_once(w)


async def test_one_tables_trouble_holds_up_no_other(tmp_path: Path) -> None:
    faults = Faults()
    with injecting(faults):
        async with world(tmp_path) as w:
            other = w.guild.create_text_channel("genial-2")
            faults.inject("*", "server_error", chat=other.id)
            bob = w.person("Bob")
            await bob.slash(other, "join")
            await bob.slash(other, "addbot")
            await bob.slash(other, "start")
            assert other.history() == []
            assert w.service.table(str(other.id)) is not None
            # Meanwhile in #genial everything is said at once.
            await seat_ada_and_a_computer(w)
            await ada_plays(w, random.Random(9), 3)
            assert_each_move_said_once_so_far(w)
            await recover(w, faults)
            said = [text(m) for m in other.history() if not m.flags.ephemeral]
            # The lobby (edited in place once it was posted), then the start.
            assert len(said) == 2
            assert "1. Bob" in said[0] and "2. Computer 1" in said[0]
            assert said[1].startswith(f"<@{bob.id}>\nThe game begins: Genial.")


async def test_closed_or_flaky_direct_messages_hold_up_nothing(tmp_path: Path) -> None:
    faults = Faults(seed=3)
    with injecting(faults):
        async with world(tmp_path, dm=True) as w:
            ada, bob = w.person("Ada"), w.person("Bob")
            await ada.slash(w.channel, "join")
            await bob.slash(w.channel, "join")
            faults.inject("dm", "dm_closed", rate=0.5)
            faults.inject("dm", "server_error", rate=0.5)
            await ada.slash(w.channel, "start")
            rng = random.Random(1)
            for _ in range(8):
                game = w.game()
                person = w.to_move()
                move = rng.choice(game.legal_moves())
                if isinstance(move, SwapChoice):
                    await person.slash(w.channel, games.format_move(game, move))
                else:
                    await person.slash(w.channel, "play", **move_options(game, move))
                # Every move is said in the channel at once: direct messages hold up nothing.
                assert_each_move_said_once_so_far(w)
            assert faults.injected["dm", "dm_closed"] + faults.injected["dm", "server_error"] > 0


async def test_a_missing_permission_holds_messages_until_granted(tmp_path: Path) -> None:
    faults = Faults()
    with injecting(faults):
        async with world(tmp_path) as w:
            await seat_ada_and_a_computer(w)
            faults.inject("post", "missing_permissions")
            await ada_plays(w, random.Random(4), 4)
            assert announced(w) == []
            assert w.table().status != CLOSED  # a permission may come back: not closed
            await recover(w, faults)
            assert_each_move_said_once(w)


async def test_a_vanished_message_is_posted_anew(tmp_path: Path) -> None:
    faults = Faults()
    with injecting(faults):
        async with world(tmp_path) as w:
            ada, bob = w.person("Ada"), w.person("Bob")
            await ada.slash(w.channel, "join")
            # The lobby was deleted: editing it fails, taking buttons off it fails.
            faults.inject("edit", "unknown_message")
            await bob.slash(w.channel, "join")
            lobbies = [m for m in w.public() if "1. Ada" in text(m)]
            assert len(lobbies) == 2
            assert "2. Bob" in text(lobbies[-1]) and "2. Bob" not in text(lobbies[0])
            faults.clear()
            await ada.slash(w.channel, "addbot")
            # The lobby posted anew is the one edited now: no third lobby.
            lobbies = [m for m in w.public() if "1. Ada" in text(m)]
            assert len(lobbies) == 2
            assert "3. Computer 1" in text(lobbies[-1])


async def test_expired_interaction_tokens(tmp_path: Path) -> None:
    faults = Faults()
    with injecting(faults):
        async with world(tmp_path) as w:
            ada = w.person("Ada")
            await ada.slash(w.channel, "join")
            await ada.slash(w.channel, "addbot")
            lobby = w.last_public()
            # A button pressed on a lobby whose interaction expires before the bot edits it.
            faults.inject("original", "expired")
            faults.inject("followup", "expired")
            await ada.click(lobby, label="Start")
            assert w.playing()
            assert "Start" not in [b for b in _labels(w, lobby.id)]
            # Slash commands whose acknowledgement comes too late are still carried out.
            faults.inject("ack", "expired")
            await ada_plays(w, random.Random(6), 5)
            await recover(w, faults)
            assert_each_move_said_once(w)
            assert faults.injected["ack", "expired"] >= 5


def _labels(w: World, message_id: int) -> list[str]:
    message = next(m for m in w.public() if m.id == message_id)
    return [c.label for row in message.components for c in row.children]  # type: ignore[union-attr]


# --- the gateway drops and comes back --------------------------------------------------


async def test_a_gateway_disconnect_and_resume(tmp_path: Path) -> None:
    faults = Faults()
    with injecting(faults):
        async with world(tmp_path) as w:
            ada = w.person("Ada")
            await ada.slash(w.channel, "join")
            await ada.slash(w.channel, "addbot")
            await ada.slash(w.channel, "option", setting="timeout", value="1m")
            await ada.slash(w.channel, "start")
            said = len(announced(w))
            # The network is gone: no event arrives, no call gets through. Ada's time runs
            # out; the clock moves for her, the computer player answers.
            await disconnect(w.env, w.client)
            faults.inject("*", "dropped")
            await w.env.advance_time(61)
            assert len(recorded(w)) >= said + 2
            assert len(announced(w)) == said
            faults.clear()
            await resume(w.env, w.client)
            # Back at once, not after the wait the last failure set.
            assert w.client._delivery.retry_at == {} and not w.service.anything_waiting()
            assert_each_move_said_once_so_far(w)


def assert_each_move_said_once_so_far(w: World) -> None:
    assert announced(w) == recorded(w)


# --- the channel is gone -------------------------------------------------------------------


async def _computer_thinking_later(w: World) -> None:
    """A game where the computer player is due next (Ada times out by the clock)."""
    ada = w.person("Ada")
    await ada.slash(w.channel, "join")
    await ada.slash(w.channel, "addbot")
    await ada.slash(w.channel, "option", setting="timeout", value="1m")
    await ada.slash(w.channel, "start")


def assert_closed_and_still(w: World, moves: int) -> None:
    table = w.table()
    assert table.status == CLOSED
    assert table.due_at is None
    assert len(recorded(w)) == moves
    assert w.chat not in w.service.store.due(w.service.clock() + 10**6)


async def test_a_deleted_channel_closes_its_table(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        await _computer_thinking_later(w)
        moves = len(recorded(w))
        w.env.backend.delete_channel(w.channel.id)
        await w.env.settle()
        assert_closed_and_still(w, moves)
        # Time passes: nobody moves at the closed table, nothing fails.
        await w.env.advance_time(600)
        assert_closed_and_still(w, moves)


async def test_a_channel_deleted_while_the_store_is_away_is_closed_at_its_next_post(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with world(tmp_path) as w:
        await _computer_thinking_later(w)
        moves = len(recorded(w))
        store = w.service.store
        real_load = store.load

        def away(chat: str) -> Any:
            raise StoreDown("the server is restarting")

        monkeypatch.setattr(store, "load", away)
        with caplog.at_level(logging.WARNING):
            w.env.backend.delete_channel(w.channel.id)
            await w.env.settle()
        # A warning, no traceback; the table is still open.
        assert [r.exc_info for r in caplog.records if r.name == "bot.discord.delivery"] == [None]
        assert "could not close table" in caplog.text
        monkeypatch.setattr(store, "load", real_load)
        assert w.table().status != CLOSED
        # The store is back: the reminder at half time finds the channel gone and closes it.
        await w.env.advance_time(31)
        assert_closed_and_still(w, moves)


async def test_removing_the_bot_closes_the_servers_tables(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        await _computer_thinking_later(w)
        moves = len(recorded(w))
        w.env.backend.remove_guild(w.guild.id)
        await w.env.settle()
        await w.env.advance_time(600)
        assert_closed_and_still(w, moves)


async def test_a_deleted_thread_closes_its_table(tmp_path: Path) -> None:
    async with world(tmp_path, threads=True) as w:
        ada = w.person("Ada")
        await ada.slash(w.channel, "join")
        [thread] = w.channel.threads
        await ada.slash(thread, "addbot")
        await ada.slash(thread, "start")
        chat = str(thread.id)
        assert w.table(chat).status != CLOSED
        w.env.backend.delete_channel(thread.id)
        await w.env.settle()
        assert w.table(chat).status == CLOSED
        assert chat not in w.service.store.due(w.service.clock() + 10**6)


@pytest.mark.parametrize("fault", ["unknown_channel", "missing_access"])
async def test_a_channel_found_gone_when_posting_closes_its_table(
    tmp_path: Path, fault: str
) -> None:
    # The channel went while the bot was not listening (no event came): the first post
    # there tells.
    faults = Faults()
    with injecting(faults):
        async with world(tmp_path) as w:
            await _computer_thinking_later(w)
            moves = len(recorded(w))
            faults.inject("*", fault, chat=w.channel.id)
            # Half Ada's time: the reminder finds the channel gone.
            await w.env.advance_time(31)
            assert_closed_and_still(w, moves)
            assert not w.service.anything_waiting()
            # Her time runs out: nobody plays for her at a closed table.
            await w.env.advance_time(600)
            assert_closed_and_still(w, moves)


async def test_a_command_that_finds_the_channel_gone_closes_its_table(tmp_path: Path) -> None:
    faults = Faults()
    with injecting(faults):
        async with world(tmp_path) as w:
            await seat_ada_and_a_computer(w)
            faults.inject("post", "unknown_channel", chat=w.channel.id)
            # Ada's move is taken; telling the channel finds it gone.
            await ada_plays(w, random.Random(5), 1)
            moves = len(recorded(w))
            assert moves >= 1
            assert_closed_and_still(w, moves)
            await w.env.advance_time(600)
            assert_closed_and_still(w, moves)
