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

import logging
import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, ClassVar, NamedTuple

from bot.core import messages, metrics, outage
from bot.core.commands import (
    Abort,
    AddBot,
    Command,
    CommandError,
    Help,
    Join,
    Rules,
    SetOption,
    Start,
)
from bot.core.messages import Scene
from bot.core.outbound import Chat, Outbound, User
from bot.core.outbox import Outbox
from bot.core.parsing import parse_command
from bot.core.table import CLOSED, PLAYING, Options, Table
from bot.core.tables import Context, Handler, OwnDue, Reject
from bot.store import DamagedTable, StaleTable, StoreBusy, StoreDown, StoreError
from bot.words.texts import NAME_LIMIT, Texts, shown_name

log = logging.getLogger(__name__)

#: Computer turns ``due`` plays in one call at most (a table of four computer players
#: finishes its whole game in one call; this only guards against a loop).
MAX_STEPS = 10_000
#: Seconds until the clock looks again when the store was locked past its busy timeout.
BUSY_RETRY = 1.0
#: Seconds until the clock looks again when the store did not answer.
DOWN_RETRY = 5.0
#: Lobby commands whose old buttons, pressed after the start, say the game has begun.
_LOBBY_BUTTONS = (Join, AddBot, Start, SetOption)
#: Attempts at a typed command that keeps losing races with other processes before the
#: player is asked to send it again.
RETRIES = 3
#: Seconds a process holds its claim on a table's due work: another process takes it over
#: when the claimer was killed. Renewed while a long computer game is being played.
LEASE = 60.0


class Step(NamedTuple):
    """What steps of a table's due work said, whether more is due there at once, and
    whether anything could be done (else another process holds the table's due work, or
    the table changed while a computer player thought)."""

    out: list[Outbound]
    more: bool
    done: bool


@dataclass
class _Progress:
    more: bool = False
    done: bool = False


class _Routed(Exception):
    """A game command typed where its player sees another table (a tournament's): it is
    for that table (``chat``)."""

    def __init__(self, chat: str) -> None:
        super().__init__(chat)
        self.chat = chat


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


def _word(command: str | Command) -> str:
    """The command's word for the figures (``play``); ``invalid`` for text that is none,
    so what people type never becomes a label of its own."""
    if isinstance(command, str):
        try:
            command = parse_command(command)
        except CommandError:
            return "invalid"
    return type(command).__name__.lower()


def _plays_spezial(table: Table | None) -> bool:
    """Whether the table plays Genial Spezial: the running game's record says, before a
    game the option does."""
    if table is None:
        return False
    if table.status == PLAYING and table.record is not None:
        return bool(table.record.get("game") == "spezial")
    return table.options.game == "spezial"


#: How a platform carries out a command that came from a web page: ``(chat, user, text)``
#: in, what the service said out (the platform has delivered it in the chat meanwhile).
PageRunner = Callable[[str, User, str], list[Outbound]]


