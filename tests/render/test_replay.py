"""The animated replay: one frame per placement (swaps and kept racks are none, bonus
placements are), each outlining exactly its own placement, then the ranking.

Which cells each frame must outline comes from the record's move texts (RECORD.md: a
placement names its two cells; ``swap`` and ``keep`` place nothing); pixels are probed on
the rim of each cell's face as tests/render/test_genial_pixels.py does.
"""

from __future__ import annotations

import dataclasses
import io
import math
from pathlib import Path

import pytest
from PIL import Image

from engine.events import Placed
from engine.genial import GenialGame, playing_area
from engine.hexgrid import Area, Hex
from engine.record import Record, new_game, read_record, replay
from engine.spezial import board_layout
from render import genial_board, result_png, spezial_board
from render.cli import main
from render.geometry import Lattice
from render.replay import replay_gif
from render.theme import HIGHLIGHT
from tests.render.helpers import decode


def record_of(shared: Path, name: str) -> Record:
    return read_record(str(shared / "examples" / f"{name}.json"))


def gif_frames(data: bytes) -> list[Image.Image]:
    """Every frame as the viewer shows it (Pillow composes the changed boxes), in RGB."""
    img = Image.open(io.BytesIO(data))
    assert img.format == "GIF"
    frames = []
    for k in range(getattr(img, "n_frames", 1)):
        img.seek(k)
        frames.append(img.convert("RGB"))
    return frames


def placed_cells(record: Record, area: Area) -> list[set[Hex]]:
    """The two cells of each placement, from the move texts alone."""
    out = []
    for text in record.moves:
        if text in ("swap", "keep"):
            continue
        words = text.split()
        cells = words[1:3] if record.game == "genial" else words[:2]
        out.append({area.parse_label(c) for c in cells})
    return out


def rims(img: Image.Image, lat: Lattice, area: Area) -> dict[Hex, int]:
    """For each cell whose face shows the highlight rim: on how many of its six sides
    (probed just inside the face, towards each neighbour)."""
    px = img.load()
    assert px is not None
    found = {}
    for h in area.cells:
        cx, cy = lat.centre(h)
        rim = sum(
            px[round(cx + 0.415 * lat.w * math.cos(a)), round(cy + 0.415 * lat.w * math.sin(a))]
            == HIGHLIGHT
            for a in (math.radians(60 * k) for k in range(6))
        )
        if rim:
            found[h] = rim
    return found


@pytest.mark.parametrize(
    ("name", "players"),
    [("01-genial-standard-2p", 2), ("05-genial-team-4p", 4), ("07-spezial-2p", 2)],
)
def test_one_frame_per_placement_each_outlining_its_own(
    shared: Path, name: str, players: int
) -> None:
    record = record_of(shared, name)
    if record.game == "genial":
        area = playing_area({2: 5, 4: 7}[players])
        lay = genial_board.layout(record.mode or "standard", players)
        lat, size = lay.lattice, (lay.width, lay.height)
    else:
        area = board_layout().area
        slay = spezial_board.layout(players)
        lat, size = slay.lattice, (slay.width, slay.height)
    # A Genial tile is rimmed all round but its joined side. A Genial Spezial tile links
    # to its seat's tiles around it, and a link covers the rim on that side: one side
    # left bare is enough to see it.
    sides = 5 if record.game == "genial" else 1
    expected = placed_cells(record, area)
    frames = gif_frames(replay_gif(record))
    assert len(frames) == len(expected) + 1
    # One size for all; as wide as the board, and at least as tall (the ranking at the
    # end goes below the whole board, on paper every frame has).
    assert len({f.size for f in frames}) == 1
    assert frames[0].width == size[0] and frames[0].height >= size[1]
    for k, (frame, cells) in enumerate(zip(frames, expected, strict=False)):
        found = rims(frame, lat, area)
        assert set(found) == cells, f"frame {k}"
        assert all(n >= sides for n in found.values()), f"frame {k}"


def test_swaps_are_no_frames_and_bonus_placements_are(shared: Path) -> None:
    # Example 01 has 45 moves: 5 swap decisions and 40 placements, 3 of them bonus ones
    # (the engine's events say which); 40 placements and the ranking make 41 frames.
    record = record_of(shared, "01-genial-standard-2p")
    decisions = sum(m in ("swap", "keep") for m in record.moves)
    game = new_game(record)
    bonus = sum(isinstance(e, Placed) and e.bonus for m in record.moves for e in game.play_text(m))
    assert (len(record.moves), decisions, bonus) == (45, 5, 3)
    assert len(gif_frames(replay_gif(record))) == 41


def test_the_last_frame_shows_the_ranking(shared: Path) -> None:
    record = record_of(shared, "04-genial-standard-4p")
    names = ["Anna", "Bärbel", "Carl", "Dörte"]
    frames = gif_frames(replay_gif(record, names=names))
    last = frames[-1]
    game = replay(record)
    assert isinstance(game, GenialGame)
    result = decode(result_png(game.view(None), names=names))
    x = (last.width - result.width) // 2
    y = last.height - result.height
    assert last.crop((x, y, x + result.width, last.height)).tobytes() == result.tobytes()
    # Above it, the final board as the frame before showed it.
    assert (
        last.crop((0, 0, last.width, 200)).tobytes()
        == frames[-2].crop((0, 0, last.width, 200)).tobytes()
    )


