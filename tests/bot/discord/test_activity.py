"""With ``[discord] activity`` on, the board's buttons ("Watch live" under a turn, "Play
on the board" under a player's tiles) open the board inside Discord: the press is
answered with ``LAUNCH_ACTIVITY`` (interaction callback type 12) and noted, so the
Activity finds the table; where Discord will not launch it, the person gets the page's
link privately, as without the setting."""

from __future__ import annotations

from pathlib import Path

import discord
import pytest

from bot.core.config import Settings, WebSettings
from bot.pages.links import pressed
from tests.bot.discord import launches
from tests.bot.discord.support import answers, world

WEB = WebSettings(port=8080, public_url="https://genial.example")
ACTIVITY = Settings(level="random", web=WEB, discord_activity=True, discord_client_id="4242")


@pytest.fixture(autouse=True)
def secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GENIAL_WEB_SECRET", "activity test secret")


def _buttons(message: object) -> list[tuple[str, str | None, str | None]]:
    """(label, url, custom id) of each button of a message."""
    out = []
    for row in message.components:  # type: ignore[attr-defined]
        for c in row["components"] if isinstance(row, dict) else row.children:
            if isinstance(c, dict):
                out.append((c.get("label"), c.get("url"), c.get("custom_id")))
            else:
                out.append((c.label, c.url, c.custom_id))
    return out


@pytest.mark.asyncio
async def test_the_board_buttons_launch_the_activity(tmp_path: Path) -> None:
    async with world(tmp_path, settings=ACTIVITY) as w:
        ada, bob, cy = w.person("Ada"), w.person("Bob"), w.person("Cy")
        await ada.slash(w.channel, "join")
        await bob.slash(w.channel, "join")
        await ada.slash(w.channel, "start")
        turn = w.last_public()
        # No link under the turn: a button that launches the board in Discord.
        watch = [b for b in _buttons(turn) if b[0] == "Watch live"]
        assert watch == [("Watch live", None, f"genial:{w.chat}:turn:/activity")]
        before = len(w.public())
        result = await cy.click(turn, label="Watch live")  # a watcher
        (launch,) = launches.launched(w.env)
        assert (launch.channel, launch.user) == (w.channel.id, cy.id)
        assert launch.instance.endswith(f"-{w.channel.id}")
        assert result.followups == [] and len(w.public()) == before  # nothing said
        assert pressed(w.service, str(cy.id), w.service.clock()) == w.chat
        # Under a player's own tiles ("My tiles"): "Play on the board", launching too.
        mine = await w.to_move().click(turn, label="My tiles")
        (tiles,) = answers(mine, clicked=True)
        assert ("Play on the board", None, f"genial:{w.chat}:rack:/activity") in _buttons(tiles)
        # The press is noted once per press: the later one names the same table.
        await ada.click(turn, label="Watch live")
        assert [(x.channel, x.user) for x in launches.launched(w.env)[1:]] == [
            (w.channel.id, ada.id)
        ]
        assert len(w.public()) == before
        # The note is the person's: /forget me (asked twice) forgets it.
        assert "activity_press" in w.service.store.notes_of(str(cy.id))
        await cy.slash(w.channel, "forget")
        await cy.slash(w.channel, "forget")
        assert pressed(w.service, str(cy.id), w.service.clock()) is None


@pytest.mark.asyncio
async def test_without_activities_the_press_gets_the_link_privately(tmp_path: Path) -> None:
    async with world(tmp_path, settings=ACTIVITY) as w:
        launches.activities_off(w.env)  # not switched on in the Developer Portal
        ada, bob, cy = w.person("Ada"), w.person("Bob"), w.person("Cy")
        await ada.slash(w.channel, "join")
        await bob.slash(w.channel, "join")
        await ada.slash(w.channel, "start")
        turn = w.last_public()
        for person, label, page in ((cy, "Watch live", "/t/"), (bob, "Play on the board", "/s/")):
            await person.click(turn, label="Watch live")
            (answer,) = [
                m for m in w.messages(viewer=person) if m.flags.ephemeral and m.components
            ][-1:]
            ((shown, url, _),) = _buttons(answer)
            assert shown == label and url is not None
            assert url.startswith("https://genial.example" + page)
        assert launches.launched(w.env) == []


@pytest.mark.asyncio
async def test_without_the_setting_the_buttons_are_links(tmp_path: Path) -> None:
    settings = Settings(level="random", web=WEB)
    async with world(tmp_path, settings=settings) as w:
        ada, bob = w.person("Ada"), w.person("Bob")
        await ada.slash(w.channel, "join")
        await bob.slash(w.channel, "join")
        await ada.slash(w.channel, "start")
        (watch,) = [b for b in _buttons(w.last_public()) if b[0] == "Watch live"]
        _, url, custom = watch
        assert url is not None and url.startswith("https://genial.example/t/")
        assert custom is None  # a link: no interaction, nothing launched
        assert launches.launched(w.env) == []


@pytest.mark.asyncio
async def test_registering_the_commands_keeps_the_apps_entry_point(tmp_path: Path) -> None:
    """Activities switched on in the Developer Portal give the app an Entry Point command,
    which Discord will not let an overwrite of the commands remove: the bot's
    registration sends it back as it is, and its slash commands are registered."""
    async with world(tmp_path, settings=ACTIVITY) as w:
        entry = launches.portal_entry_point(w.env)
        with pytest.raises(discord.HTTPException) as refused:
            await w.client.tree.sync()  # discord.py's own: no Entry Point in it
        assert refused.value.code == 50240
        await w.client.register_commands()
        registered = w.env.backend.commands[None]
        kept = registered[("launch", launches.PRIMARY_ENTRY_POINT)]
        assert (kept["id"], kept["handler"]) == (entry["id"], launches.DISCORD_LAUNCH_ACTIVITY)
        assert ("join", 1) in registered and ("play", 1) in registered
        ada = w.person("Ada")
        await ada.slash(w.channel, "join")  # the commands work as before
        assert w.table().seats[0].name == "Ada"
