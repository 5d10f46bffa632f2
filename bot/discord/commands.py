"""The slash commands: the chat commands (:mod:`bot.commands`) in Discord's idiom.

Each command writes the same command text a chat line would (``/play RG F7 F8``) and hands
it to the client, which acknowledges the interaction at once and lets the table service
decide; parsing and every rule stay in one place. Autocomplete offers what the typing
player may use: their own tiles, free cells, the seats, an option's values.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import discord
from discord import app_commands
from discord.app_commands import Choice

from bot.discord import choices
from bot.looks import SeatLook
from bot.service import Service
from bot.table import PLAYING, Table
from bot.texts import Texts

#: ``/option`` settings: (name shown, word of the chat command).
SETTINGS = (
    ("Team game", "team"),
    ("Genial Spezial", "spezial"),
    ("Genial (standard game)", "genial"),
    ("Time per turn", "timeout"),
    ("Hints", "hints"),
    ("Seat order", "order"),
    ("Language", "lang"),
)

Command = app_commands.Command[Any, Any, None]


@dataclass(frozen=True)
class Look:
    """What autocomplete may use: the table, the typing person's look at their game, the
    table's texts."""

    table: Table | None
    texts: Texts
    seat: SeatLook | None = None


class Host(Protocol):
    """What the commands need of the client they are installed on (the client imports
    this module, never the other way round)."""

    service: Service

    async def run_command(
        self,
        interaction: discord.Interaction[Any],
        command: str | Callable[[Table | None], str],
        *,
        quiet: bool = False,
    ) -> None: ...

    async def look(
        self, interaction: discord.Interaction[Any], *, with_view: bool = False
    ) -> Look: ...


def _client(interaction: discord.Interaction[Any]) -> Host:
    host: Host = interaction.client
    return host


def _clean(text: str) -> str:
    """An option's value as one word: ``F 7`` and ``f7`` are both ``f7``."""
    return "".join(text.split())


def _as_choices(pairs: list[tuple[str, str]]) -> list[Choice[str]]:
    return [Choice(name=name, value=value) for name, value in pairs]


async def _run(
    interaction: discord.Interaction[Any],
    command: str | Callable[[Table | None], str],
    *,
    quiet: bool = False,
) -> None:
    await _client(interaction).run_command(interaction, command, quiet=quiet)


def _simple(name: str, description: str, *, quiet: bool = False) -> Command:
    async def callback(interaction: discord.Interaction[Any]) -> None:
        await _run(interaction, f"/{name}", quiet=quiet)

    return app_commands.Command(name=name, description=description, callback=callback)


SIMPLE = (
    _simple("join", "Take a seat at this channel's table (up to 4 players)"),
    _simple("leave", "Give up your seat (during a game a computer player takes it over)"),
    _simple("start", "Start the game with the players seated"),
    _simple("swap", "Swap all your tiles (when the swap is offered)"),
    _simple("keep", "Keep your tiles (when the swap is offered)"),
    _simple("hand", "Show me my tiles (only you see them)"),
    _simple("board", "Post the board again"),
    _simple("score", "Post the scores"),
    _simple("hint", "Good moves for me (only you see them; when hints are on)"),
    _simple("export", "The game record as a JSON file"),
    _simple("abort", "Close the table (host or Manage Server)"),
    _simple("help", "The commands in short", quiet=True),
    _simple("rules", "The rules in short", quiet=True),
    _simple("replay", "The finished game as an animated GIF"),
    _simple("rematch", "Play again with the same seats and options"),
    _simple("games", "My running tables in every channel (only you see them)", quiet=True),
)


# --- the community commands with an argument (issue 13) ---------------------------------


@app_commands.command(name="top", description="This channel's ladder")
@app_commands.describe(page="Which ten rows (1 first)")
async def top(interaction: discord.Interaction[Any], page: int | None = None) -> None:
    await _run(interaction, "/top" + (f" {page}" if page is not None else ""))


@app_commands.command(name="stats", description="Games, wins and rating of a player")
@app_commands.describe(player="The player's name (you, if left out)")
async def stats(interaction: discord.Interaction[Any], player: str | None = None) -> None:
    await _run(interaction, "/stats" + (f" {player.strip()}" if player else ""))


@app_commands.command(name="history", description="The last moves of the game")
@app_commands.describe(moves="How many moves (10 if left out)")
async def history(interaction: discord.Interaction[Any], moves: int | None = None) -> None:
    await _run(interaction, "/history" + (f" {moves}" if moves is not None else ""))


