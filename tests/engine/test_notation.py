"""Move notation (RULES.md section 4)."""

from __future__ import annotations

import pytest

from engine.errors import IllegalMove, NotationError
from engine.genial import playing_area
from engine.hexgrid import Hex
from engine.moves import KEEP, SWAP, Placement, SpezialPlacement
from engine.notation import (
    format_genial_move,
    format_spezial_placement,
    parse_genial_move,
    parse_spezial_placement,
)
from engine.spezial import board_layout
from engine.tiles import Colour, parse_tile

AREA = playing_area(5)
R, G, B, P = Colour.RED, Colour.GREEN, Colour.BLUE, Colour.PURPLE


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("RG F7 F8", "RG F7 F8"),
        ("rg f7 f8", "RG F7 F8"),
        ("  RG   F7   F8 ", "RG F7 F8"),
        ("RG F7-F8", "RG F7 F8"),
        ("RG, F7, F8", "RG F7 F8"),
        ("gr f8 f7", "GR F8 F7"),
        ("R G F7 F8", "RG F7 F8"),
        ("Swap", "swap"),
        (" KEEP ", "keep"),
    ],
)
def test_parse_then_format_gives_the_canonical_spelling(text: str, canonical: str) -> None:
    assert format_genial_move(parse_genial_move(text, AREA), AREA) == canonical


def test_first_colour_goes_on_the_first_cell() -> None:
    move = parse_genial_move("GR F8 F7", AREA)
    assert move == Placement(G, R, Hex(2, 0), Hex(1, 0))
    assert move.canonical() == Placement(R, G, Hex(1, 0), Hex(2, 0))
    assert parse_genial_move("swap", AREA) == SWAP and parse_genial_move("keep", AREA) == KEEP


def test_rack_slot_stands_for_the_tile_in_rack_order() -> None:
    rack = [parse_tile("BB"), parse_tile("GR")]
    assert parse_genial_move("2 F7 F8", AREA, rack) == Placement(R, G, Hex(1, 0), Hex(2, 0))
    with pytest.raises(NotationError) as info:
        parse_genial_move("2 F7 F8", AREA)  # records never use slots
    assert info.value.reason == "cannot_parse"


@pytest.mark.parametrize(
    ("text", "reason", "error"),
    [
        ("", "cannot_parse", NotationError),
        ("RG", "cannot_parse", NotationError),
        ("RG F7 F8 F9", "cannot_parse", NotationError),
        ("RZ F7 F8", "unknown_colour", NotationError),
        ("RGB F7 F8", "cannot_parse", NotationError),
        ("RG F7 7F", "cannot_parse", NotationError),
        ("RG F7 Q1", "outside_area", IllegalMove),
    ],
)
def test_bad_notation(text: str, reason: str, error: type[Exception]) -> None:
    with pytest.raises(error) as info:
        parse_genial_move(text, AREA)
    assert getattr(info.value, "reason", None) == reason


def test_spezial_placement_notation() -> None:
    area = board_layout().area
    move = parse_spezial_placement("j4, j5 p", area)
    assert move == SpezialPlacement(area.parse_label("J4"), area.parse_label("J5"), (P,))
    assert format_spezial_placement(move, area) == "J4 J5 P"
    assert format_spezial_placement(parse_spezial_placement("J4-J5", area), area) == "J4 J5"
    with pytest.raises(NotationError) as info:
        parse_spezial_placement("J4 J5 X", area)
    assert info.value.reason == "unknown_colour"
