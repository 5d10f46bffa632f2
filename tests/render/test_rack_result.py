"""Rack and result images: slot order as `/play 1 ...` reads it, own scores only, places."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from engine.genial import GenialView
from engine.ranking import places
from engine.tiles import Colour, Tile
from render import rack_png, result_png
from render.rack import slot_cells
from render.theme import SYMBOL
from tests.render.fakes import spezial_view
from tests.render.helpers import decode, genial_game

RED, GREEN, BLUE, ORANGE, YELLOW, PURPLE = (Colour(c) for c in "RGBOYP")


def with_rack(view: GenialView, rack: tuple[Tile, ...]) -> GenialView:
    return dataclasses.replace(view, rack=rack)


def test_slots_left_to_right_first_colour_on_the_left(shared: Path) -> None:
    view = genial_game(shared, "01-genial-standard-2p", 2).view(0)
    # Tile(first, second) is stored in colour order; `/play 3 F7 F8` puts `first` on F7.
    rack = (
        Tile(RED, GREEN),
        Tile(BLUE, BLUE),
        Tile(ORANGE, PURPLE),
        Tile(GREEN, YELLOW),
        Tile(RED, PURPLE),
        Tile(YELLOW, YELLOW),
    )
    img = decode(rack_png(with_rack(view, rack)))
    cells = slot_cells(6)
    for tile, (left, right) in zip(rack, cells, strict=True):
        assert img.getpixel(left) == SYMBOL[tile.first]
        assert img.getpixel(right) == SYMBOL[tile.second]
    # Slot 1 is leftmost.
    assert [left[0] for left, _ in cells] == sorted(left[0] for left, _ in cells)


def test_rack_order_is_the_rack_not_sorted(shared: Path) -> None:
    view = genial_game(shared, "01-genial-standard-2p", 2).view(0)
    forward = (Tile(YELLOW, PURPLE), Tile(RED, GREEN), Tile(BLUE, ORANGE))
    img = decode(rack_png(with_rack(view, forward)))
    for tile, (left, _) in zip(forward, slot_cells(3), strict=True):
        assert img.getpixel(left) == SYMBOL[tile.first]


def test_solo_rack_has_its_one_tile(shared: Path) -> None:
    view = genial_game(shared, "06-genial-solo-1p", 5).view(0)
    assert view.rack is not None and len(view.rack) == 1
    img = decode(rack_png(view))
    (left, right) = slot_cells(1)[0]
    assert img.getpixel(left) == SYMBOL[view.rack[0].first]
    assert img.getpixel(right) == SYMBOL[view.rack[0].second]


def test_rack_shows_the_seats_own_side_only(shared: Path) -> None:
    view = genial_game(shared, "04-genial-standard-4p", 20).view(1)
    others = tuple(sc if side == 1 else {c: 17 for c in sc} for side, sc in enumerate(view.scores))
    assert rack_png(view) == rack_png(dataclasses.replace(view, scores=others))
    mine = tuple({c: 3 for c in sc} if side == 1 else sc for side, sc in enumerate(view.scores))
    assert rack_png(view) != rack_png(dataclasses.replace(view, scores=mine))


def test_spezial_rack_counts_the_tiles_left() -> None:
    view = spezial_view(3, 9, seat=0)
    fewer = dataclasses.replace(view, tiles_left=(5, *view.tiles_left[1:]))
    others = dataclasses.replace(view, tiles_left=(view.tiles_left[0], 1, 2))
    assert rack_png(view) != rack_png(fewer)
    assert rack_png(view) == rack_png(others)
    # 17 tiles drawn in two lines make the image taller than 5 in one.
    assert decode(rack_png(view)).height > decode(rack_png(fewer)).height


@pytest.mark.parametrize(
    ("ranking", "expected"),
    [
        ([[0], [1], [2]], {0: 1, 1: 2, 2: 3}),
        ([[2], [0, 1], [3]], {2: 1, 0: 2, 1: 2, 3: 4}),
        ([[0, 1]], {0: 1, 1: 1}),
    ],
)
def test_shared_places_share_a_number(ranking: list[list[int]], expected: dict[int, int]) -> None:
    assert places(ranking) == expected


def test_result_lists_every_side(shared: Path) -> None:
    four = decode(result_png(genial_game(shared, "04-genial-standard-4p").view(None)))
    team = decode(result_png(genial_game(shared, "05-genial-team-4p").view(None)))
    solo = decode(result_png(genial_game(shared, "06-genial-solo-1p").view(None)))
    assert four.height > team.height > solo.height  # four rows, two teams, one player
    assert four.width == team.width == solo.width


def test_result_before_the_end_ranks_the_standings(shared: Path) -> None:
    view = genial_game(shared, "03-genial-standard-3p", 30).view(None)
    assert view.ranking is None
    decode(result_png(view))
