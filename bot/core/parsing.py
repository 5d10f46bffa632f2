"""Chat commands, parsed once, here, from text into small immutable command objects.

Every adapter sends text (``/play RG F7 F8``, ``/option timeout 24h``, a button's command)
or builds the same objects directly (Discord's slash commands). A trailing ``#12`` gives
the table version the command was made for: buttons carry it, so a second press on an old
message is recognised as stale. :func:`format_command` writes the text that
:func:`parse_command` reads back.
"""

from __future__ import annotations

import difflib
import re

from bot.core.commands import (
    GAMES,
    ORDERS,
    Abort,
    AddBot,
    Away,
    Back,
    Board,
    Command,
    CommandError,
    Export,
    Forget,
    Games,
    Hand,
    Help,
    Hint,
    History,
    Join,
    Keep,
    Kick,
    Leave,
    Link,
    Look,
    MyData,
    Notify,
    Play,
    Puzzle,
    PuzzleDaily,
    Rematch,
    Replay,
    Review,
    Rules,
    Score,
    SetOption,
    ShowOptions,
    Start,
    Stats,
    Swap,
    Top,
    Tournament,
    Undo,
    Unlink,
    Vote,
)
from bot.core.durations import (
    _OFF,
    MAX_AWAY,
    MAX_TIMEOUT,
    _seconds,
    _short_time,
    format_clock,
    format_duration,
    parse_clock,
    parse_duration,
)
from bot.core.tournament_spec import _format_tournament, _parse_tournament
from bot.words.texts import LANGUAGES, letters

_VERSION = re.compile(r"#([0-9]{1,9})")
#: A tournament's id (its letters: no 0/o or 1/l), naming the table a seat's command is
#: for: ``/play k7xq RG F7 F8``, ``/swap k7xq``. Four characters are never a tile, a slot
#: or a cell, so no move's first word is one.
_TABLE_ID = re.compile(r"[a-km-np-z2-9]{4}")
_ON = {"on", "yes", "true", "1", "an", "ja", "aan", "oui"}

#: A link code as typed (``/link K7XQ2M``): the letters and digits no one misreads.
LINK_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
LINK_CODE = re.compile(f"[{LINK_ALPHABET}]{{6}}")
#: Where ``/notify on <platform>`` sends the pings of a person linked on both.
NOTIFY_PLATFORMS = ("discord", "telegram")
#: What ``/forget`` must be followed by (so a stray ``/forget`` forgets nobody).
FORGET_WORDS = frozenset({"me", "mich", "mij", "moi"})
#: What asks /puzzle for the solution instead of the puzzle.
SOLUTION_WORDS = frozenset(
    {"answer", "solution", "antwort", "lösung", "antwoord", "oplossing", "réponse", "reponse"}
)
#: What asks /top for the global ladder of all chats instead of the chat's.
GLOBAL_WORDS = frozenset({"global", "globaal", "all"})
#: What asks /help for every command, not just the first ones.
HELP_ALL_WORDS = frozenset({"all", "more", "alle", "alles", "mehr", "meer", "tout", "plus"})
#: Command words newcomers type in their own language, and the English command meant:
#: commands are English everywhere (one list to learn, one set of buttons and menus).
FOREIGN_WORDS = {
    "hilfe": "help",
    "aide": "help",
    "hulp": "help",
    "regeln": "rules",
    "regles": "rules",
    "règles": "rules",
    "regels": "rules",
    "spielen": "play",
    "jouer": "play",
    "spelen": "play",
    "mitspielen": "join",
    "beitreten": "join",
    "rejoindre": "join",
    "meedoen": "join",
    "starten": "start",
    "commencer": "start",
    "beginnen": "start",
    "verlassen": "leave",
    "quitter": "leave",
    "verlaten": "leave",
    "tauschen": "swap",
    "échanger": "swap",
    "echanger": "swap",
    "ruilen": "swap",
    "steine": "hand",
    "tuiles": "hand",
    "tegels": "hand",
    "brett": "board",
    "plateau": "board",
    "bord": "board",
    "spielplan": "board",
    "punkte": "score",
    "stand": "score",
}
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
    "unlink": Unlink,
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
    "look",
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
    "link",
    "unlink",
    "skip",
    "expel",
    "wait",
    "undo",
    "away",
    "back",
    "tournament",
    "review",
    "puzzle",
)

