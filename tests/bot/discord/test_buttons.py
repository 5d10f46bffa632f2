"""Buttons: fixed custom ids, lobby and options edited in place, stale clicks, restarts."""

from __future__ import annotations

import random
from pathlib import Path

import discord
import pytest

from bot.discord.lobby import SCROLLED
from bot.discord.views import custom_id, parse_custom_id
from bot.words.texts import Texts, catalogue, placeholders
from tests.bot.discord.support import (
    World,
    labels,
    only_answer,
    play_turn,
    text,
    world,
)

STALE = "This button is from an earlier turn; nothing changed."
#: The service's short answers that need no detail (a stale button's among them).
PLAIN_ERRORS = frozenset(
    Texts("en")(key)
    for key, template in catalogue("en").items()
    if key.startswith("error.") and not placeholders(template)
)
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
    "look",
    "score",
    "hint",
    "export",
    "kick",
    "abort",
    "help",
    "rules",
    "top",
    "stats",
    "history",
    "replay",
    "rematch",
    "games",
    "notify",
    "mydata",
    "forget",
    "skip",
    "expel",
    "wait",
    "undo",
    "away",
    "back",
    "tournament",
    "review",
    "puzzle",
    "link",
    "unlink",
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


def edits(w: World, message: discord.Message) -> int:
    """How many times the bot has edited ``message`` by its channel so far (a click's own
    message is edited through the interaction instead)."""
    path = f"/channels/{message.channel.id}/messages/{message.id}"
    return sum(1 for r in w.env.http_requests if r.method == "PATCH" and r.path == path)


@pytest.mark.asyncio
async def test_lobby_and_options_change_in_place_by_buttons_and_slash_commands(
    tmp_path: Path,
) -> None:
    async with world(tmp_path) as w:
        ada, bob, cy = w.person("Ada"), w.person("Bob"), w.person("Cy")
        await ada.slash(w.channel, "join")
        [lobby] = w.public()
        assert custom_ids(lobby)["Join"] == f"genial:{w.chat}:lobby:/join #1"

        # /join, a click on Join and /addbot all change the one lobby message.
        await bob.slash(w.channel, "join")
        await cy.click(w.last_public(), label="Join")
        await ada.slash(w.channel, "addbot")
        [now] = w.public()
        assert now.id == lobby.id
        assert edits(w, lobby) == 2  # and once through Cy's click
        said = text(now)
        assert "Computer 1" in said and said.index("3. Cy") < said.index("4. Computer 1")
        assert custom_ids(now)["Join"] == f"genial:{w.chat}:lobby:/join #4"

        # "Options" posts the options; their buttons and /option change them in place.
        await ada.click(now, label="Options")
        options = w.last_public()
        assert "Hints: off" in text(options)
        await ada.click(options, label="Hints on")
        assert "Hints: on" in text(w.last_public())
        await ada.slash(w.channel, "option", setting="order", value="random")
        await ada.slash(w.channel, "option")
        assert [m.id for m in w.public()] == [lobby.id, options.id]
        changed = w.last_public()
        assert "Hints: on" in text(changed) and "Seat order: random" in text(changed)
        assert "Hints off" in labels(changed)
        assert w.table().options.hints is True and w.table().options.order == "random"


