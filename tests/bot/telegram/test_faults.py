"""Telegram misbehaves, the bot keeps its word: faults injected by the fake Bot API.

Every accepted move must be announced in the group exactly once: what the group holds is
read from the messages the fake actually kept (a timed-out or dropped request was carried
out all the same), and compared with the moves in the stored record. A table whose group
is gone for the bot is closed, and its computer players stop.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from bot.core import games
from bot.core.table import CLOSED, LOBBY, PLAYING
from bot.words.texts import squared
from tests.bot.helpers import Clock
from tests.bot.telegram import test_adapter as base
from tests.bot.telegram.fake_api import (
    ANY_CALL,
    DELETED,
    DROP,
    EDIT_ONLY,
    FLOOD,
    SAME,
    SERVER,
    TIMEOUT,
    FakeBotAPI,
    announced,
    bot_texts,
    told_in,
    told_moves,
)
from tests.bot.telegram.test_adapter import ADA, CAROL, DAN, GROUP, Room, start_bot

# The fake server and the bots' clean-up, as in the other Telegram tests.
api = base.api
stop_bots = base.stop_bots

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
OTHER = -1009999999
SENDING = frozenset(
    {
        "sendMessage",
        "sendPhoto",
        "sendDocument",
        "editMessageText",
        "editMessageReplyMarkup",
        "answerCallbackQuery",
        "getChatMember",
    }
)


def bot(api: FakeBotAPI, tmp_path: Path, **kw: Any) -> Room:
    # The bot's own timeouts (python-telegram-bot's): a timed-out answer is one the fake
    # marks as such, which the bot's HTTP client takes for a timeout at once (fake_api.LATE).
    # The service's clock moves by hand: play_out plays at a person's pace, so the group
    # has requests to spare for the edits (bot.telegram.pace) and they meet faults too.
    kw.setdefault("clock", Clock())
    return Room(api, start_bot(api, tmp_path / "t.db", **kw))


def expected(room: Room) -> list[str]:
    """What the group must have been told, worked out from the stored record: one line
    per move (RULES.md: a placement, a bonus placement, a swap decision)."""
    record = room.table().record
    assert record is not None
    return told_in(record)


def play_out(room: Room, rng: random.Random, limit: int = 400) -> int:
    """Ada and Carol play random legal moves until the game is over; returns the moves."""
    count = 0
    clock = room.runner.service.clock
    while room.table().status == PLAYING and count < limit:
        if isinstance(clock, Clock):
            clock.advance(60)  # a move a minute
        game = room.game()
        mover = room.mover()
        move = rng.choice(game.legal_moves())
        text = games.format_move(game, move)
        room.say(mover, f"/{text}" if text in ("swap", "keep") else f"/play {text}")
        count += 1
    return count


def seat_two(room: Room) -> None:
    room.say(ADA, "/join")
    room.say(CAROL, "/join")
    room.say(ADA, "/start")


def test_a_whole_game_under_mixed_faults_announces_each_move_once(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    room = bot(api, tmp_path)
    seat_two(room)
    # One request in eight fails, every kind on every method the bot sends (sendPhoto,
    # sendMessage, the edits, answerCallbackQuery, ...; getUpdates has tests of its own:
    # python-telegram-bot waits a second or more after each failed poll).
    api.chaos(0.125, seed=17, methods=SENDING)
    play_out(room, random.Random(5))
    room.runner.tick()  # whatever waited in an outbox goes now
    api.chaos(0, seed=0)
    assert room.table().status == LOBBY  # the game ended
    kinds = {fault for _method, fault in api.faults}
    assert set(ANY_CALL) <= kinds and kinds & set(EDIT_ONLY), kinds
    methods = {method for method, _fault in api.faults}
    assert {"sendPhoto", "editMessageReplyMarkup"} <= methods, methods
    texts = bot_texts(api, GROUP)
    told = announced(texts)
    assert len(told) > 20
    assert told == expected(room)
    # Each move as stored, in order: the notation the group read is the record's.
    record = room.table().record
    assert record is not None
    assert told_moves(texts) == list(record["moves"])
    assert sum(t.startswith("Game over") for t in texts) == 1


def test_a_finished_table_leaves_nothing_behind_in_the_adapter(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    room = bot(api, tmp_path, pictures=False)
    seat_two(room)
    api.chaos(0.125, seed=4, methods=SENDING)
    play_out(room, random.Random(8))
    room.runner.tick()  # whatever waited in an outbox goes now
    api.chaos(0, seed=0)
    assert room.table().status == LOBBY  # the game ended
    room.say(DAN, "/help", chat=DAN)  # someone else, elsewhere, after the game
    adapter = room.runner.adapter
    # No lock and no outbox of the group's table is kept once nothing is under way...
    assert adapter.locks._locks == {}
    assert adapter.outbox.origins == {} and adapter.outbox.held == set()
    # ... nothing waits in the stored outbox either: every letter was delivered...
    assert not room.runner.adapter.service.anything_waiting()
    # ... and python-telegram-bot's marks for a persistence the bot does not use hold only
    # the last update's chat and person, not everyone who ever wrote.
    app = adapter.api.app
    assert app._chat_ids_to_be_updated_in_persistence == {DAN}
    assert app._user_ids_to_be_updated_in_persistence == {DAN}


def test_a_timed_out_answer_is_a_timeout_to_the_bot_and_carried_out(api: FakeBotAPI) -> None:
    # What the bot meets under a timeout fault: python-telegram-bot's TimedOut, though
    # Telegram posted the message.
    import asyncio

    from telegram import Bot
    from telegram.error import TimedOut

    async def send() -> None:
        async with Bot(api.token, base_url=f"{api.base_url}/bot") as bot:
            await bot.send_message(GROUP, "hello")

    asyncio.run(send())  # the bot's getMe, and one message
    api.inject("sendMessage", TIMEOUT)
    with pytest.raises(TimedOut):
        asyncio.run(send())
    assert bot_texts(api, GROUP) == ["hello", "hello"]


def test_a_timed_out_board_is_not_posted_again(api: FakeBotAPI, tmp_path: Path) -> None:
    room = bot(api, tmp_path)
    seat_two(room)
    photos = len([c for c in api.of("sendPhoto") if c.chat == GROUP])
    api.inject("sendPhoto", TIMEOUT)
    game = room.game()
    room.say(room.mover(), f"/play {games.format_move(game, game.legal_moves()[0])}")
    # Telegram posted it though the bot never heard so: one request, one board.
    assert len([c for c in api.of("sendPhoto") if c.chat == GROUP]) == photos + 1
    assert announced(bot_texts(api, GROUP)) == ["placed"]
    # The game goes on: the next move is told in a message of its own.
    game = room.game()
    room.say(room.mover(), f"/play {games.format_move(game, game.legal_moves()[0])}")
    assert announced(bot_texts(api, GROUP)) == ["placed", "placed"]


def test_a_dropped_connection_does_not_double_a_message(api: FakeBotAPI, tmp_path: Path) -> None:
    room = bot(api, tmp_path, pictures=False)
    seat_two(room)
    api.inject("sendMessage", DROP)
    game = room.game()
    room.say(room.mover(), f"/play {games.format_move(game, game.legal_moves()[0])}")
    assert announced(bot_texts(api, GROUP)) == ["placed"]
    assert [c.status for c in api.of("sendMessage")][-1:] == [200]


def test_a_board_refused_for_long_waits_and_comes_in_order(api: FakeBotAPI, tmp_path: Path) -> None:
    room = bot(api, tmp_path)
    seat_two(room)
    # More 502s than the bot retries at once: the board waits in the table's outbox.
    api.inject("sendPhoto", SERVER, times=5)
    game = room.game()
    first = games.format_move(game, game.legal_moves()[0])
    room.say(room.mover(), f"/play {first}")
    assert len(room.game().moves) == 1  # the move was accepted and stored
    assert announced(bot_texts(api, GROUP)) == []  # but not told yet
    room.runner.tick()  # the clock tries again: Telegram is back
    texts = bot_texts(api, GROUP)
    assert announced(texts) == ["placed"]
    assert any(f"placed {squared(first)}" in t for t in texts)
    # A 429 and a 502 on the next board: the rate limiter waits, the bot retries.
    api.inject("sendPhoto", FLOOD)
    api.inject("sendPhoto", SERVER)
    game = room.game()
    second = games.format_move(game, game.legal_moves()[0])
    room.say(room.mover(), f"/play {second}")
    texts = bot_texts(api, GROUP)
    assert announced(texts) == ["placed", "placed"]
    order = [i for i, t in enumerate(texts) if "placed" in t]
    assert f"placed {squared(first)}" in texts[order[0]]
    assert f"placed {squared(second)}" in texts[order[1]]


def test_a_held_board_goes_out_before_the_next_one(api: FakeBotAPI, tmp_path: Path) -> None:
    room = bot(api, tmp_path, pictures=False)
    seat_two(room)
    # Every try of the first board fails, the clock's retries too (they run on the wall
    # clock: a busy machine may make them before the next move), until the server heals.
    api.inject("sendMessage", SERVER, times=10_000)
    game = room.game()
    first = games.format_move(game, game.legal_moves()[0])
    room.say(room.mover(), f"/play {first}")
    assert announced(bot_texts(api, GROUP)) == []
    api.heal("sendMessage")
    # The next move comes (before the clock looked, or after): both are told, the first
    # one first.
    game = room.game()
    second = games.format_move(game, game.legal_moves()[0])
    room.say(room.mover(), f"/play {second}")
    texts = [t for t in bot_texts(api, GROUP) if " placed " in t]
    assert len(texts) == 2
    assert f"placed {squared(first)}" in texts[0]
    assert f"placed {squared(second)}" in texts[1]


@pytest.mark.parametrize("fault", [TIMEOUT, DROP, SERVER, FLOOD])
def test_lost_updates_are_fetched_again_and_handled_once(
    api: FakeBotAPI, tmp_path: Path, fault: str
) -> None:
    room = bot(api, tmp_path)
    api.inject("getUpdates", fault)
    room.say(ADA, "/join")
    assert sum(t.startswith("Ada sits down.") for t in bot_texts(api, GROUP)) == 1


@pytest.mark.parametrize("fault", [TIMEOUT, DROP, SERVER])
def test_a_button_press_is_acted_on_once_however_its_answer_fares(
    api: FakeBotAPI, tmp_path: Path, fault: str
) -> None:
    room = bot(api, tmp_path)
    room.say(ADA, "/join")
    lobby = api.last_message(GROUP, "Join")
    api.inject("answerCallbackQuery", fault)
    update = room.press(CAROL, lobby, "Join")
    assert [s.name for s in room.table().seats] == ["Ada", "Carol"]
    assert "1. Ada\n2. Carol" in api.message(GROUP, lobby["message_id"])["text"]
    assert update in room.runner.handled


@pytest.mark.parametrize("fault", [SAME, DELETED, TIMEOUT, DROP])
def test_lobby_edits_that_fail_leave_one_current_lobby(
    api: FakeBotAPI, tmp_path: Path, fault: str
) -> None:
    room = bot(api, tmp_path)
    room.say(ADA, "/join")
    lobby = api.last_message(GROUP, "Join")
    api.inject("editMessageText", fault)
    room.say(CAROL, "/join")
    lobbies = [t for t in bot_texts(api, GROUP, deleted=False) if "1. Ada" in t]
    if fault == DELETED:
        # The lobby was deleted meanwhile: it is posted anew, once, with both players.
        assert (GROUP, lobby["message_id"]) not in api.messages
        assert len(lobbies) == 1 and "2. Carol" in lobbies[0]
    elif fault == SAME:
        # Telegram says it already shows that: nothing more is sent.
        assert len(lobbies) == 1
    else:
        # The edit was carried out; a resend finds it "not modified": still one lobby.
        assert len(lobbies) == 1 and "2. Carol" in lobbies[0]
    # And the table goes on: the next join edits the lobby there is.
    room.say(DAN, "/join")
    assert sum("3. Dan" in t for t in bot_texts(api, GROUP, deleted=False)) == 1


@pytest.mark.parametrize("fault", [SAME, DELETED, TIMEOUT, SERVER])
def test_old_buttons_that_cannot_be_taken_off_do_not_stop_the_game(
    api: FakeBotAPI, tmp_path: Path, fault: str
) -> None:
    room = bot(api, tmp_path, pictures=False)
    seat_two(room)
    api.inject("editMessageReplyMarkup", fault, times=5)
    for _ in range(2):
        game = room.game()
        room.say(room.mover(), f"/play {games.format_move(game, game.legal_moves()[0])}")
    assert announced(bot_texts(api, GROUP)) == ["placed", "placed"]


@pytest.mark.parametrize("gone", ["kicked", "deleted"])
def test_a_table_whose_group_is_gone_is_closed_and_its_computers_stop(
    api: FakeBotAPI, tmp_path: Path, gone: str
) -> None:
    pytest.importorskip("engine.ai")
    api.group(OTHER, "Other night")
    room = bot(api, tmp_path, pictures=False)
    room.say(ADA, "/join")
    room.say(ADA, "/addbot greedy")
    room.say(ADA, "/addbot greedy")
    room.say(ADA, "/start")
    room.say(DAN, "/join", chat=OTHER)  # another table, in another group
    while room.mover() != ADA:  # the computers moved first: Ada is to move now
        room.runner.tick()
    if gone == "kicked":
        api.kick(GROUP)
    else:
        api.delete_chat(GROUP)  # the group was deleted: "chat not found"
    calls = len(api.calls)
    game = room.game()
    # Ada moves from her private chat; the group is told (or would be).
    room.say(ADA, f"/play {games.format_move(game, game.legal_moves()[0])}", chat=ADA)
    table = room.table()
    assert table.status == CLOSED and table.seats == []
    moves = len(games.rebuild(table.record).moves) if table.record else 0
    # Nothing more is tried there: no computer moves, no messages, at the next looks.
    tried = len([c for c in api.calls[calls:] if c.chat == GROUP])
    for _ in range(3):
        room.runner.tick()
    assert room.runner.service.next_due() is None
    table = room.table()
    assert (len(games.rebuild(table.record).moves) if table.record else 0) == moves
    assert len([c for c in api.calls[calls:] if c.chat == GROUP]) == tried
    # The bot runs on: the other group's table answers.
    room.say(CAROL, "/join", chat=OTHER)
    assert any(t.startswith("Carol sits down.") for t in bot_texts(api, OTHER))


def test_a_player_who_blocked_the_bot_does_not_close_the_table(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    room = bot(api, tmp_path, pictures=False)
    api.block(CAROL)
    seat_two(room)  # Carol's rack is refused: "bot was blocked by the user"
    assert room.table().status == PLAYING
    notices = [t for t in bot_texts(api, GROUP) if "can't write to you privately" in t]
    assert len(notices) == 1 and notices[0].startswith("Carol, ")
    play_out(room, random.Random(3), limit=4)
    assert announced(bot_texts(api, GROUP)) == expected(room)


def test_a_private_table_whose_player_blocked_the_bot_is_closed(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    pytest.importorskip("engine.ai")
    clock = Clock()
    room = bot(api, tmp_path, pictures=False, clock=clock)
    room.say(ADA, "/join", chat=ADA)
    room.say(ADA, "/addbot greedy", chat=ADA)
    room.say(ADA, "/option timeout 1h", chat=ADA)
    room.say(ADA, "/start", chat=ADA)
    service = room.runner.service
    assert service.table(str(ADA)).status == PLAYING
    api.block(ADA)
    clock.advance(31 * 60)  # the reminder is due: Telegram refuses it
    room.runner.tick()
    table = service.table(str(ADA))
    assert table.status == CLOSED and table.seats == []
    assert service.next_due() is None  # no timeout, no computer move to come
