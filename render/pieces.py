"""What render/prebuilt.py's file holds: the pieces of the board images drawn ahead of time,
and what draws them and writes the file (``python -m render pieces`` and
tools/build_pieces.py run :func:`main`; the bot's start calls :func:`write_file`).

The list: what the boards of every setup ask for on their first turn, their last and any
between. A piece missing here is drawn when asked for, as before (tests/render/
test_prebuilt.py checks that a new process's first boards draw none).
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from engine.spezial import SCORE_COLOURS
from engine.spezial_board import SHORT, TALL, board_layout
from engine.tiles import COLOURS, Colour
from render import canvas, panel, prebuilt, sprites, theme
from render import genial_board as gb
from render import spezial_board as sb
from render.canvas import _shape
from render.cells import EMPTY_FACE
from render.geometry import JOINT_DIRECTIONS
from render.prebuilt import Call, build, file_bytes


def wanted() -> Iterator[Call]:
    """Every piece the file holds: what the boards of every setup ask for on their first
    turn, their last and anything between (a tile of any two colours in any direction,
    the last placement's rim, the seats' marks of several placements told together), and
    the score panel's pieces."""
    yield from _genial()
    yield from _spezial()


def _genial() -> Iterator[Call]:
    game = {"game": gb.GAME, "ss": gb.CELL_SS}
    yield "genial", theme._palette, (gb.GAME,), {}
    for mode, players in (("solo", 1), ("standard", 2), ("standard", 3), ("standard", 4),
                          ("team", 4)):  # fmt: skip
        yield f"genial board {mode} {players}", gb.background, (mode, players), {}
        lat = gb.layout(mode, players).lattice
        # A sheet's pieces lie together in the file (read together from its pages): plain
        # tiles and the last placement's in one, the seats' marks (boards of moves told
        # together) in another.
        faces = [gb.PLAIN, gb.highlight_face(lat), *(gb.mark_face(s, lat) for s in range(4))]
        for k, face in enumerate(faces):
            sheet = f"genial {lat.w}" if k < 2 else f"genial {lat.w} marks"
            for colour in COLOURS:
                yield sheet, sprites.cell_sprite, (lat, face, colour, theme.SYMBOL[colour]), game
            for d in JOINT_DIRECTIONS:
                yield sheet, sprites.joint_sprite, (lat, d, face, face), game
        yield f"genial {lat.w}", sprites.cell_sprite, (lat, EMPTY_FACE), game
    yield from _rows(gb.GAME, gb.WIDTH - 2 * gb.PANEL_X, 1, COLOURS)
    yield from _counts(gb.GAME, theme.PAPER)
    yield "genial", panel.domino_icon, (gb.PLAIN, 18, theme.PAPER, gb.GAME), {}
    yield "genial", _shape, ("arrow", 22, theme.TURN, theme.PANEL, gb.GAME), {}


def _spezial() -> Iterator[Call]:
    game = {"game": sb.GAME, "ss": sb.CELL_SS}
    yield "spezial", theme._palette, (sb.GAME,), {}
    board = board_layout()
    for players in (2, 3, 4):
        towers = frozenset((t.cell, t.height) for t in board.towers_for(players))
        yield f"spezial board {players}", sb.background, (towers, players), {}
    lat = sb.layout(4).lattice  # the same cells for any number of players
    for seat in range(4):
        joints = f"spezial joints {seat}"
        for hl in (False, True):
            face = sb.seat_face(seat, lat, hl)
            for ring in (None, theme.GOLDEN_MARK[seat]):
                yield "spezial cells", sprites.cell_sprite, (lat, face), {"ring": ring, **game}
            for d in JOINT_DIRECTIONS:
                link = theme.SEAT[seat]
                yield joints, sprites.joint_sprite, (lat, d, face, face, link), game
                yield joints, sprites.joint_sprite, (lat, d, face, face), game
        for d in JOINT_DIRECTIONS:  # a chain between a marked tile and another
            plain, hl_face = sb.seat_face(seat, lat), sb.seat_face(seat, lat, True)
            link = theme.SEAT[seat]
            yield joints, sprites.joint_sprite, (lat, d, plain, hl_face, link), game
            yield joints, sprites.joint_sprite, (lat, d, hl_face, plain, link), game
    for height in (TALL, SHORT):
        for colour in SCORE_COLOURS:
            for value, dark in ((1, False), (2, False), (2, True), (3, True)):
                tower = (lat, height, colour, value, dark)
                yield f"spezial {height} {colour.name}", sb.tower_sprite, tower, {}
    for face in (EMPTY_FACE, sb.golden_face(lat)):
        yield "spezial cells", sprites.cell_sprite, (lat, face), game
    yield from _rows(sb.GAME, sb.WIDTH - 2 * sb.PANEL_X, sb.PANEL_COLUMNS, SCORE_COLOURS)
    yield from _counts(sb.GAME, theme.PANEL)
    for seat in range(4):
        swatch = sb.seat_face(seat, sb.SWATCH)
        yield "spezial", panel.domino_icon, (swatch, 22, theme.PANEL, sb.GAME), {}
    yield "spezial", _shape, ("arrow", 22, theme.TURN, theme.PANEL, sb.GAME), {}


