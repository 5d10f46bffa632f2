"""Chat commands, parsed once, here, from text into small immutable command objects.

Every adapter sends text (``/play RG F7 F8``, ``/option timeout 24h``, a button's command)
or builds the same objects directly (Discord's slash commands). A trailing ``#12`` gives
the table version the command was made for: buttons carry it, so a second press on an old
message is recognised as stale. :func:`format_command` writes the text that
:func:`parse_command` reads back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

LANGUAGES = ("en", "de", "nl", "fr")
GAMES = ("genial", "spezial")
ORDERS = ("join", "random")
#: Longest timeout a table may set (play by message over weeks is not a game any more).
MAX_TIMEOUT = 14 * 24 * 3600

_VERSION = re.compile(r"#([0-9]{1,9})")
_DURATION = re.compile(r"([0-9]{1,6})\s*([smhd]?)")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "": 3600}
_ON = {"on", "yes", "true", "1", "an", "ja", "aan", "oui"}
_OFF = {"off", "no", "false", "0", "aus", "nein", "uit", "nee", "non"}


class CommandError(ValueError):
    """Text that is no valid command; ``key`` is the message id that explains it,
    ``params`` its placeholders."""

    def __init__(self, key: str, **params: str) -> None:
        super().__init__(f"{key}: {params}" if params else key)
        self.key = key
        self.params = params


@dataclass(frozen=True, kw_only=True)
class Command:
    """Base of all commands. ``version``: the table version a button was made for."""

    version: int | None = None

    #: Whether the command may change the table (so a stale version rejects it).
    changes = True


@dataclass(frozen=True, kw_only=True)
class Join(Command):
    pass


@dataclass(frozen=True, kw_only=True)
class AddBot(Command):
    level: str | None = None


@dataclass(frozen=True, kw_only=True)
class Leave(Command):
    pass


@dataclass(frozen=True, kw_only=True)
class ShowOptions(Command):
    changes = False


@dataclass(frozen=True, kw_only=True)
class SetOption(Command):
    """``name`` is one of game, team, timeout, hints, order, lang; ``value`` its canonical
    text: genial|spezial, on|off, seconds, join|random, a language code."""

    name: str
    value: str


@dataclass(frozen=True, kw_only=True)
class Start(Command):
    pass


@dataclass(frozen=True, kw_only=True)
class Play(Command):
    move: str


@dataclass(frozen=True, kw_only=True)
class Swap(Command):
    pass


@dataclass(frozen=True, kw_only=True)
class Keep(Command):
    pass


@dataclass(frozen=True, kw_only=True)
class Hand(Command):
    changes = False


@dataclass(frozen=True, kw_only=True)
class Board(Command):
    changes = False


@dataclass(frozen=True, kw_only=True)
class Score(Command):
    changes = False


@dataclass(frozen=True, kw_only=True)
class Hint(Command):
    changes = False


@dataclass(frozen=True, kw_only=True)
class Export(Command):
    changes = False


@dataclass(frozen=True, kw_only=True)
class Kick(Command):
    target: str


@dataclass(frozen=True, kw_only=True)
class Abort(Command):
    pass


@dataclass(frozen=True, kw_only=True)
class Help(Command):
    changes = False


@dataclass(frozen=True, kw_only=True)
class Rules(Command):
    changes = False


@dataclass(frozen=True, kw_only=True)
class Top(Command):
    """The chat's ladder (``everyone``: the global ladder of all chats), ``page`` (1
    first) of ten rows."""

    page: int = 1
    everyone: bool = False
    changes = False


@dataclass(frozen=True, kw_only=True)
class Stats(Command):
    """A player's games and rating here: ``player`` a name or mention, ``None`` myself."""

    player: str | None = None
    changes = False


@dataclass(frozen=True, kw_only=True)
class History(Command):
    """The last ``count`` moves of the table's game."""

    count: int = 10
    changes = False


@dataclass(frozen=True, kw_only=True)
class Replay(Command):
    changes = False


@dataclass(frozen=True, kw_only=True)
class Review(Command):
    """``/review``: the expert's review of the chat's last finished game."""

    changes = False


