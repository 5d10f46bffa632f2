"""The console adapter: a chat room in the terminal.

You are one person in the room; ``/join bot`` seats computer opponents. Images are written
to a folder and their paths printed. Lines like ``alice: /join`` speak for someone else, so
scripts and tests can play as several people; the room reads standard input until its end.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

from bot.outbound import Chat, Outbound, User
from bot.service import Service
from bot.table import PLAYING
from bot.texts import Texts

CHAT = Chat("console", "console")
_SPEAKER = re.compile(r"([\w.-]{1,32})\s*:\s*(/.*)")
_VERSION = re.compile(r"\s+#\d+$")
QUIT = frozenset({"/quit", "/exit"})


class Console:
    """Feeds lines to the service as chat commands and prints what the bot says."""

    def __init__(
        self,
        service: Service,
        me: User,
        images: Path | None,
        out: TextIO = sys.stdout,
        chat: Chat = CHAT,
    ) -> None:
        self.service = service
        self.me = me
        self.images = images
        self.out = out
        self.chat = chat
        self._written = 0

    def welcome(self) -> None:
        texts = Texts(self.service.settings.language)
        self.out.write(texts("console.welcome", name=self.me.name) + "\n")
        if self.images is not None:
            self.out.write(texts("console.images", images=self.images) + "\n")
        self.out.flush()

    def resume(self) -> None:
        """A game left running in the store (an earlier session) is shown again."""
        table = self.service.table(self.chat.id)
        if table is None or table.status != PLAYING:
            return
        self.say("/board")
        if table.seat_of(self.me.id) is not None:
            self.say("/hand")

    def run(self, lines: Iterable[str]) -> int:
        """Handle every line until the input ends (or ``/quit``); returns the exit status."""
        for raw in lines:
            line = raw.strip()
            if not line:
                continue
            if line.lower() in QUIT:
                break
            self.say(line)
        return 0

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
        head = "[genial]" if outbound.user is None else f"[genial -> {outbound.user}, privately]"
        pad = " " * 4
        lines = outbound.text.splitlines() or [""]
        self.out.write(f"{head} {lines[0]}\n")
        for line in lines[1:]:
            self.out.write(f"{pad}{line}\n")
        if outbound.attachment is not None:
            path = self._write(outbound)
            self.out.write(f"{pad}{'image' if outbound.attachment.is_image else 'file'}: {path}\n")
        if outbound.buttons:
            shown = "  ".join(
                f"[{b.label}: {_VERSION.sub('', b.command)}]" for b in outbound.buttons
            )
            self.out.write(f"{pad}{shown}\n")
        self.out.flush()

    def _write(self, outbound: Outbound) -> str:
        attachment = outbound.attachment
        assert attachment is not None
        if self.images is None:
            return "(not saved)"
        self.images.mkdir(parents=True, exist_ok=True)
        self._written += 1
        who = f"{outbound.user}-" if outbound.user else ""
        path = self.images / f"{self._written:04d}-{who}{attachment.filename}"
        path.write_bytes(attachment.data)
        return str(path)
