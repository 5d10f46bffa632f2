"""What a group that plays over weeks keeps (issue 13): finished games, the ladders built
from them, and the texts of ``/top``, ``/stats``, ``/history`` and ``/games``.

Finished games are archived in the store (``Store.archive``) and the ladder is a fold
over them (:mod:`bot.community.ratings`): rebuilt from the archive when the service starts, then
taken one game further at each end. Nothing here is a platform's: texts and plain values.
"""

from __future__ import annotations

import statistics
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from bot.community import ratings
from bot.community.ratings import Ladder, Standing
from bot.core import games, narrate, timebank
from bot.core.durations import LIVE_BANK
from bot.core.games import Game
from bot.core.table import Table
from bot.core.tables import Tables
from bot.store import Store
from bot.words.texts import Texts, squared

#: Rows of one /top page.
TOP_ROWS = 10
#: A person's latest turns whose times ``/stats`` takes the median of.
TURN_TIMES_KEPT = 500
#: The note, under a person's user id, that says their turn pings are on.
NOTIFY = "notify"
#: Notes under a person's id that a turn passing to them may need (their clock paused on
#: vacation, their ping, its quiet hours in their time zone): read with the table, in the
#: same round trip (:meth:`bot.store.Store.load_seated`).
QUIET = "notify-quiet"
ZONE = "notify-tz"
#: The platform a person linked on both wants their pings on (``/notify on discord``).
WHERE = "notify-where"
TURN_NOTES = (NOTIFY, QUIET, ZONE, WHERE)
#: The note, under a table's chat, of the turn last pinged to a person (``ping:<user>``).
PING = "ping:{user}"
#: The name a service keeps its community under (:attr:`bot.core.tables.Tables.parts`).
KEPT_AS = "community"
#: How the alias of a person who asked to be forgotten (``/forget me``) begins: their
#: seats in finished games keep the games whole, the alias is on no ladder.
FORMER = "former:"


def archive_row(table: Table, finished_at: float) -> dict[str, Any]:
    """What is kept of a game that just ended: the table's seats as they were at the end
    (user ids, names, who left a seat), its options and the whole record."""
    return {
        "chat": table.chat,
        "title": table.title,
        "finished_at": finished_at,
        "seats": [asdict(s) for s in table.seats],
        "options": asdict(table.options),
        "record": table.record,
    }


def of(tables: Tables) -> Community:
    """The community a service keeps (set up by :func:`renew`)."""
    kept = tables.parts[KEPT_AS]
    assert isinstance(kept, Community)
    return kept


def fresh(tables: Tables) -> Community:
    """The community a service keeps, rebuilt first if accounts were linked or unlinked
    since it was built (by another process on the store: the other platform's bot, issue
    49); for what reads the ladders of a person (``/top``, ``/stats``, ``/mydata``, a
    finished game)."""
    kept = of(tables)
    if tables.store.links() != kept.people:
        renew(tables)
        kept = of(tables)
    return kept


def renew(tables: Tables) -> None:
    """The ladders and names of a service, rebuilt from the archive as it is now (when
    the service starts, and after a person is forgotten)."""
    tables.parts[KEPT_AS] = Community(tables.store)


def merged(row: dict[str, Any], people: Mapping[str, str]) -> dict[str, Any]:
    """A finished game's row with each linked account's seat given to its person, for the
    ladders; the row as it is when nobody at it is linked, or when two accounts of one
    person sat at the same game (then they count as two, as they played)."""
    seats = row.get("seats")
    if not people or not isinstance(seats, list):
        return row
    new = []
    for seat in seats:
        if isinstance(seat, dict):
            seat = dict(seat)
            for field in ("user", "left_user"):
                who = seat.get(field)
                if isinstance(who, str) and who in people:
                    seat[field] = people[who]
        new.append(seat)
    if new == seats:
        return row
    persons = [s.get("user") or s.get("left_user") for s in new if isinstance(s, dict)]
    persons = [p for p in persons if p]
    if len(set(persons)) < len(persons):
        return row
    return {**row, "seats": new}