@dataclass(frozen=True, kw_only=True)
class Puzzle(Command):
    """``/puzzle``: show the chat's puzzle (a new one if none is open); ``/puzzle answer``:
    its solution and who found it; ``/puzzle [number] <move>``: an answer, told privately."""

    number: int | None = None
    move: str | None = None
    solution: bool = False
    changes = False


@dataclass(frozen=True, kw_only=True)
class PuzzleDaily(Command):
    """``/option puzzle daily 18:00 [Europe/Berlin]``: a puzzle every day at that time in
    that time zone (default UTC); ``at`` is ``"18:00 Europe/Berlin"``, ``""`` for off."""

    at: str


@dataclass(frozen=True, kw_only=True)
class Rematch(Command):
    pass


@dataclass(frozen=True, kw_only=True)
class Games(Command):
    changes = False


@dataclass(frozen=True, kw_only=True)
class Notify(Command):
    """Turn pings on or off for the person; ``None``: say how they are set."""

    on: bool | None = None
    changes = False


@dataclass(frozen=True, kw_only=True)
class MyData(Command):
    """Everything the bot keeps about the person, sent to them privately as a JSON file."""

    changes = False


@dataclass(frozen=True, kw_only=True)
class Forget(Command):
    """``/forget me``: the first asks to confirm, the same again soon after forgets the
    person (names and ids in finished games, ratings, settings)."""

    changes = False


#: What ``/forget`` must be followed by (so a stray ``/forget`` forgets nobody).
FORGET_WORDS = frozenset({"me", "mich", "mij", "moi"})
#: What asks /puzzle for the solution instead of the puzzle.
SOLUTION_WORDS = frozenset(
    {"answer", "solution", "antwort", "lösung", "antwoord", "oplossing", "réponse", "reponse"}
)
#: What asks /top for the global ladder of all chats instead of the chat's.
GLOBAL_WORDS = frozenset({"global", "globaal", "all"})
#: The most moves /history tells at once, and the most pages /top counts.
HISTORY_MAX = 30
TOP_PAGES = 999

_SIMPLE: dict[str, type[Command]] = {
    "leave": Leave,
    "start": Start,
    "swap": Swap,
    "keep": Keep,
    "hand": Hand,
    "tiles": Hand,
    "board": Board,
    "score": Score,
    "scores": Score,
    "hint": Hint,
    "export": Export,
    "abort": Abort,
    "help": Help,
    "rules": Rules,
    "replay": Replay,
    "rematch": Rematch,
    "games": Games,
    "mydata": MyData,
    "review": Review,
}
#: The command words, for help texts and platform command lists.
COMMAND_WORDS: tuple[str, ...] = (
    "join",
    "addbot",
    "leave",
    "option",
    "start",
    "play",
    "swap",
    "keep",
    "hand",
    "board",
    "score",
    "hint",
    "export",
    "kick",
    "abort",
    "help",
    "rules",
    "top",
    "stats",
    "history",
    "replay",
    "rematch",
    "games",
    "notify",
    "mydata",
    "forget",
    "review",
    "puzzle",
)


def parse_duration(text: str) -> int:
    """Seconds of a duration like ``24h``, ``30m``, ``2d``, ``90s`` (a bare number is hours);
    ``off`` or ``0`` is 0 (no timeout).

    Raises:
        CommandError: ``option.bad_timeout`` for anything else or more than 14 days.
    """
    t = text.strip().lower()
    if t in _OFF or t == "none":
        return 0
    m = _DURATION.fullmatch(t)
    if not m:
        raise CommandError("option.bad_timeout", value=text)
    seconds = int(m.group(1)) * _UNITS[m.group(2)]
    if seconds > MAX_TIMEOUT or 0 < seconds < 60:
        raise CommandError("option.bad_timeout", value=text)
    return seconds


def format_duration(seconds: int) -> str:
    """The shortest exact spelling, in days from two days on: ``24h``, ``90m``, ``2d``;
    ``off`` for 0."""
    if seconds == 0:
        return "off"
    if seconds % 86400 == 0 and seconds >= 2 * 86400:
        return f"{seconds // 86400}d"
    for unit, size in (("h", 3600), ("m", 60)):
        if seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def format_left(seconds: float) -> str:
    """Time left as it is, rounded down to the second, in its two largest units:
    ``1h 59m``, ``29m 30s``, ``1s`` (a reminder that says ``1m`` with 1 s left misleads)."""
    left = max(0, int(seconds))
    parts: list[str] = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if left >= size or (size == 1 and not parts):
            parts.append(f"{left // size}{unit}")
            left %= size
        elif parts:
            parts.append("")  # a zero unit between two others ends the spelling
        if len(parts) == 2:
            break
    return " ".join(p for p in parts if p)


