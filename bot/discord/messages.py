"""An :class:`~bot.core.outbound.Outbound` in Discord's idiom: the keyword arguments of a send.

A picture (the board, a rack, the result) goes as a plain attachment under the text, not
as an embed's image: Discord shows an embed's image at about 400 by 300 pixels, an
attachment larger (the full width of a phone's screen), and a tap on an attachment opens it
at full size. Only a text too long for a message's content goes in an embed. The people a
message addresses are mentioned in the content, and only they may be pinged: never
@everyone or roles, whatever a player's name says.
"""

from __future__ import annotations

import dataclasses
import io
from typing import Any

import discord

from bot.core.outbound import Outbound
from bot.discord.views import outbound_view
from bot.words.texts import Texts

#: Discord's limits on a message's content and an embed's description.
MAX_CONTENT = 2000
MAX_DESCRIPTION = 4096
#: The longest alt text (an attachment's ``description``) Discord takes.
ALT_MOST = 1024
#: The embed's side stripe: Genial's orange.
COLOUR = discord.Colour(0xF28C28)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def jump_url(guild: str, channel: str, message: str) -> str:
    """Discord's link to one message: ``guild`` is the server's id, or ``@me`` for a
    direct message."""
    return f"https://discord.com/channels/{guild}/{channel}/{message}"


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
    if len(body) > MAX_CONTENT:
        kw["embed"] = discord.Embed(description=_cut(text, MAX_DESCRIPTION), colour=COLOUR)
        if mentions:
            kw["content"] = mentions
    else:
        kw["content"] = body
    if attachment is not None:
        kw["file"] = discord.File(
            io.BytesIO(attachment.data),
            filename=attachment.filename,
            # Alt text (issue 48): Discord allows 1,024 characters.
            description=attachment.description[:ALT_MOST] or None,
        )
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
    kw["attachments"] = [kw.pop("file")] if "file" in kw else []
    return kw


def direct_kwargs(outbound: Outbound, texts: Texts, table: str) -> dict[str, Any]:
    """``outbound`` (a rack) as a direct message: commands work only in the server, so the
    line on how to play says to type it there, the swap is offered by its buttons, and the
    last line leads to the table (``table``: a link to its channel, or its name; empty for
    none)."""
    replaced = {
        texts("rack.how"): texts("discord.dm_how"),
        texts("rack.swap"): texts(
            "discord.dm_swap", swap=texts("button.swap"), keep=texts("button.keep")
        ),
    }
    # The how-to with an example legal at this move: the same example, typed at the table.
    before, _, after = texts("rack.how_example", example="\0").partition("\0")

    def dm_line(line: str) -> str:
        if line in replaced:
            return replaced[line]
        if line.startswith(before) and line.endswith(after) and len(line) > len(before + after):
            example = line[len(before) : len(line) - len(after)]
            return texts("discord.dm_how_example", example=example)
        return line

    lines = [dm_line(line) for line in outbound.text.split("\n")]
    if table:  # none for a ping about another platform's table (issue 49)
        lines.append(texts("discord.dm_table", table=table))
    return send_kwargs(dataclasses.replace(outbound, text="\n".join(lines)))
