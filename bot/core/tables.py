"""What every command handler works with: the command being handled (:class:`Context`), the
way to refuse it (:class:`Reject`), who may do what (the ``need_*`` guards), the tables a
service keeps (:class:`Tables`: the store, the settings, the rebuilt games and the locks),
and what a concern hands the core (:class:`Concern`).

The handlers live in the concerns' packages (``bot/play``, ``bot/community``,
``bot/tournaments``), each of which registers them with its hooks in one
:class:`Concern`; :mod:`bot.core.service` loads a table, hands the command to its handler
and saves what changed, and knows the concerns only through that interface.
"""

from __future__ import annotations

import os
import random
import socket
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from bot.core import games, letters, timebank
from bot.core.commands import Command
from bot.core.config import Settings
from bot.core.games import Game
from bot.core.heartbeat import Heartbeat
from bot.core.messages import Scene
from bot.core.outbound import Chat, Outbound, Stored, User
from bot.core.table import CLOSED, LOBBY, PLAYING, Table
from bot.store import DamagedTable, StaleTable, Store
from bot.store.base import seated
from bot.words.texts import Texts, shown
from engine.errors import EngineError

#: Games kept rebuilt in memory, most recently used; others are rebuilt from their record.
CACHED_GAMES = 512
#: Tables whose language is remembered for answers while the store is down.
LANGUAGES_KEPT = 10_000
#: Seconds a process holds the letters it is delivering: another process delivers them
#: when it was killed before it could (one on the same machine at once: see
#: :meth:`bot.service.Service`), so longer than any delivery with its retries takes.
LETTER_LEASE = 120.0
#: What rebuilding a damaged record may raise besides the engine's own errors.
DAMAGE = (EngineError, ValueError, TypeError, KeyError, AttributeError, RecursionError)


class Reject(Exception):
    """A command that cannot be accepted; ``key`` names the message that says why."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


@dataclass
class Context:
    """One command being handled: who, where, the table as loaded, what to send."""

    chat: Chat
    user: User | None
    admin: bool
    table: Table
    texts: Texts
    now: float
    pictures: bool
    #: The table's version as loaded (``None``: the chat had no table).
    loaded: int | None
    out: list[Outbound] = field(default_factory=list)
    #: The game being looked at or changed, once taken from the cache or rebuilt.
    game: Game | None = None
    #: A game that ended with this command: archived and rated once the table is saved.
    finished: dict[str, Any] | None = None
    #: Turn pings sent with this command: (chat, note key, turn), noted once saved.
    pinged: list[tuple[str, str, str]] = field(default_factory=list)
    #: The notes a turn may need (:attr:`Tables.turn_notes`: turn pings asked for, a
    #: vacation, quiet hours, time zone) of each person seated at the running game as
    #: loaded, read with the table; ``None``: not read.
    people: dict[str, dict[str, str]] | None = None

    @property
    def new(self) -> bool:
        return self.loaded is None

    @property
    def scene(self) -> Scene:
        return Scene(self.table, self.texts, self.pictures, self.now)


class TableLocks:
    """One lock per table, kept while someone holds or waits for it: commands at one table
    take turns, commands at different tables run side by side."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, tuple[threading.RLock, int]] = {}

    @contextmanager
    def hold(self, *chats: str) -> Iterator[None]:
        """Hold the locks of ``chats`` (in one order everywhere, so two holders of the same
        pair cannot wait for each other)."""
        ordered = sorted(set(chats))
        with self._guard:
            locks = []
            for chat in ordered:
                lock, users = self._locks.get(chat) or (threading.RLock(), 0)
                self._locks[chat] = (lock, users + 1)
                locks.append(lock)
        try:
            for lock in locks:
                lock.acquire()
            try:
                yield
            finally:
                for lock in reversed(locks):
                    lock.release()
        finally:
            with self._guard:
                for chat in ordered:
                    lock, users = self._locks[chat]
                    if users == 1:
                        del self._locks[chat]
                    else:
                        self._locks[chat] = (lock, users - 1)

    def __len__(self) -> int:
        """Tables whose lock is held or waited for now."""
        with self._guard:
            return len(self._locks)


