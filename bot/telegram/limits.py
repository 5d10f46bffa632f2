"""Telegram's limits and encodings, as plain functions (no platform objects here).

Telegram counts lengths in UTF-16 code units (an emoji can count twice), caps captions at
1024 and messages at 4096 of them, pop-up answers at 200, button data at 64 bytes and
deep-link payloads at 64 characters of ``A-Za-z0-9_-``. Texts that do not fit are cut at
line ends, keeping the last lines: they say whose turn it is.

A table lives in a chat, or in one topic of a forum group. Its id for the service is the
chat id, with the topic's ``message_thread_id`` after a slash (``-1001234/42``); the
General topic of a forum is the chat itself. :func:`table_id` and :func:`split_table` are
the one place this encoding is made and read. A table played in an inline message (sent
through the bot in any chat, issue 49) has no chat the bot knows: its id is made from the
message's ``inline_message_id`` by :func:`inline_table` (``inline~`` and 16 hex digits),
and it is rated on a ladder of its own, ``inline`` (see ``bot.community.ratings``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

CAPTION_LIMIT = 1024
TEXT_LIMIT = 4096
ALERT_LIMIT = 200
CALLBACK_DATA_LIMIT = 64
#: What stands for the lines left out of a text that was too long.
ELLIPSIS = "…"

#: The separator of chat and topic in a table id, and in a deep-link payload (where only
#: ``A-Za-z0-9_-`` may appear).
TOPIC_SEPARATOR = "/"
PAYLOAD_SEPARATOR = "_"

#: What a supergroup's (and channel's) id starts with; a basic group's id is negative too,
#: without it.
SUPERGROUP_PREFIX = "-100"

_PAYLOAD = re.compile(r"t(-?\d{1,20})(?:_(\d{1,10}))?")
_TABLE_ID = re.compile(r"(-?\d{1,20})(?:/(\d{1,10}))?")
#: What an inline message's table id starts with: the ladder its games are rated on, and
#: the separator ``bot.community.ratings`` reads a ladder's name up to.
INLINE_PREFIX = "inline~"
#: The deep-link payload's letter for an inline message's table (a ``~`` may not appear).
INLINE_PAYLOAD = "i"
_INLINE_ID = re.compile(re.escape(INLINE_PREFIX) + r"[0-9a-f]{16}")
_INLINE_PAYLOAD = re.compile(INLINE_PAYLOAD + r"([0-9a-f]{16})")


#: The longest name of a forum topic.
TOPIC_NAME_LIMIT = 128


def table_id(chat: int, thread: int | None = None) -> str:
    """The id of the table in ``chat``, or in its forum topic ``thread`` (``None``: the
    chat itself, or a forum's General topic)."""
    return str(chat) if thread is None else f"{chat}{TOPIC_SEPARATOR}{thread}"


def split_table(table: str) -> tuple[int, int | None]:
    """``(chat id, topic thread id or None)`` of a table id made by :func:`table_id`.

    Raises:
        ValueError: if ``table`` is no Telegram table id.
    """
    m = _TABLE_ID.fullmatch(table)
    if m is None:
        raise ValueError(f"not a Telegram table id: {table!r}")
    return int(m.group(1)), int(m.group(2)) if m.group(2) else None


#: Telegram's chat ids have at most 52 significant bits (Bot API); Discord's ids are
#: 64-bit snowflakes far past that: so a store shared by both tells their chats apart.
ID_BITS = 52


def inline_table(inline_message_id: str) -> str:
    """The id of the table played in the inline message ``inline_message_id``: the same
    for every update about that message, before and after a restart, with nothing to look
    up (and short enough for a button's data)."""
    digest = hashlib.sha256(inline_message_id.encode()).hexdigest()
    return INLINE_PREFIX + digest[:16]


def is_inline(table: str) -> bool:
    """Whether ``table`` is played in an inline message (no chat to post in: its one
    message is edited)."""
    return _INLINE_ID.fullmatch(table) is not None


def is_telegram_chat(table: str) -> bool:
    """Whether ``table`` is a Telegram table id (a chat or forum topic, or an inline
    message's), not another platform's chat in a store both share (a team battle's,
    issue 30)."""
    if is_inline(table):
        return True
    try:
        chat, _thread = split_table(table)
    except ValueError:
        return False
    return abs(chat) < 1 << ID_BITS


def utf16_len(text: str) -> int:
    """The length Telegram counts: UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def _cut_chars(text: str, limit: int) -> str:
    """The longest start of ``text`` within ``limit`` UTF-16 units, with an ellipsis."""
    if utf16_len(text) <= limit:
        return text
    out: list[str] = []
    used = utf16_len(ELLIPSIS)
    for ch in text:
        size = 2 if ord(ch) > 0xFFFF else 1
        if used + size > limit:
            break
        out.append(ch)
        used += size
    return "".join(out).rstrip() + ELLIPSIS


def fit(text: str, limit: int, keep_last: int = 2) -> str:
    """``text`` within ``limit`` UTF-16 units.

    Whole lines are kept: the last ``keep_last`` lines always (they say who is to act), then
    as many lines from the start as fit, with an ellipsis line for those left out. Only if
    the kept lines alone are too long is a line cut in the middle (never a character in
    half: a surrogate pair stays whole).
    """
    if utf16_len(text) <= limit:
        return text
    lines = text.split("\n")
    tail = lines[-keep_last:] if 0 < keep_last < len(lines) else []
    head = lines[: len(lines) - len(tail)]
    room = limit - utf16_len("\n".join(tail)) - (1 if tail else 0)
    if room < utf16_len(ELLIPSIS):
        return _cut_chars(text, limit)
    kept: list[str] = []
    used = utf16_len(ELLIPSIS)
    for line in head:
        cost = utf16_len(line) + 1
        if used + cost > room:
            break
        kept.append(line)
        used += cost
    if not kept:  # even the first line is too long: cut it (the cut ends in the ellipsis)
        return "\n".join([_cut_chars("\n".join(head), room), *tail])
    return "\n".join([*kept, ELLIPSIS, *tail])


def start_payload(table: str) -> str:
    """The deep-link payload that names a table (``-1001234`` -> ``t-1001234``, a topic's
    ``-1001234/42`` -> ``t-1001234_42``: a slash may not appear in a payload).

    An inline message's table: ``i`` and its hex digits.

    Raises:
        ValueError: if ``table`` is no Telegram table id.
    """
    if is_inline(table):
        return INLINE_PAYLOAD + table.removeprefix(INLINE_PREFIX)
    chat, thread = split_table(table)
    return f"t{chat}" if thread is None else f"t{chat}{PAYLOAD_SEPARATOR}{thread}"


def parse_start_payload(payload: str) -> str | None:
    """The table a deep-link payload names, or ``None`` if it names none."""
    inline = _INLINE_PAYLOAD.fullmatch(payload.strip())
    if inline is not None:
        return INLINE_PREFIX + inline.group(1)
    m = _PAYLOAD.fullmatch(payload.strip())
    if m is None:
        return None
    return table_id(int(m.group(1)), int(m.group(2)) if m.group(2) else None)


def deep_link(bot_username: str, table: str) -> str:
    """``https://t.me/<bot>?start=<table>``: opens the private chat with the bot and tells
    it which table the player came from."""
    return f"https://t.me/{bot_username}?start={start_payload(table)}"


def message_link(table: str, message_id: int, username: str | None = None) -> str | None:
    """The ``t.me`` link that opens message ``message_id`` of a table's chat, in its forum
    topic if the table is one: by the group's public username (``t.me/<username>/<id>``),
    else by the supergroup's id without its ``-100`` (``t.me/c/<id>/<id>``); a topic's
    thread id comes before the message id. ``None`` where Telegram has no message links:
    a basic group (its id lacks the ``-100``), a private chat, an inline message.

    Raises:
        ValueError: if ``table`` is no Telegram table id.
    """
    if is_inline(table):
        return None  # a message sent through the bot: Telegram links none
    chat, thread = split_table(table)
    path = str(message_id) if thread is None else f"{thread}/{message_id}"
    if not str(chat).startswith(SUPERGROUP_PREFIX):
        return None  # a basic group or a private chat (only supergroups have usernames)
    if username:
        return f"https://t.me/{username}/{path}"
    return f"https://t.me/c/{str(chat).removeprefix(SUPERGROUP_PREFIX)}/{path}"


def callback_data(table_chat: str, message_chat: str, command: str) -> str:
    """A button's data: the command, prefixed with the table's id when the button sits
    elsewhere (a private rack message with Swap and Keep).

    Raises:
        ValueError: if the data would exceed Telegram's 64 bytes.
    """
    data = command if table_chat == message_chat else f"{table_chat} {command}"
    if len(data.encode()) > CALLBACK_DATA_LIMIT:
        raise ValueError(f"button data longer than {CALLBACK_DATA_LIMIT} bytes: {data!r}")
    return data


def parse_callback_data(data: str, message_chat: str) -> tuple[str, str] | None:
    """``(table id, command)`` of a button's data, or ``None`` for data we never made.
    ``message_chat`` is the table id of where the button's message sits."""
    if data.startswith("/"):
        return message_chat, data
    chat, _, command = data.partition(" ")
    known = _TABLE_ID.fullmatch(chat) or is_inline(chat)
    if not known or not command.startswith("/"):
        return None
    return chat, command


def mention_spans(text: str, names: Sequence[tuple[str, str]]) -> list[tuple[int, int, str]]:
    """Where to put a mention of each ``(user id, name)``: ``(offset, length, user id)`` in
    UTF-16 units, at the last place the name occurs (the line that says whose turn it is).
    Names that do not occur are left out."""
    spans: list[tuple[int, int, str]] = []
    for user, name in names:
        if not name:
            continue
        at = text.rfind(name)
        if at < 0:
            continue
        spans.append((utf16_len(text[:at]), utf16_len(name), user))
    return sorted(spans)


def rows(labels: Sequence[str], width: int = 3, max_chars: int = 36) -> list[list[int]]:
    """Indexes of buttons laid out in rows: at most ``width`` a row, and fewer when their
    labels are long, so labels are not cut on a phone."""
    out: list[list[int]] = []
    row: list[int] = []
    chars = 0
    for i, label in enumerate(labels):
        if row and (len(row) >= width or chars + len(label) > max_chars):
            out.append(row)
            row, chars = [], 0
        row.append(i)
        chars += len(label)
    if row:
        out.append(row)
    return out
