"""A table played in an inline message: its one message, edited in place (issue 49).

Someone types the bot's name in any chat and chooses a game (:mod:`bot.telegram.challenge`):
the message they send is the table's, in a chat the bot is no member of. Telegram lets the
bot edit that message only, by its ``inline_message_id``: no post, no reply, no deleting.
So everything the table says to the chat becomes that message: the lobby, then each turn
(its board as a photo with the turn as caption, with its buttons), then the result. What
else the table says there (a reminder, a vote, the options) is shown above the turn (or
lobby) it is about, its buttons above the turn's, until the next turn replaces both.
Racks, hints and pings go to the players' private chats as at any table.

An inline message takes no upload: its picture must be a file Telegram has. Each board is
uploaded first to the chat ``[telegram] media_chat`` names (the operator's private channel
or chat with the bot) and shown by the ``file_id`` Telegram gives it; the operator's chat
thus keeps every board of every inline game (they can mute it or clear it). Without that
setting an inline table shows no pictures: the turns in words, the board on the web page.

What the message shows now (its text and buttons, whether it is a photo) is a note of the
table's, so a restarted bot edits it the same way.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from telegram import InlineKeyboardMarkup, InputFile, InputMediaPhoto, Message, MessageEntity
from telegram.error import BadRequest

from bot.core.outbound import Outbound
from bot.service import Service
from bot.telegram import limits as fmt
from bot.telegram.botapi import BotAPI
from bot.telegram.notes import NOTE_INLINE, NOTE_INLINE_SHOWN, Notes

log = logging.getLogger(__name__)

#: Kinds of outbound that replace what the inline message is about; the others are shown
#: above it for a while (the options above the lobby, with their buttons and the lobby's:
#: the one message must keep Join and Start).
MAIN_KINDS = frozenset({"lobby", "turn", "result"})
#: What separates a passing message from the turn it is shown above.
ABOVE = "\n\n"
#: The file id noted for a photo whose id the bot does not know (the note was lost).
UNKNOWN_PHOTO = "?"


@dataclass
class Shown:
    """What an inline message shows: its main text (the lobby, the turn), buttons and the
    persons it mentions, and the photo's file id if it is one now."""

    text: str = ""
    markup: dict[str, Any] | None = None
    photo: str | None = None
    mentions: tuple[str, ...] = ()

    @classmethod
    def read(cls, raw: str | None) -> Shown:
        try:
            data = json.loads(raw) if raw else {}
            mentions = tuple(str(m) for m in data.get("mentions", []))
            return cls(str(data["text"]), data.get("markup"), data.get("photo"), mentions)
        except (ValueError, TypeError, AttributeError, KeyError):  # not a note we wrote
            return cls()

    def dump(self) -> str:
        return json.dumps(
            {
                "text": self.text,
                "markup": self.markup,
                "photo": self.photo,
                "mentions": list(self.mentions),
            }
        )


#: How the mentions of some persons in a text are made (Telegram's entities, or none).
Mentions = Callable[[str, tuple[str, ...]], Awaitable[list[MessageEntity] | None]]