@app_commands.command(name="notify", description="A direct message when it is my turn")
@app_commands.describe(switch="on or off")
@app_commands.choices(switch=[Choice(name="on", value="on"), Choice(name="off", value="off")])
async def notify(interaction: discord.Interaction[Any], switch: str | None = None) -> None:
    await _run(interaction, "/notify" + (f" {switch}" if switch else ""), quiet=True)


# --- /addbot -----------------------------------------------------------------------------


@app_commands.command(name="addbot", description="Seat a computer player")
@app_commands.describe(level="How strong it plays")
async def addbot(interaction: discord.Interaction[Any], level: str | None = None) -> None:
    await _run(interaction, f"/addbot {_clean(level)}" if level else "/addbot")


@addbot.autocomplete("level")
async def _level_choices(interaction: discord.Interaction[Any], current: str) -> list[Choice[str]]:
    return _as_choices(choices.levels(_client(interaction).service.settings.levels, current))


# --- /option -----------------------------------------------------------------------------


@app_commands.command(name="option", description="Show or change the table's options")
@app_commands.describe(
    setting="What to change (leave out to see the options)",
    value="The new value: on/off, a time like 24h, join/random, a language",
)
@app_commands.choices(setting=[Choice(name=name, value=word) for name, word in SETTINGS])
async def option(
    interaction: discord.Interaction[Any],
    setting: Choice[str] | None = None,
    value: str | None = None,
) -> None:
    words = ["/option"]
    if setting is not None:
        words.append(setting.value)
    if value:
        words.append(value.strip())
    await _run(interaction, " ".join(words))


@option.autocomplete("value")
async def _value_choices(interaction: discord.Interaction[Any], current: str) -> list[Choice[str]]:
    setting = getattr(interaction.namespace, "setting", None)
    look = await _client(interaction).look(interaction)
    return _as_choices(choices.option_values(setting, look.texts, current))


# --- /play -------------------------------------------------------------------------------


@app_commands.command(name="play", description="Place a tile: the tile, then two cells")
@app_commands.describe(
    tile="A tile from your rack (like RG) or its slot 1-6",
    cell1="The cell for the tile's first colour (like F7)",
    cell2="A neighbouring cell for the second colour (like F8)",
    golden="Genial Spezial: a colour letter for each golden space you cover",
)
async def play(
    interaction: discord.Interaction[Any],
    tile: str,
    cell1: str,
    cell2: str,
    golden: str | None = None,
) -> None:
    cells = f"{_clean(cell1)} {_clean(cell2)}"
    extra = f" {_clean(golden)}" if golden else ""

    def move(table: Table | None) -> str:
        spezial = table is not None and table.status == PLAYING and table.options.game == "spezial"
        return f"/play {cells}{extra}" if spezial else f"/play {_clean(tile)} {cells}{extra}"

    await _run(interaction, move)


@play.autocomplete("tile")
async def _tile_choices(interaction: discord.Interaction[Any], current: str) -> list[Choice[str]]:
    look = await _client(interaction).look(interaction, with_view=True)
    return _as_choices(choices.tiles(look.seat, look.texts, current))


@play.autocomplete("cell1")
async def _cell1_choices(interaction: discord.Interaction[Any], current: str) -> list[Choice[str]]:
    look = await _client(interaction).look(interaction, with_view=True)
    return _as_choices(choices.first_cells(look.seat, current))


@play.autocomplete("cell2")
async def _cell2_choices(interaction: discord.Interaction[Any], current: str) -> list[Choice[str]]:
    first = getattr(interaction.namespace, "cell1", None)
    look = await _client(interaction).look(interaction, with_view=True)
    return _as_choices(choices.second_cells(look.seat, first, current))


# --- /kick -------------------------------------------------------------------------------


@app_commands.command(name="kick", description="A computer player takes a seat (host or admin)")
@app_commands.describe(player="The seat number or the player's name")
async def kick(interaction: discord.Interaction[Any], player: str) -> None:
    await _run(interaction, f"/kick {player.strip()}")


@kick.autocomplete("player")
async def _seat_choices(interaction: discord.Interaction[Any], current: str) -> list[Choice[str]]:
    look = await _client(interaction).look(interaction)
    return _as_choices(choices.seats(look.table, current))


COMMANDS: tuple[Command, ...] = (*SIMPLE, addbot, option, play, kick, top, stats, history, notify)


def install(tree: app_commands.CommandTree[Any]) -> None:
    """Add every command to ``tree``, for servers only (a table belongs to a channel)."""
    for command in COMMANDS:
        tree.add_command(app_commands.guild_only()(command))
