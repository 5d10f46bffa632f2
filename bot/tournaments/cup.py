"""A tournament as stored (issue 30): a :class:`Cup` with its entrants and its played
rounds of pairings (:class:`Entrant`, :class:`Round`, :class:`Pairing`), loaded and stored
with what it says.

A tournament is a row of its own in the store with its own version (like a table), played
from chats: its home, where it was made, and for a team battle each team's chat.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

from bot.core import letters
from bot.core.outbound import Outbound, Stored
from bot.core.tables import LETTER_LEASE, Tables
from bot.store import StaleTable
from bot.tournaments import pairing, places

OPEN = "open"
RUNNING = "running"
FINISHED = "finished"
CANCELLED = "cancelled"
#: Swiss rounds when the host names no number.
DEFAULT_ROUNDS = 5


@dataclass
class Entrant:
    """A player of a tournament: their id, name, the chat they joined from (their team in
    a team battle), and whether they left (their remaining games are lost)."""

    user: str
    name: str
    chat: str
    out: bool = False


@dataclass
class Pairing:
    """One table of a round: its players in seat order, its table's chat id, where each
    player sees it, and once over each player's place (1 first) and how it ended
    (``played``, ``deadline`` or ``forfeit``)."""

    players: list[str]
    chat: str
    places: list[int] | None = None
    ended: str = ""
    forfeits: list[str] = field(default_factory=list)
    seen_at: dict[str, str] = field(default_factory=dict)
    opened: bool = False


@dataclass
class Round:
    number: int
    deadline: float
    pairings: list[Pairing]
    byes: list[str]


@dataclass
class Cup:
    """A tournament as stored (its ``data``): what the host set up, who plays, the rounds."""

    id: str
    home: str
    title: str
    host: str
    host_name: str
    system: str
    rounds: int
    size: int
    round_time: int
    game: str
    team: bool
    clock: int
    lang: str
    created: float
    starts_at: float | None = None
    status: str = OPEN
    entrants: list[Entrant] = field(default_factory=list)
    played: list[Round] = field(default_factory=list)
    teams: list[str] = field(default_factory=list)
    team_names: dict[str, str] = field(default_factory=dict)
    code: str = ""
    due_at: float | None = None
    finished_at: float | None = None
    #: At the end: each player's final rank and the winners' names, for ``/stats``
    #: (:func:`bot.tournaments.places.finished_lines` reads them without the standings' work).
    final: dict[str, int] = field(default_factory=dict)
    winners: list[str] = field(default_factory=list)
    #: The start of the last outage of the bot whose time the round got back
    #: (:mod:`bot.tournaments.credit`).
    credited: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Cup:
        data = dict(data)
        data["entrants"] = [Entrant(**e) for e in data.get("entrants", [])]
        data["played"] = [
            Round(
                number=r["number"],
                deadline=r["deadline"],
                pairings=[Pairing(**p) for p in r["pairings"]],
                byes=list(r["byes"]),
            )
            for r in data.get("played", [])
        ]
        return cls(**data)

    def entrant(self, user: str) -> Entrant | None:
        return next((e for e in self.entrants if e.user == user), None)

    @property
    def chats(self) -> list[str]:
        """Where the tournament is followed: its home and its teams."""
        return list(dict.fromkeys([self.home, *self.teams]))

    @property
    def total_rounds(self) -> int:
        if self.system == "robin":
            n = len(self.entrants)
            return n if n % 2 else n - 1
        return self.rounds or DEFAULT_ROUNDS

    def results(self) -> tuple[list[pairing.Result], list[str]]:
        """Every finished table and every bye of a round that is over (a bye's point
        counts with its round's games, not before anyone played them)."""
        results = [
            pairing.Result(tuple(p.players), tuple(p.places))
            for r in self.played
            for p in r.pairings
            if p.places is not None and len(p.players) > 1
        ]
        over = [r for r in self.played if all(p.places is not None for p in r.pairings)]
        return results, [b for r in over for b in r.byes]

    def name_of(self, user: str) -> str:
        e = self.entrant(user)
        return e.name if e else user


def _load(tables: Tables, tid: str) -> tuple[int, Cup] | None:
    found = tables.store.load_tournament(tid)
    if found is None:
        return None
    return found[0], Cup.from_dict(found[1])


def _of_chat(tables: Tables, chat: str) -> list[tuple[int, Cup]]:
    out = []
    for tid in tables.store.tournaments_of(chat):
        found = _load(tables, tid)
        if found is not None:
            out.append(found)
    return sorted(out, key=lambda c: c[1].created)


def _store(tables: Tables, cup: Cup, version: int | None, outs: list[Outbound], now: float) -> bool:
    """Store ``cup`` over ``version`` with what it says (``outs``, each stored with it but
    those a table stored already, as a leaver's table says its game ended); False if it
    changed meanwhile."""
    told = [out for out in outs if out.stored is not None]
    fresh = [out for out in outs if out.stored is None]
    sent = [letters.letter(out) for out in fresh]
    try:
        ids = tables.store.save_tournament(
            places.saved(cup.to_dict(), (version or 0) + 1),
            version,
            sent,
            owner=tables.owner,
            now=tables.clock(),
            lease=LETTER_LEASE,
        )
    except StaleTable:
        return False
    outs[:] = (
        tables.here(
            [
                _stored(out, id_, letters.key_of(kept), now)
                for out, kept, id_ in zip(fresh, sent, ids, strict=True)
            ]
        )
        + told
    )
    return True


def _stored(out: Outbound, id_: int, key: int, now: float) -> Outbound:
    return replace(out, stored=Stored(id_, key, now))
