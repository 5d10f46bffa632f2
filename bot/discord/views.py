"""Discord buttons: persistent ones whose custom id says everything needed to answer a click.

A button's custom id is ``genial:<chat>:<kind>:<command>``: the table's chat (channel or
thread id), the kind of message it sits on, and the command text it sends, which carries
the table's version (``/swap #12``) when the command changes the table. Nothing about a
button is kept in memory, so :class:`TableButton`, registered once as a dynamic item,
answers clicks on messages sent before a restart; the service rejects a stale version.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Protocol, runtime_checkable

import discord

from bot.core.outbound import Button, Outbound

log = logging.getLogger(__name__)

PREFIX = "genial"
#: The command of a button that opens the board inside Discord (``[discord] activity``):
#: answered with Discord's ``LAUNCH_ACTIVITY``, never handed to the service.
ACTIVITY = "/activity"
#: Discord's limit on a custom id.
MAX_CUSTOM_ID = 100
#: Discord's limit on a button label.
MAX_LABEL = 80
TEMPLATE = rf"{PREFIX}:(?P<chat>\d{{1,20}}):(?P<kind>[a-z]{{1,12}}):(?P<command>/[^\n]+)"
_TEMPLATE = re.compile(TEMPLATE)

_STYLES = {
    "/join": discord.ButtonStyle.success,
    "/start": discord.ButtonStyle.primary,
    "/swap": discord.ButtonStyle.primary,
    "/hand": discord.ButtonStyle.primary,
    ACTIVITY: discord.ButtonStyle.primary,
}


def custom_id(chat: str, kind: str, command: str) -> str:
    """The custom id of a button sending ``command`` at ``chat`` from a ``kind`` message.

    Raises:
        ValueError: if the parts do not fit Discord's 100 characters or the pattern.
    """
    text = f"{PREFIX}:{chat}:{kind}:{command}"
    if len(text) > MAX_CUSTOM_ID or not _TEMPLATE.fullmatch(text):
        raise ValueError(f"no button can carry {text!r}")
    return text


def parse_custom_id(text: str) -> tuple[str, str, str] | None:
    """``(chat, kind, command)`` of one of our custom ids, or ``None``."""
    m = _TEMPLATE.fullmatch(text)
    return (m["chat"], m["kind"], m["command"]) if m else None


def _style(command: str) -> discord.ButtonStyle:
    return _STYLES.get(command.split()[0], discord.ButtonStyle.secondary)


@runtime_checkable
class Presses(Protocol):
    """The client side of a click (the adapter's client implements it)."""

    async def press(
        self, interaction: discord.Interaction[Any], chat: str, kind: str, command: str
    ) -> None: ...


class TableButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=TEMPLATE):
    """A button that sends a command to a table; rebuilt from its custom id on every click."""

    def __init__(self, chat: str, kind: str, command: str, label: str = "") -> None:
        super().__init__(
            discord.ui.Button(
                label=label[:MAX_LABEL] or command,
                style=_style(command),
                custom_id=custom_id(chat, kind, command),
            )
        )
        self.chat = chat
        self.kind = kind
        self.command = command

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> TableButton:
        label = getattr(item, "label", None) or ""
        return cls(match["chat"], match["kind"], match["command"], label)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        client = interaction.client
        if isinstance(client, Presses):
            await client.press(interaction, self.chat, self.kind, self.command)


def view_for(buttons: tuple[Button, ...], chat: str, kind: str) -> discord.ui.View | None:
    """A view holding the buttons of an outbound (``None`` if it has none that fit)."""
    if not buttons:
        return None
    view = discord.ui.View(timeout=None)
    for button in buttons:
        if button.url:  # the table's web page: a link button, no command
            view.add_item(discord.ui.Button(label=button.label[:MAX_LABEL], url=button.url))
            continue
        try:
            view.add_item(TableButton(chat, kind, button.command, button.label))
        except ValueError as exc:  # too many buttons, or a command too long for an id
            log.warning("button left out: %s", exc)
    return view


def outbound_view(outbound: Outbound) -> discord.ui.View | None:
    return view_for(outbound.buttons, outbound.chat, outbound.kind)
