"""Issue 27, item 1: Discord outside servers. The commands are offered in a server, in the
bot's DM and in group DMs; the app installs both ways; a table in a group DM the bot is
not a member of is played through interaction answers only (the board is the answer to
the move), and what the clock does there waits for the next command or button.

The fake is SimCord with the contexts of :mod:`tests.bot.discord.contexts`.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import simcord

from bot.core import games
from bot.core.table import CLOSED, PLAYING
from bot.discord import commands as discord_commands
from engine.moves import Placement
from tests.bot.discord import contexts
from tests.bot.discord.support import World, move_options, only_answer, text, world
from tests.bot.discord.support import answers as replies

#: Commands the menu must have (issue 27 names /join, /games, /notify, /stats in DMs).
COMMANDS = sorted(
    [
        "abort",
        "addbot",
        "board",
        "export",
        "forget",
        "games",
        "hand",
        "help",
        "hint",
        "history",
        "join",
        "keep",
        "kick",
        "leave",
        "mydata",
        "notify",
        "option",
        "play",
        "rematch",
        "replay",
        "rules",
        "score",
        "start",
        "stats",
        "swap",
        "top",
    ]
)
NOTICE = "I am not a member of this chat"
pytestmark = pytest.mark.asyncio


def registered(env: simcord.Env) -> dict[str, dict[str, Any]]:
    """The global commands as the bot registered them, by name."""
    return {c["name"]: c for c in env.backend.commands.get(None, {}).values()}


async def test_the_commands_are_offered_in_every_context(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        ada = w.person("Ada")
        bob = w.env.create_user("bob", global_name="Bob")
        # Registered for servers, the bot's DM and group DMs, for both kinds of install,
        # each with its German, Dutch and French description (the menus of every context
        # show the same global commands).
        commands = registered(w.env)
        assert sorted(commands) == sorted(c.name for c in discord_commands.COMMANDS)
        assert set(COMMANDS) <= set(commands)
        menu = sorted(commands)
        for name, command in commands.items():
            assert sorted(command["contexts"]) == [0, 1, 2], name
            assert sorted(command["integration_types"]) == [0, 1], name
            assert set(command["description_localizations"]) >= {"de", "nl", "fr"}, name
        assert commands["join"]["description_localizations"]["de"].startswith("Am Tisch")
        # The options too: their names and descriptions, and the names of fixed choices.
        for name, command in commands.items():
            for option in command.get("options") or []:
                where = f"{name} {option['name']}"
                assert set(option["description_localizations"]) >= {"de", "nl", "fr"}, where
                for choice in option.get("choices") or []:
                    if name == "option":  # the settings' names (on/off stay as typed)
                        assert set(choice["name_localizations"]) >= {"de", "nl", "fr"}
        (setting, _value) = commands["option"]["options"]
        assert setting["name_localizations"]["fr"] != setting["name"]
        # What each person's menu offers where they are.
        assert sorted(ada.available_commands(w.channel)) == menu
        assert sorted(bob.available_commands()) == menu  # the bot's DM
        group = contexts.group_dm(w.env, "Friends", ada.user, bob)
        assert contexts.visible(bob, group) == ()  # no install of his own: no menu here
        contexts.install_app(w.env, bob)
        assert list(contexts.visible(bob, group)) == menu


async def test_the_app_offers_the_user_install_once(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        config = contexts.integration_types(w.env)
        assert set(config) == {"0", "1"}
        assert config["1"]["oauth2_install_params"]["scopes"] == ["applications.commands"]
        assert "bot" in config["0"]["oauth2_install_params"]["scopes"]
        assert contexts.application_edits(w.env) == 1
        await w.restart()
        assert contexts.application_edits(w.env) == 1  # offered already: nothing to change


def placement(game: games.Game) -> Placement:
    return next(m for m in game.legal_moves() if isinstance(m, Placement))


async def test_a_game_against_a_computer_in_the_bots_dm(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        ada = w.env.create_user("ada", global_name="Ada")
        dm = ada.dm_channel
        chat = str(dm.id)
        for command in ("join", "addbot", "start"):
            await ada.slash(command)
        assert w.table(chat).status == PLAYING
        game = w.game(chat)
        if w.table(chat).seats[game.to_move].user is None:
            raise AssertionError("the computer player moved first and did not hand over")
        before = len(game.moves)
        await ada.slash("play", **move_options(game, placement(game)))
        # Her move and the computer's answer are played, and told in the DM itself.
        assert len(w.game(chat).moves) >= before + 2
        posted = [m for m in dm.history(viewer=ada) if not m.flags.ephemeral]
        assert any("Ada" in text(m) for m in posted)


async def test_a_table_in_the_bots_dm_is_named_and_linked(tmp_path: Path) -> None:
    """Issue 44, item 20: the bot's DM has no name, so the table was called by the
    channel's number and /games had no link to it."""
    async with world(tmp_path) as w:
        ada = w.env.create_user("ada", global_name="Ada")
        dm = ada.dm_channel
        chat = str(dm.id)
        for command in ("join", "addbot"):
            await ada.slash(command)
        started = await ada.slash("start")
        rack = [text(m) for m in replies(started) if m.ephemeral]
        assert rack and rack[0].startswith("Your tiles at Direct messages · Ada: ")
        assert all(chat not in t for t in rack)
        # The turn message addressing Ada is the table's latest message.
        turn = [m for m in dm.history(viewer=ada) if not m.flags.ephemeral][-1]
        assert turn.raw_mentions == [ada.id]
        link = f"https://discord.com/channels/@me/{chat}/{turn.id}"
        assert only_answer(await ada.slash("games")) == (
            "Your running tables (1):\n"
            f"Direct messages · Ada: Genial, your turn (latest message: {link})"
        )


