"""Ratings and personal bests from finished games (issue 13): plain values in, a ladder out.

Every finished game with at least one person is rated with openskill's Plackett–Luce model
(Weng & Lin 2011, Algorithm 4): multiplayer, with ties. The two sides of the team game are
rated as two teams. Each computer level is a player of its own (``computer:<level>``), so a
person's first games against computers mean something. A person who left (a computer took
the seat over after /leave or a timeout) is rated alone in last place, whatever the seat
reached, and the computer that finished the seat is not rated for it. Solo games are not
rated: their lowest colour is kept as a personal best. Aborted games never become a
:class:`RatedGame` (:func:`from_table` gives ``None``).

Ratings are kept per chat (the group or server ladder) and for everyone together
(``GLOBAL``), for Genial and Genial Spezial apart. A table with no chat of its own, whose id
names a ladder before a ``~`` (a Telegram inline message's, ``inline~…``), is rated on that
ladder (:func:`ladder_scope`): all such tables together, not one ladder per message.
Nothing here is stored: the ladder is a pure fold over the games, so :func:`rebuild` from
the stored records equals the ladder kept up to date game by game, and a change of rating
model loses nothing.

The number shown is conservative: ``points = 1000 + 25 * (mu - 3 * sigma)``, rounded. A
newcomer (mu 25, sigma 25/3) shows 1000; a player of average skill whose rating has
settled (sigma near 1) shows about 1550, the range chess players know. Three sigmas below
the mean, the number rises with games played and only then with skill, so nobody tops a
ladder after one lucky game.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from openskill.models import PlackettLuce, PlackettLuceRating

from engine.errors import EngineError
from engine.ranking import places
from engine.record import Record, replay

#: The scope of the ladder of everyone, across all chats.
GLOBAL = "*"
#: What ends a ladder's name at the start of a table id (:func:`ladder_scope`).
LADDER_MARK = "~"
#: Player keys of computer seats: ``computer:`` and the level.
COMPUTER = "computer:"
GAMES = ("genial", "spezial")
MODES = ("standard", "team", "solo")
#: Shown points: BASE + SCALE * (mu - Z * sigma).
BASE = 1000
SCALE = 25
Z = 3.0

#: openskill's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300 (a little uncertainty
#: added before each game, so a long-settled rating can still move).
MODEL = PlackettLuce()


def computer_key(level: str) -> str:
    """The player key of a computer level."""
    return f"{COMPUTER}{level}"


def is_computer(player: str) -> bool:
    return player.startswith(COMPUTER)


def points(mu: float, sigma: float) -> int:
    """The conservative rating shown to players: ``1000 + 25 * (mu - 3 * sigma)``."""
    return round(BASE + SCALE * (mu - Z * sigma))


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat at the end of a game.

    ``player``: the person's user id, or ``computer:<level>`` for a computer seat.
    ``side``: the score board it played for (its team in the team game, else the seat).
    ``place``: the side's place, 1 first; sides that tie share it (1, 1, 3).
    ``lowest``: the side's lowest colour at the end (the game's result for it).
    ``left``: the person left and a computer finished the seat: a loss for the person.
    """

    player: str
    side: int
    place: int
    lowest: int
    left: bool = False


