"""The whole game as an animated GIF (issue 13's ``/replay``): one frame per placement with
that placement outlined and the scores under the board, then the final ranking.

Frames are the board images the bot sends every turn (``genial_board``, ``spezial_board``),
drawn as a spectator sees them, so the replay shows nothing a player could not see: no rack,
no draw order. Swaps and kept racks change nothing on the board and get no frame; a bonus
placement is a placement and gets its own. Moves taken back by consent (the record's
``takebacks``) show where they were played: their placements, each frame badged "taken
back" in the top corner, then the board as it was before them, and the game goes on from
there. The last frame is the final board with the
result image in place of the score panel; the result is taller than the panel, so every
frame is as tall as the board with the result below it (the board frames have paper under
their panel), and the ranking never covers the board's last rows or its last placement.

Consecutive frames differ in a few cells and the score panel, and only that is stored:
each frame is cropped to the box that changed, its unchanged pixels transparent, so a
4-player game of about 80 placements stays under a megabyte, and frames are encoded as
they are drawn, so memory holds two frames, not the game (``benchmarks/bench_replay.py``).
"""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Iterator, Sequence

from PIL import GifImagePlugin, Image, ImageChops

from engine.events import Placed, SpezialPlaced
from engine.genial import GenialGame
from engine.record import Record, new_game, replay
from engine.spezial import SpezialGame
from render import genial_board, seat_names, spezial_board
from render.canvas import Canvas, palette_index
from render.fonts import fit, font
from render.marks import LEGEND_LINE, LEGEND_X, LEGEND_Y
from render.result import result_image
from render.theme import PAPER, TURN, WHITE, palette_colours

#: How long each placement shows, and the ranking at the end (milliseconds).
PLACEMENT_MS = 600
RESULT_MS = 6000
#: Paper between the final board and the result image laid over its foot.
RESULT_MARGIN = 24
#: The "taken back" badge on a frame of moves taken back: its text size and the paper
#: on each side of the text (it sits where a turn's board has its legend).
BADGE_SIZE = 22
BADGE_PAD = 12
#: The badge's words where the caller gives none (the command line's replay).
TAKEN_BACK = "taken back"

Game = GenialGame | SpezialGame
#: One frame's content: the game, the placement it shows (``None``: the position alone,
#: after moves taken back), and whether that placement was taken back.
Step = tuple[Game, Placed | SpezialPlaced | None, bool]


def _placed(game: Game, text: str) -> Placed | SpezialPlaced | None:
    for event in game.play_text(text):
        if isinstance(event, Placed | SpezialPlaced):
            return event
    return None


def _placements(record: Record) -> Iterator[Step]:
    """The game after each placement of the record, with the placement, in order (swaps and
    keeps skipped); where moves were taken back, those moves' placements (marked), then
    the position they were taken back to.

    Raises:
        InvalidRecord, NotationError, IllegalMove: for a bad record, as ``replay`` does.
    """
    game = new_game(record)
    assert isinstance(game, GenialGame | SpezialGame)
    pending = list(record.takebacks)

    def taken_back(count: int) -> Iterator[Step]:
        while pending and pending[0].after == count:
            tb = pending.pop(0)
            if record.game == "genial" and tb.bag is None:
                continue  # exported mid-game: no draw order to play those moves with
            bag = tb.bag if record.game == "genial" else record.bag
            line = replay(
                dataclasses.replace(record, bag=bag, moves=record.moves[:count], takebacks=())
            )
            assert isinstance(line, GenialGame | SpezialGame)
            shown = False
            for text in tb.moves:
                placed = _placed(line, text)
                if placed is not None:
                    shown = True
                    yield line, placed, True
            if shown:
                yield game, None, False

    yield from taken_back(0)
    for n, text in enumerate(record.moves):
        placed = _placed(game, text)
        if placed is not None:
            yield game, placed, False
        yield from taken_back(n + 1)


def _board_frame(
    game: Game, placed: Placed | SpezialPlaced | None, names: Sequence[str]
) -> Image.Image:
    if isinstance(game, GenialGame):
        # A turn with bonus placements outlines all its placements on the board the chat
        # sees; a replay frame outlines only the placement it shows (none: the position).
        shown = (placed.placement,) if isinstance(placed, Placed) else ()
        view = dataclasses.replace(game.view(None), last_placements=shown)
        return genial_board.draw_board(view, names)
    spezial = game.view(None)
    if placed is None:
        spezial = dataclasses.replace(spezial, last_placement=None)
    return spezial_board.draw_board(spezial, names)