def _rows(game: str, width: int, columns: int, colours: Sequence[Colour]) -> Iterator[Call]:
    """The symbols of a board's score rows, at every size their points may take; the
    points themselves up to :data:`POINTS` (one and two digits: a row's points are drawn
    at the size of its longest) and what sizes them."""
    row_width = (width - (columns - 1) * panel.ROW_GAP) // columns
    sizes = set()
    for digits in (1, 2, 3):
        fit = panel.block_fit_args(row_width, len(colours), digits)
        yield game, panel.block_fit, fit, {}
        _, radius, size = panel.block_measures(row_width, len(colours), digits)
        if digits < 3:
            sizes.add(size)
        for colour in colours:
            for backdrop in (theme.PANEL, theme.WHITE):
                yield game, panel.icon, (colour, radius, backdrop, game), {}
    figures = f"{game} figures"
    # The panel's texts, the legend of moves told together and the clocks: in ink or soft
    # ink, on the panel, a lowest colour's white or paper.
    for fill in (theme.INK, theme.SOFT_INK):
        for backdrop in (theme.PANEL, theme.WHITE, theme.PAPER):
            yield figures, canvas._inks, (fill, backdrop, game), {}
    for backdrop in (theme.PANEL, theme.WHITE):
        for size in sorted(sizes):
            for points in range(POINTS[game] + 1):
                text = (str(points), size, theme.INK, backdrop, "lm", True, game)
                yield figures, canvas.figure_piece, text, {}


#: The highest points whose figures are in the file, by game: Genial's track ends at 18;
#: Genial Spezial's has no end (higher points are drawn when asked for).
POINTS = {"genial": 18, "spezial": 49}
#: The highest counts ("×12": tiles in the bag, tiles a seat has left) in the file.
COUNTS = {"genial": 99, "spezial": 40}


def _counts(game: str, backdrop: theme.RGB) -> Iterator[Call]:
    """The counts of tiles left, as the panel words them (size 22, soft ink)."""
    for n in range(COUNTS[game] + 1):
        text = (f"×{n}", 22, theme.SOFT_INK, backdrop, "lm", True, game)
        yield f"{game} figures", canvas.figure_piece, text, {}


def target() -> Path | None:
    """Where :func:`main` writes the file: ``$GENIAL_RENDER_PIECES`` if it is set; else
    beside the package if its folder is writable (a checkout, an image being built); else
    the per-user cache (None without a home)."""
    given = os.environ.get(prebuilt.ENV)
    if given:
        return Path(given)
    if os.access(prebuilt.PACKAGED.parent, os.W_OK):
        return prebuilt.PACKAGED
    return prebuilt.cache_path()


def write_file(path: Path) -> tuple[int, int]:
    """Draw every piece and write the file to ``path`` (its folders made as needed): whole
    or not at all, through a temporary file beside it renamed over it, so a process
    reading it at the same time sees the old file or the new one. Returns the number of
    pieces and of bytes.

    Raises:
        OSError: the file cannot be written.
    """
    pieces = build(wanted())
    data = file_bytes(pieces)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        # Readable by all: an image builds it as root and runs the bot as another user.
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return len(pieces), len(data)


def main(path: Path | None = None) -> int:
    """Draw every piece and write the file to ``path``, else to :func:`target`; one line
    on standard error either way. Exit status 0, or 1 if it could not be written."""
    path = path or target()
    if path is None:
        print("no place for the board pieces: set GENIAL_RENDER_PIECES", file=sys.stderr)
        return 1
    try:
        count, size = write_file(path)
    except OSError as exc:
        print(f"{path}: not written ({exc.strerror or exc})", file=sys.stderr)
        return 1
    print(f"{path}: {count} pieces, {size / 1024:.0f} KB", file=sys.stderr)
    return 0
