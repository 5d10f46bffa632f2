"""The store interface: what the table service needs of any backend, and its errors."""

from __future__ import annotations

import dataclasses
import json
import re
import urllib.parse
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from bot.store.table import PLAYING, Table

#: Tables one :meth:`Store.claim` takes at most: a process works through a backlog batch by
#: batch, and others take the rest meanwhile.
CLAIM_BATCH = 50


@dataclass(frozen=True, slots=True)
class Letter:
    """A message in the outbox: what a command or the clock said for a chat, kept from the
    commit that made it until a platform has delivered it.

    ``body`` is the message as JSON text (see :mod:`bot.core.outbound`), ``attachment`` its
    file's bytes (a board image) if it has one; ``id`` and ``since`` are given by the store
    (``id`` grows with every letter, so letters go out in the order they were written).
    """

    chat: str
    body: str
    attachment: bytes | None = None
    id: int = 0
    since: float = 0.0


@dataclass(frozen=True, slots=True)
class SavedTournament:
    """A tournament as the store keeps it (issue 30): its ``data`` (JSON, see
    :mod:`bot.tournaments.cup`), its version (every change bumps it, so of two processes that
    change one tournament the second is told :class:`StaleTable`), its status, its team
    battle's invite code, when its due work is next, and the chats it is played from."""

    id: str
    version: int
    status: str
    data: dict[str, Any]
    due_at: float | None = None
    code: str | None = None
    chats: tuple[str, ...] = ()


class StaleTable(Exception):
    """The table changed since it was loaded (another command got there first)."""


class StoreError(Exception):
    """The store cannot be opened or read (a bad path, a file that is no database of ours)."""


class StoreBusy(StoreError):
    """Another connection held the store's write lock for longer than the busy timeout:
    the command is answered "busy, try again" and the bot goes on."""


class StoreDown(StoreError):
    """The store does not answer (a database server restarting, or away): the command is
    answered "not answering, send it again in a minute" and the bot goes on; nothing of
    the command happened, or it is found done when sent again."""


class DamagedTable(StoreError):
    """A stored table that cannot be read back (its row is not a table of ours).

    ``version`` is the row's version, so ``/abort`` can close the table over it.
    """

    def __init__(self, chat: str, version: int, detail: str) -> None:
        super().__init__(f"{chat}: damaged table ({detail})")
        self.chat = chat
        self.version = version
        self.detail = detail


#: A URL's password: after ``user:`` in its userinfo (up to the last ``@``), or a
#: ``password=`` parameter of its query.
_USERINFO_PASSWORD = re.compile(r"(:/+[^:/@?#]*):(.*)@")
_QUERY_PASSWORD = re.compile(r"([?&]password=)([^&#]*)", re.IGNORECASE)


def url_secrets(url: str) -> list[str]:
    """The password of ``url`` as written and as decoded, in every place a URL can hold
    one, longest first (so a line is cleaned of the whole before any part of it)."""
    found: list[str] = []
    m = _USERINFO_PASSWORD.search(url)
    if m and m.group(2):
        found.append(m.group(2))
    found += [q.group(2) for q in _QUERY_PASSWORD.finditer(url) if q.group(2)]
    decoded = [urllib.parse.unquote(f) for f in found]
    return sorted({*found, *decoded} - {""}, key=len, reverse=True)


def safe_url(url: str) -> str:
    """``url`` without its password, fit for a log or an error line."""
    text = _USERINFO_PASSWORD.sub(r"\1@", url, count=1)
    text = _QUERY_PASSWORD.sub(r"\1***", text)
    return without_secrets(text, url)


def without_secrets(text: str, url: str) -> str:
    """``text`` (an error line that may quote ``url`` or parts of it) with every form of
    the URL's password replaced by ``***``."""
    for secret in url_secrets(url):
        text = text.replace(secret, "***")
    return text


def seated(table: Table) -> list[str]:
    """The people seated at ``table``'s running game (none when no game runs): what the
    players index holds for it."""
    if table.status != PLAYING:
        return []
    return [s.user for s in table.seats if s.user is not None]


def to_json(table: Table) -> str:
    """The table as stored: the JSON of :meth:`Table.to_dict`, written straight from the
    table's fields (``to_dict`` copies the whole game record first, a millisecond a turn).
    """
    return json.dumps({k: _plain(v) for k, v in vars(table).items()}, separators=(",", ":"))


