"""The table service: everything players can do, apart from any chat platform.

``handle(chat, user, command)`` takes one command and returns the messages to send;
``due(now)`` does what is due by the clock: computer players' moves, reminders and
timeouts of play by message. Each accepted command is one store transaction that bumps the
table's version; a command carrying an older version (a button on an old message) is
rejected and changes nothing.

There is no service-wide lock: commands at different tables run side by side, commands at
one table take turns (a lock per table, in this process). Several processes may share one
store; the table version decides which command wins, and a typed command that lost is
tried again on the new table. Computer players think outside the table's lock, on a copy of
the game: an adapter runs ``due`` in a worker thread and the table's players go on
meanwhile. When the thinking is done the move is applied only if the table has not changed
since. Due work is claimed in the store with a lease, so of several processes one does it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
import re
import socket
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from bot import community, games, images, messages, narrate, ops, players, ratings
from bot.commands import (
    Abort,
    AddBot,
    Board,
    Command,
    CommandError,
    Export,
    Games,
    Hand,
    Help,
    Hint,
    History,
    Join,
    Keep,
    Kick,
    Leave,
    Notify,
    Play,
    Rematch,
    Replay,
    Rules,
    Score,
    SetOption,
    ShowOptions,
    Start,
    Stats,
    Swap,
    Top,
    format_left,
    parse_command,
)
from bot.config import Settings
from bot.games import Game
from bot.looks import RackTile, SeatLook
from bot.messages import Scene
from bot.outbound import Chat, Outbound, User
from bot.store import DamagedTable, StaleTable, Store, StoreBusy
from bot.store.base import seated
from bot.table import CLOSED, LOBBY, MAX_SEATS, PLAYING, Options, Seat, Table
from bot.texts import NAME_LIMIT, Texts, shown
from engine.errors import EngineError
from engine.events import BonusEarned, Event, GameEnded, Placed, SpezialPlaced, TurnStarted

log = logging.getLogger(__name__)

#: Computer turns ``due`` plays in one call at most (a table of four computer players
#: finishes its whole game in one call; this only guards against a loop).
MAX_STEPS = 10_000
HINTS = 3
#: Games kept rebuilt in memory, most recently used; others are rebuilt from their record.
CACHED_GAMES = 512
#: Longest text of moves told together (a person's move and the computer moves after it);
#: beyond it the text so far goes out first, so one message never becomes a wall.
PENDING_CHARS = 600
#: A seat number or a mention's id: ASCII digits only, and short (``²`` passes isdigit()
#: but not int(); 5,000 digits would pass both slowly and mean no seat).
_SEAT_NUMBER = re.compile(r"[0-9]{1,3}")
_MENTION = re.compile(r"<@!?([^<>\s]{1,64})>|@(\S{1,64})")
#: Seconds between two looks at a table whose due work failed (a damaged record).
STUCK_RETRY = 60.0
#: Seconds until the clock looks again when the store was locked past its busy timeout.
BUSY_RETRY = 1.0
#: What rebuilding a damaged record may raise besides the engine's own errors.
_DAMAGE = (EngineError, ValueError, TypeError, KeyError, AttributeError, RecursionError)
#: Lobby commands whose old buttons, pressed after the start, say the game has begun.
_LOBBY_BUTTONS = (Join, AddBot, Start, SetOption)
#: Attempts at a typed command that keeps losing races with other processes before the
#: player is asked to send it again.
RETRIES = 3
#: Seconds a process holds its claim on a table's due work: another process takes it over
#: when the claimer was killed. Renewed while a long computer game is being played.
LEASE = 60.0


def _alive(pid: int) -> bool:
    """Whether a process of this machine is running (signal 0 only asks)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, under another user
    return True