def _switch(text: str | None) -> str:
    if text is None:
        return "on"
    t = text.lower()
    if t in _ON:
        return "on"
    if t in _OFF:
        return "off"
    raise CommandError("option.bad_switch", value=text)


def _parse_option(args: list[str]) -> Command:
    if not args:
        return ShowOptions()
    name = args[0].lower()
    value = " ".join(args[1:]) or None
    if name in ("team", "teams"):
        return SetOption(name="team", value=_switch(value))
    if name in GAMES:
        return SetOption(name="game", value=name)
    if name == "standard":
        return SetOption(name="team", value="off")
    if name == "game":
        if value is None or value.lower() not in GAMES:
            raise CommandError("option.bad_game", value=value or "")
        return SetOption(name="game", value=value.lower())
    if name in ("hints", "hint"):
        return SetOption(name="hints", value=_switch(value))
    if name in ("timeout", "time"):
        if value is None:
            raise CommandError("option.bad_timeout", value="")
        return SetOption(name="timeout", value=str(parse_duration(value)))
    if name in ("order", "seats"):
        if value is None or value.lower() not in ORDERS:
            raise CommandError("option.bad_order", value=value or "")
        return SetOption(name="order", value=value.lower())
    if name in ("lang", "language", "sprache", "taal", "langue"):
        if value is None or value.lower() not in LANGUAGES:
            raise CommandError("option.bad_lang", value=value or "")
        return SetOption(name="lang", value=value.lower())
    if name in ("puzzle", "puzzles"):
        return _parse_puzzle_daily(args[1:])
    raise CommandError("option.unknown", name=args[0])


_CLOCK_TIME = re.compile(r"([01]?[0-9]|2[0-3])[:.h]([0-5][0-9])")


def _parse_puzzle_daily(args: list[str]) -> PuzzleDaily:
    if len(args) == 1 and args[0].lower() in _OFF:
        return PuzzleDaily(at="")
    if args and args[0].lower() in ("daily", "täglich", "dagelijks", "quotidien"):
        args = args[1:]
    m = _CLOCK_TIME.fullmatch(args[0]) if args and len(args) <= 2 else None
    if m is None:
        raise CommandError("option.bad_puzzle")
    zone = args[1] if len(args) == 2 else "UTC"
    if len(zone) > 64 or not re.fullmatch(r"[A-Za-z0-9_+\-]+(/[A-Za-z0-9_+\-]+)*", zone):
        raise CommandError("option.bad_puzzle")
    return PuzzleDaily(at=f"{int(m.group(1)):02d}:{m.group(2)} {zone}")


def parse_command(text: str) -> Command:
    """The command a chat line (or a button) sends.

    Raises:
        CommandError: ``command.not_a_command`` when the text does not start with ``/``,
            ``command.unknown`` for an unknown word, ``usage.*`` for missing arguments,
            ``option.*`` for a bad option.
    """
    parts = text.split()
    if not parts or not parts[0].startswith("/") or len(parts[0]) < 2:
        raise CommandError("command.not_a_command", text=text.strip())
    word = parts[0][1:].split("@", 1)[0].lower()  # "/join@GenialBot" is "/join"
    args = parts[1:]
    version: int | None = None
    if args:
        m = _VERSION.fullmatch(args[-1])
        if m:
            version = int(m.group(1))
            args = args[:-1]
    cmd = _parse_word(word, args, parts[0])
    if version is None:
        return cmd
    return _with_version(cmd, version)


def _with_version(cmd: Command, version: int) -> Command:
    values = {k: v for k, v in vars(cmd).items() if k != "version"}
    return type(cmd)(version=version, **values)


