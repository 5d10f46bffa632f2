"""The turn flow: what a move's message says, bonus placements, the swap offer and its
buttons, stale and duplicated commands, and every kind of bad move."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from bot.core import games
from bot.core.table import PLAYING, Seat, Table
from bot.words.texts import COLOUR_SQUARES, squared
from engine.tiles import TILE_KINDS
from tests.bot.helpers import Clock, Room, make_service, user

#: Every test here runs on SQLite and on PostgreSQL (tests/bot/conftest.py).
pytestmark = pytest.mark.usefixtures("backend")

STALE = "This button is from an earlier turn; nothing changed."


def seeded_room(tmp_path: Path, shared: Path, example: str, upto: int, names: list[str]) -> Room:
    """A table in the middle of a sample game: the record's first ``upto`` moves played."""
    record = json.loads((shared / "examples" / f"{example}.json").read_text())
    record["moves"] = record["moves"][:upto]
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    table = Table(
        chat="chat-1",
        title="Test room",
        version=100,
        status=PLAYING,
        host=user(names[0]).id,
        seats=[Seat(n, user(n).id) for n in names],
        record=record,
        seed=7,
        turn_started=clock(),
    )
    service.store.save(table, None)
    room = Room(service)
    for n in names:
        room.person(n)
    return room


def test_a_move_message(tmp_path: Path, shared: Path) -> None:
    room = seeded_room(tmp_path, shared, "01-genial-standard-2p", 25, ["Ada", "Bob"])
    chat, rack = room.ok("Ada", "/play RO B7 C8")
    assert chat.user is None and chat.kind == "turn"
    assert chat.text.splitlines() == [
        "Ada placed \U0001f7e5\U0001f7e7 B7 C8: +2 orange.",
        "Bob, your turn.",
        "85 tiles left in the bag.",
    ]
    assert chat.mentions == ("id-bob",)
    # The next player gets their rack, privately, with the table named.
    assert rack.kind == "rack" and rack.user == "id-bob"
    assert rack.text.splitlines()[0].startswith("Your tiles at Test room: 1 ")


def test_bonus_placement_prompts_the_same_player(tmp_path: Path, shared: Path) -> None:
    room = seeded_room(tmp_path, shared, "01-genial-standard-2p", 26, ["Ada", "Bob"])
    chat, rack = room.ok("Bob", "/play OY J6 I6")
    assert chat.text.splitlines() == [
        "Bob placed \U0001f7e7\U0001f7e8 J6 I6: +1 orange, +5 yellow.",
        "Genial! 18 in yellow: bonus placement.",
        "Bob, place again: bonus placement.",
        "85 tiles left in the bag.",  # no refill between placements of a turn
    ]
    assert chat.mentions == ("id-bob",)
    assert rack.user == "id-bob"
    # The rack shrank to five tiles, the bonus placement comes from them.
    assert rack.text.splitlines()[0].count("  ") == 4
    game = room.game()
    double_blue = next(m for m in game.legal_moves() if m.tile.name == "BB")
    text = games.format_move(game, double_blue)
    (chat, *_) = room.ok("Bob", f"/play {text}")
    assert chat.text.splitlines()[0].startswith(f"Bob made a bonus placement, {squared(text)}:")


def test_points_over_the_cap_are_told(tmp_path: Path, shared: Path) -> None:
    # Team game, move 53: BB makes 10 blue, but the team's blue track stops at 18 (from 16).
    room = seeded_room(tmp_path, shared, "05-genial-team-4p", 52, ["Ada", "Bob", "Cy", "Dee"])
    chat, _ = room.ok("Dee", "/play BB G14 H15")
    assert chat.text.splitlines()[:3] == [
        # The track stood at 16: +2 reaches the top (18), the rest of the 10 is lost.
        "Dee placed \U0001f7e6\U0001f7e6 G14 H15: blue 18 (+2, capped).",
        "Genial! 18 in blue: bonus placement.",
        "Dee, place again: bonus placement.",
    ]


