"""An :class:`~bot.outbound.Outbound` in Discord's idiom: the keyword arguments of a send.

A message with an image shows it in an embed (the text above the picture); the people it
addresses are mentioned in the content, because mentions in embeds do not ping. Only those
people may be pinged: never @everyone or roles, whatever a player's name says.
"""

from __future__ import annotations

import io
from typing import Any

import discord

from bot.discord.views import outbound_view
from bot.outbound import Outbound

#: Discord's limits on a message's content and an embed's description.
MAX_CONTENT = 2000
MAX_DESCRIPTION = 4096
#: The embed's side stripe: Genial's orange.
COLOUR = discord.Colour(0xF28C28)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def mention_line(outbound: Outbound) -> str:
    return " ".join(f"<@{user}>" for user in outbound.mentions if user.isdigit())


def allowed_mentions(outbound: Outbound) -> discord.AllowedMentions:
    users = [discord.Object(int(u)) for u in outbound.mentions if u.isdigit()]
    return discord.AllowedMentions(everyone=False, roles=False, users=users, replied_user=False)


def send_kwargs(outbound: Outbound, *, with_view: bool = True) -> dict[str, Any]:
    """What to pass to ``Messageable.send``, ``Webhook.send`` or an edit for ``outbound``.

    The text is escaped, so names with ``*`` or ``_`` show as typed.
    """
    text = discord.utils.escape_markdown(outbound.text)
    mentions = mention_line(outbound)
    attachment = outbound.attachment
    kw: dict[str, Any] = {"allowed_mentions": allowed_mentions(outbound)}
    body = f"{mentions}\n{text}" if mentions else text
    if (attachment is not None and attachment.is_image) or len(body) > MAX_CONTENT:
        embed = discord.Embed(description=_cut(text, MAX_DESCRIPTION), colour=COLOUR)
        if attachment is not None and attachment.is_image:
            embed.set_image(url=f"attachment://{attachment.filename}")
        kw["embed"] = embed
        if mentions:
            kw["content"] = mentions
    else:
        kw["content"] = body
    if attachment is not None:
        kw["file"] = discord.File(io.BytesIO(attachment.data), filename=attachment.filename)
    if with_view:
        view = outbound_view(outbound)
        if view is not None:
            kw["view"] = view
    return kw


def edit_kwargs(outbound: Outbound) -> dict[str, Any]:
    """What to pass to an edit that replaces a message (a lobby or the options) in place."""
    kw = send_kwargs(outbound)
    kw.setdefault("content", None)
    kw.setdefault("embed", None)
    kw.setdefault("view", None)
    if "file" in kw:
        kw["attachments"] = [kw.pop("file")]
    return kw
