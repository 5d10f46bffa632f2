"""``/look F7``: a cell of the board and its lines in words, for a player who does not see
the board (issue 48); the board picture's alt text; the web page's names of the cells.

The expected lines are worked out from the board's geometry (RULES.md section 1): on the
2-player board row A is the top row, A1 its left end with the red start symbol; row B is
one cell longer, so B1 lies down left of A1 and B2 down right of it.
"""

from __future__ import annotations

from pathlib import Path

from bot.core.letters import letter, outbound
from bot.core.outbound import Attachment, Outbound
from tests.bot.helpers import Clock, Room, make_service


def _room(tmp_path: Path, pictures: bool = False, lang: str = "en") -> Room:
    room = Room(make_service(tmp_path / "t.db", clock=Clock(), pictures=pictures))
    for name in ("Ann", "Bob"):
        room.ok(name, "/join")
    room.ok("Ann", f"/option lang {lang}")
    room.ok("Ann", "/start")
    return room


def _said(room: Room, name: str, text: str) -> list[str]:
    [out] = room.say(name, text)
    return out.text.split("\n")


def test_a_free_cell_beside_a_start_symbol(tmp_path: Path) -> None:
    room = _room(tmp_path)
    assert _said(room, "Bob", "/look b2") == [
        "B2: free.",
        "right: nothing",
        "up right: nothing",
        "up left: red burst",
        "left: nothing",
        "down left: nothing",
        "down right: nothing",
    ]
    assert _said(room, "Bob", "/look A1")[:1] == ["A1: red burst, start symbol."]


def test_a_placed_tile_is_named_with_its_player_and_seen_along_the_lines(
    tmp_path: Path,
) -> None:
    room = _room(tmp_path)
    look = room.service.seat_look(room.chat.id, room.person("Ann").id)
    assert look is not None and look.my_turn
    tile = look.rack[0]
    symbol = {"R": "red burst", "G": "green circle", "B": "blue star"}
    symbol |= {"O": "orange hexagon", "Y": "yellow sun", "P": "purple ring"}
    # B2 touches the red start symbol A1; B3 is B2's right-hand neighbour.
    room.ok("Ann", f"/play {tile.first}{tile.second} B2 B3")
    first, second = symbol[tile.first], symbol[tile.second]
    lines = _said(room, "Bob", "/look B2")
    assert lines[0] == f"B2: {first}, placed by Ann."
    assert lines[1] == f"right: {second}"
    assert lines[3] == "up left: red burst"
    # From A1, down right: B2 then C3 (free), so one symbol.
    assert _said(room, "Bob", "/look A1")[6] == f"down right: {first}"
    # From B1 rightwards: B2, B3, then B4 (free).
    assert _said(room, "Bob", "/look B1")[1] == f"right: {first}, {second}"
    # The web page names the same cells the same way.
    page = room.service.page_look(room.chat.id)
    assert page is not None
    assert page.cell_names["B2"] == f"{first}, placed by Ann"
    assert page.cell_names["B3"] == f"{second}, placed by Ann"
    assert page.cell_names["A1"] == "red burst, start symbol"
    assert "C3" not in page.cell_names


def test_a_cell_that_is_not_on_the_board_gets_a_short_answer(tmp_path: Path) -> None:
    room = _room(tmp_path)
    # The 2-player board's rows are A to K; no row Z, and the input is not echoed.
    for asked in ("/look Z9", "/look F77", "/look"):
        [out] = room.say("Bob", asked)
        assert out.kind == "error"
        assert "Z9" not in out.text and "F77" not in out.text
        assert "/look F7" in out.text


def test_look_speaks_the_tables_language(tmp_path: Path) -> None:
    room = _room(tmp_path, lang="de")
    assert _said(room, "Bob", "/look B2")[0] == "B2: frei."
    assert _said(room, "Bob", "/look B2")[3] == "links oben: roter Zackenstern"


def test_the_board_picture_has_alt_text_with_the_last_placement_and_scores(
    tmp_path: Path,
) -> None:
    room = _room(tmp_path, pictures=True)
    look = room.service.seat_look(room.chat.id, room.person("Ann").id)
    assert look is not None
    tile = look.rack[0]
    out = room.ok("Ann", f"/play {tile.first}{tile.second} B2 B3")
    [board] = [o for o in out if o.attachment is not None and o.user is None]
    assert board.attachment is not None
    alt = board.attachment.description
    names = {"R": "red burst", "G": "green circle", "B": "blue star"}
    names |= {"O": "orange hexagon", "Y": "yellow sun", "P": "purple ring"}
    assert alt.startswith("Genial board after 1 moves. ")
    assert f"Last placement: {names[tile.first]} B2, {names[tile.second]} B3." in alt
    # Ann's symbol on B2 touches the red start symbol A1 (up left): a red point if her
    # first symbol is red; her tile's own two halves never score each other.
    red = 1 if tile.first == "R" else 0
    assert f"Ann (red {red}," in alt and "Bob (red 0, green 0" in alt


def test_alt_text_survives_the_outbox(tmp_path: Path) -> None:
    out = Outbound("c", "board", attachment=Attachment("b.png", b"png", description="F7 red"))
    assert outbound(letter(out)).attachment == out.attachment