def test_swap_offer_with_buttons(tmp_path: Path, shared: Path) -> None:
    room = seeded_room(tmp_path, shared, "01-genial-standard-2p", 13, ["Ada", "Bob"])
    chat, rack = room.ok("Bob", "/play BP C4 C5")
    version = room.table().version
    assert chat.text.splitlines()[:2] == [
        "Bob placed \U0001f7e6\U0001f7ea C4 C5: +2 blue, +1 purple.",
        "Bob may swap: no tile on the rack shows the lowest colour (green). /swap or /keep",
    ]
    swap, keep = chat.buttons[:2]
    assert (swap.label, swap.command) == ("Swap", f"/swap #{version}")
    assert (keep.label, keep.command) == ("Keep", f"/keep #{version}")
    assert rack.user == "id-bob"
    assert rack.text.splitlines() == [
        # Tiles as coloured squares (issue 44, item 32): RO, BY, RP, RY, OO.
        "Your tiles at Test room: 1 🟥🟧  2 🟦🟨  3 🟥🟪  4 🟥🟨  5 🟧🟧",
        "You may swap all tiles now: /swap, or /keep them.",
    ]
    assert [b.command for b in rack.buttons] == [f"/swap #{version}", f"/keep #{version}"]
    # Only Bob decides; placing first is not possible.
    assert room.error("Ada", keep.command) == "It is not your turn: Bob is to move."
    assert room.error("Bob", "/play 1 E5 E6") == "First decide on the swap: /swap or /keep."
    chat, _ = room.ok("Bob", keep.command)
    assert chat.text.splitlines()[:2] == ["Bob kept the tiles.", "Ada, your turn."]
    # A second press, on either button of the old message, is stale.
    assert room.error("Bob", keep.command) == STALE
    assert room.error("Bob", swap.command) == STALE
    assert room.error("Ada", "/swap") == (
        "No swap is offered now: /swap and /keep answer the offer after a turn."
    )