def _parse_word(word: str, args: list[str], raw: str) -> Command:
    if word == "join":
        if args and args[0].lower() in ("bot", "computer"):
            return AddBot(level=args[1].lower() if len(args) > 1 else None)
        return Join()
    if word in ("addbot", "bot"):
        return AddBot(level=args[0].lower() if args else None)
    if word in ("option", "options"):
        return _parse_option(args)
    if word in ("play", "p"):
        if not args:
            raise CommandError("usage.play")
        return Play(move=" ".join(args))
    if word == "kick":
        if not args:
            raise CommandError("usage.kick")
        return Kick(target=" ".join(args))
    if word in ("top", "ladder"):
        everyone = bool(args) and args[0].casefold() in GLOBAL_WORDS
        page = _number(args[1:] if everyone else args, 1, TOP_PAGES, "usage.top")
        return Top(page=page, everyone=everyone)
    if word == "stats":
        return Stats(player=" ".join(args) or None)
    if word == "history":
        return History(count=_number(args, 10, HISTORY_MAX, "usage.history"))
    if word == "notify":
        return Notify(on=None if not args else _switch(args[0]) == "on")
    if word == "forget":
        if len(args) != 1 or args[0].casefold() not in FORGET_WORDS:
            raise CommandError("usage.forget")
        return Forget()
    if word == "puzzle":
        return _parse_puzzle(args)
    cls = _SIMPLE.get(word)
    if cls is None:
        raise CommandError("command.unknown", command=raw)
    return cls()


def _parse_puzzle(args: list[str]) -> Puzzle:
    if not args:
        return Puzzle()
    if len(args) == 1 and args[0].casefold() in SOLUTION_WORDS:
        return Puzzle(solution=True)
    number = None
    if args[0].isdigit() and len(args[0]) <= 9:
        number, args = int(args[0]), args[1:]
    if not args:
        raise CommandError("usage.puzzle")
    return Puzzle(number=number, move=" ".join(args))


def _number(args: list[str], default: int, most: int, usage: str) -> int:
    """A small positive number argument (a page, a count of moves), or ``default``.

    Raises:
        CommandError: ``usage`` for anything but one number from 1 to ``most``.
    """
    if not args:
        return default
    if len(args) > 1 or not re.fullmatch(r"[0-9]{1,4}", args[0]) or not 1 <= int(args[0]) <= most:
        raise CommandError(usage, most=str(most))
    return int(args[0])


def format_command(cmd: Command) -> str:
    """The text that :func:`parse_command` turns back into ``cmd`` (version included)."""
    text = _format_plain(cmd)
    if cmd.version is not None:
        text += f" #{cmd.version}"
    return text


def _format_plain(cmd: Command) -> str:
    if isinstance(cmd, Join):
        return "/join"
    if isinstance(cmd, AddBot):
        return "/addbot" + (f" {cmd.level}" if cmd.level else "")
    if isinstance(cmd, ShowOptions):
        return "/option"
    if isinstance(cmd, SetOption):
        if cmd.name == "timeout":
            return f"/option timeout {format_duration(int(cmd.value))}"
        return f"/option {cmd.name} {cmd.value}"
    if isinstance(cmd, Play):
        return f"/play {cmd.move}"
    if isinstance(cmd, Kick):
        return f"/kick {cmd.target}"
    if isinstance(cmd, Top):
        return f"/top {'global ' if cmd.everyone else ''}{cmd.page}"
    if isinstance(cmd, Stats):
        return "/stats" + (f" {cmd.player}" if cmd.player else "")
    if isinstance(cmd, History):
        return f"/history {cmd.count}"
    if isinstance(cmd, Notify):
        return "/notify" + ("" if cmd.on is None else " on" if cmd.on else " off")
    if isinstance(cmd, Forget):
        return "/forget me"
    if isinstance(cmd, PuzzleDaily):
        return f"/option puzzle daily {cmd.at}" if cmd.at else "/option puzzle off"
    if isinstance(cmd, Puzzle):
        if cmd.solution:
            return "/puzzle answer"
        number = "" if cmd.number is None else f" {cmd.number}"
        return "/puzzle" + number + (f" {cmd.move}" if cmd.move else "")
    for word, cls in _SIMPLE.items():
        if type(cmd) is cls:
            return f"/{word}"
    raise TypeError(f"not a command: {cmd!r}")
