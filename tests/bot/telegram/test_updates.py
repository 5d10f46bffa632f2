"""Telegram's updates in (bot/telegram/updates.py) where the simple path does not reach: a
move from the private chat of someone at several tables, a command the service fails on,
and a button whose data the bot cannot read. End to end through the fake Bot API, as in
test_adapter."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.core import games
from bot.core.config import Settings
from bot.service import Service
from bot.store.sqlite import SQLiteStore
from tests.bot.telegram.fake_api import BotRunner, FakeBotAPI

TOKEN = "424242:AAHtestTOKENnever-shown_0123456789"
NIGHT, CLUB = -1001234567890, -1005555555555
ADA, CAROL = 101, 303
pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


@pytest.fixture
def api() -> Iterator[FakeBotAPI]:
    api = FakeBotAPI(TOKEN).start()
    api.group(NIGHT, "Genial night")
    api.group(CLUB, "Game club")
    api.user(ADA, "Ada")
    api.user(CAROL, "Carol")
    yield api
    api.close()


@pytest.fixture
def runner(api: FakeBotAPI, tmp_path: Path) -> Iterator[BotRunner]:
    def make_service(path: Path) -> Service:
        return Service(
            SQLiteStore(path), Settings(), rng=random.Random(3), clock=time.time, pictures=False
        )

    runner = BotRunner(api, tmp_path / "t.db", make_service=make_service).start()
    yield runner
    runner.stop()


def say(api: FakeBotAPI, runner: BotRunner, chat: int, user: int, text: str) -> None:
    runner.wait(api.say(chat, user, text))


def move_text(runner: BotRunner, chat: int) -> tuple[int, str, int]:
    """Who is to move at the table of ``chat``, a legal placement of theirs as typed, and
    the number of moves in the record."""
    table = runner.service.table(str(chat))
    assert table is not None and table.record is not None
    game = games.rebuild(table.record)
    placement = next(m for m in game.legal_moves() if games.format_move(game, m) not in ("swap",))
    mover = int(table.seats[game.to_move].user or 0)
    return mover, games.format_move(game, placement), len(table.record["moves"])


def test_a_move_from_the_private_chat_goes_where_it_is_my_turn_or_asks_which(
    api: FakeBotAPI, runner: BotRunner
) -> None:
    for chat in (NIGHT, CLUB):
        say(api, runner, chat, ADA, "/join")
        say(api, runner, chat, CAROL, "/join")
        say(api, runner, chat, ADA, "/start")
        mover, move, _ = move_text(runner, chat)
        if mover == CAROL:  # Carol begins here: she moves, and it is Ada's turn
            say(api, runner, chat, CAROL, f"/play {move}")
        assert move_text(runner, chat)[0] == ADA
    # Ada's turn at both tables: a move sent privately could be for either; she is asked.
    _, move, before = move_text(runner, NIGHT)
    say(api, runner, ADA, ADA, f"/play {move}")
    asked = api.sent(ADA, "sendMessage")[-1].text
    assert asked == (
        "You play at several tables (Genial night, Game club): send this where the table"
        " you mean is played."
    )
    assert [move_text(runner, c)[2] for c in (NIGHT, CLUB)] == [before, before]
    # She moves at the club: now it is her turn at the night's table only, and a move
    # sent privately is played there.
    _, move, _ = move_text(runner, CLUB)
    say(api, runner, CLUB, ADA, f"/play {move}")
    assert move_text(runner, CLUB)[0] == CAROL
    _, move, before = move_text(runner, NIGHT)
    say(api, runner, ADA, ADA, f"/play {move}")
    assert move_text(runner, NIGHT)[2] == before + 1
    assert move_text(runner, NIGHT)[0] == CAROL


def test_a_command_the_service_fails_on_is_answered(
    api: FakeBotAPI, runner: BotRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kw: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(runner.service, "handle", broken)
    say(api, runner, NIGHT, ADA, "/join")
    assert api.sent(NIGHT, "sendMessage")[-1].text == (
        "Something went wrong on my side. Please try again."
    )
    monkeypatch.undo()
    say(api, runner, NIGHT, ADA, "/join")  # and the next command is carried out
    assert api.sent(NIGHT, "sendMessage")[-1].text.startswith("Ada sits down.")


def test_a_button_the_bot_cannot_read_is_answered_as_stale(
    api: FakeBotAPI, runner: BotRunner
) -> None:
    say(api, runner, NIGHT, ADA, "/join")
    lobby = api.last_message(NIGHT, "Start")
    update = api.press_data(ADA, lobby, "not a button of ours")
    runner.wait(update)
    assert api.answer(update)["text"] == "This button is from an earlier turn; nothing changed."
    assert api.answer(update)["show_alert"] is False