def test_duplicated_start_press(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Ada", "/join")
    (lobby,) = room.ok("Bob", "/join")
    start = next(b for b in lobby.buttons if b.label == "Start")
    room.ok("Bob", start.command)
    # The lobby's old Start button says what happened, not "from an earlier turn".
    assert room.error("Bob", start.command) == (
        "The game has already started; that button was for the lobby."
    )
    assert room.error("Ada", "/start") == (
        "A game is running: that is possible before the start only."
    )


@pytest.fixture
def first_turn(tmp_path: Path) -> Room:
    """A fresh 2-player game; Ada places the first tile."""
    room = Room(make_service(tmp_path / "t.db", seed=2))
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    return room


# A2 and B2 both touch the red start symbol at A1; C3 and C4 touch no start symbol.
@pytest.mark.parametrize(
    ("text", "answer"),
    [
        (
            "/play RG A2",
            "I can't read RG A2 as a move. Type a tile and two cells, like"
            " /play RG A2 B3, or a rack slot: /play 1 A2 B3.",
        ),
        (
            "/play hello",
            "I can't read hello as a move. Type a tile and two cells, like"
            " /play RG A2 B3, or a rack slot: /play 1 A2 B3.",
        ),
        (
            "/play XG A2 B2",
            "X is not a colour: use R (red), G (green), B (blue),"
            " O (orange), Y (yellow), P (purple).",
        ),
        ("/play 7 A2 B2", "There is no tile in slot 7 of your rack: /hand shows your tiles."),
        (
            "/play 1 A2 A2",
            "{same} names the same cell twice: a tile covers two neighbouring cells.",
        ),
        (
            "/play 1 A2 A4",
            "The two cells of {far} do not touch: a tile covers two neighbouring cells.",
        ),
        ("/play 1 A1 A2", "A1 is a start symbol: place on two empty cells."),
        ("/play 1 L1 A2", "L1 is not on this game's board: the picture shows the cell labels."),
        ("/play 1 C3 C4", "Your first tile must touch a start symbol that no tile touches yet."),
        ("/swap", "No swap is offered now: /swap and /keep answer the offer after a turn."),
        ("/keep", "No swap is offered now: /swap and /keep answer the offer after a turn."),
    ],
)
def test_bad_moves_are_explained(first_turn: Room, text: str, answer: str) -> None:
    game = first_turn.game()
    first = game.view(0).rack[0].name  # slot 1 as colour letters, how the bot writes it
    expected = answer.format(same=f"{first} A2 A2", far=f"{first} A2 A4", start=f"{first} A1 A2")
    assert first_turn.error("Ada", text) == expected


def test_a_tile_not_on_the_rack(first_turn: Room) -> None:
    rack = set(first_turn.game().view(0).rack)
    missing = next(t for t in TILE_KINDS if t not in rack)
    answer = first_turn.error("Ada", f"/play {missing.name} A2 B2")
    assert answer == (
        "That tile is not on your rack: /hand shows your tiles (or type a slot, 1 to 6)."
    )


def test_turn_and_seat_errors(first_turn: Room) -> None:
    assert first_turn.error("Bob", "/play 1 A2 B2") == "It is not your turn: Ada is to move."
    assert first_turn.error("Cy", "/play 1 A2 B2") == "You are not seated at this table."
    assert first_turn.error("Cy", "/hand") == "You are not seated at this table."
    assert first_turn.error("Ada", "/hint") == (
        "Hints are off at this table; the host can turn them on before the start with"
        " /option hints on."
    )
    # The rack slot stands for the tile: the first move by slot is accepted.
    first_turn.ok("Ada", "/p 1 a2-b2")
    assert first_turn.table().record["moves"][0].endswith(" A2 B2")


def test_spezial_bad_moves(tmp_path: Path, shared: Path) -> None:
    room = seeded_room(tmp_path, shared, "07-spezial-2p", 0, ["Ada", "Bob"])
    # A bare /play: Genial Spezial names two cells, never a tile or a rack slot.
    assert room.error("Ada", "/play") == (
        "Say which cells: /play <cell> <cell>, like /play J8 J9, and a colour for each"
        " golden space if you like: /play J8 J9 P."
    )
    assert room.error("Ada", "/play J4") == (
        "I can't read J4 as a move. Type two cells, like /play J8 J9, and colours for golden"
        " spaces if you like: /play J8 J9 P."
    )
    assert room.error("Ada", "/swap") == (
        "No swap is offered now: /swap and /keep answer the offer after a turn."
    )
    (chat,) = room.ok("Ada", "/play V6 U7")  # no private rack in Genial Spezial
    assert chat.text.splitlines()[0] == "Ada placed V6 U7: no points."
    assert room.error("Bob", "/play V6 V5") == (
        "A cell of V6 V5 is taken already: place on two empty cells."
    )


def test_board_and_score_again(first_turn: Room) -> None:
    first_turn.play_turn(random.Random(1))
    (board,) = first_turn.ok("Bob", "/board")
    assert board.kind == "turn" and board.user is None
    assert board.text.splitlines()[:2] == ["Genial after 1 move.", "Bob, your turn."]
    (score,) = first_turn.ok("Bob", "/score")
    lines = score.text.splitlines()
    assert lines[0] == "Scores, Genial, after 1 move:"
    zero = " ".join(f"{s}0" for s in COLOUR_SQUARES.values())  # told in squares
    assert lines[2] == f"Bob: {zero} (lowest colour: 0)"
    assert first_turn.table().version == 4  # looking changes nothing


def test_hand_when_it_is_not_my_turn(first_turn: Room) -> None:
    (rack,) = first_turn.ok("Bob", "/hand")
    assert rack.user == "id-bob" and rack.kind == "rack"
    assert rack.text.splitlines()[1] == "It is not your turn: Ada is to move."
    assert rack.buttons == ()


def test_a_long_run_of_moves_loses_middle_lines_not_its_board() -> None:
    """Twelve told lines of 60 characters (with the line break) are 720, over the 600 a
    turn message holds. The first line stays (the move that began the turn); the line
    saying what was left out is 61 characters with 11 lines counted, so 600 - 60 - 61 =
    479 remain for the latest lines: 7 of them (420). 11 - 7 = 4 lines are left out."""
    from bot.play.moves import PENDING_CHARS, shortened
    from bot.words.texts import Texts

    assert PENDING_CHARS == 600
    lines = [f"{n:02d}" + "x" * 57 for n in range(12)]
    short = shortened(lines, Texts("en"))
    assert short[0] == lines[0]
    assert short[1] == "… and 4 more lines, every placement is marked on the board."
    assert short[2:] == lines[5:]
    assert sum(len(line) + 1 for line in short) <= PENDING_CHARS
    # Within the limit nothing changes.
    assert shortened(lines[:10], Texts("en")) == lines[:10]
