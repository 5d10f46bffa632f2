"""Issue 44, items 21-24 on Telegram (the fake Bot API): a group upgraded while a move is
being told, a person who never opened the private chat, a deleted or closed topic, and
the private chat in the person's language."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.core import games
from bot.core.config import Settings
from bot.service import Service
from bot.store.sqlite import SQLiteStore
from tests.bot.helpers import Clock
from tests.bot.telegram.fake_api import BotRunner, FakeBotAPI, buttons
from tests.patience import wait_until

TOKEN = "424242:AAHtestTOKENnever-shown_0123456789"
ADA, BOB, CAROL, DIETER = 101, 202, 303, 505
GROUP = -1001234567890
FORUM = -1009876543210

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


@pytest.fixture
def api() -> Iterator[FakeBotAPI]:
    api = FakeBotAPI(TOKEN).start()
    api.user(ADA, "Ada")
    api.user(CAROL, "Carol")
    api.user(BOB, "Bob", opened=False)  # Bob never opened the private chat with the bot
    api.user(DIETER, "Dieter")["language_code"] = "de-AT"  # his Telegram speaks German
    api.group(GROUP, "Genial night")
    api.group(FORUM, "Game club", forum=True)
    yield api
    api.close()


@pytest.fixture
def runner(api: FakeBotAPI, tmp_path: Path) -> Iterator[BotRunner]:
    def make_service(path: Path) -> Service:
        return Service(
            SQLiteStore(path), Settings(), rng=random.Random(3), clock=Clock(), pictures=True
        )

    runner = BotRunner(api, tmp_path / "t.db", make_service=make_service).start()
    yield runner
    runner.stop()


def say(api: FakeBotAPI, runner: BotRunner, chat: int, user: int, text: str) -> None:
    runner.wait(api.say(chat, user, text))


def test_a_group_upgraded_while_a_move_is_told_gets_each_message_once(
    api: FakeBotAPI, runner: BotRunner
) -> None:
    """Item 21: the move's board was refused in the old group (the table moved), and
    while it was being posted in the new one, the next player's move there delivered the
    same waiting letters again: the board and the rack came twice."""
    old, new = -7171, -1007171000000
    api.group(old, "Family", kind="group")
    service = runner.service
    for user, text in [(ADA, "/join"), (CAROL, "/join"), (ADA, "/start")]:
        say(api, runner, old, user, text)
    api.migrate(old, new, ADA, announce=False)
    api.stall(new)
    table = service.table(str(old))
    assert table is not None
    game = games.rebuild(table.record)
    mover = int(table.seats[game.to_move].user or 0)
    other = CAROL if mover == ADA else ADA
    first = api.say(mover, mover, f"/play {games.format_move(game, game.legal_moves()[0])}")
    # The board, refused in the old group, is being posted in the new one...
    wait_until(lambda: any(c.chat == new for c in api.held), "the board held in the new chat")
    racks_before = len(api.sent(other, "sendPhoto")) + len(api.sent(other, "sendMessage"))
    moved = service.table(str(new))
    assert moved is not None
    game = games.rebuild(moved.record)
    move = games.format_move(game, game.legal_moves()[0])
    # ... when the next player moves in the new chat: that command waits for the delivery
    # under way (or, as before, posts its letters a second time).
    second = api.say(new, other, f"/play {move}")
    locks = runner.adapter.locks._locks  # (lock, how many hold or wait for it) by table

    def second_move_waits_or_posts() -> bool:
        sharing = locks.get(str(old), (None, 0))[1] >= 2  # the old id's lock: both moves
        return sharing or sum(c.chat == new for c in api.held) >= 2

    wait_until(second_move_waits_or_posts, "the second move at the table")
    api.release(new)
    runner.wait(first, second)
    boards = [c.text for c in api.sent(new, "sendPhoto")]
    assert len(boards) == len(set(boards)) == 2, boards
    racks = api.sent(other, "sendPhoto") + api.sent(other, "sendMessage")
    assert len(racks) - racks_before == 1  # the rack of the first move's next player


@pytest.mark.parametrize("command", ["/games", "/mydata"])
def test_an_answer_for_someone_the_bot_cannot_write_to_says_what_to_do(
    api: FakeBotAPI, runner: BotRunner, command: str
) -> None:
    """Item 22: "Press My tiles" under which there was no My tiles button."""
    say(api, runner, GROUP, BOB, "/join")
    say(api, runner, GROUP, BOB, command)
    notice = api.last_message(GROUP)
    assert notice["text"] == (
        "Bob, I can't write to you privately yet, and this answer is for you alone: open the"
        " private chat with me once (the button below), then ask again."
    )
    assert [b["text"] for b in buttons(notice)] == ["Open my private chat"]


def topic_game(api: FakeBotAPI, runner: BotRunner) -> tuple[int, str]:
    """Carol and Ada at a table in the forum's topic "Monday", Carol to move: the topic's
    thread and the table's id."""
    monday = api.topic(FORUM, CAROL, "Monday")
    for who in (CAROL, ADA):
        runner.wait(api.say(FORUM, who, "/join", thread=monday))
    runner.wait(api.say(FORUM, CAROL, "/start", thread=monday))
    return monday, f"{FORUM}/{monday}"


