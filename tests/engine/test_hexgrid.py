"""Hex geometry and cell labels (RULES.md section 1)."""

from __future__ import annotations

import pytest

from engine.errors import IllegalMove, NotationError
from engine.genial import playing_area
from engine.hexgrid import (
    DIRECTION_NAMES,
    DIRECTIONS,
    OPPOSITE,
    Area,
    Hex,
    direction_between,
    distance,
    hexagon,
    ring,
)


def test_directions_match_the_rules() -> None:
    expected = {
        "E": (1, 0),
        "W": (-1, 0),
        "NE": (1, -1),
        "NW": (0, -1),
        "SE": (0, 1),
        "SW": (-1, 1),
    }
    assert dict(zip(DIRECTION_NAMES, DIRECTIONS, strict=True)) == expected
    for d, o in enumerate(OPPOSITE):
        assert (DIRECTIONS[d][0] + DIRECTIONS[o][0], DIRECTIONS[d][1] + DIRECTIONS[o][1]) == (0, 0)


@pytest.mark.parametrize(
    ("a", "b", "d"),
    [((0, 0), (0, 0), 0), ((0, 0), (3, 0), 3), ((0, 0), (2, -5), 5), ((1, 2), (-2, 3), 3)],
)
def test_distance(a: tuple[int, int], b: tuple[int, int], d: int) -> None:
    assert distance(Hex(*a), Hex(*b)) == d


@pytest.mark.parametrize(("radius", "cells"), [(5, 91), (6, 127), (7, 169)])
def test_hexagon_sizes(radius: int, cells: int) -> None:
    assert len(hexagon(radius)) == cells
    assert len(ring(radius)) == 6 * radius


def test_direction_between() -> None:
    assert direction_between(Hex(0, 0), Hex(0, -1)) == DIRECTION_NAMES.index("NW")
    assert direction_between(Hex(0, 0), Hex(2, 0)) is None


@pytest.mark.parametrize(
    ("radius", "label", "cell"),
    [
        # RULES.md 2.2: on a 2-player board the start symbols sit at these labels.
        (5, "A1", (0, -5)),
        (5, "A6", (5, -5)),
        (5, "F11", (5, 0)),
        (5, "K6", (0, 5)),
        (5, "K1", (-5, 5)),
        (5, "F1", (-5, 0)),
        (5, "F6", (0, 0)),
        (7, "A1", (0, -7)),
        (7, "H1", (-7, 0)),
        (7, "H15", (7, 0)),
        (6, "G7", (0, 0)),
    ],
)
def test_labels(radius: int, label: str, cell: tuple[int, int]) -> None:
    area = playing_area(radius)
    assert area.label(Hex(*cell)) == label
    assert area.parse_label(label.lower()) == Hex(*cell)


def test_label_errors() -> None:
    area = playing_area(5)
    with pytest.raises(IllegalMove) as info:
        area.parse_label("L1")  # a label, but the 2-player board has rows A..K
    assert info.value.reason == "outside_area"
    with pytest.raises(IllegalMove):
        area.parse_label("A7")  # row A of a radius-5 board has six cells
    with pytest.raises(NotationError) as bad:
        area.parse_label("7A")
    assert bad.value.reason == "cannot_parse"


def test_rays_stop_at_the_edge_of_the_area() -> None:
    small, large = playing_area(5), playing_area(7)
    w = DIRECTION_NAMES.index("W")
    i = small.index[Hex(1, -5)]
    assert [small.cells[j] for j in small.rays[i][w]] == [Hex(0, -5)]
    k = large.index[Hex(1, -5)]
    assert [large.cells[j] for j in large.rays[k][w]] == [Hex(0, -5), Hex(-1, -5), Hex(-2, -5)]


def test_area_edges_are_each_pair_once() -> None:
    area = Area(hexagon(1))
    # Seven cells: six spokes from the centre and six around the ring.
    assert len(area.edges) == 12
    assert all(area.adjacent(i, j) and i < j for i, j in area.edges)