class Tables:
    """The tables of one service: where they are stored, the games rebuilt from them (a
    cache by table version), a lock per table, and the concerns that handle commands."""

    def __init__(
        self,
        store: Store,
        settings: Settings | None = None,
        *,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
        pictures: bool = True,
        concerns: Sequence[Concern] = (),
        heartbeat: bool | None = None,
    ) -> None:
        """
        Args:
            store: where tables live.
            settings: language, timeout and computer level defaults.
            clock: seconds since the epoch (injected so tests control time).
            rng: for seat order and new games' bags (injected so tests control tiles).
            pictures: send board and rack images (off for a text-only console).
            concerns: what handles the commands and the hooks at the core's moments (the
                service's builder, :mod:`bot.service`, passes them).
            heartbeat: whether this service keeps the store's heartbeat and gives the
                time of the bot's outages back (:mod:`bot.core.outage`); by default only
                on the machine's clock (``time.time``): a test's injected clock jumps
                days ahead while the bot is up all along.
        """
        self.store = store
        #: Who this service is among the processes sharing the store (claims of due work
        #: and of letters to deliver).
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.settings = settings or Settings()
        self.clock = clock
        self.rng = rng or random.Random()
        self.pictures = pictures
        self.locks = TableLocks()
        # Rebuilt games by chat, with the table version they belong to (least recent first).
        self._games: OrderedDict[str, tuple[int, Game]] = OrderedDict()
        # Tables whose due work failed (a damaged row), with when to look at them again.
        self.stuck: dict[str, float] = {}
        #: The daily puzzle setting of each table the clock just loaded (``""``: none), so
        #: the due work after it does not load the table again only to find no puzzle.
        self.puzzle_times: dict[str, str] = {}
        self._games_lock = threading.Lock()
        self.concerns = tuple(concerns)
        #: What each concern keeps for this service, by its name (set up by its hook).
        self.parts: dict[str, Any] = {}
        #: The notes of a seated person that a turn may need, of every concern.
        self.turn_notes = tuple(dict.fromkeys(n for c in concerns for n in c.turn_notes))
        # Each recent table's language, to answer in it while the store does not answer.
        self._languages: OrderedDict[str, str] = OrderedDict()
        #: Whether this process's platform delivers messages to a chat: set by a platform
        #: that shares its store with another platform's process (a team battle between a
        #: Telegram group and a Discord server, issue 30); every chat by default.
        self.delivers: Callable[[str], bool] = _everywhere
        #: When the bot last showed it could act, kept in the store (an outage's length);
        #: ``None`` where outages are not given back.
        self.heartbeat: Heartbeat | None = None
        if clock is time.time if heartbeat is None else heartbeat:
            self.heartbeat = Heartbeat(store, clock, float(self.settings.outage_credit))
        for concern in self.concerns:
            if concern.setup is not None:
                concern.setup(self)

    def note_language(self, chat: str, lang: str) -> None:
        """Remember the language ``chat``'s table speaks (the most recent tables only)."""
        with self._games_lock:
            self._languages[chat] = lang
            self._languages.move_to_end(chat)
            while len(self._languages) > LANGUAGES_KEPT:
                self._languages.popitem(last=False)

    def last_language(self, chat: str) -> str:
        """The language ``chat``'s table spoke when last seen, else the default: what an
        answer is written in when the store cannot be read."""
        with self._games_lock:
            return self._languages.get(chat, self.settings.language)

    def load(self, chat: str) -> tuple[Table | None, dict[str, dict[str, str]] | None]:
        """The table of ``chat`` and, in the same read, the notes a turn may need of each
        person at its running game (``None`` when no game runs): a turn that passes to a
        person needs both, and this costs one round trip to the store, not several.

        Raises:
            DamagedTable: if the stored row cannot be read back as a table.
        """
        table, notes = self.store.load_seated(chat, self.turn_notes)
        if table is None or table.status != PLAYING:
            return table, None
        # The players index was saved with this very version: exactly these people.
        return table, {person: notes.get(person, {}) for person in seated(table)}

    def person_note(self, ctx: Context, user: str, key: str) -> str | None:
        """One of ``user``'s notes: from what was read with the table for a note a turn
        needs (:attr:`turn_notes`) of a person at its game, else from the store."""
        known = ctx.people
        if known is not None and user in known and key in self.turn_notes:
            return known[user].get(key)
        return self.store.note(user, key)

    def away(self, ctx: Context, user: str | None) -> float | None:
        """When ``user``'s vacation ends, if they are away now (their clocks paused)."""
        if user is None:
            return None
        return timebank.away_by(self.person_note(ctx, user, timebank.AWAY), ctx.now)

    def save(self, ctx: Context) -> bool:
        """Store the context's table over the version it was loaded as, and in the same
        transaction what the command says about it (the outbox: claimed by this process,
        which delivers it now); False if another process changed the table first (then
        nothing of this command happened, and nothing is said). A tournament's table says
        it in its players' places (each concern's :attr:`Concern.fan_out`)."""
        ctx.out = self.fan_out(ctx.table, ctx.out)
        sent = [letters.letter(out) for out in ctx.out]
        now = self.clock()
        try:
            ids = self.store.save(
                ctx.table, ctx.loaded, sent, owner=self.owner, now=now, lease=LETTER_LEASE
            )
        except StaleTable:
            ctx.game = None
            return False
        if self.heartbeat is not None:
            self.heartbeat.alive()
        ctx.out = [
            replace(out, stored=Stored(id_, letters.key_of(kept), now))
            for out, kept, id_ in zip(ctx.out, sent, ids, strict=True)
        ]
        # A tournament's table fanned out to another platform's chats, a turn ping to a
        # person's account on the other platform (issue 49): that platform's process
        # delivers them.
        ctx.out = self.here(ctx.out)
        self._after_save(ctx)
        return True

    def fan_out(self, t: Table, outs: list[Outbound]) -> list[Outbound]:
        """``outs`` of table ``t`` as the chats where it is seen receive them."""
        for concern in self.concerns:
            if concern.fan_out is not None:
                outs = concern.fan_out(t, outs)
        return outs

    def here(self, outs: list[Outbound]) -> list[Outbound]:
        """Of stored ``outs``, those this process's platform delivers (:attr:`delivers`);
        the others (a team battle's chats on another platform, a ping to a person's account
        there) are given up to the outbox,
        where that platform's process takes them."""
        away = [o.stored.id for o in outs if o.stored is not None and not self.delivers(o.chat)]
        if not away:
            return outs
        self.store.unclaim(self.owner, away)
        return [o for o in outs if self.delivers(o.chat)]

    def _after_save(self, ctx: Context) -> None:
        """What follows a saved change and must not happen without it: a finished game is
        archived and rated, and the turns just pinged are noted (never pinged twice)."""
        if ctx.finished is not None:
            if ctx.table.tournament.get("home"):
                # A tournament's game counts on the ladder of the chat it was made in.
                ctx.finished["chat"] = str(ctx.table.tournament["home"])
            # The game that just ended is at hand: rated, reviewed, counted in its round.
            for concern in self.concerns:
                if concern.finished is not None:
                    concern.finished(self, ctx)
            ctx.finished = None
        for chat, key, turn in ctx.pinged:
            self.store.set_note(chat, key, turn)
        ctx.pinged = []

    def game(self, ctx: Context) -> Game:
        """The table's game as loaded: taken from the cache (it goes back by :meth:`keep`
        once the command is through) or rebuilt from the stored record.

        Raises:
            Reject: ``error.invalid_record`` if the record no longer replays.
        """
        if ctx.game is None:
            with self._games_lock:
                cached = self._games.pop(ctx.table.chat, None)
            if cached is not None and cached[0] == ctx.loaded:
                ctx.game = cached[1]
            else:
                assert ctx.table.record is not None
                try:
                    ctx.game = games.rebuild(ctx.table.record)
                except DAMAGE as exc:
                    # A record that no longer replays: this table says so, others run.
                    raise Reject("error.invalid_record", text=damage_text(exc)) from None
        return ctx.game

    def keep(self, ctx: Context, version: int | None) -> None:
        """Cache the context's game as the position of table ``version``: only a running
        one (a finished game is rebuilt the rare times it is asked for, so a thousand
        finished tables do not hold their games in memory)."""
        if ctx.game is not None and version is not None and ctx.table.status == PLAYING:
            with self._games_lock:
                self._games[ctx.table.chat] = (version, ctx.game)
                self._games.move_to_end(ctx.table.chat)
                while len(self._games) > CACHED_GAMES:
                    self._games.popitem(last=False)

    def forget(self, chat: str) -> None:
        """Drop the rebuilt game of ``chat`` (the table closed or moved)."""
        with self._games_lock:
            self._games.pop(chat, None)

    def game_facts(self, t: Table) -> tuple[bool, int, str] | None:
        """Whether the game at ``t`` is over, whose turn it is and its mode, read without
        the table's lock (a command elsewhere may hold it, and /games runs inside another
        table's command): from the cached game while the cache holds it (a game is changed
        only after a command took it out of the cache), else from the stored record."""
        with self._games_lock:
            cached = self._games.get(t.chat)
            if cached is not None and cached[0] == t.version:
                game = cached[1]
                return game.over, game.to_move, games.mode(game)
        if t.status != PLAYING or t.record is None:
            return None
        try:
            game = games.rebuild(t.record)
        except DAMAGE:
            return None
        return game.over, game.to_move, games.mode(game)

    def seat_game(self, chat: str, user: str) -> tuple[Game, int] | None:
        """The running game at ``chat`` and ``user``'s seat in it (hold the table's lock);
        ``None`` if no game runs there or the user has no seat."""
        try:
            t = self.store.load(chat)
        except DamagedTable:
            return None
        if t is None or t.status != PLAYING:
            return None
        seat = t.seat_of(user)
        if seat is None:
            return None
        ctx = self.clock_context(t, self.clock())
        try:
            game = self.game(ctx)
        except Reject:
            return None
        self.keep(ctx, t.version)
        return game, seat

    def clock_context(self, t: Table, now: float) -> Context:
        """The context of work nobody typed (the clock's, a look for an adapter)."""
        texts = Texts(t.options.lang)
        return Context(Chat(t.chat, t.title), None, False, t, texts, now, self.pictures, t.version)


