"""A person forgotten in the rows both backends keep beside the tables (``/forget me``):
what becomes of a finished game, a note and a letter of the outbox that name them.

The backends run these on the rows that hold the person's id or name, in the one
transaction of :meth:`~bot.store.base.Store.forget_player`. The rule everywhere: the
person's id becomes their alias and their name "a former player", so what others played
stays whole; what was theirs alone (their private chat, whose id on Telegram is their own
id, and the messages to them) goes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from bot.store.base import about_person, forget_seats

#: The tables keyed by a chat whose rows go with a person's private chat (the chat whose
#: id is theirs): nobody else plays there.
PRIVATE_CHAT_TABLES = ("tables", "seated", "notes", "outbox", "finished", "reviews", "puzzles")


def named(text: str, name: str, former: str) -> str:
    """``text`` (a message, a line of a table's story) with ``name`` as a whole word
    replaced by ``former``."""
    if not name or name == former:
        return text
    return re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", lambda _: former, text)


def ids(value: Any, user: str, alias: str) -> Any:
    """``value`` (JSON data) with every string that is exactly ``user``, as a value or as
    a key, made ``alias``."""
    quoted = json.dumps(user)
    text = json.dumps(value)
    if quoted not in text:
        return value
    return json.loads(text.replace(quoted, json.dumps(alias)))


def finished(text: str, user: str, alias: str, name: str) -> str | None:
    """A finished game's stored data without ``user``: their seats go to ``alias`` named
    ``name`` (the game stays whole for everyone else's ratings) and any other mention of
    their id too; ``None`` if nothing changed or the row is not ours."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    changed = forget_seats(data, user, alias, name)
    data = ids(data, user, alias)
    new = json.dumps(data, separators=(",", ":"))
    return new if changed or new != text else None


def note(chat: str, key: str, value: str, user: str, alias: str) -> str | None:
    """A note without ``user``: ``None`` when it goes (it is theirs: under their id, keyed
    by it, or it is their id), else its value with their id in JSON made ``alias`` (a list
    of the people told a game's news)."""
    if chat == user or about_person(key, user) or value == user:
        return None
    try:
        data = json.loads(value)
    except ValueError:
        return value
    if isinstance(data, dict | list):
        kept = ids(data, user, alias)
        if kept != data:
            return json.dumps(kept, separators=(",", ":"))
    return value


def in_json(text: str) -> str:
    """``text`` as it is written inside a JSON string (what a search of stored JSON
    looks for)."""
    return json.dumps(text)[1:-1]


def said(text: str, names: Sequence[str], former: str) -> str:
    """``text`` with each of ``names`` said as ``former``."""
    for name in names:
        text = named(text, name, former)
    return text


def letter(chat: str, body: str, user: str, names: Sequence[str], former: str) -> str | None:
    """A letter of the outbox without ``user``: ``None`` when it goes (to their private
    chat or to them alone), else its body with them out of its mentions and ``names``
    (what they were called) as ``former`` in its text and buttons."""
    if chat == user:
        return None
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("user") == user:
        return None
    if isinstance(data.get("mentions"), list):
        data["mentions"] = [m for m in data["mentions"] if m != user]
    if isinstance(data.get("text"), str):
        data["text"] = said(data["text"], names, former)
    buttons = data.get("buttons")
    if isinstance(buttons, list):
        data["buttons"] = [
            [said(b[0], names, former), *b[1:]] if isinstance(b, list) and b and
            isinstance(b[0], str) else b
            for b in buttons
        ]  # fmt: skip
    new = json.dumps(data, separators=(",", ":"))
    # Their id anywhere else in it (no letter the bot writes has one): it goes too.
    return None if json.dumps(user) in new else new