class Community:
    """The ladders and the players' names, kept in memory beside the store's archive."""

    def __init__(self, store: Store) -> None:
        self.store = store
        #: Each linked account with the person it is (issue 49): the ladders count the
        #: person's games of every account, as if they had always been one.
        self.people = store.links()
        rows = [merged(row, self.people) for row in store.archived()]
        self.ladder: Ladder = ratings.rebuild_archive(rows)
        self.names: dict[str, str] = {}
        #: Each person's time per turn in finished games by message, newest last.
        self.turn_times: dict[str, deque[float]] = {}
        for row in rows:
            self._learn(row)

    def finished(self, row: dict[str, Any], played: Game | None = None) -> None:
        """Archive one finished game and take it into the ladder; ``played`` is its game,
        if the caller holds it (then its record is not replayed)."""
        self.store.archive(str(row["chat"]), float(row["finished_at"]), row)
        person = merged(row, self.people)
        game = ratings.from_archive(person, played)
        if game is not None:
            self.ladder.apply(game)
        self._learn(person)

    def _learn(self, row: dict[str, Any]) -> None:
        record = row.get("record")
        options = row.get("options")
        if not isinstance(options, dict):
            options = {}
        timeout, bank = options.get("timeout"), options.get("clock_bank")
        # Games played by message: a table with a time per turn or a bank of hours and
        # days (a live game's minutes, or a game without a limit played in one sitting,
        # would hide the days).
        by_message = (isinstance(timeout, int) and timeout > 0) or (
            isinstance(bank, int) and bank > LIVE_BANK
        )
        for number, seat in enumerate(row.get("seats") or []):
            who = seat.get("user") or seat.get("left_user")
            if who:
                self.names[str(who)] = str(seat.get("name") or who)
                if by_message and isinstance(record, dict):
                    times = self.turn_times.setdefault(str(who), deque(maxlen=TURN_TIMES_KEPT))
                    times.extend(timebank.person_times(record, [number]))

    def person(self, account: str) -> str:
        """The person ``account`` is on the ladders: the account it is linked with that
        asked for the link code, else itself."""
        return self.people.get(account, account)

    def median_turn(self, player: str) -> tuple[float, int] | None:
        """The median time ``player`` took for a turn in finished games by message (with a
        time per turn or a clock of hours and days; the latest :data:`TURN_TIMES_KEPT`
        turns), and how many turns; ``None`` without any."""
        times = self.turn_times.get(player)
        if not times:
            return None
        return statistics.median(times), len(times)

    def name(self, player: str, texts: Texts) -> str:
        if player.startswith(FORMER):
            return texts("privacy.former")
        if ratings.is_computer(player):
            return texts("top.computer", level=texts.level(player[len(ratings.COMPUTER) :]))
        return self.names.get(player, player)

    def find(self, chat: str, target: str) -> str | None:
        """A person on this chat's ladders by user id, mention or name (case-folded,
        whole, then the start of a name); ``None`` if nobody or more than one fits."""
        key = target.strip().removeprefix("<@").removeprefix("!").removesuffix(">")
        key = key.removeprefix("@")
        known = {
            p
            for game in ratings.GAMES
            for p in self.ladder.boards.get((chat, game), {})
            if not ratings.is_computer(p) and not p.startswith(FORMER)
        } | {p for (scope, p) in self.ladder.solo if scope == chat and not p.startswith(FORMER)}
        if key in known:
            return key
        folded = key.casefold()
        for exact in (True, False):
            hits = [
                p
                for p in sorted(known)
                if (self.names.get(p, p).casefold() == folded)
                or (not exact and self.names.get(p, p).casefold().startswith(folded))
            ]
            if len(hits) == 1:
                return hits[0]
            if hits:
                return None
        return None


def top_lines(community: Community, chat: str, page: int, texts: Texts) -> list[str] | None:
    """The chat's ladders (``chat`` GLOBAL: those of all chats), ten rows a page: Genial
    first, Genial Spezial if played here. ``None`` when no rated game finished here yet."""
    everyone = chat == ratings.GLOBAL
    lines: list[str] = []
    more = False
    for game in ratings.GAMES:
        rows = [s for s in community.ladder.top(game, chat) if not s.player.startswith(FORMER)]
        if not rows:
            continue
        shown = rows[(page - 1) * TOP_ROWS : page * TOP_ROWS]
        more = more or len(rows) > page * TOP_ROWS
        title = "top.title_global" if everyone else "top.title"
        lines.append(texts(title, game=texts(f"game.{game}")))
        if not shown:
            lines.append(texts("top.no_page", page=page))
        for rank, s in enumerate(shown, (page - 1) * TOP_ROWS + 1):
            lines.append(_top_line(community, s, rank, texts))
    if not lines:
        return None
    if more:
        lines.append(texts("top.more_global" if everyone else "top.more", page=page + 1))
    return lines