def test_a_game_not_over_has_no_replay(shared: Path) -> None:
    record = record_of(shared, "01-genial-standard-2p")
    with pytest.raises(ValueError, match="not over"):
        replay_gif(dataclasses.replace(record, moves=record.moves[:20]))


def test_cli_writes_the_replay(shared: Path, tmp_path: Path) -> None:
    out = tmp_path / "replay.gif"
    record = shared / "examples" / "07-spezial-2p.json"
    assert main([str(record), "--replay", str(out), "--names", "Ann,Bob"]) == 0
    placements = sum(m not in ("swap", "keep") for m in record_of(shared, "07-spezial-2p").moves)
    assert len(gif_frames(out.read_bytes())) == placements + 1


def test_cli_needs_something_to_write(shared: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([str(shared / "examples" / "07-spezial-2p.json")])
    assert "--out, --replay or both" in capsys.readouterr().err


@pytest.mark.parametrize(("name", "players"), [("04-genial-standard-4p", 4), ("07-spezial-2p", 2)])
def test_the_ranking_leaves_the_whole_board_and_its_last_placement(
    shared: Path, name: str, players: int
) -> None:
    record = record_of(shared, name)
    if record.game == "genial":
        area = playing_area({2: 5, 4: 7}[players])
        lay = genial_board.layout(record.mode or "standard", players)
        lat, bottom = lay.lattice, lay.panel_y - genial_board.PANEL_TOP
    else:
        area = board_layout().area
        slay = spezial_board.layout(players)
        lat, bottom = slay.lattice, slay.panel_y - spezial_board.PANEL_TOP
    frames = gif_frames(replay_gif(record))
    last, before = frames[-1], frames[-2]
    # The board down to its last row's foot, as the last placement's frame showed it.
    assert last.crop((0, 0, last.width, bottom)).tobytes() == (
        before.crop((0, 0, last.width, bottom)).tobytes()
    )
    assert set(rims(last, lat, area)) == placed_cells(record, area)[-1]


def test_moves_taken_back_show_where_they_were_played_badged_then_the_board_before() -> None:
    from engine.record import take_back
    from render.marks import LEGEND_X, LEGEND_Y
    from render.theme import TURN

    # Twelve moves (first legal move each time), the last two taken back, then the game
    # played to its end from the first ten on the new draw order.
    game = GenialGame(2, "standard", seed=4)
    for _ in range(12):
        game.play(game.legal_moves()[0])
    undone = take_back(Record.from_dict(game.record()), 10, __import__("random").Random(7))
    (tb,) = undone.takebacks
    game = new_game(dataclasses.replace(undone, takebacks=()))
    assert isinstance(game, GenialGame)
    for text in undone.moves:
        game.play_text(text)
    while not game.over:
        game.play(game.legal_moves()[0])
    record = Record.from_dict({**game.record(), "takebacks": [tb.to_dict()]})
    area = playing_area(5)
    lat = genial_board.layout("standard", 2).lattice
    main = placed_cells(record, area)
    back = placed_cells(dataclasses.replace(record, moves=tb.moves), area)
    before = len(placed_cells(dataclasses.replace(record, moves=record.moves[:10]), area))
    assert tb.moves and len(back) == len(tb.moves)  # first legal moves: placements only
    frames = gif_frames(replay_gif(record, taken_back="zurückgenommen"))
    # Every placement of the game, those taken back, the board they went back to, the ranking.
    assert len(frames) == len(main) + len(back) + 1 + 1
    x, y = LEGEND_X, LEGEND_Y

    def badged(frame: Image.Image) -> bool:
        return frame.getpixel((x + 4, y + 20)) == TURN

    for k, frame in enumerate(frames[:-1]):
        found = set(rims(frame, lat, area))
        if before <= k < before + len(back):
            assert badged(frame) and found == back[k - before], f"frame {k}"
        elif k == before + len(back):  # back to the board after ten moves: none outlined
            assert not badged(frame) and found == set()
        else:
            j = k if k < before else k - len(back) - 1
            assert not badged(frame) and found == main[j], f"frame {k}"
    # The board they went back to is the board of the tenth move's frame, less its outline:
    # the taken-back tiles are gone.
    board_rows = (0, 0, frames[0].width, genial_board.layout("standard", 2).panel_y)
    gone = [h for cells in back for h in cells]
    back_to = frames[before + len(back)]
    for h in gone:
        cx, cy = lat.centre(h)
        assert back_to.getpixel((round(cx), round(cy))) == frames[0].getpixel(
            (round(cx), round(cy))
        )
    assert (
        back_to.crop(board_rows).tobytes()
        != frames[before + len(back) - 1].crop(board_rows).tobytes()
    )
