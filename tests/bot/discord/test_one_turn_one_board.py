"""Issue 24 on Discord: a person's move, and the computer moves after it, reach the channel
as one message with the board attached, however long the computers' chain of bonus
placements.

The real client in SimCord's simulated Discord; what reached the channel is counted from
the messages SimCord holds there (what every member sees).
"""

from __future__ import annotations

import random
from pathlib import Path

import discord
import pytest

from bot.core.config import Settings
from bot.core.table import PLAYING, Table
from tests.bot import one_turn
from tests.bot.discord.support import World, make_move, text, world
from tests.bot.one_turn import PERSON, PLANS, REPRO, REPRO_MOVE, Plan, Posted

pytestmark = pytest.mark.asyncio
pytest.importorskip("engine.ai")  # the computer players
#: Discord's longest message content.
CONTENT_LIMIT = 2000
#: Fewer games than elsewhere: SimCord settles the client after every interaction, in
#: real time, so a move costs about twice what it does on Telegram. Those with the long
#: turns (shortened texts), every level and every kind of game stay.
GAMES = tuple(p for p in PLANS if p.seed in {2, 3, 4, 6, 7, 9, 10, 11, 12, 13})


async def channel_for(w: World, plan: Plan) -> World:
    """A channel of its own for one plan's game, set up and started by Ada."""
    channel = w.guild.create_text_channel(f"genial-{plan.seed}")
    here = World(w.env, w.client, w.guild, channel, w.clock, w.db, people=w.people)
    ada = here.person(PERSON)
    # The plan's seat order and bag: the service draws them at /start.
    here.service.rng.seed(plan.seed)
    for command in plan.commands():
        word, *args = command[1:].split()
        options = {"addbot": {"level": args[0]} if args else {}, "option": {"setting": "team"}}
        await ada.slash(here.channel, word, **options.get(word, {}))
    assert here.playing()
    return here


async def posted(messages: list[discord.Message]) -> list[Posted]:
    return [
        Posted(text(m), [(a.filename, await a.read()) for a in m.attachments]) for m in messages
    ]


async def one_move(
    w: World, rng: random.Random
) -> tuple[list[discord.Message], one_turn.Span, Table]:
    """Ada makes her move; the channel's new public messages, what was played, and the
    table after."""
    table = w.table()
    assert table.record is not None
    since = len(table.record["moves"])
    seen = len(w.public())
    game = w.game()
    await make_move(w, one_turn.choose(game, rng))
    new = w.public()[seen:]
    table = w.table()
    assert table.record is not None and len(table.record["moves"]) > since, [text(m) for m in new]
    return new, one_turn.played(table, since), table


async def test_a_computers_chain_of_bonus_placements_is_one_message(tmp_path: Path) -> None:
    async with world(tmp_path, pictures=True, settings=Settings()) as w:
        here = await channel_for(w, REPRO)
        rng = random.Random(REPRO.seed)
        for _ in range(REPRO_MOVE - 1):
            await one_move(here, rng)
        new, moves, table = await one_move(here, rng)
        # One message for the whole turn, the board attached.
        assert len(new) == 1, [text(m) for m in new]
        (message,) = await posted(new)
        one_turn.check_repro(message, moves, table)
        assert len(new[0].content) <= CONTENT_LIMIT
        assert new[0].raw_mentions == [here.people[PERSON].id]


@pytest.mark.usefixtures("unreviewed")
async def test_every_move_of_many_games_is_one_message(tmp_path: Path) -> None:
    tally = one_turn.Tally()
    async with world(tmp_path, pictures=True, settings=Settings()) as w:
        for plan in GAMES:
            here = await channel_for(w, plan)
            rng = random.Random(plan.seed)
            number = 0
            while here.playing():
                number += 1
                new, moves, table = await one_move(here, rng)
                ended = table.status != PLAYING
                tally.action(f"{plan}, move {number}", await posted(new), moves, ended)
            tally.games += 1
    tally.check(GAMES, at_least=180)
