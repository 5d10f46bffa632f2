"""The Genial board image: the playing area, start symbols, tiles, the last placement, and
the score panel below.

The empty board with its labels is drawn once per setup and cached; a render copies the
last board of plain tiles it can build on (at a table, the turn before's), pastes the tiles
placed since, then the last placement highlighted, then the score panel.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

from PIL import Image

from engine.genial import START_SYMBOLS, GenialView, Setup, playing_area
from engine.hexgrid import Hex
from engine.moves import Placement
from engine.notation import parse_genial_move
from engine.tiles import COLOURS, Colour
from render import marks, sprites
from render.canvas import Canvas
from render.cells import EMPTY_FACE, dead_cells, empty_board, label_size, unlabel
from render.fonts import font
from render.geometry import Lattice, joint_order
from render.marks import SeatMark, Told
from render.panel import SideRow, domino_icon, draw_rows, rows_height
from render.prebuilt import piece
from render.sprites import Face, Sprite, cell_sprite, highlighted
from render.theme import (
    HIGHLIGHT,
    INK,
    PAPER,
    PRINTED,
    PRINTED_EDGE,
    SEAT_MARK,
    SOFT_INK,
    SYMBOL,
    TILE,
    WHITE,
    quantize,
)

GAME = "genial"
WIDTH = 1120
SIDE_MARGIN = 44  # room for the row letters left and right of the board
TOP_MARGIN = 14
PANEL_TOP = 24  # between the board and the panel
PANEL_X = 16
BOTTOM_MARGIN = 16
# Cells and tiles are drawn crisp (no blend colours along their edges), their symbols
# smooth: see render/encode.py for what each costs in PNG bytes.
CELL_SS = 1

PLAIN = Face(TILE)


def highlight_face(lat: Lattice) -> Face:
    return highlighted(TILE, lat)


@dataclass(frozen=True, slots=True)
class BoardLayout:
    """Where things go on one setup's board image."""

    lattice: Lattice
    width: int
    height: int
    panel_y: int
    label_size: int