@dataclass(frozen=True, slots=True)
class RatedGame:
    """A finished game as plain values: where, which game, when, and every seat's result.

    ``game``: ``genial`` or ``spezial``; ``mode``: ``standard``, ``team`` or ``solo``
    (Genial Spezial is always ``standard``); ``finished_at``: seconds since the epoch.

    Raises:
        ValueError: for an unknown game or mode, or no seats.
    """

    chat: str
    game: str
    mode: str
    finished_at: float
    seats: tuple[SeatResult, ...]

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise ValueError(f"unknown game {self.game!r}")
        if self.mode not in MODES:
            raise ValueError(f"unknown mode {self.mode!r}")
        if not self.seats:
            raise ValueError("a game has seats")

    @property
    def has_person(self) -> bool:
        return any(not is_computer(s.player) for s in self.seats)

    @property
    def rated(self) -> bool:
        """Whether the game moves ratings: at least one person, and not a solo game."""
        return self.mode != "solo" and self.has_person


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's line on one ladder: the rating and what it rests on.

    ``lowest_sum`` adds up the lowest colour of the ``scored`` games (for the average),
    ``best`` is the best of them: the games on tracks of 18 the player finished
    themselves, not a team game's tracks of 36 nor a game a computer finished for them
    after they left (both still count as games, and a leaver's as a loss).
    """

    player: str
    mu: float
    sigma: float
    games: int = 0
    wins: int = 0
    lowest_sum: int = 0
    best: int = 0
    scored: int = 0

    @property
    def points(self) -> int:
        return points(self.mu, self.sigma)

    @property
    def computer(self) -> bool:
        return is_computer(self.player)

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def average_lowest(self) -> float:
        return self.lowest_sum / self.scored if self.scored else 0.0


@dataclass(frozen=True, slots=True)
class SoloBest:
    """A person's solo games: how many, and the best lowest colour at the end."""

    games: int
    best: int


#: A ladder's key: the scope (a chat id, or GLOBAL) and the game.
Board = tuple[str, str]


@dataclass
class Ladder:
    """Every rating, per chat and global, per game; the same games in the same order always
    give an equal ladder. Fill it with :meth:`apply` or :func:`rebuild`."""

    boards: dict[Board, dict[str, Standing]] = field(default_factory=dict)
    #: Points after each rated game, per (scope, game, player), oldest first.
    histories: dict[tuple[str, str, str], list[int]] = field(default_factory=dict)
    solo: dict[tuple[str, str], SoloBest] = field(default_factory=dict)
    games: int = 0

    def apply(self, game: RatedGame) -> None:
        """Take one finished game into account: its chat's ladder and the global one (a solo
        game: the personal bests; a game of computers alone: nothing)."""
        self.games += 1
        if game.mode == "solo":
            for seat in game.seats:
                # A solo game the person left was finished by a computer: not theirs.
                if not is_computer(seat.player) and not seat.left:
                    for scope in (ladder_scope(game.chat), GLOBAL):
                        self._solo(scope, seat.player, seat.lowest)
            return
        if not game.rated:
            return
        for scope in (ladder_scope(game.chat), GLOBAL):
            self._rate((scope, game.game), game)

    def standing(self, player: str, game: str, chat: str = GLOBAL) -> Standing | None:
        """A player's standing on one ladder, ``None`` before their first rated game."""
        return self.boards.get((chat, game), {}).get(player)

    def top(self, game: str, chat: str = GLOBAL, computers: bool = True) -> list[Standing]:
        """The ladder, best first (by points, then more games, then the key, so the order
        is the same every time)."""
        rows = [
            s for s in self.boards.get((chat, game), {}).values() if computers or not s.computer
        ]
        return sorted(rows, key=lambda s: (-s.points, -s.games, s.player))

    def history(self, player: str, game: str, chat: str = GLOBAL) -> list[int]:
        """The player's points after each of their rated games, oldest first."""
        return list(self.histories.get((chat, game, player), []))

    def solo_best(self, player: str, chat: str = GLOBAL) -> SoloBest | None:
        return self.solo.get((chat, player))

    def _solo(self, scope: str, player: str, lowest: int) -> None:
        old = self.solo.get((scope, player))
        if old is None:
            self.solo[(scope, player)] = SoloBest(1, lowest)
        else:
            self.solo[(scope, player)] = SoloBest(old.games + 1, max(old.best, lowest))

    def _rate(self, board: Board, game: RatedGame) -> None:
        table = self.boards.setdefault(board, {})
        entries = _entries(game)
        # A key can sit at several seats (two computers of one level): each seat plays
        # with the key's rating before the game, and the key's new rating is the mean of
        # its seats' results.
        teams = [
            [MODEL.rating(*_mu_sigma(table.get(p)), name=p) for p in members]
            for members, _ in entries
        ]
        if len(teams) < 2:
            return
        ranks = [float(rank) for _, rank in entries]
        rated = MODEL.rate(teams, ranks=ranks)
        results: dict[str, list[PlackettLuceRating]] = {}
        for (members, _), team in zip(entries, rated, strict=True):
            for player, rating in zip(members, team, strict=True):
                results.setdefault(player, []).append(rating)
        won = _winners(entries, game)
        lowest = _lowest_by_player(game)
        gone = {s.player for s in game.seats if s.left}
        for player, ratings in results.items():
            mu = sum(r.mu for r in ratings) / len(ratings)
            sigma = sum(r.sigma for r in ratings) / len(ratings)
            old = table.get(player) or Standing(player, MODEL.mu, MODEL.sigma)
            # The lowest colour compares on tracks of 18, and is the player's own result.
            scored = game.mode == "standard" and player not in gone
            table[player] = replace(
                old,
                mu=mu,
                sigma=sigma,
                games=old.games + 1,
                wins=old.wins + (player in won),
                lowest_sum=old.lowest_sum + (lowest[player] if scored else 0),
                best=max(old.best, lowest[player]) if scored else old.best,
                scored=old.scored + scored,
            )
            self.histories.setdefault((board[0], board[1], player), []).append(table[player].points)


def _mu_sigma(standing: Standing | None) -> tuple[float, float]:
    if standing is None:
        return MODEL.mu, MODEL.sigma
    return standing.mu, standing.sigma


def _entries(game: RatedGame) -> list[tuple[list[str], int]]:
    """The teams openskill rates, each with its rank (lower is better): every side's
    players who stayed, then each person who left, alone, after every side."""
    sides: dict[int, list[str]] = {}
    place: dict[int, int] = {}
    for seat in game.seats:
        place[seat.side] = seat.place
        if not seat.left:
            sides.setdefault(seat.side, []).append(seat.player)
    entries = [(members, place[side]) for side, members in sorted(sides.items())]
    last = len(game.seats) + 1  # below every place a side can have
    entries += [([s.player], last) for s in game.seats if s.left]
    return entries


def _winners(entries: list[tuple[list[str], int]], game: RatedGame) -> set[str]:
    """The players who won: the best place among those rated (shared or not), so the one
    who stays wins when the other leaves; a person who left never wins."""
    gone = {s.player for s in game.seats if s.left}
    best = min(rank for _, rank in entries)
    return {p for members, rank in entries if rank == best for p in members if p not in gone}


def _lowest_by_player(game: RatedGame) -> dict[str, int]:
    out: dict[str, int] = {}
    for seat in game.seats:
        out[seat.player] = max(out.get(seat.player, seat.lowest), seat.lowest)
    return out


def rebuild(games: Iterable[RatedGame]) -> Ladder:
    """The ladder the games give, taken in the order they finished (a stable sort by
    ``finished_at``, so games stored out of order rebuild the same ladder)."""
    ladder = Ladder()
    for game in sorted(games, key=lambda g: g.finished_at):
        ladder.apply(game)
    return ladder


def from_table(
    table: Mapping[str, Any],
    finished_at: float,
    left_by: Mapping[int, str] | None = None,
    played: Any = None,
) -> RatedGame | None:
    """The rated game of a stored table (``Table.to_dict()``) whose game just ended, taken
    before the end of the game clears the seats that people left.

    ``left_by`` names, per seat number, the person who left a seat a computer took over
    (a stored seat keeps only ``left``); a left seat whose person is not known is rated for
    nobody. ``played`` is the game of the record, if the caller holds it (the service, at
    the end of a game): then the record is not replayed. Returns ``None`` when there is no
    game or it did not finish (aborted).

    Raises:
        ValueError: if the record is invalid or its players do not match the seats.
    """
    data = table.get("record")
    if data is None:
        return None
    try:
        record = Record.from_dict(data)
        game = played if played is not None else replay(record)
    except EngineError as exc:
        raise ValueError(f"table {table.get('chat')!r}: bad record: {exc}") from None
    ranking = game.ranking()
    if not game.over or ranking is None:
        return None
    seats = list(table.get("seats", []))
    if len(seats) != record.players:
        raise ValueError(f"{len(seats)} seats for a game of {record.players} players")
    place = places(ranking)
    left_by = left_by or {}
    results = []
    for n, seat in enumerate(seats):
        side = n % 2 if record.mode == "team" else n
        lowest = min(game.score(side).values())
        if seat.get("user") is not None:
            player: str | None = str(seat["user"])
        elif seat.get("left"):
            player = left_by.get(n)
        else:
            player = computer_key(str(seat.get("level")))
        if player is None:
            continue
        left = bool(seat.get("left")) and seat.get("user") is None
        results.append(SeatResult(player, side, place[side], lowest, left))
    if not results:
        return None
    mode = record.mode or "standard"
    return RatedGame(str(table["chat"]), record.game, mode, finished_at, tuple(results))


def ladder_scope(chat: str) -> str:
    """The ladder a table's games are rated on besides the global one: its chat's, or,
    for a table id ``<ladder>~<rest>``, the ladder named so."""
    ladder, mark, rest = chat.partition(LADDER_MARK)
    return ladder if mark and ladder and rest else chat


def from_archive(row: Mapping[str, Any], played: Any = None) -> RatedGame | None:
    """The rated game of one archived finished game (``Store.archived``): the table's
    seats at the end, whose ``left_user`` names the person who left a seat; ``None`` for a
    row that does not replay to a finished game (a damaged row is skipped, not fatal).
    ``played``: the row's game, if the caller holds it (see :func:`from_table`)."""
    seats = row.get("seats") or []
    left_by = {
        n: str(s["left_user"])
        for n, s in enumerate(seats)
        if isinstance(s, Mapping) and s.get("left") and s.get("left_user")
    }
    try:
        return from_table(row, float(row.get("finished_at", 0.0)), left_by, played)
    except (ValueError, TypeError, KeyError, AttributeError):
        return None


def rebuild_archive(rows: Iterable[Mapping[str, Any]]) -> Ladder:
    """The ladder of every archived finished game (what the service keeps in memory)."""
    return rebuild(g for g in map(from_archive, rows) if g is not None)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m bot.community.ratings --db PATH [--chat ID] [--game genial|spezial]``:
    rebuild the ratings from the stored finished games and print the top of a ladder."""
    import argparse

    from bot.store import open_store

    parser = argparse.ArgumentParser(
        prog="python -m bot.community.ratings", description=main.__doc__
    )
    parser.add_argument("--db", required=True, help="the bot's store (an SQLite file)")
    parser.add_argument("--chat", default=GLOBAL, help="a chat's ladder (default: everyone)")
    parser.add_argument("--game", choices=GAMES, default="genial")
    parser.add_argument("--rows", type=int, default=10)
    args = parser.parse_args(argv)
    store = open_store(args.db)
    try:
        # Every chat's: a ladder named in table ids (inline) gathers many tables' games.
        rows = store.archived(None)
    finally:
        store.close()
    if args.chat != GLOBAL:
        rows = [r for r in rows if ladder_scope(str(r.get("chat", ""))) == args.chat]
    ladder = rebuild_archive(rows)
    names: dict[str, str] = {}
    for row in rows:
        for seat in row.get("seats") or []:
            who = seat.get("user") or seat.get("left_user")
            if who:
                names[str(who)] = str(seat.get("name", who))
    print(f"{len(rows)} finished games, {args.game}, ladder {args.chat}")
    for rank, s in enumerate(ladder.top(args.game, args.chat)[: args.rows], 1):
        name = names.get(s.player, s.player)
        print(f"{rank:3d}. {name}: {s.points} ({s.games} games, {s.wins} wins)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
