"""A team battle between a Telegram group and a Discord server (issue 30): the real
Telegram adapter against the fake Bot API in a thread of its own, the real Discord client
in SimCord, each with its own service over one store (an SQLite file, and a PostgreSQL schema), as
two processes share one database. Each platform posts only its own chats' messages; the other's
wait in the store for it.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.core import games
from bot.core.config import Settings
from bot.service import Service
from engine.moves import SwapChoice
from tests.bot.backends import store_at
from tests.bot.discord.support import labels, move_options, text, world
from tests.bot.telegram.fake_api import BotRunner, FakeBotAPI

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.usefixtures("backend"),
    pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning"),
]
TOKEN = "424242:AAHtestTOKENnever-shown_0123456789"
GROUP = -1001234567890
ADA, BOB = 101, 202
DAY = 86400


async def test_a_team_battle_between_a_telegram_group_and_a_discord_server(
    tmp_path: Path,
) -> None:
    api = FakeBotAPI(TOKEN).start()
    api.group(GROUP, "Genial night")
    api.user(ADA, "Ada")
    api.user(BOB, "Bob")
    api.admins.add((GROUP, ADA))
    try:
        async with world(tmp_path) as w:

            def make_service(path: Path) -> Service:
                return Service(
                    store_at(w.db), Settings(level="random"), rng=random.Random(5),
                    clock=w.clock, pictures=False,
                )  # fmt: skip

            tg = BotRunner(api, w.db, make_service=make_service)
            await asyncio.to_thread(tg.start)
            try:
                await _battle(w, api, tg)
            finally:
                await asyncio.to_thread(tg.stop)
    finally:
        api.close()


async def _say(api: FakeBotAPI, tg: BotRunner, user: int, text: str) -> None:
    update = api.say(GROUP, user, text)
    await asyncio.to_thread(tg.wait, update)


def _data(tg: BotRunner, tid: str) -> dict[str, Any]:
    found = tg.service.store.load_tournament(tid)
    assert found is not None
    return found[1]


async def _discord_looks(w: Any, until: Callable[[], bool]) -> None:
    """Discord's process looks at the store (its clock, woken as a command would), a
    second of its time at a time, until ``until`` holds (at most a minute: a table whose
    due work another process held rests a few seconds before its next look)."""
    for _ in range(60):
        w.client.wake()
        await w.env.advance_time(1)
        if until():
            return


async def _battle(w: Any, api: FakeBotAPI, tg: BotRunner) -> None:
    await _say(api, tg, ADA, "/tournament new swiss 1 round 2 players 1d")
    (tid,) = tg.service.store.tournaments_of(str(GROUP))
    await _say(api, tg, ADA, "/tournament invite")
    code = _data(tg, tid)["code"]
    assert f"/tournament team {code}" in api.sent(GROUP)[-1].text
    # On Discord, a server manager enters the channel as a team; two people join there.
    mods = w.guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    cy, dee = w.person("Cy", mods), w.person("Dee")
    await cy.slash(w.channel, "tournament", action="team", details=code)
    await cy.slash(w.channel, "tournament", action="join")
    await dee.slash(w.channel, "tournament", action="join")
    for user in (ADA, BOB):
        await _say(api, tg, user, "/tournament join")
    # Telegram's group heard of the new team from Discord's process (through the store).
    await asyncio.to_thread(tg.tick)
    assert any("joined tournament" in c.text and "as a team" in c.text for c in api.sent(GROUP))
    await _say(api, tg, ADA, "/tournament start")
    r = _data(tg, tid)["played"][0]
    team = {str(ADA): "tg", str(BOB): "tg", str(cy.id): "dc", str(dee.id): "dc"}
    assert all(team[a] != team[b] for a, b in (p["players"] for p in r["pairings"]))
    # Discord's process posts its channel's share of what Telegram's process said.
    await _discord_looks(
        w, lambda: len([m for m in w.public() if "The game begins" in text(m)]) >= 2
    )
    paired = [m for m in w.public() if "round 1 of 1 is paired" in text(m)]
    assert len(paired) == 1
    assert len([c for c in api.sent(GROUP) if "round 1 of 1 is paired" in c.text]) == 1
    begun = [m for m in w.public() if "The game begins" in text(m)]
    assert len(begun) == 2
    assert len([c for c in api.sent(GROUP) if "The game begins" in c.text]) == 2
    # A few moves from each side, each typed where its player is.
    rng = random.Random(3)
    people = {str(cy.id): cy, str(dee.id): dee}
    for p in r["pairings"]:
        for _ in range(4):
            t = tg.service.table(p["chat"])
            game = games.rebuild(t.record)
            mover = t.seats[game.to_move].user
            move = rng.choice(game.legal_moves())
            if mover in people:
                if isinstance(move, SwapChoice):
                    label = "Swap" if games.format_move(game, move) == "swap" else "Keep"
                    last = next(m for m in reversed(w.public()) if label in labels(m))
                    await people[mover].click(last, label=label)
                else:
                    await people[mover].slash(w.channel, "play", **move_options(game, move))
            else:
                typed = games.format_move(game, move)
                command = f"/{typed}" if typed in ("swap", "keep") else f"/play {typed}"
                await _say(api, tg, int(mover), command)
            assert len(games.rebuild(tg.service.table(p["chat"]).record).moves) > len(game.moves)
    # The round's deadline: the computer plays the rest, the winner is announced in both.
    await w.env.advance_time(DAY + 60)
    await asyncio.to_thread(tg.tick)
    assert _data(tg, tid)["status"] == "finished"
    await _discord_looks(w, lambda: any("Winner:" in text(m) for m in w.public()))
    assert len([m for m in w.public() if "Winner:" in text(m)]) == 1
    # Whichever process played the deadline out, Telegram's posts the group's share at its
    # next look at the store's outbox (the other process may have finished after its last).
    for _ in range(60):
        if any("Winner:" in c.text for c in api.sent(GROUP)):
            break
        await asyncio.to_thread(tg.tick)
    assert len([c for c in api.sent(GROUP) if "Winner:" in c.text]) == 1
    # Nothing was ever sent to a chat of the other platform.
    assert all(c.chat in (GROUP, ADA, BOB) for c in api.calls if c.chat is not None)
