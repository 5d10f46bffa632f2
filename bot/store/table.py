"""A table: the seats, options and game of one chat, as stored (plain data, JSON round-trip).

The game itself is stored as its record (RECORD.md: setup, full draw order or tokens, and
moves) and rebuilt from it; nothing else about the game is kept, so a stored table always
replays to exactly the position the players saw.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

#: No game is running: people join, options change.
LOBBY = "lobby"
#: A game is running.
PLAYING = "playing"
#: Closed by /abort; a /join opens it again (its version keeps counting, so old buttons
#: stay stale).
CLOSED = "closed"
STATUSES = (LOBBY, PLAYING, CLOSED)
MAX_SEATS = 4


@dataclass
class Seat:
    """A seat in turn order. ``user`` is the person's id, or ``None`` for a computer player
    of ``level``. ``left`` marks a person's seat that a computer player took over, and
    ``left_user`` keeps who that person was, so the finished game counts as their loss."""

    name: str
    user: str | None = None
    level: str | None = None
    left: bool = False
    left_user: str | None = None

    @property
    def computer(self) -> bool:
        return self.user is None


@dataclass
class Options:
    game: str = "genial"  # "genial" or "spezial"
    team: bool = False
    timeout: int = 0  # seconds for a turn when playing by message; 0: no timeout
    hints: bool = False
    order: str = "join"  # seat order at the start: "join" or "random"
    lang: str = "en"
    #: A time bank per player (seconds; 0: none) and what each move adds to it, capped at
    #: the bank's start (``/option clock 3d+1d``, ``10m+5s``).
    clock_bank: int = 0
    clock_increment: int = 0
    #: Seconds the other persons have to vote on a player out of time before the
    #: computer moves for them; -1: as long as one increment.
    grace: int = -1
    #: Whether ``/undo`` may ask the table to take a move back.
    undo: bool = True
    #: When the daily puzzle comes (bot.community.puzzles): "18:00 Europe/Berlin", "" for never.
    puzzle: str = ""


@dataclass
class Table:
    """Everything stored about one chat's table.

    ``version`` counts accepted commands (and computer turns); a button carries it.
    ``turn_started`` is when the player to move got the turn, ``reminded`` whether the
    half-time reminder went out; ``due_at`` is the next moment :meth:`Service.due` must act
    (a computer player's move: at once; a reminder or a timeout: later), ``None`` for never.
    """

    chat: str
    title: str = ""
    version: int = 0
    status: str = LOBBY
    host: str | None = None
    host_name: str = ""
    seats: list[Seat] = field(default_factory=list)
    options: Options = field(default_factory=Options)
    record: dict[str, Any] | None = None
    seed: int = 0
    turn_started: float | None = None
    reminded: bool = False
    due_at: float | None = None
    #: When the person to move runs out of time (the turn's limit or their time bank),
    #: ``None`` for never (see :func:`bot.core.deadlines.deadline`).
    deadline: float | None = None
    bots_added: int = 0
    #: The seats of the running or last game, as they were at its end: the lobby's
    #: ``seats`` change after an end or an abort while the last game's names must not.
    players: list[Seat] = field(default_factory=list)
    #: What happened since the last person's move while computer players follow, told
    #: together in one message once a person is to act (or the game ends).
    pending: list[str] = field(default_factory=list)
    #: The labels of the cells those moves covered, to mark on one board.
    pending_cells: list[str] = field(default_factory=list)
    #: Each seat's time bank in seconds as its turn begins (``/option clock``; empty
    #: without one): charged when the turn ends, kept with the table so a restart or
    #: another process goes on with the same clocks.
    banks: list[float] = field(default_factory=list)
    #: The moves played when the current turn began (a takeback goes back to here).
    turn_at: int = 0
    #: A person whose time ran out while the others decide (:mod:`bot.play.absence`):
    #: ``seat``, ``since``, ``votes`` (person id: skip, expel or wait), ``decided``.
    out_of_time: dict[str, Any] | None = None
    #: The last person's turn, while nobody else has acted since: what ``/undo`` would
    #: take back (:mod:`bot.play.takeback`): ``user``, ``seat``, ``at`` (moves kept),
    #: ``banks`` and ``started`` as that turn began, and ``asked`` and ``accepted`` once
    #: the takeback is asked for.
    undoable: dict[str, Any] | None = None
    #: A turn ping held back (quiet hours, or a daily digest): when it is due, for whom
    #: and for which turn (``seed:moves``); a turn that passed first drops it unsent.
    ping_at: float | None = None
    ping_user: str | None = None
    ping_turn: str = ""
    #: The person whose turn ping from this table was sent and is still true: when their
    #: turn passes, the platform is asked to take it back (``unping``) where it can.
    pinged: str | None = None
    #: A tournament's game (issue 30, :mod:`bot.tournaments.places`): the tournament's id,
    #: the table's name, and the chat each player sees it in; empty for a chat's own table.
    tournament: dict[str, Any] = field(default_factory=dict)
    #: The seat of each of those placements (one per two cells), so the board numbers
    #: them in order in their seats' colours (a table stored before has none: plain marks).
    pending_seats: list[int] = field(default_factory=list)
    #: The start of the last outage of the bot whose time this table's clocks got back
    #: (:mod:`bot.core.outage`): each outage is given back, and told, once.
    credited: float | None = None
    #: The computer plays every seat's turns in its player's name, one turn a step of the
    #: clock and each told, until the game ends; people's moves are no longer taken (a
    #: tournament round's deadline passed, :mod:`bot.tournaments.rounds`).
    autoplay: bool = False

    def seat_of(self, user: str) -> int | None:
        for i, seat in enumerate(self.seats):
            if seat.user == user:
                return i
        return None

    def pass_host(self) -> None:
        """The host role goes to the first person still seated (or nobody) when the host
        is not seated any more."""
        if self.host is not None and self.seat_of(self.host) is not None:
            return
        seat = next((s for s in self.seats if s.user is not None), None)
        self.host = seat.user if seat else None
        self.host_name = seat.name if seat else ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Table:
        data = dict(data)
        data["seats"] = [Seat(**s) for s in data.get("seats", [])]
        data["players"] = [Seat(**s) for s in data.get("players", [])]
        data["options"] = Options(**data.get("options", {}))
        return cls(**data)