def _top_line(community: Community, s: Standing, rank: int, texts: Texts) -> str:
    name = community.name(s.player, texts)
    return texts("top.line", rank=rank, name=name, rating=s.points, games=s.games, wins=s.wins)


@dataclass(frozen=True, slots=True)
class GameStats:
    """One player's values on one ladder, for ``/stats`` (and its chart)."""

    game: str
    lines: list[str]
    history: list[int]


def stats(
    community: Community, chat: str, player: str, texts: Texts, asker: str | None = None
) -> tuple[list[str], list[GameStats]]:
    """The head lines (name, solo bests) and, per game played anywhere, its lines (this
    chat's ladder if played here, then the global one) and the rating history for the
    chart. ``asker``: the name of the person asking, when they ask about themselves."""
    name = community.name(player, texts)
    if asker is not None and player not in community.names:
        name = asker  # someone asking about themselves before their first game
    head = [texts("stats.title", name=name)]
    per_game = []
    ladder = community.ladder
    for game in ratings.GAMES:
        s = ladder.standing(player, game, chat)
        everywhere = ladder.standing(player, game, ratings.GLOBAL)
        if everywhere is None:
            continue  # every rated game is on the global ladder too
        lines = []
        if s is not None:
            shared = {
                "game": texts(f"game.{game}"),
                "rating": s.points,
                "games": s.games,
                "wins": s.wins,
                "rate": round(100 * s.win_rate),
            }
            if s.scored:
                average = texts.decimal(s.average_lowest)
                lines.append(texts("stats.game", **shared, average=average, best=s.best))
            else:
                # Only team games, or games finished by a computer: no lowest colour of
                # one's own.
                lines.append(texts("stats.game_unscored", **shared))
        lines.append(
            texts(
                "stats.global",
                game=texts(f"game.{game}"),
                rating=everywhere.points,
                games=everywhere.games,
                wins=everywhere.wins,
            )
        )
        # The chart follows the chat's ladder; the global one for a game not played here.
        scope = chat if s is not None else ratings.GLOBAL
        per_game.append(GameStats(game, lines, ladder.history(player, game, scope)))
    solo = community.ladder.solo_best(player, chat)
    if solo is not None:
        head.append(texts("stats.solo", games=solo.games, best=solo.best))
    if not per_game and solo is None:
        head.append(texts("stats.none", name=name))
    return head, per_game


def history_lines(
    record: dict[str, Any], names: Sequence[str], count: int, texts: Texts
) -> list[str]:
    """The last ``count`` moves of a record, one line each (numbered from the first move):
    who, where and the points, as the chat was told them.

    Raises:
        EngineError: for a record that does not replay.
    """
    start = games.rebuild({**record, "moves": [], "takebacks": []})
    moves = list(record.get("moves") or [])
    told: list[str] = []
    first = max(0, len(moves) - count)
    game: Game = start
    # Moves taken back by consent (/undo), told after the move they followed.
    taken: dict[int, list[list[str]]] = {}
    for tb in record.get("takebacks") or []:
        taken.setdefault(int(tb["after"]), []).append(list(tb["moves"]))
    for number, text in enumerate(moves, 1):
        seat = game.to_move
        events = game.play_text(text, seat)
        if number > first:
            said = narrate.narrate(events, game, names, texts)
            told.append(texts("history.line", number=number, text=" ".join(said)))
    # Later ones first, so the lines before each place stay where they are: told[k] is move
    # first + 1 + k, and what followed move ``after`` goes before move after + 1.
    for after, lines in sorted(taken.items(), reverse=True):
        if after < first:
            continue  # before the moves told
        at = after - first
        for back in reversed(lines):
            shown_moves = ", ".join(squared(m) for m in back)
            told.insert(at, texts("history.taken_back", moves=shown_moves, count=len(back)))
    return told
