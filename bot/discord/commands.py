"""The slash commands: the chat commands (:mod:`bot.core.commands`) in Discord's idiom.

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
from discord.app_commands import Choice, locale_str

from bot.core.looks import SeatLook
from bot.core.parsing import SOLUTION_WORDS
from bot.core.table import PLAYING, Table
from bot.discord import choices
from bot.discord.translator import (
    command_key,
    parameter_key,
    parameter_name_key,
    setting_key,
    text,
)
from bot.service import Service
from bot.words.texts import Texts

#: ``/option`` settings, by the word of the chat command (the names shown are the
#: catalogue's ``discord.setting`` messages).
SETTINGS = (
    "team",
    "spezial",
    "genial",
    "timeout",
    "hints",
    "order",
    "lang",
    "clock",
    "grace",
    "undo",
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


def _simple(name: str, *, quiet: bool = False) -> Command:
    async def callback(interaction: discord.Interaction[Any]) -> None:
        await _run(interaction, f"/{name}", quiet=quiet)

    return app_commands.Command(name=name, description=_about(name), callback=callback)


def _about(command: str) -> locale_str:
    """A command's description in the menu."""
    return text(command_key(command))


def _params(command: str, *names: str) -> dict[str, locale_str]:
    """The descriptions of a command's parameters (for ``app_commands.describe``)."""
    return {name: text(parameter_key(command, name)) for name in names}


def _names(*names: str) -> dict[str, locale_str]:
    """The parameters' names as the menu shows them (for ``app_commands.rename``)."""
    return {name: text(parameter_name_key(name)) for name in names}


SIMPLE = (
    _simple("join"),
    _simple("leave"),
    _simple("start"),
    _simple("swap"),
    _simple("keep"),
    _simple("hand"),
    _simple("board"),
    _simple("score"),
    _simple("hint"),
    _simple("export"),
    _simple("abort"),
    _simple("rules", quiet=True),
    _simple("replay"),
    _simple("rematch"),
    _simple("games", quiet=True),
    _simple("mydata", quiet=True),
    _simple("skip"),
    _simple("expel"),
    _simple("wait"),
    _simple("back", quiet=True),
    _simple("unlink", quiet=True),
    _simple("review"),
)


@app_commands.command(name="help", description=_about("help"))
@app_commands.describe(**_params("help", "everything"))
@app_commands.rename(**_names("everything"))
async def help_(interaction: discord.Interaction[Any], everything: bool = False) -> None:
    # The first commands, or with the option every command (issue 44, item 29).
    await _run(interaction, "/help all" if everything else "/help", quiet=True)


# --- the community commands with an argument (issue 13) ---------------------------------


@app_commands.command(name="top", description=_about("top"))
@app_commands.describe(**_params("top", "page", "everywhere"))
@app_commands.rename(**_names("page", "everywhere"))
async def top(
    interaction: discord.Interaction[Any], page: int | None = None, everywhere: bool = False
) -> None:
    scope = " global" if everywhere else ""
    await _run(interaction, "/top" + scope + (f" {page}" if page is not None else ""))


@app_commands.command(name="stats", description=_about("stats"))
@app_commands.describe(**_params("stats", "player"))
@app_commands.rename(**_names("player"))
async def stats(interaction: discord.Interaction[Any], player: str | None = None) -> None:
    await _run(interaction, "/stats" + (f" {player.strip()}" if player else ""))


@app_commands.command(name="history", description=_about("history"))
@app_commands.describe(**_params("history", "moves"))
@app_commands.rename(**_names("moves"))
async def history(interaction: discord.Interaction[Any], moves: int | None = None) -> None:
    await _run(interaction, "/history" + (f" {moves}" if moves is not None else ""))


@app_commands.command(name="look", description=_about("look"))
@app_commands.describe(**_params("look", "cell"))
@app_commands.rename(**_names("cell"))
async def look(interaction: discord.Interaction[Any], cell: str) -> None:
    # A cell and its lines in words (issue 48): only the asker needs them.
    await _run(interaction, "/look " + (cell.strip() or "?"), quiet=True)


@app_commands.command(name="notify", description=_about("notify"))
@app_commands.describe(**_params("notify", "switch", "value"))
@app_commands.rename(**_names("switch", "value"))
@app_commands.choices(
    switch=[Choice(name=word, value=word) for word in ("on", "off", "digest", "quiet", "tz")]
)
async def notify(
    interaction: discord.Interaction[Any], switch: str | None = None, value: str | None = None
) -> None:
    words = ["/notify", *([switch] if switch else []), *([value.strip()] if value else [])]
    await _run(interaction, " ".join(words), quiet=True)


@app_commands.command(name="forget", description=_about("forget"))
async def forget(interaction: discord.Interaction[Any]) -> None:
    # The chat command's own words: the first asks to confirm, a second one forgets.
    await _run(interaction, "/forget me", quiet=True)


# --- time and absence (issue 26) ---------------------------------------------------------


