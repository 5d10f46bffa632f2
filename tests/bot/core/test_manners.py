"""Manners in a busy group (issue 16, part 2, the service's side): one public message per
person's turn, short errors without control or bidi characters, clear words, and a console
whose clock runs while it waits for input."""

from __future__ import annotations

import io
import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.console import Console
from bot.core import games
from bot.core.outbound import Chat, User
from render import Told, board_png
from tests.bot.helpers import START, Clock, Room, make_service
from tests.patience import wait_until

# --- one public message per person's turn -----------------------------------------------


def team_room(tmp_path: Path, pictures: bool) -> Room:
    """Ada against three computer players in the team game (Ada and Computer 2 a team)."""
    room = Room(make_service(tmp_path / "t.db", seed=5, pictures=pictures))
    room.ok("Ada", "/join")
    for _ in range(3):
        room.ok("Ada", "/addbot random")
    room.ok("Ada", "/option team on")
    room.ok("Ada", "/start")
    return room


def test_a_team_game_posts_one_public_message_per_person_move(tmp_path: Path) -> None:
    room = team_room(tmp_path, pictures=False)
    rng = random.Random(8)
    turns = 0
    while room.playing() and turns < 12:
        before = len(room.game().moves)
        out = room.play_turn(rng)
        turns += 1
        public = [o for o in out if o.user is None]
        game = room.game()
        if game.over:
            assert [o.kind for o in public] == ["turn", "result"]
            break
        # Ada's move and the three computer turns after it: one message, naming Ada last.
        assert [o.kind for o in public] == ["turn"], [o.text for o in public]
        (told,) = public
        lines = told.text.splitlines()
        assert lines[0].startswith("Ada ")
        placed = [line for line in lines if " placed " in line or "bonus placement," in line]
        movers = {line.split(" placed ")[0].split(" made a ")[0] for line in placed}
        if game.to_move == 0 and len(game.moves) - before > 1:
            assert {"Computer 1", "Computer 2", "Computer 3"} <= movers
        assert told.mentions == ("id-ada",)
        assert lines[-2] in ("Ada, your turn.", "Ada, place again: bonus placement.") or (
            lines[-2].startswith("Ada may swap")
        )
        assert re.fullmatch(r"\d+ tiles? left in the bag\.", lines[-1])
    assert turns >= 5


def test_the_one_board_marks_every_placement_told(tmp_path: Path) -> None:
    room = team_room(tmp_path, pictures=True)
    game = room.game()
    move = games.format_move(game, game.legal_moves()[0])
    out = room.ok("Ada", f"/play {move}")
    public = [o for o in out if o.user is None]
    (told,) = public
    assert told.attachment is not None and told.attachment.is_image
    game = room.game()
    assert len(game.moves) >= 4  # Ada's and the three computers' placements
    # The board with the engine's last placement only differs from the one sent: the
    # earlier placements of the message are marked too.
    names = ["Ada", "Computer 1", "Computer 2", "Computer 3"]
    plain = board_png(game.view(None), names=names)
    assert told.attachment.data != plain
    # Every move so far is Ada's first and the computers' answers: all are marked.
    cells = []
    for text in game.moves:
        parts = text.split()
        if len(parts) == 3:
            cells += [game.area.parse_label(parts[1]), game.area.parse_label(parts[2])]
    # Numbered in order in their seats' colours (seats 1 to 4 moved in turn), with a legend.
    numbered = [Told(k, cells[2 * k], cells[2 * k + 1]) for k in range(len(cells) // 2)]
    view = game.view(None)
    assert told.attachment.data == board_png(view, names=names, highlight=cells, told=numbered)
    assert told.attachment.data != board_png(view, names=names, highlight=cells)


# --- short errors -----------------------------------------------------------------------


@pytest.fixture
def started(tmp_path: Path) -> Room:
    room = Room(make_service(tmp_path / "t.db", seed=3))
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    return room


def test_a_huge_move_is_quoted_short(started: Room) -> None:
    answer = started.error("Ada", "/play " + "Z" * 4000)
    assert answer.startswith(f"I can't read {'Z' * 39}… as a move.")
    assert len(answer) < 200


def test_control_format_and_bidi_characters_are_never_echoed(started: Room) -> None:
    answer = started.error("Ada", "/play R\u202eG\x07 A2\u200f A3\u2066")
    assert answer.startswith("I can't read RG A2 A3 as a move.")
    for ch in "\u202e\x07\u200f\u2066":
        assert ch not in answer
    unknown = started.error("Bob", "/dance\u202eecnad")
    assert unknown == "I don't know /danceecnad. /help lists the commands."


def test_display_names_are_cleaned_once(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    room.people["Eve"] = User("id-eve", "Eve\u202e" + "x" * 200)
    (out,) = room.ok("Eve", "/join")
    seat = room.table().seats[0]
    assert "\u202e" not in seat.name and len(seat.name) == 48
    assert out.text.splitlines()[0] == f"{seat.name} sits down."


# --- words --------------------------------------------------------------------------------


def test_the_start_rack_tells_who_starts(started: Room) -> None:
    racks = [o for o in started.log if o.kind == "rack"]
    ada = next(o for o in racks if o.user == "id-ada")
    bob = next(o for o in racks if o.user == "id-bob")
    assert ada.text.splitlines()[-1].startswith("Play with /play")
    assert bob.text.splitlines()[-1] == "Ada starts; your turn comes in seat order."


# --- the console's clock runs while it waits ----------------------------------------------


def test_the_console_acts_on_a_timeout_while_idle(tmp_path: Path) -> None:
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    out = io.StringIO()
    room = Console(service, User("ada", "ada"), None, out, Chat("console", "console"), 0.02)

    def wait_for(text: str) -> None:
        wait_until(lambda: text in out.getvalue(), f"the console's {text!r}")

    def lines() -> Iterator[str]:
        yield from ["/join", "bob: /join", "/option timeout 1m", "/start"]
        # (The lines are read ahead: the clock moves once the console has started the game.)
        wait_for("The game begins")
        # Nobody types: at half time the console reminds, at the end it moves by itself.
        clock.now = START + 30
        wait_for("it is your turn at console")
        clock.now = START + 61
        wait_for("Time is up for ada")

    assert room.run(lines()) == 0
    text = out.getvalue()
    assert "[genial] ada, it is your turn at console: 30s left, then a computer" in text
    assert "[genial] Time is up for ada: a computer player makes this turn for them.\n" in text
    assert len(games.rebuild(service.store.load("console").record).moves) >= 1


# --- the cells offered for a placement ----------------------------------------------------


def test_offered_cells_follow_each_seats_first_round(started: Room) -> None:
    service = started.service
    ada = service.seat_look("chat-1", "id-ada")
    assert ada is not None and ada.my_turn
    # B4 touches no start symbol (RULES.md: a first tile must touch one): not offered.
    assert "B4" not in ada.cells and ada.partners("h1") == ("G1",)
    started.ok("Ada", "/play 1 B2 A2")
    # Ada has placed: off her turn, every free pair is hers to plan with, B4 included.
    ada = service.seat_look("chat-1", "id-ada")
    assert ada is not None and not ada.my_turn
    assert ada.partners("B4") == ("A3", "A4", "B3", "B5", "C4", "C5")
    bob = service.seat_look("chat-1", "id-bob")
    assert bob is not None and bob.my_turn
    assert "B4" not in bob.cells and "A3" not in bob.cells
