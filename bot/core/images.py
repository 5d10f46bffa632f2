"""Pictures of a game: the one module that calls the renderer.

Each function takes a game view (what one seat, or a spectator, may know) and the names of
the seats, and returns the PNG as an :class:`~bot.core.outbound.Attachment`.
:func:`prepare_pieces` (called by the launcher as the bot starts) builds the file of the
boards' pieces drawn ahead of time when this machine has none (render/prebuilt.py).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bot.core.outbound import Attachment

log = logging.getLogger(__name__)


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


def prepare_pieces() -> threading.Thread | None:
    """Open the file of the boards' pieces (render/prebuilt.py) for this process's boards,
    or build it in a background thread if no file this process would use is found, so
    that from the bot's next start on its first board loads them instead of drawing them
    (15-25 ms of CPU less). It goes to
    ``$GENIAL_RENDER_PIECES`` if that is set, else to the per-user cache; an image has it
    beside the package already (the Dockerfile builds it). The thread runs at the lowest
    priority where the system allows one thread's to be lowered, logs one line, and never
    stops the bot: a file that cannot be written is logged, and the boards drawn as ever.
    Returns the thread (None: nothing to do)."""
    from render import prebuilt

    if prebuilt.ready() is not None:  # opened for this process's boards
        return None
    given = os.environ.get(prebuilt.ENV)
    path = Path(given) if given else prebuilt.cache_path()
    if path is None:
        log.info("no place for the board pieces (no home directory): they are drawn")
        return None
    thread = threading.Thread(target=_build_pieces, args=(path,), name="pieces", daemon=True)
    thread.start()
    return thread


def _build_pieces(path: Path) -> None:
    if sys.platform == "linux":  # there a thread has a priority of its own
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
    started = time.thread_time()
    try:
        from render import pieces

        count, size = pieces.write_file(path)
    except Exception as exc:  # never fatal: the boards are drawn as before
        log.warning("the board pieces were not written to %s: %s", path, exc)
        return
    _forget_older(path)
    log.info(
        "board pieces drawn for this machine into %s (%d pieces, %d KB, %.1f s of CPU):"
        " from the next start on, the first boards load them",
        path,
        count,
        size // 1024,
        time.thread_time() - started,
    )


def _forget_older(path: Path) -> None:
    """Remove the files of pieces an earlier version left in the per-user cache beside
    ``path`` (about 15 MB each, one more at every upgrade): this version never reads them.
    A process that still maps one keeps its pages; another installation on the machine
    that wants its own draws it again at its next start."""
    from render import prebuilt

    if path != prebuilt.cache_path():
        return  # a file named by GENIAL_RENDER_PIECES: its folder is not ours to tidy
    for older in path.parent.glob("pieces-*.bin"):
        if older != path:
            try:
                older.unlink()
            except OSError as exc:
                log.warning("an older file of board pieces stays: %s", exc)