#: What a player out of time may have done: the votes of the other persons.
VOTES = ("skip", "expel", "wait")
_YES = {"yes", "ja", "oui", "accept", "ok", "y"}
_NO = {"no", "nein", "nee", "non", "refuse", "n"}


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
        if value is None:
            raise CommandError("option.missing", name="game", example="spezial")
        if value.lower() not in GAMES:
            raise CommandError("option.bad_game", value=value)
        return SetOption(name="game", value=value.lower())
    if name in ("hints", "hint"):
        return SetOption(name="hints", value=_switch(value))
    if name in ("timeout", "time"):
        if value is None:
            raise CommandError("option.missing", name="timeout", example="24h")
        return SetOption(name="timeout", value=str(parse_duration(value)))
    if name in ("clock", "bank", "uhr", "klok", "horloge"):
        if value is None:
            raise CommandError("option.missing", name="clock", example="3d+1d")
        bank, increment = parse_clock(value)
        return SetOption(name="clock", value=f"{bank}+{increment}")
    if name in ("grace",):
        if value is None:
            raise CommandError("option.missing", name="grace", example="12h")
        t = value.strip().lower()
        if t in ("default", "auto"):
            return SetOption(name="grace", value="-1")
        seconds = _seconds(t, "h") if t not in _OFF else 0
        if seconds is None or seconds > MAX_TIMEOUT:
            raise CommandError("option.bad_grace", value=value)
        return SetOption(name="grace", value=str(seconds))
    if name in ("undo", "takeback"):
        return SetOption(name="undo", value=_switch(value))
    if name in ("order", "seats"):
        if value is None:
            raise CommandError("option.missing", name="order", example="random")
        if value.lower() not in ORDERS:
            raise CommandError("option.bad_order", value=value)
        return SetOption(name="order", value=value.lower())
    if name in ("lang", "language", "sprache", "taal", "langue"):
        if value is None:
            raise CommandError("option.missing", name="lang", example="de")
        if value.lower() not in LANGUAGES:
            raise CommandError("option.bad_lang", value=value)
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
        if len(args) > 1 and _TABLE_ID.fullmatch(args[0].lower()):
            return Play(table=args[0].lower(), move=" ".join(args[1:]))
        if not args:
            raise CommandError("usage.play")
        # A tile copied from what the bot wrote (its coloured squares) is its letters.
        return Play(move=letters(" ".join(args)))
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
    if word in ("look", "feld", "veld", "case"):
        # A cell's label is short: anything longer is no cell, and is not echoed back.
        if len(args) != 1 or len(args[0]) > 4:
            raise CommandError("usage.look")
        return Look(cell=args[0].upper())
    if word == "history":
        # More moves than it tells at once are the most it tells: /history 50 is the last 30.
        return History(count=_number(args, 10, HISTORY_MAX, "usage.history", clamp=True))
    if word == "notify":
        return _parse_notify(args)
    if word in VOTES:
        return Vote(choice=word)
    if word in ("undo", "takeback"):
        if not args:
            return Undo()
        answer = args[0].casefold()
        if len(args) > 1 or answer not in _YES | _NO:
            raise CommandError("usage.undo")
        return Undo(answer="yes" if answer in _YES else "no")
    if word == "away":
        seconds = _seconds(args[0].lower(), "d") if len(args) == 1 else None
        if seconds is None or not 3600 <= seconds <= MAX_AWAY:
            raise CommandError("usage.away")
        return Away(seconds=seconds)
    if word == "back":
        return Back()
    if word in ("tournament", "tourney", "turnier", "toernooi", "tournoi"):
        return _parse_tournament(args)
    if word == "forget":
        if len(args) != 1 or args[0].casefold() not in FORGET_WORDS:
            raise CommandError("usage.forget")
        return Forget()
    if word == "link":
        if len(args) > 1 or (args and not LINK_CODE.fullmatch(args[0].upper())):
            raise CommandError("usage.link")
        return Link(code=args[0].upper() if args else None)
    if word == "puzzle":
        return _parse_puzzle(args)
    if word == "help":
        return Help(everything=bool(args) and args[0].casefold() in HELP_ALL_WORDS)
    cls = _SIMPLE.get(word)
    if cls is None:
        raise _unknown(word, raw)
    if cls.at_seat and len(args) == 1 and _TABLE_ID.fullmatch(args[0].lower()):
        return cls(table=args[0].lower())
    return cls()


