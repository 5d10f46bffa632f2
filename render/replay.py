"""The whole game as an animated GIF (issue 13's ``/replay``): one frame per placement with
that placement outlined and the scores under the board, then the final ranking.

Frames are the board images the bot sends every turn (``genial_board``, ``spezial_board``),
drawn as a spectator sees them, so the replay shows nothing a player could not see: no rack,
no draw order. Swaps and kept racks change nothing on the board and get no frame; a bonus
placement is a placement and gets its own. The last frame is the final board with the
result image in place of the score panel.

Consecutive frames differ in a few cells and the score panel, and Pillow's GIF writer
stores only that: with ``optimize`` it crops each frame to the box that changed and makes
its unchanged pixels transparent, so a 4-player game of about 110 placements stays a few
megabytes (``benchmarks/bench_replay.py``).
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from dataclasses import replace

from PIL import Image

from engine.events import Placed, SpezialPlaced
from engine.genial import GenialGame
from engine.record import Record, new_game
from engine.spezial import SpezialGame
from render import genial_board, seat_names, spezial_board
from render.result import result_image
from render.theme import PAPER

#: How long each placement shows, and the ranking at the end (milliseconds).
PLACEMENT_MS = 600
RESULT_MS = 6000
#: Paper between the final board and the result image laid over its foot.
RESULT_MARGIN = 24


def _placements(
    record: Record,
) -> Iterator[tuple[GenialGame | SpezialGame, Placed | SpezialPlaced]]:
    """The game after each placement of the record, with the placement, in order (swaps and
    keeps skipped).

    Raises:
        InvalidRecord, NotationError, IllegalMove: for a bad record, as ``replay`` does.
    """
    game = new_game(record)
    assert isinstance(game, GenialGame | SpezialGame)
    for text in record.moves:
        for event in game.play_text(text):
            if isinstance(event, Placed | SpezialPlaced):
                yield game, event
                break


def _board_frame(
    game: GenialGame | SpezialGame, placed: Placed | SpezialPlaced, names: Sequence[str]
) -> Image.Image:
    if isinstance(game, GenialGame) and isinstance(placed, Placed):
        # A turn with bonus placements outlines all its placements on the board the chat
        # sees; a replay frame outlines only the placement it shows.
        view = replace(game.view(None), last_placements=(placed.placement,))
        return genial_board.draw_board(view, names)
    assert isinstance(game, SpezialGame)
    return spezial_board.draw_board(game.view(None), names)


def _result_frame(
    board: Image.Image, game: GenialGame | SpezialGame, names: Sequence[str]
) -> Image.Image:
    """The result image in place of the score panel, at the foot of the final board (it is
    taller than the panel, so it covers the board's last rows, behind a paper margin)."""
    result = result_image(game.view(None), names)
    frame = board.copy()
    x = (frame.width - result.width) // 2
    y = max(0, frame.height - result.height)
    top = max(0, y - RESULT_MARGIN)
    frame.paste(_index_of(board, PAPER), (0, top, frame.width, frame.height))
    frame.paste(result, (x, y))
    return frame


def _index_of(img: Image.Image, rgb: tuple[int, int, int]) -> int:
    palette = img.getpalette() or []
    for k in range(len(palette) // 3):
        if tuple(palette[3 * k : 3 * k + 3]) == rgb:
            return k
    raise ValueError(f"{rgb} is not in the image's palette")


def replay_frames(record: Record, names: Sequence[str] | None = None) -> list[Image.Image]:
    """Every frame of the replay, in the game's palette: one per placement, then the
    ranking (placements + 1 frames).

    Raises:
        InvalidRecord, NotationError, IllegalMove: for a bad record.
        ValueError: for a record that does not reach the end, no placement, or a wrong
            number of names.
    """
    frames: list[Image.Image] = []
    game: GenialGame | SpezialGame | None = None
    who: list[str] = []
    for game, placed in _placements(record):
        if not frames:
            who = seat_names(game.view(None), names)
        frames.append(_board_frame(game, placed, who))
    if game is None:
        raise ValueError("the record has no placement to replay")
    if not game.over:
        raise ValueError("the game is not over: a replay shows a finished game")
    frames.append(_result_frame(frames[-1], game, who))
    return frames


def replay_gif(record: Record, *, names: Sequence[str] | None = None) -> bytes:
    """The replay of a finished game as an animated GIF that loops.

    Raises:
        InvalidRecord, NotationError, IllegalMove: for a bad record.
        ValueError: for a game that is not over, or a wrong number of names.
    """
    frames = replay_frames(record, names)
    durations = [PLACEMENT_MS] * (len(frames) - 1) + [RESULT_MS]
    buf = io.BytesIO()
    frames[0].save(
        buf,
        format="GIF",
        save_all=True,
        append_images=frames[1:],
        duration=durations,
        loop=0,
        optimize=True,
        disposal=1,  # keep each frame: the next one draws only what changed
    )
    return buf.getvalue()