async def group_world(w: World) -> tuple[simcord.ChannelHandle, simcord.UserHandle, Any]:
    ada = w.env.create_user("ada", global_name="Ada")
    bob = w.env.create_user("bob", global_name="Bob")
    for person in (ada, bob):
        contexts.install_app(w.env, person)
    return contexts.group_dm(w.env, "Friends", ada, bob), ada, bob


async def test_a_game_in_a_group_dm_the_bot_is_not_a_member_of(tmp_path: Path) -> None:
    async with world(tmp_path, pictures=True) as w:
        group, ada, bob = await group_world(w)
        chat = str(group.id)
        joined = await contexts.slash(ada, group, "join")
        # The lobby is the answer to /join, public, and says plainly what cannot work here.
        (lobby,) = [m for m in joined.followups if not m.ephemeral]
        assert "Ada" in text(lobby) and NOTICE in text(lobby)
        assert "/option timeout off" in text(lobby)
        await contexts.slash(bob, group, "join")
        started = await contexts.slash(ada, group, "start")
        assert w.table(chat).status == PLAYING
        people = {str(ada.id): ada, str(bob.id): bob}
        rng = random.Random(3)
        answers = started
        for _ in range(4):
            # The turn message (the answer to what came before) names who is next.
            table, game = w.table(chat), w.game(chat)
            mover = people[table.seats[game.to_move].user or ""]
            public = [m for m in answers.followups if not m.ephemeral]
            assert public, "no public answer"
            assert mover.global_name in text(public[-1]), text(public[-1])
            before = len(game.moves)
            move = rng.choice([m for m in game.legal_moves() if isinstance(m, Placement)])
            answers = await contexts.slash(mover, group, "play", **move_options(game, move))
            assert len(w.game(chat).moves) > before
            # The board is this move's answer: a public follow-up with the board's image.
            boards = [m for m in answers.followups if not m.ephemeral and m.attachments]
            assert len(boards) == 1, [text(m) for m in answers.followups]
            assert boards[0].attachments[0].filename.startswith("board-")
            if w.game(chat).awaiting == "swap":
                break
        # The table kept going (a post in the channel itself would have found it gone).
        assert w.table(chat).status != CLOSED
        # Everyone in the group DM sees the boards; the "done" notes were taken away.
        seen = [m for m in contexts.history(group, bob) if not m.flags.ephemeral]
        assert sum(1 for m in seen if m.attachments) >= 4
        # /games leads back to the group DM's latest board (a link members can open).
        games_answer = await contexts.slash(bob, group, "games")
        latest = seen[-1]
        link = f"https://discord.com/channels/@me/{group.id}/{latest.id}"
        assert link in only_answer(games_answer)
        # A friend without the app's commands can still press the board's buttons.
        carol = w.env.create_user("carol", global_name="Carol")
        group._channel.recipient_ids.append(carol.id)
        tiles = await contexts.click(carol, seen[-1], "My tiles")
        assert [m.ephemeral for m in tiles.followups] == [True]


async def test_what_the_clock_says_waits_for_the_next_interaction(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        group, ada, bob = await group_world(w)
        chat = str(group.id)
        await contexts.slash(ada, group, "option", setting="timeout", value="1h")
        await contexts.slash(ada, group, "join")
        await contexts.slash(bob, group, "join")
        await contexts.slash(ada, group, "start")
        mover = {str(ada.id): ada, str(bob.id): bob}[
            w.table(chat).seats[w.game(chat).to_move].user or ""
        ]
        seen = len(contexts.history(group, ada))
        # Half the time per turn, then more than 15 minutes since anyone acted: the
        # reminder is due, and the bot has no interaction left to answer with.
        await w.env.advance_time(31 * 60)
        assert len(contexts.history(group, ada)) == seen
        assert w.service.waiting_tables() == [chat]
        # The next command anyone gives brings it: the reminder, then the answer.
        scored = await contexts.slash(ada, group, "score")
        said = [text(m) for m in scored.followups if not m.ephemeral]
        assert any(mover.global_name in s and "your turn" in s for s in said), said
        assert w.service.waiting_tables() == []
