"""The tile set and the bag (RULES.md 2.1, RECORD.md drawing)."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.errors import NotationError
from engine.tiles import COLOURS, TILE_KINDS, Bag, Colour, Tile, parse_tile, tile_set


def test_the_set_has_120_tiles_six_of_each_pair_five_of_each_double() -> None:
    tiles = tile_set()
    assert len(tiles) == 120
    counts = Counter(tiles)
    assert len(counts) == 21  # 15 pairs + 6 doubles
    for a in COLOURS:
        for b in COLOURS:
            assert counts[Tile.of(a, b)] == (5 if a is b else 6)
    assert sum(1 for t in tiles if t.shows(Colour.RED)) == 5 * 6 + 5


def test_tiles_are_the_same_either_way_round() -> None:
    assert parse_tile("gr") == parse_tile("RG") == Tile(Colour.RED, Colour.GREEN)
    assert parse_tile("GR").name == "RG"
    assert len(TILE_KINDS) == 21


@pytest.mark.parametrize("text", ["R", "RGB", "RX", "12"])
def test_bad_tiles(text: str) -> None:
    with pytest.raises(NotationError):
        parse_tile(text)


def test_bag_draws_from_the_front_and_takes_returns_at_the_end() -> None:
    order = [parse_tile(n) for n in ("RG", "BB", "OY", "PP")]
    bag = Bag(order)
    assert bag.draw(3) == order[:3]
    bag.put_back([order[1]])
    assert bag.order() == [order[3], order[1]]
    assert bag.draw(5) == [order[3], order[1]]
    assert len(bag) == 0 and bag.draw(1) == []


def test_a_shuffled_bag_is_the_set_and_repeats_with_its_seed() -> None:
    assert Counter(Bag.shuffled(4).order()) == Counter(tile_set())
    assert Bag.shuffled(4).order() == Bag.shuffled(4).order()
    assert Bag.shuffled(4).order() != Bag.shuffled(5).order()
