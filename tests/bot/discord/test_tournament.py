"""A tournament on Discord (issue 30), end to end in SimCord's simulated Discord: made,
joined and started by ``/tournament`` in a channel, each table in a thread the bot opens
for it, the moves made with ``/play`` in that thread, the winner announced in the channel.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from bot.core import games
from engine.moves import SwapChoice
from tests.bot.discord.support import World, labels, move_options, only_answer, text, world

pytestmark = [pytest.mark.asyncio, pytest.mark.usefixtures("backend")]


def cup_data(w: World, tid: str) -> dict[str, Any]:
    found = w.service.store.load_tournament(tid)
    assert found is not None
    return found[1]


async def play_in_thread(w: World, table: str, thread: Any, rng: random.Random) -> None:
    """The table's players make random legal moves in its thread until the game ends."""
    for _ in range(500):
        t = w.service.table(table)
        assert t is not None
        if t.status != "playing":
            return
        game = games.rebuild(t.record or {})
        person = next(p for p in w.people.values() if str(p.id) == t.seats[game.to_move].user)
        move = rng.choice(game.legal_moves())
        if isinstance(move, SwapChoice):
            label = "Swap" if games.format_move(game, move) == "swap" else "Keep"
            last = next(m for m in reversed(thread.history()) if label in labels(m))
            await person.click(last, label=label)
        else:
            await person.slash(thread, "play", **move_options(game, move))
    raise AssertionError("the game did not end")


async def test_a_tournament_plays_each_table_in_a_thread_of_its_own(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        people = [w.person(n) for n in ("Ada", "Bob", "Cy", "Dee")]
        ada, bob = people[0], people[1]
        await ada.slash(w.channel, "tournament", action="new", details="swiss 1 round 2 players 1d")
        (tid,) = w.service.store.tournaments_of(w.chat)
        for person in people:
            await person.slash(w.channel, "tournament", action="join", details=tid)
        result = await bob.slash(w.channel, "tournament", action="start")
        assert "Only the host, Ada, or a chat admin" in only_answer(result)
        await ada.slash(w.channel, "tournament", action="start")
        r = cup_data(w, tid)["played"][0]
        threads = {str(t.id): t for t in w.channel.threads}
        assert sorted(t.name for t in threads.values()) == [
            f"Tournament of #genial (Board games) ({tid}), round 1, table 1",
            f"Tournament of #genial (Board games) ({tid}), round 1, table 2",
        ]
        rng = random.Random(9)
        for p in r["pairings"]:
            (place,) = set(p["seen_at"].values())
            thread = threads[place]
            # The game begins in the table's thread, with the first player named.
            assert any("The game begins" in text(m) for m in thread.history())
            await play_in_thread(w, p["chat"], thread, rng)
        await w.env.advance_time(1)
        winner = [m for m in w.public() if "Winner:" in text(m)]
        assert len(winner) == 1
        assert cup_data(w, tid)["status"] == "finished"
        paired = [m for m in w.public() if "round 1 of 1 is paired" in text(m)]
        assert len(paired) == 1


@pytest.mark.parametrize("members", [True, False])
async def test_a_member_who_leaves_the_server_forfeits_their_game(
    tmp_path: Path, members: bool
) -> None:
    from bot.core.config import Settings
    from tests.bot.discord.support import SETTINGS

    settings = Settings(**{**SETTINGS.__dict__, "discord_members": members})
    async with world(tmp_path, members=members, settings=settings) as w:
        ada, bob = w.person("Ada"), w.person("Bob")
        await ada.slash(
            w.channel, "tournament", action="new", details="swiss 2 rounds 2 players 1d"
        )
        (tid,) = w.service.store.tournaments_of(w.chat)
        for person in (ada, bob):
            await person.slash(w.channel, "tournament", action="join", details=tid)
        await ada.slash(w.channel, "tournament", action="start")
        (p,) = cup_data(w, tid)["played"][0]["pairings"]
        assert w.service.table(p["chat"]).status == "playing"
        w.guild.remove_member(bob)
        await w.env.advance_time(1)
        data = cup_data(w, tid)
        bob_entry = next(e for e in data["entrants"] if e["user"] == str(bob.id))
        if not members:
            # The operator did not switch the intent on: Discord does not say, Bob plays on.
            assert not bob_entry.get("out")
            assert w.service.table(p["chat"]).status == "playing"
            return
        # Bob is out: his game of this round ends, won by Ada, and he is paired no more.
        assert bob_entry["out"] is True
        (p,) = data["played"][0]["pairings"]
        assert p["forfeits"] == [str(bob.id)]
        assert w.service.table(p["chat"]).status != "playing"
        assert any("Bob left tournament" in text(m) for m in w.public())
