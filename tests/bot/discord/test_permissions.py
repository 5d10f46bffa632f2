"""Who may do what, and bad input: answered privately and clearly, changing nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import discord
import pytest
import simcord

from tests.bot.discord.support import World, only_answer, text, world

pytestmark = pytest.mark.asyncio
NOT_ALLOWED = "Only the host (Ada) or a chat admin may do that."


async def refused(
    w: World, person: simcord.MemberActor, command: str, expected: str, **options: Any
) -> None:
    """``command`` gets exactly ``expected`` back, privately; the table and the channel
    stay as they were."""
    before = w.table().to_dict() if w.service.table(w.chat) else None
    seen = [m.id for m in w.public()]
    result = await person.slash(w.channel, command, **options)
    assert only_answer(result) == expected
    after = w.table().to_dict() if w.service.table(w.chat) else None
    assert after == before
    assert [m.id for m in w.public()] == seen


async def test_only_the_host_or_manage_server_changes_options_kicks_and_aborts(
    tmp_path: Path,
) -> None:
    async with world(tmp_path) as w:
        mods = w.guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
        ada, bob, mo = w.person("Ada"), w.person("Bob"), w.person("Mo", mods)
        await ada.slash(w.channel, "join")
        await bob.slash(w.channel, "join")

        await refused(w, bob, "option", NOT_ALLOWED, setting="hints", value="on")
        await refused(w, bob, "kick", NOT_ALLOWED, player="1")
        await refused(w, bob, "abort", NOT_ALLOWED)
        # The buttons ask the same question.
        await ada.slash(w.channel, "option")
        options = w.last_public()
        before = w.table().to_dict()
        click = await bob.click(options, label="Hints on")
        assert only_answer(click, clicked=True) == NOT_ALLOWED
        assert w.table().to_dict() == before

        # Manage Server may, without a seat; so may the host.
        await mo.slash(w.channel, "option", setting="hints", value="on")
        assert w.table().options.hints is True
        await ada.slash(w.channel, "option", setting="order", value="random")
        assert w.table().options.order == "random"
        await mo.slash(w.channel, "kick", player="2")
        assert [s.name for s in w.table().seats] == ["Ada"]
        await mo.slash(w.channel, "abort")
        assert w.table().status == "closed"
        assert "Mo closed the table." in text(w.last_public())


async def test_bad_input_is_answered_privately(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        ada, bob, cy = w.person("Ada"), w.person("Bob"), w.person("Cy")
        await refused(w, ada, "start", "There is no table in this chat yet: /join opens one.")
        await ada.slash(w.channel, "join")
        await refused(
            w,
            ada,
            "play",
            "No game is running: /start begins one.",
            tile="RG",
            cell1="A2",
            cell2="A3",
        )
        await refused(
            w,
            ada,
            "option",
            "forever is not a time per turn: use 30m, 24h, 2d (at least a minute, at most 14"
            " days) or off.",
            setting="timeout",
            value="forever",
        )
        await refused(
            w,
            ada,
            "option",
            "There is no language es: choose en, de, nl or fr.",
            setting="lang",
            value="es",
        )
        await refused(
            w,
            ada,
            "kick",
            "There is no player nobody here: name a seat number or a player's name.",
            player="nobody",
        )
        await refused(
            w,
            ada,
            "addbot",
            "There is no computer level genius. Levels: random, greedy, strong, expert, master.",
            level="genius",
        )
        await bob.slash(w.channel, "join")
        await ada.slash(w.channel, "start")

        first = w.game().racks[0][0].name
        cases = [
            (
                {"tile": "XY", "cell1": "F7", "cell2": "F8"},
                "X is not a colour: use R (red), G"
                " (green), B (blue), O (orange), Y (yellow), P (purple).",
            ),
            (
                {"tile": "1", "cell1": "A2", "cell2": "A4"},
                f"The two cells of {first} A2 A4 do"
                " not touch: a tile covers two neighbouring cells.",
            ),
            (
                {"tile": "1", "cell1": "Z9", "cell2": "Z10"},
                "Z9 is not on this game's board: the picture shows the cell labels.",
            ),
            (
                {"tile": "1", "cell1": "a1", "cell2": "a2"},
                "A1 is a start symbol: place on two empty cells.",
            ),
            (
                {"tile": "1", "cell1": "F5", "cell2": "F6"},
                "Your first tile must touch a start symbol that no tile touches yet.",
            ),
            (
                {"tile": "9", "cell1": "A2", "cell2": "A3"},
                "There is no tile in slot 9 of your rack: /hand shows your tiles.",
            ),
        ]
        for options, expected in cases:
            await refused(w, ada, "play", expected, **options)
        await refused(w, bob, "swap", "It is not your turn: Ada is to move.")
        await refused(
            w, ada, "keep", "No swap is offered now: /swap and /keep answer the offer after a turn."
        )
        await refused(w, cy, "hand", "You are not seated at this table.")
        await refused(
            w,
            ada,
            "option",
            "A game is running: that is possible before the start only.",
            setting="team",
        )


async def test_help_and_rules_answer_privately_board_and_score_publicly(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        ada = w.person("Ada")
        help_text = only_answer(await ada.slash(w.channel, "help"))
        assert help_text.startswith("Genial bot: the first commands.")
        assert only_answer(await ada.slash(w.channel, "rules")).startswith("Genial in short:")
        assert w.public() == []
        await ada.slash(w.channel, "join")
        await w.person("Bob").slash(w.channel, "join")
        await ada.slash(w.channel, "start")
        seen = len(w.public())
        board = await w.person("Cy").slash(w.channel, "board")
        assert board.response is None  # nothing private: the board went to the channel
        assert "Genial after 0 moves." in text(w.last_public())
        await w.person("Cy").slash(w.channel, "score")
        assert text(w.last_public()).startswith("Scores, Genial, after 0 moves:")
        # The record as a file; the draw order (which would tell the racks) stays out.
        await w.person("Cy").slash(w.channel, "export")
        [record] = w.last_public().attachments
        assert record.filename.endswith(".json")
        data = json.loads(await record.read())
        assert (data["game"], data["players"], data["moves"]) == ("genial", 2, [])
        assert "bag" not in data
        assert len(w.public()) == seen + 3