def _everywhere(chat: str) -> bool:
    return True


#: A command's handler: it changes the context's table and adds what to send, or raises
#: :class:`Reject` before anything changed.
Handler = Callable[[Tables, Context, Any], None]
#: One step of a due table's work: what to say and whether more is due at once; ``None``
#: if nothing could be done.
TableStep = Callable[[Tables, str, float], tuple[list[Outbound], bool] | None]


@dataclass(frozen=True)
class OwnDue:
    """Due work a concern keeps under keys of its own, which no table has (a tournament's
    ``tournament:<id>``), claimed and done by the concern itself."""

    #: Whether a due key is one of this concern's.
    owns: Callable[[str], bool]
    #: The keys due at a time, soonest first.
    keys: Callable[[Tables, float], list[str]]
    #: When the next one is due (``None``: nothing waits).
    next_due: Callable[[Tables], float | None]
    #: The work of one key at a time; what to say.
    work: Callable[[Tables, str, float], list[Outbound]]


@dataclass(frozen=True)
class PersonData:
    """What a concern keeps about a person: its part of ``/mydata`` and of ``/forget me``."""

    #: The person's data as JSON values, by section name.
    report: Callable[[Tables, str], dict[str, Any]]
    #: Forget the person (``user``, in favour of ``alias`` named ``name``), in the context
    #: of their ``/forget me``, before the store forgets their seats.
    forget: Callable[[Tables, Context, str, str, str], None]