class TableService(Outbox):
    """The platform-neutral bot's core: a command to its concern's handler in a table's
    transaction, the due work of tables and of concerns, the outbox and the notes. It
    knows the concerns only through :class:`bot.core.tables.Concern`; the service's
    builder (:class:`bot.service.Service`) hands them over."""

    #: Called with every service made in this process, once it is ready: the launcher
    #: starts the web board on the chat platform's own service this way (a platform never
    #: imports another). Empty unless the launcher adds to it.
    on_start: ClassVar[list[Callable[[TableService], None]]] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Takes the arguments of :class:`bot.core.tables.Tables`: the store, the settings, and
        the clock, random source and pictures switch (injected so tests control them)."""
        super().__init__(*args, **kwargs)
        #: Every command's handler, from the concern that handles it.
        self.handlers: dict[type[Command], Handler] = {}
        for concern in self.concerns:
            for kind, handler in concern.handlers.items():
                if kind in self.handlers:
                    raise ValueError(f"two concerns handle {kind.__name__}")
                self.handlers[kind] = handler
        self._release_orphans()
        #: The chat platform's way to carry out a web page's command (see
        #: :meth:`set_page_runner`).
        self.page_runner: PageRunner | None = None
        #: The chat platform's way to open a place for a tournament's table in a chat (a
        #: forum topic, a thread): ``(chat, name)`` in, the new place's chat id out, or
        #: ``None`` where it cannot (then the table is played in the chat itself).
        self.place_opener: Callable[[str, str], str | None] | None = None
        outage.start(self)
        for start in type(self).on_start:
            start(self)

    def set_page_runner(self, run: PageRunner | None) -> None:
        """How this process's chat platform carries out a command from a web page (in its
        order with the table's other commands, delivering what the service says and
        letting computer players answer), called from any thread."""
        self.page_runner = run

    def _release_orphans(self) -> None:
        """Claims of due work and of letters held by processes of this machine that are
        gone (killed, then restarted) are given up at once instead of after their lease, so
        a restarted bot goes on where it stopped and says what its predecessor could not.
        Claims of other machines wait for their lease."""
        host = socket.gethostname()
        for owner in self.store.claimants():
            name, _, rest = owner.partition(":")
            pid, _, _ = rest.partition(":")
            if name == host and pid.isascii() and pid.isdigit() and not _alive(int(pid)):
                log.info("claims of %s released: that process is gone", owner)
                self.store.release_owner(owner)

    # --- the two entry points -------------------------------------------------------

    @outage.looked
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
        chat = Chat(chat.id, shown_name(chat.title))
        user = User(user.id, shown_name(user.name) or user.id[:NAME_LIMIT])
        start = time.perf_counter()
        with metrics.at_table(chat.id):
            try:
                for attempt in range(1, RETRIES + 1):
                    out = self._handle_once(chat, user, command, admin, retry=attempt < RETRIES)
                    if out is not None:
                        metrics.record_command(_word(command), time.perf_counter() - start)
                        return out
                    log.info("another process changed the table first; trying again")
            except StoreBusy:
                texts = Texts(self.last_language(chat.id))
                return [messages.error(chat.id, texts, "error.busy", {})]
            except StoreDown:
                # A connection the server closed (a restart) is gone from the pool now:
                # once more on a fresh one, then the player hears the store is away.
                try:
                    out = self._handle_once(chat, user, command, admin, retry=False)
                    if out is not None:
                        return out
                except StoreError as exc:
                    log.warning("the store does not answer: %s", exc)
                texts = Texts(self.last_language(chat.id))
                return [messages.error(chat.id, texts, "error.store_down", {})]
        raise AssertionError("the last attempt always answers")

    def _handle_once(
        self, chat: Chat, user: User, command: str | Command, admin: bool, *, retry: bool
    ) -> list[Outbound] | None:
        """One attempt at a command, in turn with the others at its table; ``None`` if it
        lost a race with another process and may be tried again on the new table."""
        try:
            with self.locks.hold(chat.id):
                out = self._handle(chat, user, command, admin, retry=retry)
            if out:
                # Typed at a table seen elsewhere (a tournament's, from the private chat):
                # what it says in public goes where it is seen.
                for concern in self.concerns:
                    if concern.fan_out_answers is not None:
                        out = concern.fan_out_answers(self, chat.id, out)
            return out
        except _Routed as routed:
            # The player's table seen here (a tournament's), as if typed there; what only the player
            # hears (an error, their rack) comes back to where they typed.
            with self.locks.hold(routed.chat):
                out = self._handle(Chat(routed.chat), user, command, admin, retry=retry)
            if out is None:
                return None
            return [replace(o, chat=chat.id) if o.chat == routed.chat else o for o in out]

    def _handle(
        self, chat: Chat, user: User, command: str | Command, admin: bool, *, retry: bool
    ) -> list[Outbound] | None:
        try:
            table, people = self.load(chat.id)
        except DamagedTable as exc:
            return self._damaged(chat, user, command, exc)
        texts = Texts(table.options.lang if table else self.settings.language)
        self.note_language(chat.id, texts.lang)
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
        # A command naming another tournament's table than this one is for that table.
        elsewhere = cmd.table and (table is None or table.tournament.get("id") != cmd.table)
        if elsewhere or table is None or table.status != PLAYING or table.seat_of(user.id) is None:
            for concern in self.concerns:
                if concern.route is None:
                    continue
                try:
                    target = concern.route(self, chat.id, user.id, cmd)
                except Reject as exc:  # which table is meant is not clear
                    return [messages.error(chat.id, texts, exc.key, exc.params)]
                if target is not None:
                    raise _Routed(target)
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
        ctx = Context(chat, user, admin, table, texts, self.clock(), self.pictures, loaded)
        ctx.people = people
        try:
            self._dispatch(ctx, cmd)
        except Reject as exc:
            # Rejected before anything changed: the game is still the loaded position.
            self.keep(ctx, loaded)
            return [messages.error(chat.id, ctx.texts, exc.key, exc.params)]
        if cmd.changes and not self.save(ctx):
            if cmd.version is not None:
                # A button is bound to the table it was shown with: never replayed.
                return [messages.error(chat.id, ctx.texts, "error.stale", {})]
            if retry:
                return None
            return [messages.error(chat.id, ctx.texts, "error.busy", {})]
        self.keep(ctx, table.version)
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
            ctx = Context(chat, user, False, table, texts, self.clock(), self.pictures, None)
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
        self.forget(chat.id)
        self.stuck.pop(chat.id, None)
        scene = Scene(closed, texts, self.pictures)
        return [scene.chat_message([texts("lobby.closed", name=user.name)])]

    @outage.first
    def due(self, now: float | None = None, *, chat: str | None = None) -> list[Outbound]:
        """Do everything due at ``now`` (default: the clock): computer players' turns, one
        after another until a person must act, reminders at half time and moves made for
        players whose time ran out. ``chat`` limits this to one table.

        Each due table is claimed in the store first, so with several processes on one
        store each table's due work is done by one of them; the work is a batch of claims
        and then each claimed table once, linear in the number of due tables."""
        return self._due(self.clock() if now is None else now, chat, None, _Progress())

    def step(self, chat: str, now: float | None = None, *, steps: int = 1) -> Step:
        """A platform's clock: ``steps`` steps of what is due at ``chat`` (a computer
        player's turn, a reminder, a timeout each), and whether more is due there at once
        (the next computer player). A clock that takes a step at each due table in turn,
        and the next one at a table once its chat has been told, plays a table of computer
        players at the pace its chat is told, and no other table waits behind it."""
        told = outage.before_due(self)  # an outage's credit comes before the due work
        if told is None:
            return Step([], False, False)
        progress = _Progress()
        out = self._due(self.clock() if now is None else now, chat, steps, progress)
        return Step(told + out, progress.more, progress.done or bool(told))

    def _due(
        self, now: float, chat: str | None, steps: int | None, progress: _Progress
    ) -> list[Outbound]:
        out: list[Outbound] = []
        own = self._own_due(chat)
        if chat is not None and own is not None:
            try:
                progress.done = True
                return own.work(self, chat, now)
            except (StoreBusy, StoreDown) as exc:
                log.warning("%s waits: %s", chat, exc)
                return []
        done: set[str] = set()
        if chat is None:
            out += self._own_work(now)
        try:
            while True:
                claimed = self.store.claim(now, self.owner, self.clock(), LEASE, chat=chat)
                fresh = [c for c in claimed if c not in done]
                try:
                    for c in fresh:
                        done.add(c)
                        if self.stuck.get(c, 0.0) > now:
                            continue  # a damaged table: looked at again later
                        with metrics.at_table(c):
                            try:
                                out += self._due_table(c, now, steps, progress)
                            except (StoreBusy, StoreDown):
                                raise
                            except Exception:
                                # One broken table must not stop every other table's clock.
                                log.exception("the due work failed")
                finally:
                    self.store.release(self.owner, claimed)
                if not fresh:
                    break
        except (StoreBusy, StoreDown) as exc:
            if isinstance(exc, StoreDown):
                log.warning("due work waits: %s", exc)
            return out  # the clock comes back: what is due stays due
        if chat is None and done:
            # What the tables' work brought due at once (a tournament's round whose last
            # table the computer just played out closes now): done in the same pass.
            out += self._own_work(now)
        return out

    def _own_work(self, now: float) -> list[Outbound]:
        """The concerns' due work under keys of their own (a tournament's) at ``now``."""
        out: list[Outbound] = []
        for keeper in self._own_dues():
            try:
                for key in keeper.keys(self, now):
                    out += keeper.work(self, key, now)
            except (StoreBusy, StoreDown) as exc:
                log.warning("due work of its own waits: %s", exc)
        return out

    def _due_table(
        self, chat: str, now: float, steps: int | None, progress: _Progress
    ) -> list[Outbound]:
        """What is due at one claimed table, step by step until a person must act (or
        ``steps`` steps were taken: the rest stays due, and ``progress`` says so)."""
        out: list[Outbound] = []
        renewed = time.monotonic()
        for _ in range(MAX_STEPS if steps is None else steps):
            if time.monotonic() - renewed > LEASE / 3:  # a long computer game: keep the claim
                if not self.store.claim(now, self.owner, self.clock(), LEASE, chat=chat):
                    break
                renewed = time.monotonic()
            step = self._table_step(chat, now)
            if step is None:
                break
            progress.done = True
            out += step[0]
            if not step[1]:
                break
        else:
            progress.more = True
            return out  # more is due at once: what follows the steps comes after them
        # What follows the steps (a game that ended: its review, once; the daily puzzle).
        for concern in self.concerns:
            if concern.after_due is not None:
                out += concern.after_due(self, chat, now)
        return out

    def _table_step(self, chat: str, now: float) -> tuple[list[Outbound], bool] | None:
        """One step of a due table's work, by the first concern that does table steps."""
        for concern in self.concerns:
            if concern.table_step is not None:
                return concern.table_step(self, chat, now)
        return None

    def _own_dues(self) -> list[OwnDue]:
        return [c.own_due for c in self.concerns if c.own_due is not None]

    def _own_due(self, key: str | None) -> OwnDue | None:
        """The concern's due work whose key ``key`` is (a tournament's), else ``None``."""
        if key is None:
            return None
        return next((own for own in self._own_dues() if own.owns(key)), None)

    def _dispatch(self, ctx: Context, cmd: Command) -> None:
        handler = self.handlers.get(type(cmd))
        if handler is None:
            raise Reject("command.unknown", command=type(cmd).__name__)
        handler(self, ctx, cmd)

    # --- for adapters: read-only looks at a table -------------------------------------

    def table(self, chat: str) -> Table | None:
        """The stored table of a chat (a copy: changing it changes nothing)."""
        try:
            return self.store.load(chat)
        except DamagedTable:
            return None

    def language(self, chat: str) -> str:
        """The language of ``chat``'s table (the default if it has none), for a platform's
        own words; never fails: while the store does not answer, the one last seen."""
        try:
            table = self.store.load(chat)
        except StoreError:
            return self.last_language(chat)
        return table.options.lang if table else self.settings.language

    def playing_tables(self, user: str) -> list[str]:
        """The chats whose running games ``user`` has a seat in, for adapters that take a
        player's moves from their private chat with the bot. Read from the store's players
        index, without loading any table or waiting for one."""
        return self.store.playing(user)

    def seat_view(self, chat: str, user: str) -> Any | None:
        """What ``user`` may know of the game at ``chat`` (their own rack included), for an
        adapter's autocomplete; ``None`` if no game runs there or the user has no seat."""
        with self.locks.hold(chat):
            game = self.seat_game(chat, user)
            return None if game is None else game[0].view(game[1])

    @outage.looked
    def due_tables(self, now: float | None = None) -> list[str]:
        """The tables with something due at ``now`` (default: the clock), soonest first,
        for adapters that work through them one table at a time (each with :meth:`due`);
        none while the store does not answer (the clock looks again, :meth:`next_due`)."""
        try:
            now = self.clock() if now is None else now
            # Not a damaged table before it may be tried again (:meth:`next_due` says when).
            due = [c for c in self.store.due(now) if self.stuck.get(c, 0.0) <= now]
            return due + [key for own in self._own_dues() for key in own.keys(self, now)]
        except (StoreBusy, StoreDown) as exc:
            log.warning("due work waits: %s", exc)
            return []

    def chats(self) -> list[str]:
        """Every chat with a table (a Telegram group's topics are chats of their own)."""
        return self.store.chats()

    def next_due(self, after: float | None = None) -> float | None:
        """When :meth:`due` next has something to do (``None``: nothing is waiting), so an
        adapter's clock can sleep until then; ``after``: the first time later than that
        (a clock whose tables due now are all being told asks what comes next)."""
        try:
            when = self.store.next_due(after)
            for own in self._own_dues():
                theirs = own.next_due(self)
                if theirs is not None and (after is None or theirs > after):
                    when = theirs if when is None else min(when, theirs)
            if when is None or not self.stuck:
                return when
            now = self.clock()
            due = self.store.due(now) if when <= now else []
        except StoreBusy:
            return self.clock() + BUSY_RETRY  # the store is locked: look again soon
        except StoreDown:
            return self.clock() + DOWN_RETRY  # the server is away: look again later
        if due and all(self.stuck.get(c, 0.0) > now for c in due):
            # Only damaged tables are due: look again when the first may be retried.
            return min(self.stuck[c] for c in due)
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
        with self.locks.hold(old, new):
            moved = self.store.move(old, new)
            if moved:
                self.forget(old)
            return moved

    # --- for the web page: a table as its page shows it -------------------------------
