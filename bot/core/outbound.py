"""What the table service receives and sends: plain values that every adapter understands.

Adapters turn platform updates into a :class:`Chat`, a :class:`User` and a command text,
and deliver each :class:`Outbound` in their platform's idiom (a photo with a caption, an
ephemeral reply, a pop-up). No platform object ever gets past an adapter.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

#: What an outbound is for, so adapters can choose an idiom (edit the lobby message in
#: place, answer errors ephemerally, send an export as a document).
KINDS = frozenset(
    {
        "lobby",  # who sits at the table; adapters may edit the previous one in place
        "options",  # the table's options with toggle buttons
        "turn",  # what the last move did, the board, whose turn it is
        "rack",  # a player's own tiles: always private
        "hint",  # suggested moves: always private
        "reminder",  # play by message: half the time is gone
        "result",  # the end of a game: result image and ranking
        "export",  # the game record as a JSON file
        "info",  # help, rules, scores, other answers
        "ping",  # it is your turn at a table: private, only to whom asked (/notify on)
        "unping",  # that turn passed: delete the ping where the platform can (no text)
        "error",  # bad input: what was wrong and what to type instead
    }
)


@dataclass(frozen=True, slots=True)
class Chat:
    """A chat that holds (at most) one table; ``title`` names the table in private messages."""

    id: str
    title: str = ""


@dataclass(frozen=True, slots=True)
class User:
    """A person in a chat, by the platform's id (as text) and the name to show."""

    id: str
    name: str


@dataclass(frozen=True, slots=True)
class Button:
    """A button that sends ``command`` (a command text, see :mod:`bot.core.parsing`) for the user
    who presses it. Commands that change the table carry the table's version (``#12``) so a
    press on an old message is rejected. A button with a ``url`` opens that address instead
    (the web board's pages) and sends no command."""

    label: str
    command: str
    url: str = ""


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file sent with a message: a PNG image, an animated GIF (the replay) or the JSON
    game record."""

    filename: str
    data: bytes = field(repr=False)
    mime: str = "image/png"
    #: What the picture shows, in words, for a person who does not see it (alt text:
    #: Discord's attachment ``description``); "" for none.
    description: str = ""

    @property
    def is_image(self) -> bool:
        return self.mime == "image/png"

    @property
    def is_animation(self) -> bool:
        return self.mime == "image/gif"


@dataclass(frozen=True, slots=True)
class Stored:
    """Where an outbound waits in the stored outbox until it is delivered (see
    :meth:`bot.service.Service.delivered`)."""

    #: The outbox letter: ids grow in the order the bot said things.
    id: int
    #: A random number fixed when it was stored, the same for every try at delivering it:
    #: an idempotency key for platforms that take one (Discord's message nonce).
    key: int
    #: When it was stored (the service clock's seconds).
    since: float


@dataclass(frozen=True, slots=True)
class Outbound:
    """One message from the bot.

    ``chat`` is always the table's chat; ``user`` is ``None`` for a message to the whole
    chat, or the id of the one person who may see it (their rack, a hint). ``mentions``
    lists the user ids the message addresses (the player to move), for platforms that ping.
    ``tables`` names, for a listing of tables (``/games``), the table of each of the text's
    last lines, in order, so a platform can add a link to each (see :func:`with_links`).
    ``stored`` is set for what a command or the clock changed at the table: it waits in the
    store until the platform says it was delivered, and is delivered after a restart if the
    bot stopped before (answers that changed nothing are not stored: asked again, they come
    again).
    """

    chat: str
    text: str
    kind: str = "info"
    user: str | None = None
    attachment: Attachment | None = None
    buttons: tuple[Button, ...] = ()
    mentions: tuple[str, ...] = ()
    tables: tuple[str, ...] = ()
    #: What else the message is about, for a link to its web page (a tournament's key,
    #: ``tournament:<id>``: its standings page, when the web board runs); "" for nothing.
    about: str = ""
    #: The table a message seen in another chat comes from (a tournament's table, its
    #: message fanned out to its players' chat): a platform notes its latest turn under
    #: that table too, so a link to the table (the standings') finds it; "" for none.
    source: str = ""
    #: Not part of what the message says: two outbounds saying the same are equal.
    stored: Stored | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown outbound kind {self.kind!r}")
        if self.kind in ("rack", "hint", "ping") and self.user is None:
            raise ValueError(f"a {self.kind} message must be private")
        if len(self.tables) >= len(self.text.split("\n")):
            raise ValueError("a listing of tables has a line before its tables")

    @property
    def private(self) -> bool:
        return self.user is not None


def with_links(out: Outbound, links: Mapping[str, str]) -> Outbound:
    """``out``, a listing of tables (:attr:`Outbound.tables`), with each table's line
    followed by what ``links`` says for that table: a link to its latest message, in the
    platform's own form, or why there is none. Tables ``links`` leaves out keep their line.
    """
    if not out.tables:
        return out
    lines = out.text.split("\n")
    first = len(lines) - len(out.tables)
    for n, table in enumerate(out.tables):
        extra = links.get(table)
        if extra:
            lines[first + n] = f"{lines[first + n]} {extra}"
    return replace(out, text="\n".join(lines))


#: A table's note, kept by the platform the table is played on, of where people see it
#: (:class:`Where`): the other platform lists the table with it (the tables of a person
#: linked on both, issue 49), since each platform knows only its own messages' links.
NOTE_WHERE = "where"


@dataclass(frozen=True, slots=True)
class Where:
    """Where a table is seen: its platform (``telegram``, ``discord``) and a link to its
    latest turn message there, or to its board (``board``: a Telegram inline message's
    Mini App, as Telegram links no inline message), or none; ``why`` says why there is
    none, in the listing's language (never stored)."""

    platform: str
    link: str | None = None
    board: bool = False
    why: str = ""

    def dump(self) -> str:
        return json.dumps({"platform": self.platform, "link": self.link, "board": self.board})

    @classmethod
    def read(cls, raw: str | None) -> Where | None:
        """The note as :meth:`dump` wrote it; ``None`` for none or one we did not write."""
        if not raw:
            return None
        try:
            data = json.loads(raw)
            platform, link = str(data["platform"]), data.get("link")
            return cls(platform, str(link) if link else None, bool(data.get("board")))
        except (ValueError, TypeError, KeyError, AttributeError):
            return None


def with_places(
    out: Outbound, here: str, places: Mapping[str, Where], say: Callable[..., str]
) -> Outbound:
    """``out``, a listing of tables (``/games``) on platform ``here``, each table's line
    followed by where it is (``places``): a link to its latest message or its board, or
    why there is none. When the listing holds a table of another platform (a person
    linked on both), every line names its table's platform; ``say`` is the listing's
    texts."""
    mixed = any(p.platform != here for p in places.values())
    links: dict[str, str] = {}
    for table, place in places.items():
        named = {"platform": place.platform.capitalize()} if mixed else {}
        prefix = "games.on_" if mixed else "games."
        if place.link:
            key = prefix + ("board" if place.board else "link")
            links[table] = say(key, link=place.link, **named)
        elif mixed:
            links[table] = say("games.on", **named)
        elif place.why:
            links[table] = place.why
    return with_links(out, links)