class Reject(Exception):
    """A command that cannot be accepted; ``key`` names the message that says why."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


@dataclass
class _Context:
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
    #: Whether each person seated at the running game as loaded asked for turn pings
    #: (their :data:`community.NOTIFY` note), read with the table; ``None``: not read.
    notify: dict[str, str | None] | None = None

    @property
    def new(self) -> bool:
        return self.loaded is None

    @property
    def scene(self) -> Scene:
        return Scene(self.table, self.texts, self.pictures)


class _TableLocks:
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


def _word(command: str | Command) -> str:
    """The command's word for the figures (``play``); ``invalid`` for text that is none,
    so what people type never becomes a label of its own."""
    if isinstance(command, str):
        try:
            command = parse_command(command)
        except CommandError:
            return "invalid"
    return type(command).__name__.lower()


def _ai_seed(seed: int, version: int) -> int:
    # One seed per position, derived from stored values only, so a restarted bot makes the
    # same computer moves.
    return (seed * 1_000_003 + version * 7_919) % (2**63)


def _plays_spezial(table: Table | None) -> bool:
    """Whether the table plays Genial Spezial: the running game's record says, before a
    game the option does."""
    if table is None:
        return False
    if table.status == PLAYING and table.record is not None:
        return bool(table.record.get("game") == "spezial")
    return table.options.game == "spezial"


class Service:
    """The platform-neutral bot: tables, games, computer players and deadlines."""

    def __init__(
        self,
        store: Store,
        settings: Settings | None = None,
        *,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
        pictures: bool = True,
    ) -> None:
        """
        Args:
            store: where tables live.
            settings: language, timeout and computer level defaults.
            clock: seconds since the epoch (injected so tests control time).
            rng: for seat order and new games' bags (injected so tests control tiles).
            pictures: send board and rack images (off for a text-only console).
        """
        self.store = store
        self.settings = settings or Settings()
        self.clock = clock
        self.rng = rng or random.Random()
        self.pictures = pictures
        self._locks = _TableLocks()
        # Rebuilt games by chat, with the table version they belong to (least recent first).
        self._games: OrderedDict[str, tuple[int, Game]] = OrderedDict()
        # Tables whose due work failed (a damaged row), with when to look at them again.
        self._stuck: dict[str, float] = {}
        self._games_lock = threading.Lock()
        #: Who this service is among the processes sharing the store (claims of due work).
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._release_orphans()
        # The ladders, rebuilt from the archived finished games and kept up to date.
        self.community = community.Community(store)

    def _release_orphans(self) -> None:
        """Claims of due work held by processes of this machine that are gone (killed, then
        restarted) are given up at once instead of after their lease, so a restarted bot
        goes on where it stopped. Claims of other machines wait for their lease."""
        host = socket.gethostname()
        for owner in self.store.claimants():
            name, _, rest = owner.partition(":")
            pid, _, _ = rest.partition(":")
            if name == host and pid.isascii() and pid.isdigit() and not _alive(int(pid)):
                log.info("claims of %s released: that process is gone", owner)
                self.store.release_owner(owner)

    # --- the two entry points -------------------------------------------------------

    def handle(
        self, chat: Chat | str, user: User, command: str | Command, *, admin: bool = False
    ) -> list[Outbound]:
        """Carry out one command of ``user`` in ``chat`` and say what happened.

        Args:
            command: the text (``/play RG F7 F8``) or a parsed command.
            admin: whether the user administers the chat (may change options, kick, abort).
        """
        if isinstance(chat, str):
            chat = Chat(chat)
        # Names and titles come from the platform: shown short and without bidi tricks.
        chat = Chat(chat.id, shown(chat.title, NAME_LIMIT))
        user = User(user.id, shown(user.name, NAME_LIMIT) or user.id[:NAME_LIMIT])
        start = time.perf_counter()
        with ops.at_table(chat.id):
            try:
                for attempt in range(1, RETRIES + 1):
                    out = self._handle_once(chat, user, command, admin, retry=attempt < RETRIES)
                    if out is not None:
                        ops.record_command(_word(command), time.perf_counter() - start)
                        return out
                    log.info("another process changed the table first; trying again")
            except StoreBusy:
                texts = Texts(self.settings.language)
                return [messages.error(chat.id, texts, "error.busy", {})]
        raise AssertionError("the last attempt always answers")

    def _handle_once(
        self, chat: Chat, user: User, command: str | Command, admin: bool, *, retry: bool
    ) -> list[Outbound] | None:
        """One attempt at a command, in turn with the others at its table; ``None`` if it
        lost a race with another process and may be tried again on the new table."""
        with self._locks.hold(chat.id):
            return self._handle(chat, user, command, admin, retry=retry)

    def _handle(
        self, chat: Chat, user: User, command: str | Command, admin: bool, *, retry: bool
    ) -> list[Outbound] | None:
        try:
            table, notify = self._load(chat.id)
        except DamagedTable as exc:
            return self._damaged(chat, user, command, exc)
        texts = Texts(table.options.lang if table else self.settings.language)
        if isinstance(command, Command):
            cmd = command
        else:
            try:
                cmd = parse_command(command)
            except CommandError as exc:
                key = exc.key
                if key == "usage.play" and _plays_spezial(table):
                    key = "usage.play_spezial"  # no tile to name: just two cells
                return [messages.error(chat.id, texts, key, dict(exc.params))]
        loaded = table.version if table else None
        if cmd.changes and cmd.version is not None and cmd.version != loaded:
            started = table is not None and table.status == PLAYING
            key = (
                "error.already_started"
                if started and isinstance(cmd, _LOBBY_BUTTONS)
                else "error.stale"
            )
            return [messages.error(chat.id, texts, key, {})]
        if table is None:
            table = Table(
                chat=chat.id,
                title=chat.title,
                options=Options(lang=self.settings.language, timeout=self.settings.timeout),
            )
        elif chat.title:
            table.title = chat.title
        if cmd.changes:
            table.version += 1
        ctx = _Context(chat, user, admin, table, texts, self.clock(), self.pictures, loaded)
        ctx.notify = notify
        try:
            self._dispatch(ctx, cmd)
        except Reject as exc:
            # Rejected before anything changed: the game is still the loaded position.
            self._keep(ctx, loaded)
            return [messages.error(chat.id, ctx.texts, exc.key, exc.params)]
        if cmd.changes and not self._save(ctx):
            if cmd.version is not None:
                # A button is bound to the table it was shown with: never replayed.
                return [messages.error(chat.id, ctx.texts, "error.stale", {})]
            if retry:
                return None
            return [messages.error(chat.id, ctx.texts, "error.busy", {})]
        self._keep(ctx, table.version)
        return ctx.out

    def _damaged(
        self, chat: Chat, user: User, command: str | Command, exc: DamagedTable
    ) -> list[Outbound]:
        """A table whose stored row cannot be read: every command says so, ``/abort``
        closes it (a fresh closed table over the damaged row), help and rules still work."""
        texts = Texts(self.settings.language)
        try:
            cmd = command if isinstance(command, Command) else parse_command(command)
        except CommandError as err:
            return [messages.error(chat.id, texts, err.key, dict(err.params))]
        if isinstance(cmd, Help | Rules):
            table = Table(chat=chat.id, options=Options(lang=texts.lang))
            ctx = _Context(chat, user, False, table, texts, self.clock(), self.pictures, None)
            self._dispatch(ctx, cmd)
            return ctx.out
        if not isinstance(cmd, Abort):
            return [messages.error(chat.id, texts, "error.invalid_record", {"text": exc.detail})]
        closed = Table(
            chat=chat.id,
            title=chat.title,
            version=exc.version + 1,
            status=CLOSED,
            options=Options(lang=texts.lang, timeout=self.settings.timeout),
        )
        try:
            self.store.save(closed, exc.version)
        except StaleTable:
            return [messages.error(chat.id, texts, "error.busy", {})]
        self._games.pop(chat.id, None)
        self._stuck.pop(chat.id, None)
        scene = Scene(closed, texts, self.pictures)
        return [scene.chat_message([texts("lobby.closed", name=user.name)])]

    def due(self, now: float | None = None, *, chat: str | None = None) -> list[Outbound]:
        """Do everything due at ``now`` (default: the clock): computer players' turns, one
        after another until a person must act, reminders at half time and moves made for
        players whose time ran out. ``chat`` limits this to one table.

        Each due table is claimed in the store first, so with several processes on one
        store each table's due work is done by one of them; the work is a batch of claims
        and then each claimed table once, linear in the number of due tables."""
        now = self.clock() if now is None else now
        out: list[Outbound] = []
        done: set[str] = set()
        try:
            while True:
                claimed = self.store.claim(now, self.owner, self.clock(), LEASE, chat=chat)
                fresh = [c for c in claimed if c not in done]
                try:
                    for c in fresh:
                        done.add(c)
                        if self._stuck.get(c, 0.0) > now:
                            continue  # a damaged table: looked at again later
                        with ops.at_table(c):
                            try:
                                out += self._due_table(c, now)
                            except StoreBusy:
                                raise
                            except Exception:
                                # One broken table must not stop every other table's clock.
                                log.exception("the due work failed")
                finally:
                    self.store.release(self.owner, claimed)
                if not fresh:
                    return out
        except StoreBusy:
            return out  # the clock comes back: what is due stays due

    def _due_table(self, chat: str, now: float) -> list[Outbound]:
        """Everything due at one claimed table, step by step until a person must act."""
        out: list[Outbound] = []
        renewed = time.monotonic()
        for _ in range(MAX_STEPS):
            if time.monotonic() - renewed > LEASE / 3:  # a long computer game: keep the claim
                if not self.store.claim(now, self.owner, self.clock(), LEASE, chat=chat):
                    break
                renewed = time.monotonic()
            step = self._due_step(chat, now)
            if step is None:
                break
            out += step[0]
            if not step[1]:
                break
        return out

    def _load(self, chat: str) -> tuple[Table | None, dict[str, str | None] | None]:
        """The table of ``chat`` and, in the same read, whether each person at its running
        game asked for turn pings (``None`` when no game runs): a turn that passes to a
        person needs both, and this costs one round trip to the store, not two.

        Raises:
            DamagedTable: if the stored row cannot be read back as a table.
        """
        table, notes = self.store.load_seated(chat, community.NOTIFY)
        if table is None or table.status != PLAYING:
            return table, None
        # The players index was saved with this very version: exactly these people.
        return table, {person: notes.get(person) for person in seated(table)}

    # --- for adapters: read-only looks at a table -------------------------------------

    def table(self, chat: str) -> Table | None:
        """The stored table of a chat (a copy: changing it changes nothing)."""
        try:
            return self.store.load(chat)
        except DamagedTable:
            return None

    def playing_tables(self, user: str) -> list[str]:
        """The chats whose running games ``user`` has a seat in, for adapters that take a
        player's moves from their private chat with the bot. Read from the store's players
        index, without loading any table or waiting for one."""
        return self.store.playing(user)

    def seat_view(self, chat: str, user: str) -> Any | None:
        """What ``user`` may know of the game at ``chat`` (their own rack included), for an
        adapter's autocomplete; ``None`` if no game runs there or the user has no seat."""
        with self._locks.hold(chat):
            game = self._seat_game(chat, user)
            return None if game is None else game[0].view(game[1])

    def _seat_game(self, chat: str, user: str) -> tuple[Game, int] | None:
        try:
            t = self.store.load(chat)
        except DamagedTable:
            return None
        if t is None or t.status != PLAYING:
            return None
        seat = t.seat_of(user)
        if seat is None:
            return None
        ctx = self._clock_context(t, self.clock())
        try:
            game = self._game(ctx)
        except Reject:
            return None
        self._keep(ctx, t.version)
        return game, seat

    def due_tables(self, now: float | None = None) -> list[str]:
        """The tables with something due at ``now`` (default: the clock), soonest first,
        for adapters that work through them one table at a time (each with :meth:`due`)."""
        return self.store.due(self.clock() if now is None else now)

    def chats(self) -> list[str]:
        """Every chat with a table (a Telegram group's topics are chats of their own)."""
        return self.store.chats()

    def next_due(self) -> float | None:
        """When :meth:`due` next has something to do (``None``: nothing is waiting), so an
        adapter's clock can sleep until then."""
        try:
            when = self.store.next_due()
            if when is None or not self._stuck:
                return when
            now = self.clock()
            due = self.store.due(now) if when <= now else []
        except StoreBusy:
            return self.clock() + BUSY_RETRY  # the store is locked: look again soon
        if due and all(self._stuck.get(c, 0.0) > now for c in due):
            # Only damaged tables are due: look again when the first may be retried.
            return min(self._stuck[c] for c in due)
        return when

    # --- for adapters: what they must remember across restarts --------------------------

    def note(self, chat: str, key: str) -> str | None:
        """What the adapter noted for ``chat`` under ``key`` (see :meth:`set_note`)."""
        return self.store.note(chat, key)

    def set_note(self, chat: str, key: str, value: str | None) -> None:
        """Keep a small text for ``chat`` across restarts (a lobby's message id, a thread,
        who was told once); ``None`` forgets it. Notes never change the table's version."""
        self.store.set_note(chat, key, value)

    def move_table(self, old: str, new: str) -> bool:
        """Carry the table of chat ``old`` over to chat ``new`` (a Telegram group that became
        a supergroup gets a new id); the game goes on there. False if ``old`` has no table
        or ``new`` has one already."""
        with self._locks.hold(old, new):
            moved = self.store.move(old, new)
            if moved:
                with self._games_lock:
                    self._games.pop(old, None)
            return moved

    def seat_look(self, chat: str, user: str) -> SeatLook | None:
        """:meth:`seat_view` in plain values for adapters (their rack, their turn, the cells
        a tile fits on); ``None`` if no game runs at ``chat`` or the user has no seat."""
        with self._locks.hold(chat):
            found = self._seat_game(chat, user)
            if found is None:
                return None
            game, seat = found
            view = game.view(seat)
            cells = games.placement_cells(game, seat)
        spezial = hasattr(view, "towers")
        rack = tuple(getattr(view, "rack", None) or ())
        return SeatLook(
            spezial=spezial,
            my_turn=view.to_move == view.seat,
            rack=tuple(
                RackTile(slot, t.name, t.first.value, t.second.value)
                for slot, t in enumerate(rack, 1)
            ),
            rack_text=games.rack_text(rack),
            cells=cells,
        )

    # --- plumbing -------------------------------------------------------------------

    def _save(self, ctx: _Context) -> bool:
        try:
            self.store.save(ctx.table, ctx.loaded)
        except StaleTable:
            ctx.game = None
            return False
        self._after_save(ctx)
        return True

    def _after_save(self, ctx: _Context) -> None:
        """What follows a saved change and must not happen without it: a finished game is
        archived and rated, and the turns just pinged are noted (never pinged twice)."""
        if ctx.finished is not None:
            # The game that just ended is at hand: rated without replaying its record.
            self.community.finished(ctx.finished, ctx.game)
            ctx.finished = None
        for chat, key, turn in ctx.pinged:
            self.store.set_note(chat, key, turn)
        ctx.pinged = []

    def _game(self, ctx: _Context) -> Game:
        """The table's game as loaded: taken from the cache (it goes back by :meth:`_keep`
        once the command is through) or rebuilt from the stored record."""
        if ctx.game is None:
            with self._games_lock:
                cached = self._games.pop(ctx.table.chat, None)
            if cached is not None and cached[0] == ctx.loaded:
                ctx.game = cached[1]
            else:
                assert ctx.table.record is not None
                try:
                    ctx.game = games.rebuild(ctx.table.record)
                except _DAMAGE as exc:
                    # A record that no longer replays: this table says so, others run.
                    raise Reject("error.invalid_record", text=_damage_text(exc)) from None
        return ctx.game

    def _keep(self, ctx: _Context, version: int | None) -> None:
        """Cache the context's game as the position of table ``version``: only a running
        one (a finished game is rebuilt the rare times it is asked for, so a thousand
        finished tables do not hold their games in memory)."""
        if ctx.game is not None and version is not None and ctx.table.status == PLAYING:
            with self._games_lock:
                self._games[ctx.table.chat] = (version, ctx.game)
                self._games.move_to_end(ctx.table.chat)
                while len(self._games) > CACHED_GAMES:
                    self._games.popitem(last=False)

    def _dispatch(self, ctx: _Context, cmd: Command) -> None:
        handler = _HANDLERS.get(type(cmd))
        if handler is None:
            raise Reject("command.unknown", command=type(cmd).__name__)
        handler(self, ctx, cmd)

    # --- who may do what ------------------------------------------------------------

    def _need_table(self, ctx: _Context) -> Table:
        if ctx.new or ctx.table.status == CLOSED:
            raise Reject("error.no_table")
        return ctx.table

    def _need_manager(self, ctx: _Context) -> None:
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

    def _need_lobby(self, ctx: _Context) -> None:
        if ctx.table.status == PLAYING:
            raise Reject("error.game_running")

    def _open(self, ctx: _Context) -> None:
        """A closed (or new) table opens again with ``ctx.user`` as host."""
        t = ctx.table
        if ctx.new or t.status == CLOSED:
            assert ctx.user is not None
            t.status = LOBBY
            t.host, t.host_name = ctx.user.id, ctx.user.name
            t.seats = []

    def _my_seat(self, ctx: _Context) -> int:
        assert ctx.user is not None
        seat = ctx.table.seat_of(ctx.user.id)
        if seat is None:
            raise Reject("error.not_seated")
        return seat

    def _playing(self, ctx: _Context) -> Game:
        self._need_table(ctx)
        if ctx.table.status != PLAYING:
            raise Reject("error.not_started")
        return self._game(ctx)

    # --- lobby ----------------------------------------------------------------------

    def _on_join(self, ctx: _Context, cmd: Join) -> None:
        self._need_lobby(ctx)
        self._open(ctx)
        t, user = ctx.table, ctx.user
        assert user is not None
        seat = t.seat_of(user.id)
        if seat is not None:
            raise Reject("error.already_seated", number=seat + 1)
        if len(t.seats) >= MAX_SEATS:
            raise Reject("error.table_full", count=MAX_SEATS)
        t.seats.append(Seat(name=user.name, user=user.id))
        if t.host is None:
            t.host, t.host_name = user.id, user.name
        ctx.out.append(messages.lobby(ctx.scene, [ctx.texts("lobby.joined", name=user.name)]))

    def _on_add_bot(self, ctx: _Context, cmd: AddBot) -> None:
        self._need_lobby(ctx)
        self._open(ctx)
        t = ctx.table
        assert ctx.user is not None
        if t.seat_of(ctx.user.id) is None:
            self._need_manager(ctx)
        level = cmd.level or self.settings.level
        if level not in self.settings.levels:
            raise Reject("error.unknown_level", level=level, levels=", ".join(self.settings.levels))
        if len(t.seats) >= MAX_SEATS:
            raise Reject("error.table_full", count=MAX_SEATS)
        t.bots_added += 1
        name = ctx.texts("seat.computer_name", number=t.bots_added)
        t.seats.append(Seat(name=name, level=level))
        news = ctx.texts("lobby.bot_added", name=name, level=level)
        ctx.out.append(messages.lobby(ctx.scene, [news]))

    def _on_leave(self, ctx: _Context, cmd: Leave) -> None:
        t = self._need_table(ctx)
        seat_no = self._my_seat(ctx)
        self._vacate(ctx, seat_no, ctx.texts("lobby.left", name=t.seats[seat_no].name))

    def _vacate(self, ctx: _Context, seat_no: int, news: str) -> None:
        """A person's seat: gone before the start, a computer player's during a game."""
        t = ctx.table
        seat = t.seats[seat_no]
        if t.status != PLAYING:
            del t.seats[seat_no]
            t.pass_host()
            ctx.out.append(messages.lobby(ctx.scene, [news]))
            return
        t.seats[seat_no] = Seat(
            name=seat.name, level=self.settings.level, left=True, left_user=seat.user
        )
        t.players = list(t.seats)
        t.pass_host()
        game = self._game(ctx)
        lines = [news, ctx.texts("turn.taken_over", name=seat.name)]
        if game.to_move == seat_no:
            self._schedule(t, game, ctx.now, new_turn=False)
            lines.append(ctx.texts("turn.next_computer", name=seat.name))
        ctx.out.append(ctx.scene.chat_message(lines))

    def _on_kick(self, ctx: _Context, cmd: Kick) -> None:
        t = self._need_table(ctx)
        self._need_manager(ctx)
        seat_no = self._find_seat(ctx, cmd.target)
        seat = t.seats[seat_no]
        assert ctx.user is not None
        if t.status == PLAYING and seat.computer:
            raise Reject("error.kick_computer", name=ctx.scene.name(seat))
        self._vacate(ctx, seat_no, ctx.texts("lobby.kicked", name=seat.name, by=ctx.user.name))

    @staticmethod
    def _find_seat(ctx: _Context, target: str) -> int:
        """A seat by number (``2``), mention (``<@123>``, ``@ada``) or user id, or name.

        Raises:
            Reject: ``error.kick_who`` for no such seat, ``error.kick_ambiguous`` naming
                the seats a shared name could mean.
        """
        t = ctx.table
        key = target.strip()
        if _SEAT_NUMBER.fullmatch(key):
            number = int(key)
            if 1 <= number <= len(t.seats):
                return number - 1
            raise Reject("error.kick_who", target=target)
        m = _MENTION.fullmatch(key)
        ids = [key] if m is None else [g for g in m.groups() if g]
        for i, s in enumerate(t.seats):
            if s.user is not None and s.user in ids:
                return i
        if m is not None and m.group(2):
            key = m.group(2)  # "@Ann": the name after the at sign
        folded = key.casefold()
        matches = [i for i, s in enumerate(t.seats) if s.name.casefold() == folded]
        if not matches:
            matches = [i for i, s in enumerate(t.seats) if s.name.casefold().startswith(folded)]
        if len(matches) == 1:
            return matches[0]
        if not matches or not folded:
            raise Reject("error.kick_who", target=target)
        seats = ", ".join(f"{i + 1}. {ctx.scene.name(t.seats[i])}" for i in matches)
        raise Reject("error.kick_ambiguous", target=target, seats=seats, number=matches[0] + 1)

    def _on_abort(self, ctx: _Context, cmd: Abort) -> None:
        t = self._need_table(ctx)
        self._need_manager(ctx)
        assert ctx.user is not None
        if t.status == PLAYING:
            t.players = list(t.seats)  # the aborted game keeps its players' names
        t.status = CLOSED
        t.seats = []
        t.pending, t.pending_cells = [], []
        t.host, t.host_name = None, ""
        t.due_at = t.turn_started = None
        ctx.game = None
        self._games.pop(t.chat, None)
        ctx.out.append(ctx.scene.chat_message([ctx.texts("lobby.closed", name=ctx.user.name)]))

    # --- options --------------------------------------------------------------------

    def _on_show_options(self, ctx: _Context, cmd: ShowOptions) -> None:
        ctx.out.append(messages.options(ctx.scene))

    def _on_set_option(self, ctx: _Context, cmd: SetOption) -> None:
        self._need_lobby(ctx)
        self._open(ctx)
        self._need_manager(ctx)
        o = ctx.table.options
        if cmd.name == "game":
            o.game = cmd.value
            if o.game == "spezial":
                o.team = False
        elif cmd.name == "team":
            o.team = cmd.value == "on"
            if o.team:
                o.game = "genial"
        elif cmd.name == "hints":
            o.hints = cmd.value == "on"
        elif cmd.name == "order":
            o.order = cmd.value
        elif cmd.name == "timeout":
            o.timeout = int(cmd.value)
        elif cmd.name == "lang":
            o.lang = cmd.value
            ctx.texts = Texts(o.lang)
        else:  # the parser makes only the names above
            raise Reject("option.unknown", name=cmd.name)
        assert ctx.user is not None
        news = ctx.texts("options.changed", name=ctx.user.name)
        ctx.out.append(messages.options(ctx.scene, [news]))

    # --- the game -------------------------------------------------------------------

    def _on_start(self, ctx: _Context, cmd: Start) -> None:
        t = self._need_table(ctx)
        self._need_lobby(ctx)
        assert ctx.user is not None
        if t.seat_of(ctx.user.id) is None:
            self._need_manager(ctx)
        n = len(t.seats)
        o = t.options
        if n == 0:
            raise Reject("error.no_players")
        if o.game == "spezial" and n not in games.SPEZIAL_SEATS:
            raise Reject("error.spezial_players", count=n)
        if o.team and n != 4:
            raise Reject("error.team_players", count=n)
        if o.order == "random":
            self.rng.shuffle(t.seats)
        t.seed = self.rng.randrange(2**62)
        game = ctx.game = games.new_game(o.game, n, o.team, t.seed)
        t.record = game.record(with_bag=True)
        t.status = PLAYING
        t.players = list(t.seats)
        t.pending, t.pending_cells = [], []
        scene = ctx.scene
        names = ", ".join(f"{i}. {name}" for i, name in enumerate(scene.names(), 1))
        intro = [ctx.texts("start.text", game=scene.game_title(game), players=names)]
        self._schedule(t, game, ctx.now, new_turn=True)
        ctx.out.append(messages.turn(scene, game, intro))
        if not games.is_spezial(game):  # Genial Spezial has no hidden tiles to send
            for seat_no in range(n):
                rack = messages.rack(scene, game, seat_no, start=True)
                if rack is not None:
                    ctx.out.append(rack)
        self._ping(ctx, game)

    def _on_play(self, ctx: _Context, cmd: Play) -> None:
        self._move(ctx, cmd.move)

    def _on_swap(self, ctx: _Context, cmd: Swap) -> None:
        self._move(ctx, "swap")

    def _on_keep(self, ctx: _Context, cmd: Keep) -> None:
        self._move(ctx, "keep")

    def _move(self, ctx: _Context, text: str) -> None:
        game = self._playing(ctx)
        seat = self._my_seat(ctx)
        names = ctx.scene.names(game)
        if game.to_move != seat:
            raise Reject("error.not_your_turn", name=names[game.to_move], text=text)
        if text in ("swap", "keep") and (games.is_spezial(game) or game.awaiting != "swap"):
            raise Reject("error.swap_not_offered", text=text)
        try:
            events = game.play_text(text, seat)
        except EngineError as exc:
            raise self._engine_reject(ctx, game, exc) from None
        self._after_moves(ctx, game, events, seat)

    def _engine_reject(self, ctx: _Context, game: Game, exc: EngineError) -> Reject:
        key = f"error.{exc.reason}"
        if games.is_spezial(game) and ctx.texts.has(key + "_spezial"):
            key += "_spezial"
        if not ctx.texts.has(key):
            key = "error.unknown_reason"
        name = ctx.scene.names(game)[game.to_move] if not game.over else ""
        return Reject(key, text=exc.text, reason=exc.reason, name=name)

    def _after_moves(
        self,
        ctx: _Context,
        game: Game,
        events: list[Event],
        actor: int,
        intro: list[str] | None = None,
    ) -> None:
        """Record the moves, schedule what comes next, and tell the chat (and the next
        player, privately).

        One public message per person's turn: while computer players follow, what happened
        is kept with the table (``pending``) and told together, with one board marking
        every placement, once a person is to act or the game ends."""
        t = ctx.table
        assert t.record is not None
        t.record["moves"] = list(game.moves)
        scene = ctx.scene
        lines = [*(intro or []), *narrate.narrate(events, game, scene.names(game), ctx.texts)]
        if t.pending and _chars(t.pending) + _chars(lines) > PENDING_CHARS:
            # Rare (a run of bonus placements): what was told so far goes out on its own,
            # so no message becomes a wall; the one board still marks every placement.
            ctx.out.append(scene.chat_message(t.pending, "turn"))
            t.pending = []
        t.pending = [*t.pending, *lines]
        t.pending_cells = [*t.pending_cells, *_placed_cells(game, events)]
        if game.over:
            reason = next((e.reason for e in events if isinstance(e, GameEnded)), None)
            ctx.out.append(self._told(ctx, game))
            ctx.finished = community.archive_row(t, ctx.now)
            t.players = list(t.seats)
            ctx.out.append(messages.result(scene, game, reason))
            t.status = LOBBY
            t.seats = [s for s in t.seats if not s.left]
            t.pass_host()
            self._schedule(t, game, ctx.now, new_turn=False)
            return
        new_turn = any(isinstance(e, TurnStarted) for e in events)
        again = not new_turn and any(isinstance(e, BonusEarned) for e in events)
        self._schedule(t, game, ctx.now, new_turn=new_turn)
        if t.seats[game.to_move].computer and any(not s.computer for s in t.seats):
            return  # told with the computer moves that follow
        ctx.out.append(self._told(ctx, game, again))
        rack = None if games.is_spezial(game) else messages.rack(scene, game, game.to_move)
        if rack is not None:
            ctx.out.append(rack)
        if new_turn:
            self._ping(ctx, game)

    @staticmethod
    def _told(ctx: _Context, game: Game, again: bool = False) -> Outbound:
        """The turn message of everything pending; the table has nothing pending after."""
        t = ctx.table
        out = messages.turn(ctx.scene, game, t.pending, again=again, highlight=t.pending_cells)
        t.pending, t.pending_cells = [], []
        return out

    def _schedule(self, t: Table, game: Game, now: float, new_turn: bool) -> None:
        """Store when ``due`` must act next: at once for a computer player, at half time
        and at the end of the timeout for a person, never after the end."""
        if game.over or t.status != PLAYING:
            t.due_at = t.turn_started = None
            t.reminded = False
            return
        if new_turn or t.turn_started is None:
            t.turn_started = now
            t.reminded = False
        seat = t.seats[game.to_move]
        timeout = t.options.timeout
        if seat.computer:
            t.due_at = now
        elif not timeout:
            t.due_at = None
        else:
            t.due_at = t.turn_started + (timeout if t.reminded else timeout / 2)

    # --- looking at the game --------------------------------------------------------

    def _on_hand(self, ctx: _Context, cmd: Hand) -> None:
        self._need_table(ctx)
        if ctx.table.status != PLAYING:
            raise Reject("error.not_started")
        game = self._game(ctx)
        rack = messages.rack(ctx.scene, game, self._my_seat(ctx))
        assert rack is not None
        ctx.out.append(rack)

    def _on_board(self, ctx: _Context, cmd: Board) -> None:
        game = self._shown_game(ctx)
        title = ctx.texts("board.title", game=ctx.scene.game_title(game), count=len(game.moves))
        ctx.out.append(messages.turn(ctx.scene, game, [title]))

    def _on_score(self, ctx: _Context, cmd: Score) -> None:
        ctx.out.append(messages.scores(ctx.scene, self._shown_game(ctx)))

    def _shown_game(self, ctx: _Context) -> Game:
        """The running game, or the last one after its end."""
        t = self._need_table(ctx)
        if t.record is None:
            raise Reject("error.not_started")
        return self._game(ctx)

    def _on_hint(self, ctx: _Context, cmd: Hint) -> None:
        self._need_table(ctx)
        if ctx.table.status != PLAYING:
            raise Reject("error.not_started")
        if not ctx.table.options.hints:
            raise Reject("error.hints_off")
        seat = self._my_seat(ctx)
        game = self._game(ctx)
        if game.to_move != seat or game.awaiting != "place":
            raise Reject("error.hint_not_now")
        tx = ctx.texts
        lines = [tx("hint.title", table=ctx.scene.title)]
        for number, (move, _value) in enumerate(players.best(game.view(seat), HINTS), 1):
            if games.is_spezial(game):
                points = ""
            else:
                made = game.points_of(move)
                points = narrate.points_text(tx, made, made)
            lines.append(
                tx("hint.line", number=number, move=games.format_move(game, move), points=points)
            )
        assert ctx.user is not None
        ctx.out.append(Outbound(ctx.table.chat, "\n".join(lines), "hint", user=ctx.user.id))

    def _on_export(self, ctx: _Context, cmd: Export) -> None:
        if ctx.new or ctx.table.record is None:
            raise Reject("error.no_record")
        ctx.out.append(messages.export(ctx.scene, self._game(ctx)))

    def _on_help(self, ctx: _Context, cmd: Help) -> None:
        levels = ", ".join(self.settings.levels)
        ctx.out.append(ctx.scene.chat_message([ctx.texts("help.text", levels=levels)]))

    def _on_rules(self, ctx: _Context, cmd: Rules) -> None:
        key = "rules.spezial" if ctx.table.options.game == "spezial" else "rules.genial"
        ctx.out.append(ctx.scene.chat_message([ctx.texts(key)]))

    # --- communities: ladders, history, replay, rematch, my games, pings (issue 13) ----

    def _on_top(self, ctx: _Context, cmd: Top) -> None:
        scope = ratings.GLOBAL if cmd.everyone else ctx.chat.id
        lines = community.top_lines(self.community, scope, cmd.page, ctx.texts)
        if lines is None:
            raise Reject("top.empty_global" if cmd.everyone else "top.empty")
        ctx.out.append(ctx.scene.chat_message(lines))

    def _on_stats(self, ctx: _Context, cmd: Stats) -> None:
        assert ctx.user is not None
        player: str | None = ctx.user.id
        if cmd.player is not None:
            player = self.community.find(ctx.chat.id, cmd.player)
            if player is None:
                raise Reject("stats.who", target=cmd.player)
        assert player is not None
        asker = ctx.user.name if player == ctx.user.id else None
        head, per_game = community.stats(self.community, ctx.chat.id, player, ctx.texts, asker)
        if not per_game:
            ctx.out.append(ctx.scene.chat_message(head))
            return
        for n, part in enumerate(per_game):
            lines = [*(head if n == 0 else []), *part.lines]
            chart = None
            if ctx.pictures and part.history:
                title = (
                    f"{self.community.name(player, ctx.texts)} · {ctx.texts(f'game.{part.game}')}"
                )
                chart = images.chart(part.history, title)
            ctx.out.append(ctx.scene.chat_message(lines, attachment=chart))

    def _on_history(self, ctx: _Context, cmd: History) -> None:
        t = self._need_table(ctx)
        if t.record is None:
            raise Reject("error.not_started")
        game = self._game(ctx)
        names = ctx.scene.names(game)
        try:
            lines = community.history_lines(t.record, names, cmd.count, ctx.texts)
        except _DAMAGE as exc:
            raise Reject("error.invalid_record", text=_damage_text(exc)) from None
        if not lines:
            raise Reject("history.empty")
        title = ctx.texts("history.title", game=ctx.scene.game_title(game), moves=len(lines))
        ctx.out.append(ctx.scene.chat_message([title, *lines]))

    def _on_replay(self, ctx: _Context, cmd: Replay) -> None:
        t = ctx.table
        if ctx.new or t.record is None:
            raise Reject("error.no_record")
        if t.status == PLAYING:
            raise Reject("replay.not_over")
        game = self._game(ctx)
        if not game.over or not game.moves:
            raise Reject("replay.not_over")
        names = ctx.scene.names(game)
        try:
            gif = images.replay(t.record, names, len(game.moves))
        except _DAMAGE as exc:
            raise Reject("error.invalid_record", text=_damage_text(exc)) from None
        text = ctx.texts("replay.text", game=ctx.scene.game_title(game), moves=len(game.moves))
        ctx.out.append(ctx.scene.chat_message([text], attachment=gif))

    def _on_rematch(self, ctx: _Context, cmd: Rematch) -> None:
        """The lobby again with the last game's seats (those who stayed) and options; the
        host starts it with one more press."""
        t = ctx.table
        if ctx.new or t.status == CLOSED or t.record is None or not t.players:
            raise Reject("rematch.none")
        self._need_lobby(ctx)
        assert ctx.user is not None
        if all(s.user != ctx.user.id for s in t.players):
            self._need_manager(ctx)
        t.seats = [Seat(name=s.name, user=s.user, level=s.level) for s in t.players if not s.left]
        last = self.store.archived(t.chat)
        if last and last[-1].get("record") == t.record:
            # The options the last game was played with, changed since or not.
            with contextlib.suppress(TypeError):
                t.options = Options(**last[-1]["options"])
        ctx.texts = Texts(t.options.lang)
        if t.seat_of(ctx.user.id) is not None:
            t.host, t.host_name = ctx.user.id, ctx.user.name
        t.pass_host()
        news = ctx.texts("rematch.ready", name=ctx.user.name, host=t.host_name or ctx.user.name)
        ctx.out.append(messages.lobby(ctx.scene, [news]))

    def _on_games(self, ctx: _Context, cmd: Games) -> None:
        assert ctx.user is not None
        found = self._running_games(ctx.user.id, ctx.now)
        tx = ctx.texts
        if not found:
            lines = [tx("games.none")]
        else:
            lines = [tx("games.title", number=len(found))]
            for g in found:
                turn = tx("games.your_turn") if g.my_turn else tx("games.turn", name=g.to_move)
                left = "" if g.deadline is None else format_left(g.deadline - ctx.now)
                key = "games.line_deadline" if left else "games.line"
                # One line per table (a title's line break would shift the links).
                title = " ".join(g.title.split())
                lines.append(tx(key, table=title, game=tx(f"game.{g.game}"), turn=turn, left=left))
        # The platform adds to each table's line a link to its latest message.
        tables = tuple(g.chat for g in found)
        text = "\n".join(lines)
        ctx.out.append(Outbound(ctx.chat.id, text, "info", user=ctx.user.id, tables=tables))

    def running_games(self, user: str) -> list[RunningGame]:
        """Every running table ``user`` sits at, across chats, for platforms that show
        them their own way (with a link to the table's latest message)."""
        return self._running_games(user, self.clock())

    def _running_games(self, user: str, now: float) -> list[RunningGame]:
        found = []
        for chat in self.playing_tables(user):
            try:
                t = self.store.load(chat)
            except DamagedTable:
                continue
            if t is None:
                continue
            facts = self._game_facts(t)
            if facts is None or facts[0]:
                continue
            _, to_move, mode = facts
            ctx = self._clock_context(t, now)
            seat = t.seats[to_move]
            timeout = t.options.timeout
            deadline = None
            if timeout and not seat.computer and t.turn_started is not None:
                deadline = t.turn_started + timeout
            found.append(
                RunningGame(
                    chat=t.chat,
                    title=t.title or t.chat,
                    game=mode.replace("standard", "genial"),
                    to_move=ctx.scene.name(seat),
                    my_turn=seat.user == user,
                    deadline=deadline,
                )
            )
        return found

    def _game_facts(self, t: Table) -> tuple[bool, int, str] | None:
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
        except _DAMAGE:
            return None
        return game.over, game.to_move, games.mode(game)

    def _on_notify(self, ctx: _Context, cmd: Notify) -> None:
        assert ctx.user is not None
        if cmd.on is not None:
            self.store.set_note(ctx.user.id, community.NOTIFY, "on" if cmd.on else None)
        on = self.store.note(ctx.user.id, community.NOTIFY) == "on"
        key = "notify.on" if on else "notify.off"
        ctx.out.append(Outbound(ctx.chat.id, ctx.texts(key), "info", user=ctx.user.id))

    def _ping(self, ctx: _Context, game: Game) -> None:
        """A private note to the person whose turn it now is, if they asked for pings, did
        not just act themselves and play with at least one other person: once per turn
        (keyed by the game's seed and the moves played when it began, noted once the table
        is saved)."""
        t = ctx.table
        if game.over or t.status != PLAYING:
            return
        seat = t.seats[game.to_move]
        if seat.user is None or (ctx.user is not None and ctx.user.id == seat.user):
            return
        if sum(s.user is not None for s in t.seats) < 2:
            return  # the only person here: the computer players answer them at once
        known = ctx.notify
        if known is not None and seat.user in known:
            asked = known[seat.user]
        else:
            asked = self.store.note(seat.user, community.NOTIFY)
        if asked != "on":
            return
        key = community.PING.format(user=seat.user)
        turn = f"{t.seed}:{len(game.moves)}"
        if self.store.note(t.chat, key) == turn:
            return
        ctx.pinged.append((t.chat, key, turn))
        text = ctx.texts("notify.ping", table=ctx.scene.title, game=ctx.scene.game_title(game))
        board = messages.board_attachment(ctx.scene, game)
        ctx.out.append(Outbound(t.chat, text, "ping", user=seat.user, attachment=board))

    # --- what the clock brings ------------------------------------------------------

    def _due_step(self, chat: str, now: float) -> tuple[list[Outbound], bool] | None:
        """One thing due at a table: a reminder, or one computer turn; what to send, and
        whether more is due at once (another computer player). ``None`` if nothing could be
        done (the table changed while a computer player was thinking)."""
        with self._locks.hold(chat):
            try:
                t = self.store.load(chat)
            except DamagedTable:
                self._stuck[chat] = now + STUCK_RETRY
                return None
            if t is None or t.due_at is None or t.due_at > now:
                return None
            ctx = self._clock_context(t, now)
            if t.status != PLAYING:
                t.due_at = None
                return self._finish_due(ctx)
            try:
                game = self._game(ctx)
            except Reject:
                # A record that no longer replays: nothing is due there any more; /abort
                # closes the table, and every other table runs on.
                t.due_at = None
                return self._finish_due(ctx)
            seat_no = game.to_move
            seat = t.seats[seat_no]
            timed_out = False
            level = seat.level or self.settings.level
            if not seat.computer:
                timeout = t.options.timeout
                assert t.turn_started is not None
                if timeout and now >= t.turn_started + timeout:
                    timed_out = True
                    level = self.settings.level
                else:
                    if timeout and not t.reminded:
                        t.reminded = True
                        ctx.out.append(self._reminder(ctx, seat, t.turn_started + timeout - now))
                    self._schedule(t, game, now, new_turn=False)
                    return self._finish_due(ctx)
            snapshot = games.copy(game)
            self._keep(ctx, t.version)
            loaded = t.version
        moves = self._think(snapshot, seat_no, level, t.seed)
        with self._locks.hold(chat):
            try:
                t, notify = self._load(chat)
            except DamagedTable:
                return None
            if t is None or t.version != loaded:
                return None
            ctx = self._clock_context(t, now)
            ctx.notify = notify
            game = self._game(ctx)
            t.version += 1
            events: list[Event] = []
            for move in moves:
                try:
                    events += game.play(move, seat_no)
                except EngineError:
                    ctx.game = None  # half a turn was played: rebuild next time
                    raise
            intro = [ctx.texts("turn.timed_out", name=seat.name)] if timed_out else []
            self._after_moves(ctx, game, events, seat_no, intro)
            return self._finish_due(ctx)

    def _clock_context(self, t: Table, now: float) -> _Context:
        texts = Texts(t.options.lang)
        return _Context(Chat(t.chat, t.title), None, False, t, texts, now, self.pictures, t.version)

    def _finish_due(self, ctx: _Context) -> tuple[list[Outbound], bool] | None:
        if not self._save(ctx):
            return None
        self._keep(ctx, ctx.table.version)
        due_at = ctx.table.due_at
        return ctx.out, due_at is not None and due_at <= ctx.now

    def _reminder(self, ctx: _Context, seat: Seat, left: float) -> Outbound:
        # The time left as it is (two units, rounded down): "1m" with 1 s left misleads.
        text = ctx.texts(
            "turn.reminder", name=seat.name, table=ctx.scene.title, left=format_left(left)
        )
        mentions = (seat.user,) if seat.user else ()
        return Outbound(ctx.table.chat, text, "reminder", mentions=mentions)

    @staticmethod
    def _think(game: Game, seat: int, level: str, seed: int) -> list[Any]:
        """The moves of one computer turn (placements, bonus placements, the swap
        decision), chosen on a copy of the game from that seat's view only."""
        moves: list[Any] = []
        assert not game.over and game.to_move == seat
        while not game.over and game.to_move == seat:
            move = players.choose(game.view(seat), level, _ai_seed(seed, game.version))
            events = game.play(move, seat)
            moves.append(move)
            # One turn only: in the solo game the same seat is to move again, and a
            # timeout there must not play the rest of the game at once.
            if any(isinstance(e, TurnStarted) for e in events):
                break
        return moves