def by_person(rows: Iterable[Sequence[object]]) -> dict[str, dict[str, str]]:
    """Notes read as ``[person, key, value]`` rows, by person then key."""
    out: dict[str, dict[str, str]] = {}
    for person, key, value in rows:
        out.setdefault(str(person), {})[str(key)] = str(value)
    return out


def read_table(chat: str, data: str, version: int) -> Table:
    """A stored row as a table.

    Raises:
        DamagedTable: if the row cannot be read back as a table.
    """
    try:
        return Table.from_dict(json.loads(data))
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
        raise DamagedTable(chat, int(version), type(exc).__name__) from None


def read_tournament(tid: str, data: str) -> dict[str, Any]:
    """A stored tournament's data; a row that is not ours reads as a damaged tournament.

    Raises:
        DamagedTable: if the row is not a JSON object.
    """
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        value = None
    if not isinstance(value, dict):
        raise DamagedTable(tid, 0, "not a tournament")
    return value


def finished_games(rows: Iterable[tuple[str, float, str]]) -> list[dict[str, Any]]:
    """Archived games from their rows (chat, finished_at, data as JSON), as
    :meth:`Store.archived` gives them; a row that is not ours is skipped, the others count."""
    out = []
    for chat, finished_at, text in rows:
        try:
            data = json.loads(text)
        except ValueError:
            continue
        if isinstance(data, dict):
            out.append({**data, "chat": chat, "finished_at": float(finished_at)})
    return out


#: A finished game's archived data with its review's data (``None`` while not done).
Reviewed = tuple[dict[str, Any], dict[str, Any] | None]


def reviewed_games(rows: Iterable[tuple[str, float, str, str | None]]) -> list[Reviewed]:
    """Finished games with their reviews (chat, finished_at, game data, review data or
    None while it is not done), as :meth:`Store.reviews` gives them; rows not ours skipped."""
    out: list[Reviewed] = []
    for chat, finished_at, text, review in rows:
        games = finished_games([(chat, finished_at, text)])
        if not games:
            continue
        data: dict[str, Any] | None = None
        if review is not None:
            try:
                loaded = json.loads(review)
            except ValueError:
                continue
            if not isinstance(loaded, dict):
                continue
            data = loaded
        out.append((games[0], data))
    return out


@dataclass(frozen=True, slots=True)
class Puzzled:
    """A puzzle posted at a chat (issue 29): ``data`` says where it is from and its answer;
    ``closed`` once its solution was shown."""

    id: int
    chat: str
    posted_at: float
    data: dict[str, Any]
    closed: bool


def puzzle_rows(rows: Iterable[tuple[Any, ...]]) -> list[Puzzled]:
    """Puzzles from their rows (id, chat, posted_at, data as JSON, closed); rows not ours
    are skipped."""
    out = []
    for id_, chat, posted_at, text, closed in rows:
        try:
            data = json.loads(text)
        except ValueError:
            continue
        if isinstance(data, dict):
            out.append(Puzzled(int(id_), str(chat), float(posted_at), data, bool(closed)))
    return out


def forget_seats(data: dict[str, Any], user: str, alias: str, name: str) -> bool:
    """A finished game's row (or a table's ``players``) with ``user``'s seats given to
    ``alias`` named ``name``: the game stays whole for everyone else's ratings. Whether
    anything changed."""
    changed = False
    for seat in data.get("seats") or []:
        if not isinstance(seat, dict):
            continue
        if seat.get("user") == user:
            seat["user"], seat["name"] = alias, name
            changed = True
        if seat.get("left_user") == user:
            seat["left_user"], seat["name"] = alias, name
            changed = True
    return changed


def about_person(key: str, user: str) -> bool:
    """Whether a note's ``key`` is about ``user`` (``ping:<user>``, ``discord.no_dm.<user>``):
    the notes kept under a table's chat about one of its people."""
    return key.endswith((f":{user}", f".{user}"))


def _plain(value: Any) -> Any:
    """A field of a table as JSON data: seats and options are flat dataclasses of plain
    values, so their ``vars`` are enough; anything else is JSON data already."""
    if dataclasses.is_dataclass(value):
        return vars(value)
    if isinstance(value, list) and value and dataclasses.is_dataclass(value[0]):
        return [vars(item) for item in value]
    return value