#: The answers to a command word that is not ours (perhaps another bot's).
UNKNOWN_KEYS = frozenset({"command.unknown", "command.unknown_near", "command.foreign"})


def _unknown(word: str, raw: str) -> CommandError:
    """What to say of an unknown command word: the English command a newcomer's own word
    means (``/hilfe`` is ``/help``), else the nearest command for a typo (``/plya``), else
    that it is unknown."""
    if word in FOREIGN_WORDS:
        return CommandError("command.foreign", command=raw, meant=f"/{FOREIGN_WORDS[word]}")
    near = difflib.get_close_matches(word, COMMAND_WORDS, n=1, cutoff=0.6)
    if near:
        return CommandError("command.unknown_near", command=raw, near=f"/{near[0]}")
    return CommandError("command.unknown", command=raw)


_HOUR = re.compile(r"([0-9]{1,2})(?::00)?h?")
_HOURS = re.compile(r"([0-9]{1,2})(?::00)?\s*-\s*([0-9]{1,2})(?::00)?")
_ZONE = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]*(?:/[A-Za-z0-9_+\-]+){0,2}")


def _parse_notify(args: list[str]) -> Notify:
    """``/notify [on|now|off]``, ``/notify digest 8``, ``/notify quiet 22-08|off``,
    ``/notify tz Europe/Berlin``.

    Raises:
        CommandError: ``notify.bad_digest`` or ``notify.bad_quiet`` for an hour that is
            none, ``usage.notify`` for anything else.
    """
    if not args:
        return Notify()
    word = args[0].lower()
    rest = " ".join(args[1:]).strip()
    if word in ("now", "instant") and not rest:
        return Notify(on=True)
    if word == "digest":
        m = _HOUR.fullmatch(rest.lower() or "8")
        if m is None or int(m.group(1)) > 23:
            raise CommandError("notify.bad_digest", value=rest)
        return Notify(setting="digest", value=str(int(m.group(1))))
    if word == "quiet":
        if rest.lower() in _OFF or rest.lower() == "none":
            return Notify(setting="quiet", value="")
        m = _HOURS.fullmatch(rest)
        if m is None or int(m.group(1)) > 23 or int(m.group(2)) > 23 or m.group(1) == m.group(2):
            if not rest:
                raise CommandError("usage.notify")
            raise CommandError("notify.bad_quiet", value=rest)
        return Notify(setting="quiet", value=f"{int(m.group(1))}-{int(m.group(2))}")
    if word in ("tz", "timezone", "zone"):
        if not _ZONE.fullmatch(rest) or len(rest) > 40:
            raise CommandError("usage.notify")
        return Notify(setting="tz", value=rest)
    if len(args) == 2 and word in _ON and args[1].lower() in NOTIFY_PLATFORMS:
        # Pings to my account on that platform, linked with this one (issue 49).
        return Notify(on=True, setting="where", value=args[1].lower())
    if len(args) > 1:
        raise CommandError("usage.notify")
    try:
        return Notify(on=_switch(args[0]) == "on")
    except CommandError:
        raise CommandError("usage.notify") from None


