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
    #: Whether the command is about the player's own seat at a running game: typed where
    #: the player sees a table of theirs that is played elsewhere (a tournament's), it is
    #: for that table.
    at_seat = False


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
    at_seat = True
    move: str


@dataclass(frozen=True, kw_only=True)
class Swap(Command):
    at_seat = True
    pass


@dataclass(frozen=True, kw_only=True)
class Keep(Command):
    at_seat = True
    pass


@dataclass(frozen=True, kw_only=True)
class Hand(Command):
    at_seat = True
    changes = False


@dataclass(frozen=True, kw_only=True)
class Board(Command):
    at_seat = True
    changes = False


@dataclass(frozen=True, kw_only=True)
class Score(Command):
    at_seat = True
    changes = False


@dataclass(frozen=True, kw_only=True)
class Hint(Command):
    at_seat = True
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
    """Turn pings on or off for the person; ``None``: say how they are set. ``setting``
    ``digest`` (``value``: the hour, 0-23), ``quiet`` (``value``: ``22-8``, or empty for
    none) or ``tz`` (``value``: a time zone name) changes how pings come instead."""

    on: bool | None = None
    setting: str | None = None
    value: str = ""
    changes = False


@dataclass(frozen=True, kw_only=True)
class Vote(Command):
    """What the other persons at a table want done about a player out of time
    (``choice``: skip, expel or wait)."""

    choice: str


@dataclass(frozen=True, kw_only=True)
class Undo(Command):
    """``/undo``: ask to take my last move back; ``answer`` ``yes`` or ``no``: accept or
    refuse the request pending at the table."""

    answer: str | None = None


@dataclass(frozen=True, kw_only=True)
class Away(Command):
    """``/away 3d``: my clocks stop for ``seconds`` in every game I sit in (saved at
    each of those tables, not at the chat it was typed in)."""

    seconds: int
    changes = False


@dataclass(frozen=True, kw_only=True)
class Back(Command):
    """``/back``: my vacation ends now."""

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
#: What ``/tournament`` may be followed by (nothing: the standings or the list).
TOURNAMENT_ACTIONS = ("show", "new", "join", "leave", "start", "cancel", "invite", "team")
#: The most rounds a tournament may have, and the longest a round may last.
TOURNAMENT_ROUNDS = 30
TOURNAMENT_ROUND_TIME = 14 * 24 * 3600
#: The longest wait before a tournament starts by itself.
TOURNAMENT_START = 30 * 24 * 3600
_SYSTEMS = {"swiss": "swiss", "schweizer": "swiss", "zwitsers": "swiss", "suisse": "swiss"}
_ROBIN = {"roundrobin": "robin", "robin": "robin", "rr": "robin", "rundenturnier": "robin"}
_ROUND_WORDS = {"round", "rounds", "runde", "runden", "ronde", "rondes", "tour", "tours"}
_PLAYER_WORDS = {"player", "players", "spieler", "speler", "spelers", "joueur", "joueurs"}
_START_WORDS = {"start", "in", "starts", "beginn", "begin", "début", "debut"}
_CLOCK_WORDS = {"clock", "timeout", "uhr", "klok", "pendule"}


@dataclass(frozen=True, slots=True)
class TournamentSpec:
    """What ``/tournament new`` sets up: ``system`` swiss or robin (round robin),
    ``rounds`` (0: the default, five for Swiss, everyone once for a round robin), players
    per table, seconds a round lasts, the game and the team game, each table's turn
    clock (0: none) and seconds until it starts by itself (0: when the host starts it)."""

    system: str = "swiss"
    rounds: int = 0
    size: int = 2
    round_time: int = 3 * 86400
    game: str = "genial"
    team: bool = False
    clock: int = 0
    start_in: int = 0


@dataclass(frozen=True, kw_only=True)
class Tournament(Command):
    """``/tournament [action] [target]``: ``target`` names a tournament (its id) or, for
    ``team``, the invite code of a team battle. Changes no table (a tournament has a
    version of its own)."""

    action: str = "show"
    target: str = ""
    spec: TournamentSpec | None = None
    changes = False


def _short(word: str) -> str:
    """A word of the user's shown back in an error: never at length."""
    return word if len(word) <= 16 else word[:15] + "…"