class Store(Protocol):
    """What the table service needs of a store."""

    def load(self, chat: str) -> Table | None:
        """The table of a chat, or ``None`` if the chat never had one.

        Raises:
            DamagedTable: if the stored row cannot be read back as a table.
            StoreBusy: if the store stayed locked past its busy timeout.
        """
        ...

    def load_seated(
        self, chat: str, keys: Sequence[str]
    ) -> tuple[Table | None, dict[str, dict[str, str]]]:
        """:meth:`load`, and in the same read the notes under ``keys`` of the people the
        players index holds for the table (the seats of its running game, as saved with
        this very version), by person then key (a person with none of them is left out):
        a turn that may ping the next player costs one round trip.

        Raises:
            DamagedTable: if the stored row cannot be read back as a table.
            StoreBusy: if the store stayed locked past its busy timeout.
        """
        ...

    def save(
        self,
        table: Table,
        loaded_version: int | None,
        letters: Sequence[Letter] = (),
        *,
        owner: str | None = None,
        now: float = 0.0,
        lease: float = 0.0,
    ) -> list[int]:
        """Write a table, and the letters saying what changed, in one transaction.

        Args:
            loaded_version: the version the table had when loaded, ``None`` for a new table.
            letters: what to post about it; they wait in the outbox, claimed by ``owner``
                (the process that delivers them now) until ``now + lease``.

        Returns:
            The letters' ids, in order.

        Raises:
            StaleTable: the stored table is not at ``loaded_version`` any more (then no
                letter was written either).
        """
        ...

    def post(
        self, letters: Sequence[Letter], *, owner: str | None, now: float, lease: float
    ) -> list[int]:
        """Put letters in the outbox without a table change (an answer the platform did not
        take when it was sent), claimed by ``owner`` until ``now + lease`` or by nobody
        (``owner=None``: any process delivers them). Returns their ids, in order."""
        ...

    def letters(
        self, owner: str, now: float, lease: float, *, chat: str | None = None
    ) -> list[Letter]:
        """Claim the waiting letters for ``owner`` until ``now + lease`` and return them,
        in the order they were written, at most :data:`CLAIM_BATCH` (``chat``: of that chat
        only). A chat with a letter claimed by another owner, whose claim has not run out,
        is left to that owner entirely, so a chat's letters go out in order, by one process
        at a time; ``owner``'s own claims are renewed."""
        ...

    def posted(self, ids: Sequence[int]) -> None:
        """The letters ``ids`` were delivered: they leave the outbox."""
        ...

    def unclaim(self, owner: str, ids: Sequence[int]) -> None:
        """``owner`` gives up its claim on letters ``ids`` (the platform did not take them
        now): they wait for the next try, by any process."""
        ...

    def drop_letters(self, chat: str) -> None:
        """Forget every letter of ``chat`` (its chat is gone: nobody can be told)."""
        ...

    def waiting(self) -> list[str]:
        """The chats with letters in the outbox (claimed or not), the one with the oldest
        letter first, at most :data:`CLAIM_BATCH`."""
        ...

    def nudge(self) -> None:
        """Tell the processes listening on this store (:meth:`listen`) that letters wait
        for them now (a web board's own process left a move's messages in the outbox)."""
        ...

    def listen(self, wake: Callable[[], None]) -> Callable[[], None]:
        """Call ``wake`` (in a thread of the store's) on every :meth:`nudge` by any process,
        and once each time listening starts or starts again (a nudge may have been missed
        while the store was away). Returns the function that stops listening."""
        ...

    def due(self, now: float) -> list[str]:
        """The chats whose tables have something due at or before ``now``, soonest first."""
        ...

    def next_due(self, after: float | None = None) -> float | None:
        """The earliest moment any table has something due (later than ``after``, if
        given), ``None`` if none has: an adapter's clock sleeps until then instead of
        polling."""
        ...

    def note(self, chat: str, key: str) -> str | None:
        """What an adapter noted for a chat under ``key`` (a lobby's message id, a thread),
        ``None`` if nothing. Notes live beside the table, outside its version."""
        ...

    def set_note(self, chat: str, key: str, value: str | None) -> None:
        """Note ``value`` for a chat under ``key``; ``None`` forgets it."""
        ...

    def swap_note(self, chat: str, key: str, old: str | None, new: str | None) -> bool:
        """Note ``new`` for a chat under ``key`` (``None``: forget it) only if the note is
        ``old`` now (``None``: there is none), in one statement: of processes racing to
        change one note, one does. Whether this one did."""
        ...

    def notes_of(self, chat: str) -> dict[str, str]:
        """Every note under ``chat`` (a person's settings are noted under their user id)."""
        ...

    def tables_with(self, text: str) -> list[str]:
        """The chats whose stored table holds ``text`` anywhere (a user id, as JSON text):
        found by the store, without reading every table back."""
        ...

    def forget_player(self, user: str, alias: str, name: str, names: Sequence[str] = ()) -> int:
        """Forget a person, in one transaction (:mod:`bot.store.forgetting`): everything
        kept at their private chat (the chat whose id is theirs) goes; in every finished
        game their seats go to ``alias`` named ``name`` and any other mention of their id
        to ``alias``, as in the puzzle answers and tournament chats; every note about them
        goes (under their id, keyed by it, or holding it alone) and the others name
        ``alias``; the outbox's letters to them go and the others say ``names`` (what
        they were called) as ``name``. The finished games changed."""
        ...

    def move(self, old: str, new: str) -> bool:
        """Move a table, its notes and its waiting letters to another chat id (a Telegram
        group that became a supergroup). False, changing nothing, if ``old`` has no table
        or ``new`` has one."""
        ...

    def archive(self, chat: str, finished_at: float, data: dict[str, Any]) -> None:
        """Keep a finished game for good (its seats with user ids and names, options and
        record): ratings and statistics are rebuilt from these rows."""
        ...

    def archived(self, chat: str | None = None) -> list[dict[str, Any]]:
        """The finished games of ``chat`` (every chat's if ``None``), oldest first, each
        the ``data`` archived with ``chat`` and ``finished_at`` set from the row."""
        ...

    def want_review(self, chat: str, finished_at: float) -> None:
        """Ask for the review of the game finished at ``chat`` at ``finished_at`` (its
        archived row); asked again, nothing changes."""
        ...

    def claim_review(
        self, chat: str, owner: str, now: float, lease: float
    ) -> dict[str, Any] | None:
        """The oldest finished game of ``chat`` whose review is wanted, not done and not
        claimed by a process now, claimed by ``owner`` for ``lease`` seconds (its archived
        data, as :meth:`archived` gives it); ``None`` if there is none."""
        ...

    def save_review(self, chat: str, finished_at: float, data: dict[str, Any]) -> bool:
        """Store a game's review, only if none is stored yet: whether this one was."""
        ...

    def reviews(
        self, chat: str | None = None
    ) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
        """The finished games of ``chat`` (every chat's if ``None``) whose review was
        wanted, oldest first, each with its review's data (``None`` while not done)."""
        ...

    def post_puzzle(self, chat: str, posted_at: float, data: dict[str, Any]) -> int:
        """Keep a puzzle posted at ``chat``; its id (growing with every puzzle)."""
        ...

    def puzzles(self, chat: str) -> list[Puzzled]:
        """The puzzles posted at ``chat``, oldest first."""
        ...

    def puzzle(self, puzzle_id: int) -> Puzzled | None:
        """The puzzle ``puzzle_id``, wherever it was posted."""
        ...

    def close_puzzle(self, puzzle_id: int) -> bool:
        """Close a puzzle (its solution is shown): whether it was open until now."""
        ...

    def answer_puzzle(
        self, puzzle_id: int, player: str, name: str, solved: bool, at: float
    ) -> None:
        """Note ``player``'s answer; once solved, a later wrong answer does not undo it."""
        ...

    def puzzle_answers(self, puzzle_id: int) -> list[tuple[str, str, bool]]:
        """Who answered the puzzle (player, name, whether they found it), first first."""
        ...

    def puzzles_solved(self, player: str) -> int:
        """How many puzzles ``player`` found, in every chat."""
        ...

    def chats(self) -> list[str]:
        """Every chat with a table."""
        ...

    def playing(self, user: str) -> list[str]:
        """The chats whose running games ``user`` has a seat in, by an index kept with
        each save (not by reading every table)."""
        ...

    def claim(
        self, due_by: float, owner: str, now: float, lease: float, *, chat: str | None = None
    ) -> list[str]:
        """Claim tables with something due at or before ``due_by`` for ``owner`` (one
        process) until ``now + lease``, soonest first, at most :data:`CLAIM_BATCH`: so with
        several processes on one store each due table is worked on by one of them. A
        table claimed by another owner is skipped until that claim expires (its process
        was killed); ``owner``'s own claims are renewed. ``chat`` limits this to one table.
        """
        ...

    def release(self, owner: str, chats: list[str]) -> None:
        """Give up ``owner``'s claims on ``chats`` (their due work is done)."""
        ...

    def claimants(self) -> list[str]:
        """The owners holding claims now (expired or not), of due work or of letters."""
        ...

    def release_owner(self, owner: str) -> None:
        """Give up every claim of ``owner``, of due work and of letters (a process known
        to be gone)."""
        ...

    def census(self, now: float) -> dict[str, int]:
        """For the operator: how many tables are in each status (``lobby``, ``playing``,
        ``closed``), under ``due`` how many have something due at ``now``, and under
        ``waiting`` how many letters wait in the outbox to be delivered."""
        ...

    # --- tournaments (issue 30) ---------------------------------------------------------

    def load_tournament(self, tid: str) -> tuple[int, dict[str, Any]] | None:
        """A tournament's version and data, ``None`` if there is none by that id.

        Raises:
            DamagedTable: if the stored row is not a tournament's.
        """
        ...

    def save_tournament(
        self,
        saved: SavedTournament,
        loaded_version: int | None,
        letters: Sequence[Letter] = (),
        *,
        owner: str | None = None,
        now: float = 0.0,
        lease: float = 0.0,
    ) -> list[int]:
        """Write a tournament (``loaded_version`` ``None``: a new one), the chats it is
        played from, and letters (each to its own chat) in one transaction, as
        :meth:`save` does a table's. Returns the letters' ids.

        Raises:
            StaleTable: the stored tournament is not at ``loaded_version`` any more (or a
                new one's id or invite code is taken); nothing was written.
        """
        ...

    def tournaments_of(self, chat: str) -> list[str]:
        """The tournaments played from ``chat`` (as home or as a team)."""
        ...

    def tournament_by_code(self, code: str) -> str | None:
        """The tournament whose team battle's invite code is ``code``."""
        ...

    def tournaments_with(self, text: str) -> list[str]:
        """The tournaments whose stored data holds ``text`` (a user id, as JSON text)."""
        ...

    def due_tournaments(self, now: float) -> list[str]:
        """The tournaments with due work at or before ``now``, soonest first."""
        ...

    def next_tournament_due(self) -> float | None:
        """The earliest moment any tournament has work due, ``None`` if none has."""
        ...

    def claim_tournaments(
        self, due_by: float, owner: str, now: float, lease: float, *, tid: str | None = None
    ) -> list[str]:
        """:meth:`claim` for tournaments: of several processes, one pairs a round."""
        ...

    def release_tournaments(self, owner: str, ids: list[str]) -> None:
        """Give up ``owner``'s claims on the tournaments ``ids``."""
        ...

    # --- one person on two platforms (issue 49) -----------------------------------------

    def give_link_code(self, account: str, code: str, expires_at: float) -> bool:
        """Keep ``code`` as ``account``'s one link code until ``expires_at`` (an older one
        of theirs goes); False, changing nothing, if another account holds that code."""
        ...

    def redeem_link_code(self, code: str, now: float) -> str | None:
        """The account whose code ``code`` is, if it has not expired by ``now``; the code
        goes either way (one use)."""
        ...

    def link(self, person: str, account: str) -> bool:
        """Link ``account`` to ``person`` (both accounts, the person's own id first): one
        person from now on. False, changing nothing, if either is linked already."""
        ...

    def unlink(self, account: str) -> list[str]:
        """Undo the link that holds ``account``: the accounts it held (none if none)."""
        ...

    def links(self) -> dict[str, str]:
        """Every linked account, with the person (account id) it is."""
        ...

    def linked(self, account: str) -> list[str]:
        """The accounts linked with ``account``, itself among them; none if it is not."""
        ...

    def close(self) -> None: ...
