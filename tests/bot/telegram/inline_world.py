"""The world of the inline-mode tests (issue 49): the fake Bot API with four friends and
the operator's media chat, a bot started on a store, and the chat where the friends play
in one inline message (the bot not a member of it)."""

from __future__ import annotations

import random
import re
import time
from pathlib import Path
from typing import Any

from bot.core import games
from bot.core.config import Settings, TelegramSettings, WebSettings
from bot.core.table import Table
from bot.service import Service
from bot.store.sqlite import SQLiteStore
from bot.telegram import limits as fmt
from tests.bot.helpers import Clock
from tests.bot.telegram.fake_api import BotRunner, FakeBotAPI, buttons

TOKEN = "424242:AAHtestTOKENnever-shown_0123456789"
ADA, BOB, CAROL, DAN = 101, 202, 303, 404
NAMES = {ADA: "Ada", BOB: "Bob", CAROL: "Carol", DAN: "Dan"}
#: The operator's private channel, where boards are uploaded for inline messages.
MEDIA = -1009999999999
#: A rack as the bot writes it ("1 🟥🟩  2 🟦🟦 ..."): never in the inline message.
RACK_TEXT = re.compile("\\b1 [\U0001f7e5-\U0001f7eb]{2}  2 [\U0001f7e5-\U0001f7eb]{2}")
TYPED = "I'm not a member of this chat, so commands typed here don't reach me"

_RUNNING: list[BotRunner] = []


def make_api() -> FakeBotAPI:
    """The fake Bot API with the media chat and four friends (Carol never opened the
    private chat with the bot)."""
    api = FakeBotAPI(TOKEN).start()
    api.group(MEDIA, "Genial boards", kind="channel")
    for user, name in NAMES.items():
        api.user(user, name, opened=user != CAROL)
    return api


def stop_bots() -> None:
    """Stop every bot :func:`start_bot` started (a test's end)."""
    while _RUNNING:
        _RUNNING.pop().stop()


def start_bot(
    api: FakeBotAPI,
    db: Path,
    seed: int = 3,
    media: int = MEDIA,
    clock: Clock | None = None,
    web: WebSettings | None = None,
    level: str | None = None,
) -> BotRunner:
    telegram = TelegramSettings(base_url=api.base_url, media_chat=media)
    extra = {"level": level} if level is not None else {}

    def make_service(path: Path) -> Service:
        return Service(
            SQLiteStore(path),
            Settings(telegram=telegram, web=web or WebSettings(), **extra),
            rng=random.Random(seed),
            clock=clock or time.time,
        )

    runner = BotRunner(api, db, make_service=make_service, telegram=telegram)
    _RUNNING.append(runner)
    return runner.start()


class Chat:
    """The chat where friends play in one inline message, the bot not a member."""

    def __init__(self, api: FakeBotAPI, runner: BotRunner) -> None:
        self.api = api
        self.runner = runner
        self.inline_id = ""

    def offer(self, user: int, choice: str) -> str:
        """``user`` types the bot's name and sends the game ``choice``; the message's id."""
        query = self.api.inline_query(user)
        self.runner.wait(query)
        chosen, self.inline_id = self.api.choose(user, query, choice)
        if chosen is not None:
            self.runner.wait(chosen)
        return self.inline_id

    def message(self) -> dict[str, Any]:
        return self.api.inline_message(self.inline_id)

    def shown(self) -> str:
        message = self.message()
        return str(message.get("text") or message.get("caption") or "")

    def label_for(self, command: str) -> str:
        """The label of the message's button that sends ``command``."""
        found = [
            b["text"] for b in buttons(self.message()) if command in b.get("callback_data", "")
        ]
        assert found, f"no button for {command!r}"
        return str(found[0])

    def press(self, user: int, label: str) -> dict[str, Any]:
        """``user`` presses ``label`` on the message; how the bot answered the press."""
        update = self.api.press_inline(user, self.inline_id, label)
        self.runner.wait(update)
        return self.api.answer(update)

    def say(self, user: int, text: str) -> None:
        """``user`` types ``text`` in their private chat with the bot."""
        update = self.api.say(user, user, text)
        self.runner.wait(update)

    @property
    def table_id(self) -> str:
        return fmt.inline_table(self.inline_id)

    def table(self) -> Table:
        table = self.runner.service.table(self.table_id)
        assert table is not None
        return table

    def game(self) -> Any:
        record = self.table().record
        assert record is not None
        return games.rebuild(record)

    def mover(self) -> int:
        seat = self.table().seats[self.game().to_move]
        assert seat.user is not None
        return int(seat.user)


def labels(message: dict[str, Any]) -> list[str]:
    return [b["text"] for b in buttons(message)]