def parse_tournament_spec(args: list[str]) -> TournamentSpec:
    """The words after ``/tournament new`` (``swiss 5 rounds 2 players 3d``, ``round robin
    spezial 1d start 2h``).

    Raises:
        CommandError: ``tournament.bad_word`` naming the word not understood, or
            ``tournament.bad_number`` for a count out of range.
    """
    words = [w.lower() for w in args]
    spec: dict[str, object] = {}
    i = 0
    while i < len(words):
        w = words[i]
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if w in _SYSTEMS:
            spec["system"] = "swiss"
        elif w in _ROBIN or (w == "round" and nxt == "robin"):
            spec["system"] = "robin"
            i += 1 if w == "round" else 0
        elif w.isascii() and w.isdigit() and nxt in _ROUND_WORDS | _PLAYER_WORDS:
            n = int(w) if len(w) <= 3 else 0
            if nxt in _ROUND_WORDS:
                if not 1 <= n <= TOURNAMENT_ROUNDS:
                    raise CommandError("tournament.bad_rounds", most=str(TOURNAMENT_ROUNDS))
                spec["rounds"] = n
            else:
                if not 2 <= n <= 4:
                    raise CommandError("tournament.bad_size")
                spec["size"] = n
            i += 1
        elif w in GAMES:
            spec["game"] = w
        elif w in ("team", "teams"):
            spec["team"] = True
        elif w in _START_WORDS and nxt:
            seconds = _tournament_duration(nxt, TOURNAMENT_START)
            spec["start_in"] = seconds
            i += 1
        elif w in _CLOCK_WORDS and nxt:
            spec["clock"] = parse_duration(nxt)
            i += 1
        elif _DURATION.fullmatch(w) and not w.isdigit():
            spec["round_time"] = _tournament_duration(w, TOURNAMENT_ROUND_TIME)
        else:
            raise CommandError("tournament.bad_word", word=_short(args[i]))
        i += 1
    made = TournamentSpec(**spec)  # type: ignore[arg-type]
    if made.team and (made.size != 4 or made.game != "genial"):
        raise CommandError("tournament.bad_team")
    if made.system == "robin" and made.size != 2:
        raise CommandError("tournament.robin_pairs")
    return made


def _tournament_duration(text: str, most: int) -> int:
    m = _DURATION.fullmatch(text)
    if not m or not m.group(2):
        raise CommandError("tournament.bad_time", word=_short(text))
    seconds = int(m.group(1)) * _UNITS[m.group(2)]
    if not 600 <= seconds <= most:
        raise CommandError("tournament.bad_time", word=_short(text))
    return seconds


def _parse_tournament(args: list[str]) -> Command:
    if not args:
        return Tournament()
    action = args[0].lower()
    if action not in TOURNAMENT_ACTIONS:
        if len(args) == 1 and re.fullmatch(r"[a-z0-9]{1,12}", action):
            return Tournament(action="show", target=action)
        raise CommandError("usage.tournament")
    if action == "new":
        return Tournament(action="new", spec=parse_tournament_spec(args[1:]))
    if len(args) > 2:
        raise CommandError("usage.tournament")
    target = args[1] if len(args) == 2 else ""
    if action == "team" and not target:
        raise CommandError("usage.tournament_team")
    if target and not re.fullmatch(r"[A-Za-z0-9]{1,12}", target):
        raise CommandError("tournament.no_such", id=_short(target))
    return Tournament(action=action, target=target.lower())


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
#: Longest time bank a clock may hold, and the longest vacation at once.
MAX_BANK = 30 * 24 * 3600
MAX_AWAY = 30 * 24 * 3600
#: A clock is live (minutes, a game in one sitting) up to this bank, else by message.
LIVE_BANK = 3 * 3600
_CLOCK = re.compile(r"([0-9]{1,6}[smhd]?)\s*\+\s*([0-9]{1,6}[smhd]?)")
_YES = {"yes", "ja", "oui", "accept", "ok", "y"}
_NO = {"no", "nein", "nee", "non", "refuse", "n"}


def _seconds(text: str, default_unit: str) -> int | None:
    m = _DURATION.fullmatch(text)
    if not m:
        return None
    return int(m.group(1)) * _UNITS[m.group(2) or default_unit]


