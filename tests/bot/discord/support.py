"""Test drivers for the Discord adapter: the real client in SimCord's simulated Discord.

SimCord replaces discord.py's two seams (the HTTP client and the gateway parser) with an
in-memory Discord, so our client, discord.py's command tree, its views and dynamic items
run unmodified: a test types slash commands and clicks buttons as a member would, and reads
back what every member sees. The table service behind the client is real too, on an SQLite
file (or, in a test run on each backend, the PostgreSQL schema named after that file); its
clock is SimCord's virtual clock, so ``env.advance_time`` moves both.

The people play moves the engine lists as legal (the game rebuilt from the stored record is
the oracle of what may be played); what the bot says is checked against values worked out
from the rules or by hand.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import discord
import simcord

from bot.core import games
from bot.core.config import Settings
from bot.core.table import PLAYING, Table
from bot.discord.client import GenialClient
from bot.service import Service
from bot.store import Store
from engine.moves import Placement, SwapChoice
from tests.bot.backends import store_at

#: Fast computer players: the adapter is under test here, not their strength.
SETTINGS = Settings(level="random")
RACK_MARK = "Your tiles at"


class EnvClock:
    """The service's clock: SimCord's virtual time once the world runs."""

    def __init__(self) -> None:
        self.env: simcord.Env | None = None

    def __call__(self) -> float:
        return self.env.now().timestamp() if self.env is not None else 1_700_000_000.0


def make_client(
    db: Path,
    clock: EnvClock,
    *,
    seed: int = 7,
    pictures: bool = False,
    settings: Settings = SETTINGS,
    store: Callable[[], Store] | None = None,
    **options: Any,
) -> GenialClient:
    """A fresh client on a fresh service over the store at ``db`` (a restart, if the file
    already holds tables), or over what ``store`` opens (a PostgreSQL server's)."""
    opened = store() if store is not None else store_at(db)
    service = Service(opened, settings, clock=clock, rng=random.Random(seed), pictures=pictures)
    return GenialClient(service, **options)


@dataclass
class World:
    """One server with a channel ``#genial`` and the people in it."""

    env: simcord.Env
    client: GenialClient
    guild: simcord.GuildHandle
    channel: simcord.ChannelHandle
    clock: EnvClock
    db: Path
    people: dict[str, simcord.MemberActor] = field(default_factory=dict)

    def person(self, name: str, *roles: simcord.RoleHandle) -> simcord.MemberActor:
        if name not in self.people:
            user = self.env.create_user(name.lower(), global_name=name)
            self.people[name] = self.guild.add_member(user, roles=list(roles))
        return self.people[name]

    @property
    def chat(self) -> str:
        return str(self.channel.id)

    @property
    def service(self) -> Service:
        return self.client.service

    def table(self, chat: str | None = None) -> Table:
        table = self.service.table(chat or self.chat)
        assert table is not None
        return table

    def game(self, chat: str | None = None) -> games.Game:
        record = self.table(chat).record
        assert record is not None
        return games.rebuild(record)

    def rack_line(self, seat: int) -> str:
        """The first line of the rack message the seat's player must see: their tiles as
        the game rebuilt from the store has them."""
        rack = games.rack_text(self.game().racks[seat])
        return f"{RACK_MARK} #{self.channel.name} ({self.guild.name}): {rack}"

    def playing(self) -> bool:
        return self.table().status == PLAYING

    def to_move(self, game: games.Game | None = None) -> simcord.MemberActor:
        """The person to move (``game``: the table's game, if already rebuilt)."""
        seat = self.table().seats[(self.game() if game is None else game).to_move]
        assert seat.user is not None, "a computer player is to move"
        return next(p for p in self.people.values() if str(p.id) == seat.user)

    async def restart(self, **options: Any) -> None:
        """Stop the bot and start a new one: a new client and service on the same file."""
        old = self.client
        self.client = make_client(self.db, self.clock, seed=99, **options)
        await self.env.restart_bot(self.client)
        old.service.store.close()

    # --- what people see ----------------------------------------------------------------

    def messages(self, viewer: simcord.MemberActor | None = None) -> list[discord.Message]:
        """Every message in the channel (as ``viewer`` sees it: ephemeral ones only if
        they are addressed to them)."""
        return self.channel.history(viewer=viewer)

    def public(self) -> list[discord.Message]:
        """The messages everyone sees (Discord's own notes, like "thread created", aside)."""
        return [
            m
            for m in self.messages()
            if not m.flags.ephemeral and m.type is discord.MessageType.default
        ]

    def last_public(self) -> discord.Message:
        return self.public()[-1]


def text(message: discord.Message | simcord.ResponseMessage) -> str:
    """What a message says: its content and its embeds' descriptions."""
    parts = [message.content or ""]
    parts += [e.description or "" for e in message.embeds]
    return "\n".join(p for p in parts if p)


def labels(message: discord.Message | simcord.ResponseMessage) -> list[str]:
    """The labels of a message's buttons."""
    rows = message.components
    out: list[str] = []
    for row in rows:
        children = row["components"] if isinstance(row, dict) else row.children
        for c in children:
            out.append(c["label"] if isinstance(c, dict) else c.label)
    return out


def answers(
    result: simcord.InteractionResult, *, clicked: bool = False
) -> list[simcord.ResponseMessage]:
    """The messages an interaction got back: after a slash command its response and
    follow-ups; after a click (``clicked``) only follow-ups, since the "response" of a
    click is the message clicked on."""
    first = [result.response] if result.response is not None and not clicked else []
    return first + list(result.followups)


def only_answer(result: simcord.InteractionResult, *, clicked: bool = False) -> str:
    """The text of the one (private) answer an interaction got."""
    got = answers(result, clicked=clicked)
    assert len(got) == 1, [text(m) for m in got]
    assert got[0].ephemeral
    return text(got[0])


def move_options(game: games.Game, move: Placement) -> dict[str, str]:
    """The ``/play`` options for a placement, as a player fills them in."""
    tile, cell1, cell2 = games.format_move(game, move).split()
    return {"tile": tile, "cell1": cell1, "cell2": cell2}


async def play_turn(world: World, rng: random.Random) -> simcord.InteractionResult:
    """The person to move makes a random legal move."""
    game = world.game()
    return await make_move(world, rng.choice(game.legal_moves()), game)


async def make_move(
    world: World, move: Placement | SwapChoice, game: games.Game | None = None
) -> simcord.InteractionResult:
    """The person to move makes ``move``: ``/play`` with the tile and cells filled in, or
    the swap decision by a button on the turn message (``game``: the table's game, if
    already rebuilt)."""
    game = world.game() if game is None else game
    person = world.to_move(game)
    if isinstance(move, SwapChoice):
        label = "Swap" if games.format_move(game, move) == "swap" else "Keep"
        return await person.click(world.last_public(), label=label)
    return await person.slash(world.channel, "play", **move_options(game, move))


@asynccontextmanager
async def world(
    tmp_path: Path, *, simulator: dict[str, Any] | None = None, **options: Any
) -> AsyncIterator[World]:
    """A running bot in a server with one channel; ``options`` go to the client,
    ``simulator`` to SimCord."""
    # SimCord as every Discord test sees it (tests/bot/discord/conftest.py), also for a
    # test elsewhere that runs a world (the web board's links): else its result would
    # hang on whether a Discord test ran before it.
    from tests.bot.discord import contexts, launches, patient_simcord

    patient_simcord.install()
    contexts.install()
    launches.install()
    clock = EnvClock()
    db = tmp_path / "tables.sqlite3"
    client = make_client(db, clock, **options)
    async with simcord.run(client, **(simulator or {})) as env:
        clock.env = env
        guild = env.create_guild("Board games")
        channel = guild.create_text_channel("genial")
        w = World(env, client, guild, channel, clock, db)
        try:
            yield w
        finally:
            w.client.service.store.close()