@app_commands.command(name="undo", description=_about("undo"))
@app_commands.describe(**_params("undo", "answer"))
@app_commands.rename(**_names("answer"))
@app_commands.choices(answer=[Choice(name="yes", value="yes"), Choice(name="no", value="no")])
async def undo(interaction: discord.Interaction[Any], answer: str | None = None) -> None:
    await _run(interaction, "/undo" + (f" {answer}" if answer else ""))


@app_commands.command(name="link", description=_about("link"))
@app_commands.describe(**_params("link", "code"))
@app_commands.rename(**_names("code"))
async def link(interaction: discord.Interaction[Any], code: str | None = None) -> None:
    # Only the person sees their code (an ephemeral reply), and so does the one redeeming it.
    await _run(interaction, "/link" + (f" {_clean(code)}" if code else ""), quiet=True)


@app_commands.command(name="away", description=_about("away"))
@app_commands.describe(**_params("away", "time"))
@app_commands.rename(**_names("time"))
async def away(interaction: discord.Interaction[Any], time: str) -> None:
    await _run(interaction, f"/away {_clean(time)}", quiet=True)


# --- /addbot -----------------------------------------------------------------------------


@app_commands.command(name="addbot", description=_about("addbot"))
@app_commands.describe(**_params("addbot", "level"))
@app_commands.rename(**_names("level"))
async def addbot(interaction: discord.Interaction[Any], level: str | None = None) -> None:
    await _run(interaction, f"/addbot {_clean(level)}" if level else "/addbot")


@addbot.autocomplete("level")
async def _level_choices(interaction: discord.Interaction[Any], current: str) -> list[Choice[str]]:
    client = _client(interaction)
    look = await client.look(interaction)
    return _as_choices(choices.levels(client.service.settings.levels, look.texts, current))


# --- /option -----------------------------------------------------------------------------


@app_commands.command(name="option", description=_about("option"))
@app_commands.describe(**_params("option", "setting", "value"))
@app_commands.rename(**_names("setting", "value"))
@app_commands.choices(
    setting=[Choice(name=text(setting_key(word)), value=word) for word in SETTINGS]
)
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


@app_commands.command(name="play", description=_about("play"))
@app_commands.describe(**_params("play", "tile", "cell1", "cell2", "golden"))
@app_commands.rename(**_names("tile", "cell1", "cell2", "golden"))
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


@app_commands.command(name="kick", description=_about("kick"))
@app_commands.describe(**_params("kick", "player"))
@app_commands.rename(**_names("player"))
async def kick(interaction: discord.Interaction[Any], player: str) -> None:
    await _run(interaction, f"/kick {player.strip()}")


@kick.autocomplete("player")
async def _seat_choices(interaction: discord.Interaction[Any], current: str) -> list[Choice[str]]:
    look = await _client(interaction).look(interaction)
    return _as_choices(choices.seats(look.table, current))


@app_commands.command(name="tournament", description=_about("tournament"))
@app_commands.describe(**_params("tournament", "action", "details"))
@app_commands.rename(**_names("action", "details"))
async def tournament(
    interaction: discord.Interaction[Any], action: str | None = None, details: str | None = None
) -> None:
    """``/tournament`` (issue 30): the action (new, join, start...) and what follows it
    (``swiss 5 rounds 2 players 3d``, a tournament's id, an invite code)."""
    words = " ".join(w for w in (action, details) if w and w.strip())
    await _run(interaction, "/tournament" + (f" {words.strip()}" if words else ""))


@app_commands.command(name="puzzle", description=_about("puzzle"))
@app_commands.describe(**_params("puzzle", "answer"))
@app_commands.rename(**_names("answer"))
async def puzzle(interaction: discord.Interaction[Any], answer: str | None = None) -> None:
    # An answer is told only to whoever sent it (an ephemeral reply): nobody sees the move;
    # the solution (/puzzle answer) is for everyone.
    words = answer.strip() if answer else ""
    move = bool(words) and words.casefold() not in SOLUTION_WORDS
    await _run(interaction, "/puzzle" + (f" {words}" if words else ""), quiet=move)


COMMANDS: tuple[Command, ...] = (
    *SIMPLE,
    help_,
    addbot,
    option,
    play,
    kick,
    top,
    stats,
    history,
    look,
    notify,
    forget,
    link,
    undo,
    away,
    tournament,
    puzzle,
)


#: Where every command may be used: in a server's channel, in the bot's own DM (a game
#: against computer players, ``/games``, ``/notify``, ``/stats`` privately) and in group DMs
#: and other private channels, where friends play through a user install of the app.
EVERYWHERE = app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
#: How the app may be installed: added to a server, or by a person for themselves (then its
#: commands follow them into group DMs the bot is not a member of).
INSTALLS = app_commands.allowed_installs(guilds=True, users=True)


def install(tree: app_commands.CommandTree[Any]) -> None:
    """Add every command of :data:`COMMANDS` to ``tree``, usable in every context (a table
    belongs to whichever channel it is opened in) and for both kinds of install."""
    for command in COMMANDS:
        tree.add_command(INSTALLS(EVERYWHERE(command)))
