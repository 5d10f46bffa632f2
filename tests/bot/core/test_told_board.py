"""Issue 27, item 5: a person's move and the computer players' replies are told in one
message whose board numbers each placement in its seat's colour, with a legend."""

from __future__ import annotations

import io
import random
from pathlib import Path

from PIL import Image

from render import marks
from render.theme import SEAT_MARK
from tests.bot.helpers import Room, make_service


def test_the_turn_board_numbers_the_moves_told_together(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db", pictures=True))
    room.ok("Ada", "/join")
    room.ok("Ada", "/addbot")
    room.ok("Ada", "/addbot")
    room.ok("Ada", "/start")
    out = room.play_turn(random.Random(1))
    (turn,) = [o for o in out if o.kind == "turn"]
    assert turn.attachment is not None
    # Ada's placement and both computers' replies: three seats, three legend discs.
    assert sum(" placed " in line for line in turn.text.splitlines()) >= 3
    img = Image.open(io.BytesIO(turn.attachment.data)).convert("RGB")
    cy = marks.LEGEND_Y + marks.LEGEND_LINE // 2
    r = marks.LEGEND_DISC // 2
    left, right = marks.LEGEND_X + r, img.width - 1 - marks.LEGEND_X - r
    assert img.getpixel((left, cy)) == SEAT_MARK[0]
    assert img.getpixel((right, cy)) == SEAT_MARK[1]
    assert img.getpixel((left, cy + marks.LEGEND_LINE)) == SEAT_MARK[2]
    # Told, the table keeps nothing pending for the next board.
    t = room.table()
    assert (t.pending, t.pending_cells, t.pending_seats) == ([], [], [])
