"""What the first board of a new process builds, built with less work (issue 50): the cell
labels' size found from a guess, not by loading every font size from 8 up, and the same
size as that search on every board; text mapped straight onto the palette; a tile pasted
in parts until it is asked for again; the board drawn on the PNG writer's own rows. Each
with the pixels of the way before."""

from __future__ import annotations

import gc
import random

import pytest
from PIL import Image

import render
from engine.genial import GenialGame
from engine.genial_board import playing_area
from engine.genial_setup import Setup
from engine.moves import KEEP
from render import canvas, cells, encode, fonts, genial_board, spezial_board, theme

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


# --- text straight onto the palette ---------------------------------------------------------

TEXTS = [
    ("Seat 1", 26, theme.INK, theme.PANEL, "lm", True, "genial"),
    ("18", 32, theme.INK, theme.WHITE, "lm", True, "genial"),
    ("×37", 22, theme.SOFT_INK, theme.PAPER, "lm", True, "genial"),
    ("Zoë Ångström", 23, theme.INK, theme.PANEL, "rm", True, "spezial"),
    ("4m 10s", 20, theme.SOFT_INK, theme.PANEL, "lm", False, "spezial"),
    ("1.", 30, theme.INK, theme.PANEL, "mm", True, "spezial"),
    ("jÿ", 41, theme.WHITE, theme.TURN, "la", False, "genial"),
]


@pytest.mark.parametrize("args", TEXTS)
def test_a_text_piece_is_the_text_drawn_in_rgb_then_mapped_onto_the_palette(
    args: tuple[str, int, theme.RGB, theme.RGB, str, bool, str],
) -> None:
    """As text pieces were made before issue 50: drawn on an RGB image of the backdrop,
    then mapped onto the palette (quantize); now each coverage goes to its index."""
    text, size, fill, backdrop, anchor, bold, game = args
    face = fonts.font(size, bold)
    left, top, right, bottom = (int(v) for v in face.getbbox(text, anchor=anchor))
    left, top = left - 1, top - 1
    img = Image.new("RGB", (right - left + 2, bottom - top + 2), backdrop)
    fonts.draw_text(img, (-left, -top), text, face, fill, anchor)
    before = theme.quantize(img, game)
    piece, dx, dy = canvas.text_piece.__wrapped__(*args)
    assert (dx, dy) == (left, top)
    assert piece.mode == "P" and piece.size == before.size
    assert piece.tobytes() == before.tobytes()
    assert piece.getpalette() == before.getpalette()


# --- a board drawn on the PNG writer's rows -------------------------------------------------


def test_a_board_drawn_on_a_canvas_is_encoded_where_it_lies_with_the_same_bytes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = GenialGame(4, seed=3)
    rng = random.Random(3)
    for _ in range(30):
        game.play(KEEP if game.awaiting == "swap" else game.random_placement(rng))
    view = game.view(None)
    names = ["A", "B", "C", "D"]
    encode.clear_cache()
    genial_board.clear_cache()
    expected = encode.png_bytes(genial_board.draw_board(view, names))
    fills: list[int] = []
    fill = encode._Rows.fill

    def counted(rows: encode._Rows, indexed: Image.Image) -> bool:
        fills.append(1)
        return fill(rows, indexed)

    monkeypatch.setattr(encode._Rows, "fill", counted)
    for _ in range(2):  # from nothing, then from the kept bands and the kept board
        encode.clear_cache()
        genial_board.clear_cache()
        lay = genial_board.layout("standard", 4)
        out = encode.canvas(lay.width, lay.height)
        assert encode.png_bytes(genial_board.draw_board(view, names, out=out)) == expected
    assert render.board_png(view, names=names) == expected
    assert fills == []  # laid out as drawn, never copied into the writer's rows


def test_a_canvas_never_encoded_is_forgotten() -> None:
    out = encode.canvas(40, 30)
    key = id(out)
    assert key in encode._lent
    del out
    gc.collect()
    assert key not in encode._lent