def move_privately(api: FakeBotAPI, runner: BotRunner, table: str) -> None:
    """The player to move at ``table`` moves from their private chat with the bot."""
    t = runner.service.table(table)
    assert t is not None and t.record is not None
    game = games.rebuild(t.record)
    who = int(t.seats[game.to_move].user or 0)
    say(api, runner, who, who, f"/play {games.format_move(game, game.legal_moves()[0])}")


def private_texts(api: FakeBotAPI, user: int) -> list[str]:
    return [c.text for c in api.sent(user, "sendMessage")]


def test_a_deleted_topic_tells_its_players_privately(api: FakeBotAPI, runner: BotRunner) -> None:
    """Item 23: the table closed without a word when its topic was found deleted."""
    monday, table = topic_game(api, runner)
    api.delete_topic(FORUM, monday)
    move_privately(api, runner, table)
    table_row = runner.service.table(table)
    assert table_row is not None and table_row.status == "closed"
    gone = (
        "I can no longer post at table Game club › Monday (its topic was deleted, or I was"
        " removed from the group), so its game has ended. To play again, /join where I can"
        " post."
    )
    for who in (ADA, CAROL):
        assert private_texts(api, who).count(gone) == 1
    assert runner.service.playing_tables(str(ADA)) == []


def test_a_closed_topic_tells_its_players_privately_once(
    api: FakeBotAPI, runner: BotRunner
) -> None:
    """Item 23: boards held in a closed topic without a word to anyone."""
    monday, table = topic_game(api, runner)
    runner.wait(api.close_topic(FORUM, monday, CAROL))
    closed = (
        "The topic of table Game club › Monday was closed, so nothing can be posted there:"
        " the game is kept, and its boards wait until an admin reopens the topic."
    )
    move_privately(api, runner, table)
    move_privately(api, runner, table)
    for who in (ADA, CAROL):
        assert private_texts(api, who).count(closed) == 1
    runner.wait(api.reopen_topic(FORUM, monday, CAROL))
    assert not runner.service.anything_waiting()
    # Closed again, without the bot hearing of it: the refused board tells them again.
    api.closed_topics.add((FORUM, monday))
    move_privately(api, runner, table)
    for who in (ADA, CAROL):
        assert private_texts(api, who).count(closed) == 2


def test_the_private_greeting_speaks_the_persons_language(
    api: FakeBotAPI, runner: BotRunner
) -> None:
    """Item 24: Dieter's Telegram is in German (its menu too): his /start in the private
    chat, where no table sets a language, is answered in German."""
    say(api, runner, DIETER, DIETER, "/start")
    assert private_texts(api, DIETER)[-1].startswith(
        "Hallo Dieter! Ich leite Partien Einfach Genial in Gruppen"
    )
    # A deep link to a table that is gone: the same.
    say(api, runner, DIETER, DIETER, "/start t-100555")
    assert private_texts(api, DIETER)[-1].startswith("Deine Steine für ")
    # Ada's Telegram is in English.
    say(api, runner, ADA, ADA, "/start")
    assert private_texts(api, ADA)[-1].startswith("Hello Ada!")