@dataclass(frozen=True)
class Concern:
    """What one concern (a package: ``bot/play``, ``bot/community``, ``bot/tournaments``)
    hands the core: the commands it handles and its hooks at the core's moments. The core
    imports no concern; the service's builder (:mod:`bot.service`) passes them in."""

    name: str
    #: Each command's handler.
    handlers: Mapping[type[Command], Handler] = field(default_factory=dict)
    #: Sets up what the concern keeps for a new service (in :attr:`Tables.parts`).
    setup: Callable[[Tables], None] | None = None
    #: The notes of a seated person that a turn may need, read with the table.
    turn_notes: tuple[str, ...] = ()
    #: The chat a command typed where its player sees another table is for (a move typed
    #: beside a tournament's table), or ``None``: ``(tables, chat, user, command)``.
    route: Callable[[Tables, str, str, Command], str | None] | None = None
    #: A table's stored messages as the chats where it is seen receive them.
    fan_out: Callable[[Table, list[Outbound]], list[Outbound]] | None = None
    #: A typed command's answers at table ``chat`` as the chats where it is seen receive
    #: them: ``(tables, chat, outs)``.
    fan_out_answers: Callable[[Tables, str, list[Outbound]], list[Outbound]] | None = None
    #: A game ended with the saved change (``ctx.finished``, ``ctx.game``).
    finished: Callable[[Tables, Context], None] | None = None
    #: One step of a due table's work (a reminder, a computer's turn).
    table_step: TableStep | None = None
    #: Work at a due table after its steps (a review, the daily puzzle).
    after_due: Callable[[Tables, str, float], list[Outbound]] | None = None
    #: Due work under keys of the concern's own.
    own_due: OwnDue | None = None
    #: The bot was away from ``since`` until ``until`` (:mod:`bot.core.outage`): the
    #: clocks of the running table in ``ctx`` (loaded, its lock held) get that time back;
    #: whether a clock that runs for a person moved (then the table is told, once).
    credit_table: Callable[[Tables, Context, float, float], bool] | None = None
    #: Likewise the concern's own clocks (a tournament's round deadlines): ``(tables,
    #: since, until)``; the tables whose players those clocks run for (each told, once).
    credit_own: Callable[[Tables, float, float], list[str]] | None = None
    #: What the concern keeps about a person.
    person: PersonData | None = None
    #: Lines the concern adds to a person's ``/stats`` in a chat (their finished
    #: tournaments there): ``(tables, chat, player, texts)``.
    stats_lines: Callable[[Tables, str, str, Texts], list[str]] | None = None