def parse_clock(text: str) -> tuple[int, int]:
    """A time control ``BANK+INCREMENT``: ``3d+1d`` (by message), ``10m+5s`` (live);
    a bare number is minutes in the bank and seconds in the increment (``10+5``). ``off``
    is ``(0, 0)``.

    Raises:
        CommandError: ``option.bad_clock`` for anything else, a bank under a minute or
            over 30 days, or an increment larger than the bank.
    """
    t = text.strip().lower()
    if t in _OFF or t == "none":
        return 0, 0
    m = _CLOCK.fullmatch(t)
    bank = _seconds(m.group(1), "m") if m else None
    increment = _seconds(m.group(2), "s") if m else None
    if bank is None or increment is None or not 60 <= bank <= MAX_BANK or increment > bank:
        raise CommandError("option.bad_clock", value=text)
    return bank, increment


def format_clock(bank: int, increment: int) -> str:
    """The text :func:`parse_clock` reads back: ``3d+1d``, ``10m+5s``; ``off``."""
    if not bank:
        return "off"
    return f"{_short_time(bank)}+{_short_time(increment)}"


def _short_time(seconds: int) -> str:
    if seconds == 0:
        return "0s"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


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
    if name in ("clock", "bank", "uhr", "klok", "horloge"):
        if value is None:
            raise CommandError("option.bad_clock", value="")
        bank, increment = parse_clock(value)
        return SetOption(name="clock", value=f"{bank}+{increment}")
    if name in ("grace",):
        if value is None:
            raise CommandError("option.bad_grace", value="")
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
    if word == "puzzle":
        return _parse_puzzle(args)
    cls = _SIMPLE.get(word)
    if cls is None:
        raise CommandError("command.unknown", command=raw)
    return cls()


_HOUR = re.compile(r"([0-9]{1,2})(?::00)?h?")
_HOURS = re.compile(r"([0-9]{1,2})(?::00)?\s*-\s*([0-9]{1,2})(?::00)?")
_ZONE = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]*(?:/[A-Za-z0-9_+\-]+){0,2}")


def _parse_notify(args: list[str]) -> Notify:
    """``/notify [on|now|off]``, ``/notify digest 8``, ``/notify quiet 22-08|off``,
    ``/notify tz Europe/Berlin``.

    Raises:
        CommandError: ``usage.notify`` for anything else.
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
            raise CommandError("usage.notify")
        return Notify(setting="digest", value=str(int(m.group(1))))
    if word == "quiet":
        if rest.lower() in _OFF or rest.lower() == "none":
            return Notify(setting="quiet", value="")
        m = _HOURS.fullmatch(rest)
        if m is None or int(m.group(1)) > 23 or int(m.group(2)) > 23 or m.group(1) == m.group(2):
            raise CommandError("usage.notify")
        return Notify(setting="quiet", value=f"{int(m.group(1))}-{int(m.group(2))}")
    if word in ("tz", "timezone", "zone"):
        if not _ZONE.fullmatch(rest) or len(rest) > 40:
            raise CommandError("usage.notify")
        return Notify(setting="tz", value=rest)
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
        if cmd.name == "clock":
            bank, _, increment = cmd.value.partition("+")
            return f"/option clock {format_clock(int(bank), int(increment))}"
        if cmd.name == "grace":
            grace = int(cmd.value)
            return f"/option grace {'default' if grace < 0 else format_duration(grace)}"
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
        if cmd.setting is not None:
            value = cmd.value or ("off" if cmd.setting == "quiet" else "")
            return f"/notify {cmd.setting} {value}".rstrip()
        return "/notify" + ("" if cmd.on is None else " on" if cmd.on else " off")
    if isinstance(cmd, Forget):
        return "/forget me"
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
    for word, cls in _SIMPLE.items():
        if type(cmd) is cls:
            return f"/{word}"
    raise TypeError(f"not a command: {cmd!r}")


def _format_tournament(cmd: Tournament) -> str:
    if cmd.action != "new" or cmd.spec is None:
        words = [] if cmd.action == "show" and not cmd.target else [cmd.action]
        return " ".join(["/tournament", *words, *([cmd.target] if cmd.target else [])])
    s = cmd.spec
    words = ["/tournament new", "swiss" if s.system == "swiss" else "roundrobin"]
    if s.rounds:
        words.append(f"{s.rounds} rounds")
    words += [f"{s.size} players", format_duration(s.round_time), s.game]
    if s.team:
        words.append("team")
    if s.clock:
        words.append(f"clock {format_duration(s.clock)}")
    if s.start_in:
        words.append(f"start {format_duration(s.start_in)}")
    return " ".join(words)