def _parse_puzzle(args: list[str]) -> Puzzle:
    if not args:
        return Puzzle()
    if len(args) == 1 and args[0].casefold() in SOLUTION_WORDS:
        return Puzzle(solution=True)
    number = None
    if args[0].isascii() and args[0].isdigit() and len(args[0]) <= 9:  # not "³"
        number, args = int(args[0]), args[1:]
    if not args:
        raise CommandError("usage.puzzle")
    return Puzzle(number=number, move=letters(" ".join(args)))


def _number(args: list[str], default: int, most: int, usage: str, *, clamp: bool = False) -> int:
    """A small positive number argument (a page, a count of moves), or ``default``; with
    ``clamp``, a number above ``most`` is ``most``.

    Raises:
        CommandError: ``usage`` for anything but one number from 1 to ``most`` (any
            number from 1 with ``clamp``).
    """
    if not args:
        return default
    if len(args) > 1 or not re.fullmatch(r"[0-9]{1,4}", args[0]) or int(args[0]) < 1:
        raise CommandError(usage, most=str(most))
    if int(args[0]) > most and not clamp:
        raise CommandError(usage, most=str(most))
    return min(int(args[0]), most)


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
        if cmd.name == "clock":
            bank, _, increment = cmd.value.partition("+")
            return f"/option clock {format_clock(int(bank), int(increment))}"
        if cmd.name == "grace":
            grace = int(cmd.value)
            return f"/option grace {'default' if grace < 0 else format_duration(grace)}"
        return f"/option {cmd.name} {cmd.value}"
    if isinstance(cmd, Play):
        return f"/play {cmd.table} {cmd.move}" if cmd.table else f"/play {cmd.move}"
    if isinstance(cmd, Kick):
        return f"/kick {cmd.target}"
    if isinstance(cmd, Top):
        return f"/top {'global ' if cmd.everyone else ''}{cmd.page}"
    if isinstance(cmd, Stats):
        return "/stats" + (f" {cmd.player}" if cmd.player else "")
    if isinstance(cmd, History):
        return f"/history {cmd.count}"
    if isinstance(cmd, Look):
        return f"/look {cmd.cell}"
    if isinstance(cmd, Notify):
        if cmd.setting == "where":
            return f"/notify on {cmd.value}"
        if cmd.setting is not None:
            value = cmd.value or ("off" if cmd.setting == "quiet" else "")
            return f"/notify {cmd.setting} {value}".rstrip()
        return "/notify" + ("" if cmd.on is None else " on" if cmd.on else " off")
    if isinstance(cmd, Forget):
        return "/forget me"
    if isinstance(cmd, Link):
        return "/link" + (f" {cmd.code}" if cmd.code else "")
    if isinstance(cmd, Vote):
        return f"/{cmd.choice}"
    if isinstance(cmd, Undo):
        return "/undo" + (f" {cmd.answer}" if cmd.answer else "")
    if isinstance(cmd, Away):
        return f"/away {_short_time(cmd.seconds)}"
    if isinstance(cmd, Back):
        return "/back"
    if isinstance(cmd, Tournament):
        return _format_tournament(cmd)
    if isinstance(cmd, PuzzleDaily):
        return f"/option puzzle daily {cmd.at}" if cmd.at else "/option puzzle off"
    if isinstance(cmd, Puzzle):
        if cmd.solution:
            return "/puzzle answer"
        number = "" if cmd.number is None else f" {cmd.number}"
        return "/puzzle" + number + (f" {cmd.move}" if cmd.move else "")
    if isinstance(cmd, Help):
        return "/help all" if cmd.everything else "/help"
    for word, cls in _SIMPLE.items():
        if type(cmd) is cls:
            return f"/{word} {cmd.table}" if cmd.table else f"/{word}"
    raise TypeError(f"not a command: {cmd!r}")