@cache
def layout(mode: str, players: int) -> BoardLayout:
    setup = Setup.of(mode, players)
    radius = setup.radius
    across = 2 * radius + 1
    lat = Lattice.for_width((WIDTH - 2 * SIDE_MARGIN) // across)
    top = TOP_MARGIN + round(lat.ry)
    lat = lat.at(WIDTH // 2, top + radius * lat.v)
    board_bottom = lat.oy + radius * lat.v + round(lat.ry)
    panel_y = board_bottom + PANEL_TOP
    height = panel_y + 40 + rows_height(setup.sides) + BOTTOM_MARGIN
    return BoardLayout(lat, WIDTH, height, panel_y, label_size(lat))


def printed_face(lat: Lattice) -> Face:
    return Face(PRINTED, PRINTED_EDGE, max(2.0, 0.035 * lat.w))


@piece
def background(mode: str, players: int) -> Image.Image:
    """The empty board of a setup, in the palette: labelled cells, start symbols, row
    letters."""
    lay = layout(mode, players)
    lat = lay.lattice
    starts = dict(START_SYMBOLS)
    printed = printed_face(lat)

    def start_symbol(h: Hex) -> Sprite | None:
        colour = starts.get(h)
        if colour is None:
            return None
        return cell_sprite(lat, printed, colour, SYMBOL[colour], ss=CELL_SS)

    area = playing_area(Setup.of(mode, players).radius)
    img = empty_board((lay.width, lay.height), area, lat, start_symbol, ss=CELL_SS)
    return quantize(img, GAME)


@lru_cache(maxsize=8192)
def _placement(text: str, radius: int) -> Placement | None:
    move = parse_genial_move(text, playing_area(radius))
    return move if isinstance(move, Placement) else None


def placed_tiles(view: GenialView) -> list[Placement]:
    """The tiles on the board, from the moves (the view's board has only colours), each
    checked against the board."""
    return [p for _, p in placed_moves(view)]


def placed_moves(view: GenialView) -> list[tuple[str, Placement]]:
    """:func:`placed_tiles` with the text of the move that placed each."""
    tiles = []
    for text in view.moves:
        p = _placement(text, view.radius)
        if (
            p is not None
            and view.board.get(p.cell1) is p.first
            and view.board.get(p.cell2) is p.second
        ):
            tiles.append((text, p))
    return tiles


def paste_tile(
    img: Image.Image, lat: Lattice, a: Hex, b: Hex, ca: Colour, cb: Colour, face: Face
) -> None:
    """A tile: colour ``ca`` on cell ``a``, ``cb`` on its neighbour ``b``, joined.

    Raises:
        ValueError: if the cells are not neighbours.
    """
    first, _, d = joint_order(a, b)
    if first != a:
        a, b, ca, cb = b, a, cb, ca
    ax, ay = lat.centre(a)
    sprites.paste_tile(img, ax, ay, lat, d, face, (ca, SYMBOL[ca]), (cb, SYMBOL[cb]), GAME, CELL_SS)


def side_rows(
    view: GenialView, names: Sequence[str], clocks: Sequence[str | None] = ()
) -> list[SideRow]:
    """The panel's rows: one per player, or per team (seats 1+3, 2+4) in the team game;
    ``clocks``: each seat's time left, if the table has a clock."""
    to_move = view.to_move

    def times(seats: Sequence[int]) -> tuple[str | None, ...]:
        return tuple(clocks[s] for s in seats) if clocks else ()

    if view.mode == "team":
        rows = []
        for side in range(2):
            seats = (side, side + 2)
            mover = seats.index(to_move) if to_move in seats else None
            rows.append(
                SideRow(
                    tuple(names[s] for s in seats), view.scores[side], mover, clocks=times(seats)
                )
            )
        return rows
    return [
        SideRow((names[s],), view.scores[s], 0 if to_move == s else None, clocks=times((s,)))
        for s in range(view.players)
    ]


#: Boards of plain tiles kept (~1.5 MB each) to draw the next turn's board from.
PLAIN_BOARDS = 16
_plain_boards: dict[tuple[str, int, tuple[str, ...]], Image.Image] = {}
_plain_lock = threading.Lock()


def clear_cache() -> None:
    """Forget the boards of plain tiles kept (for tests and benchmarks)."""
    with _plain_lock:
        _plain_boards.clear()


def plain_board(
    mode: str,
    players: int,
    tiles: Sequence[tuple[str, Placement]],
    out: Image.Image | None = None,
) -> Image.Image:
    """A new image of the empty board with ``tiles`` (move text, placement) on it, plain,
    in that order; drawn on ``out`` (an image of the board's size) if given.

    At a table the board of plain tiles one turn later is the one before plus the tiles of
    the last turn: it is drawn from that one (kept, for a few boards) when it can be, with
    the same pixels as pasting every tile on the empty board.
    """
    lat = layout(mode, players).lattice
    texts = tuple(text for text, _ in tiles)
    # A kept board is taken out while it is drawn on (no other call sees it half drawn),
    # the new tiles pasted on it in place, and it is kept again under its new tiles: one
    # copy of the board a turn (the one returned), not two. The board it was is gone: the
    # next turn at that table starts from this one, and a board further back is drawn
    # from an earlier one kept or from the empty board.
    base, done = None, 0
    with _plain_lock:
        for done in range(len(texts), max(-1, len(texts) - 5), -1):
            base = _plain_boards.pop((mode, players, texts[:done]), None)
            if base is not None:
                break
    if base is None:
        base, done = background(mode, players).copy(), 0
    for _, p in tiles[done:]:
        paste_tile(base, lat, p.cell1, p.cell2, p.first, p.second, PLAIN)
    if out is None:
        img = base.copy()
    else:
        img = out
        img.paste(base)
        img.putpalette(base.getpalette() or [])
    with _plain_lock:
        if len(_plain_boards) >= PLAIN_BOARDS:
            _plain_boards.pop(next(iter(_plain_boards)), None)
        _plain_boards[(mode, players, texts)] = base
    return img


def mark_face(seat: int, lat: Lattice) -> Face:
    """A tile of several told together: the highlight's rim in its seat's colour."""
    return Face(TILE, SEAT_MARK[seat % len(SEAT_MARK)], highlight_face(lat).rim_width)


#: The numbered badges of each seat (render/marks.py): its colour, a figure that reads on
#: it, and a dark ring so a white badge shows on a light cell.
MARKS = tuple(SeatMark(c, WHITE if c == HIGHLIGHT else INK, TILE) for c in SEAT_MARK)


@cache
def legend_rooms(mode: str, players: int) -> tuple[int, ...]:
    return marks.legend_rooms(background(mode, players), GAME)


def draw_board(
    view: GenialView,
    names: Sequence[str],
    highlight: frozenset[Hex] = frozenset(),
    told: Sequence[Told] = (),
    clocks: Sequence[str | None] = (),
    out: Image.Image | None = None,
) -> Image.Image:
    """The board image (in the palette); tiles on ``highlight`` cells are marked too,
    ``told`` (several placements told together, in order) are numbered in their seats'
    colours with a legend, and ``clocks`` (each seat's time left) shown in the panel.
    Drawn on ``out`` (an image of :func:`layout`'s size) if given, else on a new image."""
    lay = layout(view.mode, view.players)
    lat = lay.lattice
    last = {p.canonical() for p in view.last_placements}
    numbered = marks.numbered(told)
    seat_of = {frozenset((t.cell1, t.cell2)): t.seat for t in numbered}

    def marked(p: Placement) -> bool:
        return p.canonical() in last or (p.cell1 in highlight and p.cell2 in highlight)

    def told_seat(p: Placement) -> int | None:
        return seat_of.get(frozenset((p.cell1, p.cell2)))

    tiles = placed_moves(view)
    plain = [(t, p) for t, p in tiles if not marked(p) and told_seat(p) is None]
    img = plain_board(view.mode, view.players, plain, out)
    hl = highlight_face(lat)
    covered: set[Hex] = set(view.start_symbols)
    for _, p in tiles:
        seat = told_seat(p)
        if seat is not None:
            paste_tile(img, lat, p.cell1, p.cell2, p.first, p.second, mark_face(seat, lat))
        elif marked(p):
            paste_tile(img, lat, p.cell1, p.cell2, p.first, p.second, hl)
        covered.add(p.cell1)
        covered.add(p.cell2)
    for h, colour in view.board.items():
        if h not in covered:  # a cell no move accounts for: drawn on its own
            cx, cy = lat.centre(h)
            sprite = cell_sprite(lat, PLAIN, colour, SYMBOL[colour], game=GAME, ss=CELL_SS)
            sprite.paste(img, cx, cy)
    filled = view.board.keys() | view.start_symbols.keys()
    unlabel(img, lat, dead_cells(view.area, filled), lambda h: EMPTY_FACE, GAME, CELL_SS)
    canvas = Canvas(img, GAME)
    if numbered:
        marks.draw_badges(img, GAME, lat, numbered, MARKS)
        rooms = legend_rooms(view.mode, view.players)
        marks.draw_legend(canvas, rooms, numbered, MARKS, names)
    draw_panel(canvas, view, names, lay.panel_y, clocks)
    return img


def draw_panel(
    canvas: Canvas,
    view: GenialView,
    names: Sequence[str],
    y: int,
    clocks: Sequence[str | None] = (),
) -> None:
    """The score panel below the board, from ``y`` down (the background there is paper)."""
    # Tiles left in the bag: a tile and a count, in no language.
    text = f"×{view.bag_size}"
    tx = WIDTH - PANEL_X - 4 - round(font(22).getlength(text))
    canvas.text((tx, y + 16), text, 22, SOFT_INK, PAPER)
    tile = domino_icon(PLAIN, 18, PAPER, GAME)
    canvas.paste(tile, (tx - tile.width - 4, y + 16 - tile.height // 2))
    rows = side_rows(view, names, clocks)
    marks = (18,) if view.cap > 18 else ()
    draw_rows(canvas, PANEL_X, y + 40, WIDTH - 2 * PANEL_X, rows, COLOURS, view.cap, marks)