# --- who may do what ------------------------------------------------------------------


def need_table(ctx: Context) -> Table:
    if ctx.new or ctx.table.status == CLOSED:
        raise Reject("error.no_table")
    return ctx.table


def need_manager(ctx: Context) -> None:
    """The host or a chat admin, or anyone at a table without a host."""
    t = ctx.table
    assert ctx.user is not None
    if ctx.admin:
        return
    if t.status == PLAYING and t.host is None:
        # Every person has left a running game (the host role went to nobody): not
        # anyone passing by may end it.
        raise Reject("error.admins_only")
    if t.host is None or t.host == ctx.user.id:
        return
    raise Reject("error.not_allowed", host=t.host_name)


def need_lobby(ctx: Context) -> None:
    if ctx.table.status == PLAYING:
        raise Reject("error.game_running")


def open_table(ctx: Context) -> None:
    """A closed (or new) table opens again with ``ctx.user`` as host."""
    t = ctx.table
    if ctx.new or t.status == CLOSED:
        assert ctx.user is not None
        t.status = LOBBY
        t.host, t.host_name = ctx.user.id, ctx.user.name
        t.seats = []


def my_seat(ctx: Context) -> int:
    assert ctx.user is not None
    seat = ctx.table.seat_of(ctx.user.id)
    if seat is None:
        raise Reject("error.not_seated")
    return seat


def need_running(tables: Tables, ctx: Context) -> Game:
    """The running game at the context's table."""
    need_table(ctx)
    if ctx.table.status != PLAYING:
        raise Reject("error.not_started")
    return tables.game(ctx)


def damage_text(exc: BaseException) -> str:
    """What is wrong with a damaged record, in a few words (no stored text echoed whole)."""
    if isinstance(exc, EngineError):
        return shown(f"{exc.reason}: {exc.detail}" if exc.detail else exc.reason)
    return type(exc).__name__
