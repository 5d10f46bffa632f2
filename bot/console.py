"""The console adapter: a chat room in the terminal.

You are one person in the room; ``/join bot`` seats computer opponents. Images are written
to a folder and their paths printed. Lines like ``alice: /join`` speak for someone else, so
scripts and tests can play as several people; the room reads standard input until its end.

The room's clock runs while it waits for input, as on the chat platforms: a reader thread
hands over typed lines, and between them the room sleeps until the service's next due time
(a computer player's move, a reminder, a timeout) and acts on it.
"""

from __future__ import annotations

import queue
import re
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TextIO

from bot.core.outbound import Chat, Outbound, User
from bot.core.table import PLAYING
from bot.service import Service
from bot.store import StoreError
from bot.words.texts import Texts

CHAT = Chat("console", "console")
_SPEAKER = re.compile(r"([\w.-]{1,32})\s*:\s*(/.*)")
_VERSION = re.compile(r"\s+#\d+$")
#: An image the console wrote: its number first.
_NUMBERED = re.compile(r"[0-9]{4}-")
QUIT = frozenset({"/quit", "/exit"})
#: Longest sleep between two looks at the clock (the service's next due time may move
#: while the room sleeps: another process shares the store, or a test moves the clock).
MAX_WAIT = 30.0


class Console:
    """Feeds lines to the service as chat commands and prints what the bot says."""

    def __init__(
        self,
        service: Service,
        me: User,
        images: Path | None,
        out: TextIO = sys.stdout,
        chat: Chat = CHAT,
        max_wait: float = MAX_WAIT,
        links: Callable[[Outbound], str | None] | None = None,
    ) -> None:
        """``links``: the web board's link to print under a message (the table's under a
        public one, the player's own under a private one), when the board runs."""
        self.service = service
        self.me = me
        self.images = images
        self.out = out
        self.chat = chat
        self.max_wait = max_wait
        self.links = links
        self._typed: queue.Queue[str | None] = queue.Queue()
        self._showing = threading.Lock()

    def welcome(self) -> None:
        texts = Texts(self.service.settings.language)
        self.out.write(texts("console.welcome", name=self.me.name) + "\n")
        if self.images is not None:
            self.out.write(texts("console.images", images=self.images) + "\n")
        self.out.flush()

    def resume(self) -> None:
        """A game left running in the store (an earlier session) is shown again: what the
        earlier session was stopped before it printed, else the board."""
        told = self.service.waiting(self.chat.id)
        for outbound in told:
            self.show(outbound)
        try:
            table = self.service.table(self.chat.id)
        except StoreError:  # locked by another process for long: the room opens anyway
            return
        if table is None or table.status != PLAYING or told:
            return
        self.say("/board")
        if table.seat_of(self.me.id) is not None:
            self.say("/hand")

    def run(self, lines: Iterable[str]) -> int:
        """Handle every line until the input ends (or ``/quit``), acting on what falls due
        while waiting for the next one; returns the exit status."""
        typed = self._typed

        def read() -> None:
            try:
                for raw in lines:
                    typed.put(raw)
            finally:
                typed.put(None)  # the end of the input

        threading.Thread(target=read, name="console-input", daemon=True).start()
        stalled = False
        while True:
            wait = self._wait()
            if stalled:  # due but nothing could be done (a damaged table): no busy loop
                wait = max(wait, min(1.0, self.max_wait))
            try:
                raw = typed.get(timeout=wait)
            except queue.Empty:
                stalled = not self.tick() and wait == 0.0
                continue
            if raw is None:
                return 0
            line = raw.strip()
            if not line:
                continue
            if line.lower() in QUIT:
                return 0
            self.say(line)

    def wake(self) -> None:
        """Look at the clock now (from any thread): a move came in another way (the web
        board) and computer players may be due."""
        self._typed.put("")

    def told_elsewhere(self, table: str, sent: list[Outbound]) -> None:
        """What a command made elsewhere (the web board) at ``table`` says in the room;
        then the room looks at the clock at once (computer players may answer it)."""
        for outbound in sent:
            self.show(outbound)
        self.wake()

    def _wait(self) -> float:
        """Seconds until the service next has something due (at most ``max_wait``)."""
        when = self.service.next_due()
        if when is None:
            return self.max_wait
        return min(self.max_wait, max(0.0, when - self.service.clock()))

    def tick(self) -> list[Outbound]:
        """Whatever is due by the clock: computer moves, reminders, timeouts."""
        sent = self.service.due()
        for outbound in sent:
            self.show(outbound)
        return sent

    def say(self, line: str) -> list[Outbound]:
        """One line typed into the room: a command of ``me``, or ``name: /command``."""
        user, admin = self.me, True
        m = _SPEAKER.fullmatch(line)
        if m:
            name = m.group(1)
            line = m.group(2)
            if name != self.me.name:
                user, admin = User(name, name), False
        sent = self.service.handle(self.chat, user, line, admin=admin)
        # Computer players move at once here: the console has no other tables to serve.
        sent += self.service.due(chat=self.chat.id)
        for outbound in sent:
            self.show(outbound)
        return sent

    def show(self, outbound: Outbound) -> None:
        """Print one outbound. It leaves the stored outbox first: a console stopped while
        printing it never prints it again, so nothing is ever told twice (the board the
        next session shows tells the rest)."""
        with self._showing:  # the web board's thread prints too (``--web``)
            self.service.delivered(outbound)
            if outbound.kind != "unping":  # a line printed stays printed
                self._show(outbound)

    def _show(self, outbound: Outbound) -> None:
        head = "[genial]" if outbound.user is None else f"[genial -> {outbound.user}, privately]"
        pad = " " * 4
        lines = outbound.text.splitlines() or [""]
        self.out.write(f"{head} {lines[0]}\n")
        for line in lines[1:]:
            self.out.write(f"{pad}{line}\n")
        if outbound.attachment is not None:
            path = self._write(outbound)
            att = outbound.attachment
            what = "image" if att.is_image else "animation" if att.is_animation else "file"
            self.out.write(f"{pad}{what}: {path}\n")
        if outbound.buttons:
            shown = "  ".join(
                f"[{b.label}: {_VERSION.sub('', b.command)}]" for b in outbound.buttons
            )
            self.out.write(f"{pad}{shown}\n")
        link = self.links(outbound) if self.links is not None else None
        if link:
            self.out.write(f"{pad}web: {link}\n")
        self.out.flush()

    def _write(self, outbound: Outbound) -> str:
        attachment = outbound.attachment
        assert attachment is not None
        if self.images is None:
            return "(not saved)"
        folder = self._folder(outbound.chat)
        folder.mkdir(parents=True, exist_ok=True)
        # Numbered on from the images already there: a later session (or a game resumed
        # after a restart) never overwrites what an earlier one wrote.
        taken = [int(p.name[:4]) for p in folder.iterdir() if _NUMBERED.match(p.name)]
        number = max(taken, default=0) + 1
        who = f"{outbound.user}-" if outbound.user else ""
        path = folder / f"{number:04d}-{who}{attachment.filename}"
        path.write_bytes(attachment.data)
        return str(path)

    def _folder(self, chat: str) -> Path:
        """A folder per game (named by its seed, so a game resumed later goes on in its own
        folder); images from before any game in the images folder itself."""
        assert self.images is not None
        table = self.service.table(chat)
        if table is None or table.record is None:
            return self.images
        return self.images / f"game-{table.seed:016x}"
