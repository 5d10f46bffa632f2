"""Outbounds as letters of the stored outbox, and back.

A letter holds everything a platform needs to deliver an outbound after a restart: the
text, the buttons, who it is for and whom it mentions, and its file's bytes beside the JSON
(a board image is stored as it was drawn, not drawn again). The random key is fixed here,
once, so every try at delivering it carries the same one.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from bot.core.outbound import Attachment, Button, Outbound, Stored
from bot.store.base import Letter


def letter(out: Outbound) -> Letter:
    """The letter that keeps ``out`` in the outbox until it is delivered."""
    body: dict[str, Any] = {
        "text": out.text,
        "kind": out.kind,
        "user": out.user,
        "buttons": [[b.label, b.command] for b in out.buttons],
        "mentions": list(out.mentions),
        "tables": list(out.tables),
        **({"about": out.about} if out.about else {}),
        **({"source": out.source} if out.source else {}),
        "key": secrets.randbits(63),
    }
    data = None
    if out.attachment is not None:
        body["file"] = [out.attachment.filename, out.attachment.mime]
        if out.attachment.description:
            body["alt"] = out.attachment.description
        data = out.attachment.data
    return Letter(out.chat, json.dumps(body, separators=(",", ":")), data)


def key_of(letter: Letter) -> int:
    """The letter's idempotency key."""
    return int(json.loads(letter.body)["key"])


def outbound(letter: Letter) -> Outbound:
    """The outbound a stored letter keeps, marked with where it is stored.

    Raises:
        ValueError: if the letter is not one this bot wrote.
    """
    try:
        body = json.loads(letter.body)
        attachment = None
        if "file" in body:
            filename, mime = body["file"]
            alt = str(body.get("alt", ""))
            attachment = Attachment(str(filename), letter.attachment or b"", str(mime), alt)
        return Outbound(
            chat=letter.chat,
            text=str(body["text"]),
            kind=str(body["kind"]),
            user=None if body["user"] is None else str(body["user"]),
            attachment=attachment,
            buttons=tuple(Button(str(label), str(cmd)) for label, cmd in body["buttons"]),
            mentions=tuple(str(m) for m in body["mentions"]),
            tables=tuple(str(t) for t in body["tables"]),
            about=str(body.get("about", "")),
            source=str(body.get("source", "")),
            stored=Stored(letter.id, int(body["key"]), letter.since),
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"letter {letter.id} is not one of ours ({type(exc).__name__})") from None
