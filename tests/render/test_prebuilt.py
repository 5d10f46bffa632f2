"""The board pieces shipped with the renderer (render/prebuilt.py, issue 50): the file holds
what its script draws now, a new process's first boards load their pieces from it instead
of drawing them, and the boards are the same bytes with it as without it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from render import pieces, prebuilt
from tests.patience import PATIENCE

ROOT = Path(__file__).resolve().parents[2]
REBUILD = "run .venv/bin/python tools/build_pieces.py and commit render/assets/pieces.bin"


def test_the_shipped_file_holds_what_the_script_draws_now() -> None:
    """The file cannot go stale: a change to how a piece is drawn, to the modules that draw
    pieces or to the list of pieces fails here until the file is built again."""
    header = header_of(prebuilt.PATH)
    assert header["versions"] == prebuilt.versions(), f"the file is for other code: {REBUILD}"
    shipped = prebuilt.read()
    drawn = prebuilt.build(pieces.wanted())
    assert shipped.keys() == drawn.keys(), f"other pieces: {REBUILD}"
    for key, (sheet, meta, raw, palette) in drawn.items():
        assert shipped[key] == (sheet, meta, raw, palette), f"{sheet} {meta}: {REBUILD}"


def header_of(path: Path) -> dict[str, object]:
    data = path.read_bytes()
    assert data.startswith(prebuilt.MAGIC)
    length = int.from_bytes(data[len(prebuilt.MAGIC) : len(prebuilt.MAGIC) + 8], "big")
    start = len(prebuilt.MAGIC) + 8
    header: dict[str, object] = json.loads(data[start : start + length])
    return header


# Late boards of every setup, the last placement marked, two placements told together
# (numbered in their seats' colours), a clock: what a restarted bot's first boards show.
FIRST_BOARDS = """
import hashlib, json, random, sys
from engine.genial import GenialGame
from engine.moves import KEEP
from engine.spezial import SpezialGame
import render
from render import genial_board, prebuilt, spezial_board

prebuilt.enabled = sys.argv[1] == "shipped"
games = []
for players, mode in ((1, "solo"), (2, "standard"), (3, "standard"), (4, "standard"),
                      (4, "team")):
    game, rng = GenialGame(players, mode=mode, seed=players), random.Random(players)
    while not game.over and len(game.view(None).moves) < 40:
        game.play(KEEP if game.awaiting == "swap" else game.random_placement(rng))
    games.append(game)
for players in (2, 3, 4):
    game, rng = SpezialGame(players, seed=players), random.Random(players)
    for _ in range(10 * players):
        game.play(game.random_placement(rng))
    games.append(game)
digest = hashlib.sha256()
for game in games:
    view = game.view(None)
    if isinstance(game, GenialGame):
        tiles = [(0, p.cell1, p.cell2) for p in genial_board.placed_tiles(view)[-2:]]
    else:
        tiles = spezial_board.placed_tiles(view)[-2:]
    told = [render.Told(seat, a, b) for seat, a, b in tiles]
    clocks = ["4m 10s"] + [None] * (view.players - 1)
    digest.update(render.board_png(view))
    digest.update(render.board_png(view, told=told, clocks=clocks))
print(json.dumps({"digest": digest.hexdigest(), "drawn": dict(prebuilt.drawn)}))
"""


def first_boards(pieces: str) -> dict[str, object]:
    """The boards of :data:`FIRST_BOARDS` in a new process, with the shipped pieces or
    with every piece drawn: their digest, and the pieces drawn."""
    result = subprocess.run(
        [sys.executable, "-c", FIRST_BOARDS, pieces],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        timeout=PATIENCE,
    )
    out: dict[str, object] = json.loads(result.stdout)
    return out


def test_a_new_process_draws_none_of_the_pieces_its_first_boards_need() -> None:
    shipped = first_boards("shipped")
    assert shipped["drawn"] == {}
    # Without the file the same boards draw their empty boards, sprites and symbols.
    drawn = first_boards("drawn")
    counts = drawn["drawn"]
    assert isinstance(counts, dict)
    assert counts["render.genial_board.background"] == 5
    assert counts["render.spezial_board.background"] == 3
    assert counts["render.sprites.cell_sprite"] > 0
    # And they are the same boards, byte for byte.
    assert shipped["digest"] == drawn["digest"]


def test_a_file_for_other_code_or_another_pillow_is_not_used(tmp_path: Path) -> None:
    assert prebuilt._open(prebuilt.PATH) is not None
    header = header_of(prebuilt.PATH)
    data = prebuilt.PATH.read_bytes()
    versions = header["versions"]
    assert isinstance(versions, dict)
    for what in ("pillow", "freetype", "sources"):
        other = dict(header, versions=dict(versions, **{what: "other"}))
        text = json.dumps(other, separators=(",", ":"), sort_keys=True).encode()
        start = len(prebuilt.MAGIC) + 8
        body = data[start + int.from_bytes(data[len(prebuilt.MAGIC) : start], "big") :]
        path = tmp_path / f"{what}.bin"
        path.write_bytes(prebuilt.MAGIC + len(text).to_bytes(8, "big") + text + body)
        assert prebuilt._open(path) is None, what
    wrong = tmp_path / "wrong.bin"
    wrong.write_bytes(b"not pieces\n" + data)
    assert prebuilt._open(wrong) is None
    assert prebuilt._open(tmp_path / "missing.bin") is None


def test_a_source_changed_makes_another_digest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The digest is of the drawing modules' text: one byte more in one of them, and the
    file is one of other code."""
    for name in prebuilt.SOURCES:
        (tmp_path / name).write_bytes((prebuilt.HERE / name).read_bytes())
    monkeypatch.setattr(prebuilt, "HERE", tmp_path)
    same = prebuilt.versions()["sources"]
    assert same == header_of(prebuilt.PATH)["versions"]["sources"]  # type: ignore[index]
    with (tmp_path / "sprites.py").open("a") as f:
        f.write("\n")
    assert prebuilt.versions()["sources"] != same
    (tmp_path / "sprites.py").unlink()
    assert prebuilt.versions()["sources"] == ""


def test_a_call_is_known_by_its_arguments_whichever_way_they_are_given() -> None:
    from render import genial_board, sprites

    made = prebuilt._pieces[sprites.cell_sprite]
    lat = genial_board.layout("standard", 4).lattice
    face = genial_board.PLAIN
    by_name = made.key((lat, face), {"game": "genial", "ss": 1})
    in_order = made.key((lat, face, None, None, None, sprites.PAPER, "genial", 1), {})
    assert by_name is not None and by_name == in_order
    assert made.key((lat, face), {"game": "spezial", "ss": 1}) != by_name
    # A call the function would refuse has no key (it is drawn, and fails there).
    assert made.key((lat, face), {"colour": 1}) is None
    assert made.key((), {}) is None


def test_a_set_argument_is_known_by_its_items_in_any_order() -> None:
    """Sets of strings iterate in another order in each process (string hashes)."""
    assert prebuilt._canonical(frozenset({("b", 2), ("a", 1)})) == "{('a', 1), ('b', 2)}"
    assert prebuilt._canonical(({"b", "a"},)) == "({'a', 'b'})"
