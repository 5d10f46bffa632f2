"""The Genial board image: the playing area, start symbols, tiles, the last placement, and
the score panel below.

The empty board with its labels is drawn once per setup and cached. A board is a scene
(render/scene.py): the tiles' sprites pasted in order on the empty board, plain tiles first,
then the last placement highlighted; then the score panel. At a table it is drawn from the
board of the turn before, kept as the PNG writer's canvas itself, by drawing again only
where the two differ.
"""

from __future__ import annotations

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
from render.cells import EMPTY_FACE, dead_cells, empty_board, label_size
from render.fonts import font
from render.geometry import Lattice, joint_order
from render.marks import SeatMark, Told
from render.panel import SideRow, domino_icon, draw_rows, rows_height
from render.prebuilt import piece
from render.scene import Item, Scenes
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


#: Boards' sprite layers kept (~1.5 MB each) to draw the next turn's from: at a table a
#: turn changes a few of a board's 100-250 sprites (render/scene.py).
SCENES = 16
_scenes = Scenes(SCENES)


def clear_cache() -> None:
    """Forget the boards kept (for tests and benchmarks: as after a restart)."""
    _scenes.clear()


#: A tile's look in :func:`_tile_items`, besides a seat's number (a tile of several told
#: together, marked in that seat's colour).
PLAIN_KIND, HIGHLIGHT_KIND = -1, -2


@lru_cache(maxsize=8192)
def _tile_items(mode: str, players: int, p: Placement, kind: int) -> tuple[Item, ...]:
    """:func:`tile_items` of a placement on a setup's board, by its look: a board asks for
    every tile on it each turn, and the sprite functions' own caches hash the lattice and
    the face on every call."""
    lat = layout(mode, players).lattice
    if kind == PLAIN_KIND:
        face = PLAIN
    elif kind == HIGHLIGHT_KIND:
        face = highlight_face(lat)
    else:
        face = mark_face(kind, lat)
    return tuple(tile_items(lat, p.cell1, p.cell2, p.first, p.second, face))


def tile_items(lat: Lattice, a: Hex, b: Hex, ca: Colour, cb: Colour, face: Face) -> list[Item]:
    """A tile as sprites to paste in order: colour ``ca`` on cell ``a``, ``cb`` on its
    neighbour ``b``, then the joint between them.

    Raises:
        ValueError: if the cells are not neighbours.
    """
    first, _, d = joint_order(a, b)
    if first != a:
        a, b, ca, cb = b, a, cb, ca
    ax, ay = lat.centre(a)
    bx, by = lat.offset(d)
    return [
        (cell_sprite(lat, face, ca, SYMBOL[ca], game=GAME, ss=CELL_SS), ax, ay),
        (cell_sprite(lat, face, cb, SYMBOL[cb], game=GAME, ss=CELL_SS), ax + bx, ay + by),
        (sprites.joint_sprite(lat, d, face, face, game=GAME, ss=CELL_SS), ax, ay),
    ]


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

    # Plain tiles first, then the marked ones, each in the order of play, then the cells
    # no move accounts for and the cells no tile can reach: the order they were always
    # pasted in, so the same pixels.
    tiles = placed_moves(view)
    mode, players = view.mode, view.players
    items: list[Item] = []
    for _, p in tiles:
        if not marked(p) and told_seat(p) is None:
            items += _tile_items(mode, players, p, PLAIN_KIND)
    covered: set[Hex] = set(view.start_symbols)
    for _, p in tiles:
        seat = told_seat(p)
        if seat is not None:
            items += _tile_items(mode, players, p, seat)
        elif marked(p):
            items += _tile_items(mode, players, p, HIGHLIGHT_KIND)
        covered.add(p.cell1)
        covered.add(p.cell2)
    for h, colour in view.board.items():
        if h not in covered:  # a cell no move accounts for: drawn on its own
            cx, cy = lat.centre(h)
            sprite = cell_sprite(lat, PLAIN, colour, SYMBOL[colour], game=GAME, ss=CELL_SS)
            items.append((sprite, cx, cy))
    filled = view.board.keys() | view.start_symbols.keys()
    empty = cell_sprite(lat, EMPTY_FACE, game=GAME, ss=CELL_SS)
    items += ((empty, *lat.centre(h)) for h in dead_cells(view.area, filled))
    board = background(mode, players)
    panel = (0, lay.panel_y, lay.width, lay.height)
    img = _scenes.board(board, items, out, panel, marked=bool(numbered))
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
