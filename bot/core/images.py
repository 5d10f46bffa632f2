"""Pictures of a game: the one module that calls the renderer.

Each function takes a game view (what one seat, or a spectator, may know) and the names of
the seats, and returns the PNG as an :class:`~bot.core.outbound.Attachment`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.core.outbound import Attachment


def board(
    view: Any,
    names: Sequence[str],
    number: int,
    highlight: Sequence[Any] = (),
    told: Sequence[tuple[int, Any, Any]] = (),
    clocks: Sequence[str | None] | None = None,
) -> Attachment:
    """The board after move ``number`` (used in the file name only); ``highlight``: cells
    of the placements since the last person's turn, marked like the last placement;
    ``told``: those placements as (seat, cell, cell) in order, numbered on the board;
    ``clocks``: each seat's time left (``None``: no clock), in the panel."""
    import render

    marks = [render.Told(seat, a, b) for seat, a, b in told]
    png = render.board_png(
        view, names=list(names), highlight=list(highlight), told=marks, clocks=clocks
    )
    return Attachment(f"board-{number:03d}.png", png)


def rack(view: Any, names: Sequence[str], number: int) -> Attachment:
    """The rack of the view's seat: only ever sent privately to that seat's player."""
    import render

    return Attachment(f"rack-{number:03d}.png", render.rack_png(view, names=list(names)))


def result(view: Any, names: Sequence[str], number: int) -> Attachment:
    """The end-of-game summary: final scores and ranking."""
    import render

    return Attachment(f"result-{number:03d}.png", render.result_png(view, names=list(names)))


def chart(history: Sequence[int], title: str) -> Attachment:
    """A player's rating after each of their games, as a small line chart."""
    from render.chart import rating_chart_png

    return Attachment("rating.png", rating_chart_png(list(history), title))


def replay(
    record: dict[str, Any], names: Sequence[str], number: int, taken_back: str
) -> Attachment:
    """The whole finished game as an animated GIF, one frame per placement; moves taken
    back by consent shown where they were played, badged ``taken_back``.

    Raises:
        EngineError: for a bad record; ValueError for a game that is not over.
    """
    from engine.record import Record
    from render.replay import replay_gif

    gif = replay_gif(Record.from_dict(record), names=list(names), taken_back=taken_back)
    return Attachment(f"replay-{number:03d}.gif", gif, "image/gif")


def standings(
    title: str,
    what: str,
    head: Sequence[str],
    rows: Sequence[Sequence[str]],
    lines: Sequence[str] = (),
) -> Attachment:
    """A tournament's standings (see :func:`render.standings.standings_image`)."""
    from render.standings import standings_png

    return Attachment("standings.png", standings_png(title, what, head, rows, lines))