@dataclass(frozen=True, slots=True)
class RunningGame:
    """A running table a person sits at (``/games``): ``game`` is genial, team, solo or
    spezial; ``deadline`` when the turn runs out (seconds since the epoch), if it does."""

    chat: str
    title: str
    game: str
    to_move: str
    my_turn: bool
    deadline: float | None


def _chars(lines: list[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def _placed_cells(game: Game, events: list[Event]) -> list[str]:
    """The labels of the cells the events' placements covered, for the board's marks."""
    cells = []
    for ev in events:
        if isinstance(ev, Placed | SpezialPlaced):
            cells += [game.area.label(ev.placement.cell1), game.area.label(ev.placement.cell2)]
    return cells


def _damage_text(exc: BaseException) -> str:
    """What is wrong with a damaged record, in a few words (no stored text echoed whole)."""
    if isinstance(exc, EngineError):
        return shown(f"{exc.reason}: {exc.detail}" if exc.detail else exc.reason)
    return type(exc).__name__


_HANDLERS: dict[type[Command], Callable[[Service, _Context, Any], None]] = {
    Join: Service._on_join,
    AddBot: Service._on_add_bot,
    Leave: Service._on_leave,
    Kick: Service._on_kick,
    Abort: Service._on_abort,
    ShowOptions: Service._on_show_options,
    SetOption: Service._on_set_option,
    Start: Service._on_start,
    Play: Service._on_play,
    Swap: Service._on_swap,
    Keep: Service._on_keep,
    Hand: Service._on_hand,
    Board: Service._on_board,
    Score: Service._on_score,
    Hint: Service._on_hint,
    Export: Service._on_export,
    Help: Service._on_help,
    Rules: Service._on_rules,
    Top: Service._on_top,
    Stats: Service._on_stats,
    History: Service._on_history,
    Replay: Service._on_replay,
    Rematch: Service._on_rematch,
    Games: Service._on_games,
    Notify: Service._on_notify,
}