@pytest.mark.asyncio
async def test_a_lobby_that_scrolled_away_is_posted_anew(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        ada, bob, cy, dee = (w.person(n) for n in ("Ada", "Bob", "Cy", "Dee"))
        await ada.slash(w.channel, "join")
        [lobby] = w.public()
        # Four messages after it: people still see it, so it is edited.
        for n in range(SCROLLED - 1):
            await bob.send(w.channel, f"chat {n}")
        await bob.slash(w.channel, "join")
        assert w.public()[0].id == lobby.id and "2. Bob" in text(w.public()[0])
        assert len(w.public()) == SCROLLED

        # A fifth: it scrolled away, so the next change posts a new lobby and the old
        # one loses its buttons (they would only be stale).
        await bob.send(w.channel, "one more")
        await cy.slash(w.channel, "join")
        new = w.last_public()
        assert new.id != lobby.id
        assert "3. Cy" in text(new)
        old = w.public()[0]
        assert old.id == lobby.id and labels(old) == []
        assert "3. Cy" not in text(old)

        # The new lobby is the one edited from now on.
        await dee.click(new, label="Join")
        await ada.slash(w.channel, "addbot")
        assert w.last_public().id == new.id
        assert "4. Dee" in text(w.last_public())
        assert len(w.public()) == SCROLLED + 2


@pytest.mark.asyncio
async def test_the_lobby_is_edited_after_a_restart(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        await w.person("Ada").slash(w.channel, "join")
        [lobby] = w.public()
        await w.restart()
        await w.person("Bob").slash(w.channel, "join")
        [now] = w.public()
        assert now.id == lobby.id
        assert "2. Bob" in text(now)


@pytest.mark.asyncio
async def test_buttons_come_off_the_old_turn_message(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        ada, bob = w.person("Ada"), w.person("Bob")
        await ada.slash(w.channel, "join")
        await bob.slash(w.channel, "join")
        await ada.click(w.last_public(), label="Options")
        lobby, options = w.public()
        await ada.slash(w.channel, "start")
        first = w.last_public()
        assert labels(first) == ["My tiles"]
        # The game runs: the lobby's and the options' buttons are gone.
        assert labels(w.public()[0]) == [] and labels(w.public()[1]) == []
        # One edit each (and the one that seated Bob in the lobby).
        assert (edits(w, lobby), edits(w, options)) == (1 + 1, 1)

        rng = random.Random(4)
        turns = [first]
        for _ in range(8):
            await play_turn(w, rng)
            turns.append(w.last_public())
            # Only the newest turn message has buttons; the one before lost them in one
            # edit.
            now = {m.id: m for m in w.public()}
            assert labels(now[turns[-1].id]) != []
            assert all(labels(now[t.id]) == [] for t in turns[:-1] if t.id != turns[-1].id)
            assert edits(w, turns[-2]) == 1
        assert {edits(w, t) for t in turns[:-1]} == {1}


@pytest.mark.asyncio
async def test_an_old_start_button_is_answered_privately(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        ada, bob = w.person("Ada"), w.person("Bob")
        await ada.slash(w.channel, "join")
        await bob.slash(w.channel, "join")
        [lobby] = w.public()
        # Taking the buttons off the lobby fails (say, Discord hiccups): its Start stays.
        w.env.inject_error("PATCH", f"/channels/{w.chat}/messages/{lobby.id}", status=500)
        await ada.slash(w.channel, "start")
        stale = w.public()[0]
        assert "Start" in labels(stale)
        before, seen = w.table().to_dict(), [m.id for m in w.public()]
        said = only_answer(await bob.click(stale, label="Start"), clicked=True)
        # Whatever the service says to that (the game runs already), Bob alone sees it.
        assert said in PLAIN_ERRORS
        assert w.table().to_dict() == before
        assert [m.id for m in w.public()] == seen


@pytest.mark.asyncio
async def test_a_closed_table_keeps_no_live_buttons(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        ada, bob = w.person("Ada"), w.person("Bob")
        await ada.slash(w.channel, "join")
        await bob.slash(w.channel, "join")
        await ada.slash(w.channel, "start")
        turn = w.last_public()
        assert labels(turn) == ["My tiles"]
        await ada.slash(w.channel, "abort")
        assert all(labels(m) == [] for m in w.public())
        # A new table gets a new lobby, which gets closed too.
        await bob.slash(w.channel, "join")
        lobby = w.last_public()
        assert "1. Bob" in text(lobby) and "Join" in labels(lobby)
        await bob.slash(w.channel, "abort")
        assert all(labels(m) == [] for m in w.public())


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
        bob = w.person("Bob")
        lobby = w.public()[0]
        turn = w.last_public()
        moves = list(w.game().moves)
        old_client = w.client

        await w.restart()
        assert w.client is not old_client

        # "My tiles" on a turn message sent before the restart shows the current rack.
        mine = await bob.click(turn, label="My tiles")
        assert only_answer(mine, clicked=True).startswith(w.rack_line(1))
        # The lobby lost its buttons at the start.
        assert labels(next(m for m in w.public() if m.id == lobby.id)) == []

        # The game goes on where it stood, to the end.
        rng = random.Random(6)
        await play_turn(w, rng)
        # The new client knew which turn message had live buttons.
        assert labels(next(m for m in w.public() if m.id == turn.id)) == []
        assert list(w.game().moves)[: len(moves)] == moves
        assert len(w.game().moves) > len(moves)
        while w.playing():
            await play_turn(w, rng)
        assert "Game over" in text(w.last_public())