class InlineMessages:
    """Edits the inline message of a table as the table's chat would be told."""

    def __init__(self, service: Service, api: BotAPI, notes: Notes) -> None:
        self.service = service
        self.api = api
        self.notes = notes

    async def show(
        self, out: Outbound, markup: InlineKeyboardMarkup | None, mentions: Mentions
    ) -> None:
        """Show ``out`` (to an inline table's chat) in the table's message: ``markup``,
        its buttons; ``mentions`` makes the mentions of the persons it names."""
        table = out.chat
        inline_id = await self.service_note(table, NOTE_INLINE)
        if inline_id is None:
            log.warning("no inline message noted for table %s: %s not shown", table, out.kind)
            return
        shown = Shown.read(await self.service_note(table, NOTE_INLINE_SHOWN))
        layout = markup.to_dict() if markup is not None else None
        text, named = out.text, out.mentions
        if out.kind in MAIN_KINDS:
            shown.text, shown.markup, shown.mentions = text, layout, named
        else:
            # Shown above the turn (or lobby) it is about, its buttons above the turn's,
            # the turn's player still mentioned.
            text = ABOVE.join(t for t in (out.text, shown.text) if t)
            named = tuple(dict.fromkeys((*named, *shown.mentions)))
            own = (layout or {}).get("inline_keyboard", [])
            shown.markup = _versioned(shown.markup, _version(own))
            rows = [*own, *(shown.markup or {}).get("inline_keyboard", [])]
            layout = {"inline_keyboard": rows} if rows else None
        buttons = InlineKeyboardMarkup.de_json(layout, None) if layout else None
        picture = out.attachment
        if picture is not None and picture.is_image and out.kind in MAIN_KINDS:
            file_id = await self._upload(picture.data, picture.filename, table)
            if file_id is not None:
                shown.photo = file_id
                caption = fmt.fit(text, fmt.CAPTION_LIMIT)
                media = InputMediaPhoto(
                    file_id, caption=caption, caption_entities=await mentions(caption, named)
                )
                await self._edit(
                    self.api.bot.edit_message_media,
                    media=media,
                    inline_message_id=inline_id,
                    reply_markup=buttons,
                )
                await self.notes.set_note(table, NOTE_INLINE_SHOWN, shown.dump())
                return
        if shown.photo is not None:
            caption = fmt.fit(text, fmt.CAPTION_LIMIT)
            done = await self._edit(
                self.api.bot.edit_message_caption,
                caption=caption,
                caption_entities=await mentions(caption, named),
                inline_message_id=inline_id,
                reply_markup=buttons,
                photo=True,
            )
        else:
            body = fmt.fit(text, fmt.TEXT_LIMIT)
            done = await self._edit(
                self.api.bot.edit_message_text,
                text=body,
                entities=await mentions(body, named),
                inline_message_id=inline_id,
                reply_markup=buttons,
                photo=False,
            )
        if done is not None:  # what Telegram said the message is, when the note was wrong
            shown.photo = (shown.photo or UNKNOWN_PHOTO) if done else None
        await self.notes.set_note(table, NOTE_INLINE_SHOWN, shown.dump())

    async def service_note(self, table: str, key: str) -> str | None:
        return await asyncio.to_thread(self.service.note, table, key)

    async def _edit(
        self, method: Callable[..., Awaitable[Any]], *, photo: bool | None = None, **kw: Any
    ) -> bool | None:
        """One edit of the inline message. "Not modified" is done. A text edit of what is
        a photo (or a caption edit of a text: the note was lost) is made the other way;
        returns whether the message is a photo then (``None``: as the note said)."""
        try:
            await self.api.retry(method, **kw)
            return None
        except BadRequest as exc:
            said = str(exc).lower()
            if "not modified" in said:
                return None
            if photo is None or not ("no text" in said or "no caption" in said):
                raise
        body = kw.pop("caption", None) or kw.pop("text", "")
        found = kw.pop("caption_entities", None) or kw.pop("entities", None)
        if photo:  # it is a text message after all
            await self.api.retry(self.api.bot.edit_message_text, text=body, entities=found, **kw)
            return False
        await self.api.retry(
            self.api.bot.edit_message_caption, caption=body, caption_entities=found, **kw
        )
        return True

    async def _upload(self, data: bytes, filename: str, table: str) -> str | None:
        """The picture uploaded to the operator's media chat: its file id (the largest
        size); ``None`` without a media chat, or when the upload failed (the message then
        shows the turn without its board, and the next turn tries again)."""
        chat = self.service.settings.telegram.media_chat
        if not chat:
            return None
        try:
            sent = await self.api.retry(
                self.api.bot.send_photo,
                chat,
                InputFile(data, filename=filename),
                caption=table,
                disable_notification=True,
                resend=False,
            )
        except Exception as exc:
            log.warning("could not upload a board for inline table %s: %s", table, exc)
            return None
        if not isinstance(sent, Message) or not sent.photo:
            return None
        return sent.photo[-1].file_id


_VERSION = re.compile(r" #(\d+)$")


def _version(rows: list[list[dict[str, Any]]]) -> int | None:
    """The table version the buttons of these rows carry (the newest), if any."""
    found = [_VERSION.search(str(b.get("callback_data", ""))) for row in rows for b in row]
    versions = [int(m.group(1)) for m in found if m is not None]
    return max(versions) if versions else None


def _versioned(markup: dict[str, Any] | None, version: int | None) -> dict[str, Any] | None:
    """The main buttons (Join, Start) carrying ``version``: a message shown above them
    (the options, a changed option) moved the table on, and the buttons stay the
    table's own, pressable below what the people see now."""
    if markup is None or version is None:
        return markup
    rows = [
        [
            {**b, "callback_data": _VERSION.sub(f" #{version}", b["callback_data"])}
            if "callback_data" in b
            else b
            for b in row
        ]
        for row in markup.get("inline_keyboard", [])
    ]
    return {**markup, "inline_keyboard": rows}