def _badge(frame: Image.Image, game: Game, label: str) -> None:
    """The "taken back" badge in the frame's top left corner, where a turn's board puts its
    legend: on the paper there, cut short to the room the empty board leaves."""
    if isinstance(game, GenialGame):
        room = genial_board.legend_rooms(game.mode, game.players)[0]
    else:
        view = game.view(None)
        towers = frozenset((h, t.height) for h, t in view.towers.items())
        room = spezial_board.legend_rooms(towers, game.players)[0]
    text = fit(label, font(BADGE_SIZE), room - 2 * BADGE_PAD)
    width = round(font(BADGE_SIZE).getlength(text)) + 2 * BADGE_PAD
    x, y = LEGEND_X, LEGEND_Y
    canvas = Canvas(frame, _game_name(game))
    canvas.rect((x, y, x + width, y + LEGEND_LINE), TURN, 10)
    canvas.text((x + BADGE_PAD, y + LEGEND_LINE // 2), text, BADGE_SIZE, WHITE, TURN)


def _board_top(game: GenialGame | SpezialGame) -> int:
    """Where the score panel begins on the game's board image: the board ends above it."""
    if isinstance(game, GenialGame):
        return genial_board.layout(game.mode, game.players).panel_y
    return spezial_board.layout(game.players).panel_y


def _game_name(game: GenialGame | SpezialGame) -> str:
    return genial_board.GAME if isinstance(game, GenialGame) else spezial_board.GAME


def _padded(board: Image.Image, height: int, game: GenialGame | SpezialGame) -> Image.Image:
    """A board frame on paper down to ``height`` (frames of a GIF share one size)."""
    if board.height >= height:
        return board
    frame = Image.new("P", (board.width, height), palette_index(_game_name(game), PAPER))
    frame.putpalette(board.getpalette() or [])
    frame.paste(board, (0, 0))
    return frame


def _result_frame(
    board: Image.Image, game: GenialGame | SpezialGame, result: Image.Image
) -> Image.Image:
    """The result image in place of the score panel, below the whole final board (the
    frame is tall enough for it: see :func:`frame_height`)."""
    frame = board.copy()
    top = _board_top(game)
    paper = palette_index(_game_name(game), PAPER)
    frame.paste(paper, (0, top - RESULT_MARGIN, frame.width, frame.height))
    frame.paste(result, ((frame.width - result.width) // 2, top))
    return frame


def frame_height(game: GenialGame | SpezialGame, board_height: int, result: Image.Image) -> int:
    """The height of every frame: the board image's, or more when the ranking below the
    board needs it."""
    return max(board_height, _board_top(game) + result.height)


def replay_frames(
    record: Record, names: Sequence[str] | None = None, taken_back: str = TAKEN_BACK
) -> Iterator[tuple[Image.Image, int]]:
    """Every frame of the replay in the game's palette, with how long it shows (ms): one
    per placement, then the ranking (placements + 1 frames, without takebacks; each
    takeback adds its placements, badged ``taken_back``, and the position it went back
    to). Frames come one at a time, so a whole game never sits in memory.

    Raises:
        InvalidRecord, NotationError, IllegalMove: for a bad record.
        ValueError: for a game that is not over (checked before any frame is drawn), or a
            wrong number of names.
    """
    final = replay(record)
    if not final.over:
        raise ValueError("the game is not over: a replay shows a finished game")
    assert isinstance(final, GenialGame | SpezialGame)
    who = seat_names(final.view(None), names)
    result = result_image(final.view(None), who)
    board: Image.Image | None = None
    height = 0
    for game, placed, undone in _placements(record):
        drawn = _board_frame(game, placed, who)
        height = height or frame_height(final, drawn.height, result)
        board = _padded(drawn, height, game)
        if undone:
            _badge(board, game, taken_back)
        yield board, PLACEMENT_MS
    if board is None:
        raise ValueError("the record has no placement to replay")
    yield _result_frame(board, final, result), RESULT_MS


def _transparent_index(game: str) -> int:
    """A palette index no image uses (the palette pads its 256 entries after its colours),
    for the pixels a frame leaves as they were."""
    used = len(palette_colours(game))
    if used >= 256:
        raise ValueError(f"the {game} palette has no free entry for transparency")
    return used


def replay_gif(
    record: Record, *, names: Sequence[str] | None = None, taken_back: str = TAKEN_BACK
) -> bytes:
    """The replay of a finished game as an animated GIF that loops; ``taken_back``: the
    badge on frames of moves taken back, in the table's language.

    Each frame after the first is stored as the box that changed since the one before,
    its unchanged pixels transparent, over a kept frame (disposal 1); frames are encoded
    as they are drawn, with Pillow's documented GIF helpers ``getheader``/``getdata``
    (``Image.save(save_all=True)`` does the same, but holds every frame until the end).

    Raises:
        InvalidRecord, NotationError, IllegalMove: for a bad record.
        ValueError: for a game that is not over, or a wrong number of names.
    """
    clear = _transparent_index(record.game)
    out = io.BytesIO()
    previous: Image.Image | None = None
    for frame, ms in replay_frames(record, names, taken_back):
        if previous is None:
            header, _ = GifImagePlugin.getheader(frame.copy(), info={"loop": 0})
            chunks = [*header, *GifImagePlugin.getdata(frame, duration=ms, disposal=1)]
        else:
            # Both frames are in the same palette, so equal indexes are equal colours.
            delta = ImageChops.subtract_modulo(frame, previous)
            box = delta.getbbox(alpha_only=False) or (0, 0, 1, 1)
            part = frame.crop(box)
            part.paste(clear, mask=delta.crop(box).point([255, *(0,) * 255], "1"))
            chunks = GifImagePlugin.getdata(
                part, offset=box[:2], duration=ms, disposal=1, transparency=clear
            )
        for chunk in chunks:
            out.write(chunk)
        previous = frame
    out.write(b";")  # the GIF trailer
    return out.getvalue()
