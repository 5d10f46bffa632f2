"""Buttons: fixed custom ids, lobby and options edited in place, stale clicks, restarts."""

from __future__ import annotations

import random
from pathlib import Path

import discord
import pytest

from bot.discord.views import custom_id, parse_custom_id
from tests.bot.discord.support import (
    World,
    labels,
    only_answer,
    play_turn,
    text,
    world,
)

STALE = "This button is from an earlier turn; nothing changed."
COMMANDS = {
    "join",
    "addbot",
    "leave",
    "option",
    "start",
    "play",
    "swap",
    "keep",
    "hand",
    "board",
    "score",
    "hint",
    "export",
    "kick",
    "abort",
    "help",
    "rules",
}


def custom_ids(message: discord.Message) -> dict[str, str]:
    """Button label -> custom id."""
    return {c.label: c.custom_id for row in message.components for c in row.children}


@pytest.mark.parametrize(
    ("chat", "kind", "command", "expected"),
    [
        ("123", "turn", "/swap #12", "genial:123:turn:/swap #12"),
        ("9" * 20, "options", "/option timeout 24h #7", f"genial:{'9' * 20}:options:/option"),
        ("5", "turn", "/hand", "genial:5:turn:/hand"),
    ],
)
def test_custom_ids_carry_table_kind_and_command(
    chat: str, kind: str, command: str, expected: str
) -> None:
    made = custom_id(chat, kind, command)
    assert made.startswith(expected)
    assert len(made) <= 100
    assert parse_custom_id(made) == (chat, kind, command)


@pytest.mark.parametrize(
    ("chat", "kind", "command"),
    [
        ("123", "turn", "/option " + "x" * 90),  # longer than Discord's 100 characters
        ("general", "turn", "/hand"),  # a chat is a channel's number
        ("123", "turn", "hand"),  # a command starts with a slash
    ],
)
def test_a_custom_id_that_cannot_be_made_is_refused(chat: str, kind: str, command: str) -> None:
    with pytest.raises(ValueError, match="no button can carry"):
        custom_id(chat, kind, command)


def test_foreign_custom_ids_are_not_ours() -> None:
    assert parse_custom_id("other-bot:123:turn:/hand") is None


@pytest.mark.asyncio
async def test_every_chat_command_is_a_slash_command(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        assert set(w.person("Ada").available_commands(w.channel)) == COMMANDS


@pytest.mark.asyncio
async def test_lobby_and_options_change_in_place_and_old_buttons_are_stale(
    tmp_path: Path,
) -> None:
    async with world(tmp_path) as w:
        ada, bob, cy = w.person("Ada"), w.person("Bob"), w.person("Cy")
        await ada.slash(w.channel, "join")
        await bob.slash(w.channel, "join")
        old, lobby = w.public()
        assert custom_ids(lobby)["Join"] == f"genial:{w.chat}:lobby:/join #2"

        # A click on the older lobby is stale: answered privately, nothing changes.
        before = w.table().to_dict()
        stale = await cy.click(old, label="Join")
        assert only_answer(stale, clicked=True) == STALE
        assert w.table().to_dict() == before
        assert [m.id for m in w.public()] == [old.id, lobby.id]

        # A click on the current one seats Cy, and the lobby is edited in place.
        await cy.click(lobby, label="Join")
        old_now, lobby_now = w.public()
        assert lobby_now.id == lobby.id
        assert "Cy sits down." in text(lobby_now)
        assert "3. Cy" in text(lobby_now)
        assert text(old_now) == text(old)
        assert custom_ids(lobby_now)["Join"] == f"genial:{w.chat}:lobby:/join #3"

        # "Options" posts the options; their buttons change them in place.
        await ada.click(lobby_now, label="Options")
        options = w.last_public()
        assert "Hints: off" in text(options)
        await ada.click(options, label="Hints on")
        changed = w.last_public()
        assert changed.id == options.id
        assert "Hints: on" in text(changed)
        assert "Hints off" in labels(changed)
        assert w.table().options.hints is True


async def _two_players_mid_game(w: World, turns: int) -> None:
    ada, bob = w.person("Ada"), w.person("Bob")
    await ada.slash(w.channel, "join")
    await bob.slash(w.channel, "join")
    await ada.slash(w.channel, "start")
    rng = random.Random(5)
    for _ in range(turns):
        await play_turn(w, rng)


@pytest.mark.asyncio
async def test_after_a_restart_old_buttons_still_answer(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        await _two_players_mid_game(w, 6)
        ada, bob = w.person("Ada"), w.person("Bob")
        lobby = w.public()[1]
        turn = w.last_public()
        moves = list(w.game().moves)
        old_client = w.client

        await w.restart()
        assert w.client is not old_client

        # "My tiles" on a turn message sent before the restart shows the current rack.
        mine = await bob.click(turn, label="My tiles")
        assert only_answer(mine, clicked=True).startswith(w.rack_line(1))
        # A button from before the game says the game has started.
        assert only_answer(await ada.click(lobby, label="Start"), clicked=True) == (
            "The game has already started; that button was for the lobby."
        )

        # The game goes on where it stood, to the end.
        rng = random.Random(6)
        await play_turn(w, rng)
        assert list(w.game().moves)[: len(moves)] == moves
        assert len(w.game().moves) > len(moves)
        while w.playing():
            await play_turn(w, rng)
        assert "Game over" in text(w.last_public())
