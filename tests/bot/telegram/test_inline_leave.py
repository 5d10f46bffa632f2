"""Leaving an inline table by its Leave button (issue 49): the table's one message has no
chat where /leave could be typed, so a seated player leaves the lobby, or gives up their
seat in a running game, by the button, as /leave does at a group's table (no confirming
step there either): before the start the seat is gone, during the game a computer player
takes it over. A press by someone not seated is answered on the button only.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.core import games
from bot.core.table import LOBBY, PLAYING
from tests.bot.telegram.fake_api import FakeBotAPI
from tests.bot.telegram.inline_world import (
    ADA,
    BOB,
    CAROL,
    DAN,
    Chat,
    labels,
    make_api,
    start_bot,
    stop_bots,
)

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
NOT_SEATED = "You are not seated at this table."


@pytest.fixture
def api() -> Iterator[FakeBotAPI]:
    api = make_api()
    yield api
    stop_bots()
    api.close()


def test_a_player_leaves_the_lobby_by_the_button(api: FakeBotAPI, tmp_path: Path) -> None:
    chat = Chat(api, start_bot(api, tmp_path / "t.db"))
    chat.offer(ADA, "party")
    chat.press(BOB, "Join")
    chat.press(CAROL, "Join")
    assert "Leave" in labels(chat.message())
    edits = len(api.of("editMessageText"))

    # Dan sits nowhere: told so on the button, the message as it was.
    before = chat.message()
    answer = chat.press(DAN, "Leave")
    assert answer["text"] == NOT_SEATED
    assert answer.get("show_alert") in (None, False)
    assert chat.message() == before

    # Bob leaves: the same message, edited, says so and seats Ada and Carol.
    answer = chat.press(BOB, "Leave")
    assert "text" not in answer
    lobby = chat.shown()
    assert "Bob leaves the table." in lobby
    assert "1. Ada\n2. Carol\n" in lobby and "Bob\n" not in lobby.split("leaves")[1]
    assert [s.user for s in chat.table().seats] == [str(ADA), str(CAROL)]
    assert len(api.of("editMessageText")) == edits + 1
    assert api.sent() == []  # nothing posted: the bot is no member of that chat

    # The host leaves too: Carol hosts now and starts with Bob, back by Join.
    chat.press(ADA, "Leave")
    assert chat.table().host == str(CAROL)
    chat.press(BOB, "Join")
    answer = chat.press(ADA, "Start")
    assert answer["text"] == "Only the host (Carol) or a chat admin may do that."
    assert chat.table().status == LOBBY
    chat.press(CAROL, "Start")
    assert chat.table().status == PLAYING


def test_a_player_gives_up_a_running_game_by_the_button(api: FakeBotAPI, tmp_path: Path) -> None:
    """Bob gives up while it is Ada's turn: a computer player takes his seat, said above
    the turn, which keeps its buttons; then Ada's move is answered by the computer at
    once, and Bob, seated nowhere now, is told so if he presses again."""
    chat = Chat(api, start_bot(api, tmp_path / "t.db", level="random"))
    chat.offer(ADA, "pair")
    chat.press(BOB, "Join")
    assert chat.table().status == PLAYING
    if chat.mover() != ADA:  # Ada moves first in this test: Bob plays once
        game = chat.game()
        move = random.Random(2).choice(game.legal_moves())
        chat.say(BOB, f"/play {games.format_move(game, move)}")
    assert chat.mover() == ADA
    turn = chat.shown()
    assert "Leave" in labels(chat.message())

    assert chat.press(DAN, "Leave")["text"] == NOT_SEATED
    assert chat.shown() == turn

    chat.press(BOB, "Leave")
    told, _, below = chat.shown().partition("\n\n")
    assert told == "Bob leaves the table.\nA computer player takes over the seat of Bob."
    assert below == turn
    bob = chat.table().seats[1]
    assert (bob.computer, bob.left, bob.left_user) == (True, True, str(BOB))
    assert {"Leave", "My tiles"} <= set(labels(chat.message()))
    assert chat.press(BOB, "Leave")["text"] == NOT_SEATED

    game = chat.game()
    moves = len(game.moves)
    move = random.Random(3).choice(game.legal_moves())
    chat.say(ADA, f"/play {games.format_move(game, move)}")
    game = chat.game()
    # Ada's placement, then (unless she earned a bonus placement or a swap) the
    # computer's in Bob's seat at once: her turn again either way.
    assert len(game.moves) >= moves + 1
    assert chat.mover() == ADA
    assert "Bob (computer)" in chat.shown()


def test_leaving_on_ones_own_turn_hands_it_to_the_computer(api: FakeBotAPI, tmp_path: Path) -> None:
    chat = Chat(api, start_bot(api, tmp_path / "t.db", level="random"))
    chat.offer(ADA, "pair")
    chat.press(BOB, "Join")
    mover = chat.mover()
    other = BOB if mover == ADA else ADA
    moves = len(chat.game().moves)
    chat.press(mover, "Leave")
    # The computer in the leaver's seat played at once: the other player's turn now.
    assert len(chat.game().moves) > moves
    assert chat.mover() == other
    assert chat.table().seat_of(str(mover)) is None
