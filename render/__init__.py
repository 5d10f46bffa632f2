"""Images of the games for the chat: pure functions from an engine view to PNG bytes.

``board_png`` shows the public board and score panel (every player may see it);
``rack_png`` shows one seat's rack (send it to that player alone); ``result_png`` shows the
ranking. The same view always gives the same bytes. Names are per seat, in seat order
("Seat 1", ... when not given).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from engine.genial import GenialView
from engine.hexgrid import Hex
from engine.spezial import SpezialView
from render import encode, genial_board, spezial_board
from render.encode import png_bytes
from render.marks import Told
from render.rack import rack_image
from render.result import result_image

__all__ = ["Told", "board_png", "rack_png", "result_png", "seat_names"]

View = GenialView | SpezialView


def seat_names(view: View, names: Sequence[str] | None) -> list[str]:
    """The names to show, one per seat.

    Raises:
        ValueError: if ``names`` does not hold one name per seat.
    """
    if names is None:
        return [f"Seat {k + 1}" for k in range(view.players)]
    names = list(names)
    if len(names) != view.players:
        raise ValueError(f"expected {view.players} names, one per seat, got {len(names)}")
    return [str(n) for n in names]


def _check(view: object) -> None:
    if not isinstance(view, GenialView | SpezialView):
        raise TypeError(f"expected a GenialView or a SpezialView, got {type(view).__name__}")


def board_png(
    view: View,
    *,
    names: Sequence[str] | None = None,
    highlight: Collection[Hex] = (),
    told: Sequence[Told] = (),
    clocks: Sequence[str | None] | None = None,
) -> bytes:
    """The board as PNG: the public position and the score panel; never a rack.
    ``highlight``: more cells whose tiles are marked like the last placement. ``told``:
    the placements of several moves told together (a person's and the computer players'
    replies), in order, each with its seat: two or more are numbered in their seats'
    colours, with a legend. ``clocks``: each seat's time left as the table words it
    (``None`` for a seat without a clock), shown in its panel row.

    Raises:
        TypeError: for anything but a Genial or Genial Spezial view.
        ValueError: for a wrong number of names or of clocks.
    """
    _check(view)
    who = seat_names(view, names)
    times: tuple[str | None, ...] = ()
    if clocks is not None:
        times = tuple(clocks)
        if len(times) != view.players:
            raise ValueError(f"expected {view.players} clocks, one per seat, got {len(times)}")
    # Drawn on the PNG writer's own row buffer (render/encode.py: canvas), which it then
    # deflates where it lies.
    if isinstance(view, GenialView):
        lay = genial_board.layout(view.mode, view.players)
        out = encode.canvas(lay.width, lay.height)
        return png_bytes(genial_board.draw_board(view, who, frozenset(highlight), told, times, out))
    size = spezial_board.layout(view.players)
    out = encode.canvas(size.width, size.height)
    img = spezial_board.draw_board(view, who, frozenset(highlight), told, times, out)
    cuts = spezial_board.band_cuts(view.players)
    below = (cuts[0], spezial_board.PANEL_PNG_LEVEL)  # the score rows
    return png_bytes(img, spezial_board.PNG_LEVEL, spezial_board.PNG_BAND_ROWS, cuts, below)


def rack_png(view: View, *, names: Sequence[str] | None = None) -> bytes:
    """The rack of the view's seat as PNG (Genial: tiles under slot numbers 1–6 in rack
    order; Spezial: the tiles left), with the seat's own scores.

    Raises:
        TypeError: for anything but a Genial or Genial Spezial view.
        ValueError: for a spectator's view, or a wrong number of names.
    """
    _check(view)
    return png_bytes(rack_image(view, seat_names(view, names)))


def result_png(view: View, *, names: Sequence[str] | None = None) -> bytes:
    """The ranking as PNG: the winner, then each side's place and scores.

    Raises:
        TypeError: for anything but a Genial or Genial Spezial view.
        ValueError: for a wrong number of names.
    """
    _check(view)
    return png_bytes(result_image(view, seat_names(view, names)))
