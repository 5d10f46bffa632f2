"""Pictures in the outbounds: the board with every turn, racks only privately."""

from __future__ import annotations

import random
from pathlib import Path

from tests.bot.helpers import Room, make_service

PNG = b"\x89PNG\r\n\x1a\n"


def test_turns_racks_and_result_carry_images(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db", pictures=True))
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    room.play_out(random.Random(1))
    kinds: dict[str, int] = {}
    for out in room.log:
        if out.kind in ("turn", "rack", "result"):
            assert out.attachment is not None and out.attachment.data.startswith(PNG), out
            assert out.attachment.filename.endswith(".png")
            kinds[out.kind] = kinds.get(out.kind, 0) + 1
        if out.attachment is not None and out.attachment.filename.startswith("rack"):
            assert out.user is not None and out.kind == "rack"
    assert kinds["result"] == 1 and kinds["turn"] > 20 and kinds["rack"] > 20


def test_spezial_hand_has_an_image(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db", pictures=True))
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/option spezial")
    (turn,) = room.ok("Ada", "/start")
    assert turn.attachment is not None and turn.attachment.data.startswith(PNG)
    (rack,) = room.ok("Bob", "/hand")
    assert rack.user == "id-bob" and rack.attachment.data.startswith(PNG)
    assert rack.text.splitlines()[0] == (
        "Genial Spezial at Test room: 20 tiles left to place. Play with /play <cell> <cell>,"
        " for example /play J8 J9."
    )
