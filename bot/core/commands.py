"""Chat commands as values: one small immutable object per command, what the service's
handlers take (:mod:`bot.core.parsing` makes them from text and writes them back), and the
error a text that is no command raises.
"""

from __future__ import annotations

from dataclasses import dataclass

GAMES = ("genial", "spezial")
ORDERS = ("join", "random")


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
    #: For a command about the player's seat (:attr:`at_seat`): the tournament whose table
    #: it is for (its id), when a player has several tables in one chat; "" for none named.
    table: str = ""

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
class Look(Command):
    """``/look F7``: a cell of the board and its lines in words (issue 48)."""

    cell: str
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
    """``/help``: the first commands; ``/help all``: every command."""

    everything: bool = False
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
    none) or ``tz`` (``value``: a time zone name) changes how pings come instead; ``where``
    (``value``: ``discord`` or ``telegram``, with ``on``) turns them on and sends them to the
    person's account on that platform (issue 49)."""

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
class Link(Command):
    """``/link``: a one-time code for linking this account with one on the other platform;
    ``/link CODE``: the code given there, redeemed here (issue 49)."""

    code: str | None = None
    changes = False


@dataclass(frozen=True, kw_only=True)
class Unlink(Command):
    """``/unlink``: the accounts linked as one person are two again."""

    changes = False


@dataclass(frozen=True, kw_only=True)
class Forget(Command):
    """``/forget me``: the first asks to confirm, the same again soon after forgets the
    person (names and ids in finished games, ratings, settings)."""

    changes = False


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
