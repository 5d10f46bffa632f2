"""What the first board of a new process builds, built with less work (issue 50): the cell
labels' size found from a guess, not by loading every font size from 8 up, and the same
size as that search on every board."""

from __future__ import annotations

import pytest

from engine.genial_board import playing_area
from engine.genial_setup import Setup
from render import cells, fonts, genial_board, spezial_board

GENIAL = [("solo", 1), ("standard", 2), ("standard", 3), ("standard", 4), ("team", 4)]


def boards() -> list[tuple[int, tuple[str, ...]]]:
    """Each board's cell width and labels."""
    out = []
    for mode, players in GENIAL:
        lat = genial_board.layout(mode, players).lattice
        out.append((lat.w, playing_area(Setup.of(mode, players).radius).labels))
    for players in (2, 3, 4):
        lat = spezial_board.layout(players).lattice
        out.append((lat.w, spezial_board.board_layout().area.labels))
    return out


def size_by_size(w: int, labels: tuple[str, ...]) -> int:
    """The search as it was: from 8 up, one size at a time, until a label does not fit."""
    size = 8
    while max(fonts.label_font(size + 1).getlength(t) for t in labels) <= 0.84 * w:
        size += 1
    return size


@pytest.mark.parametrize(("w", "labels"), boards())
def test_the_label_size_is_the_size_by_size_search(w: int, labels: tuple[str, ...]) -> None:
    cells.cell_label_size.cache_clear()
    assert cells.cell_label_size(w, labels) == size_by_size(w, labels)
    # And for cells of other widths (a phone's board, a replay's frame).
    for other in (w // 2, w - 7, w + 11):
        assert cells.cell_label_size(other, labels) == size_by_size(other, labels)


def test_the_label_size_loads_three_fonts_at_most() -> None:
    """A 4-player board's labels are 26 px: the search from 8 up loaded sizes 9 to 27, each
    a font read and every label measured."""
    w = genial_board.layout("standard", 4).lattice.w
    labels = playing_area(7).labels
    cells.cell_label_size.cache_clear()
    fonts.label_font.cache_clear()
    size = cells.cell_label_size(w, labels)
    assert fonts.label_font.cache_info().currsize <= 3
    assert size == size_by_size(w, labels)
