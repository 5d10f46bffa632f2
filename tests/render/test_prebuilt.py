"""The boards' pieces drawn ahead of time (render/prebuilt.py, issue 50): the file holds what
the script draws, where it is looked for and written, a new process's first boards load
their pieces from it instead of drawing them, and the boards are the same bytes with it as
without it; a file missing, stale or cut short is drawn around, never an error. Each test
builds its own file: none is committed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from engine.tiles import COLOURS
from render import cli, panel, pieces, prebuilt, spezial_board, sprites
from tests.patience import PATIENCE

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A file built by the script for this test module."""
    path = tmp_path_factory.mktemp("pieces") / "pieces.bin"
    assert cli.main(["pieces", str(path)]) == 0  # python -m render pieces PATH
    return path


def test_the_file_holds_what_the_script_draws(built: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Built and read back: every piece of the list, each the bytes drawn now."""
    assert header_of(built)["versions"] == prebuilt.versions()
    assert prebuilt._open(built) is not None
    monkeypatch.setattr(prebuilt, "enabled", False)  # every piece drawn, none loaded
    drawn = prebuilt.build(pieces.wanted())
    stored = prebuilt.read(built)
    assert stored.keys() == drawn.keys()
    for key, (sheet, meta, raw, palette) in drawn.items():
        assert stored[key] == (sheet, meta, raw, palette), f"{sheet} {meta}"
    # Readable by every user (an image builds it as root and runs the bot as another).
    assert built.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in built.parent.iterdir()] == ["pieces.bin"]  # no temporary left


def test_the_pieces_lie_in_the_file_as_they_are_and_are_loaded_without_a_copy(
    built: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new process maps the file and takes a piece's pixels where they lie: nothing to
    inflate, no buffer of its own to fill (in a new process each 4 KB of memory written
    the first time costs a page fault: an empty board's 2 MB ~1.2 ms)."""
    header = header_of(built)
    data = built.read_bytes()
    start = len(prebuilt.MAGIC) + 8
    body = start + int.from_bytes(data[len(prebuilt.MAGIC) : start], "big")
    sheets = header["sheets"]
    entries = header["pieces"]
    assert isinstance(sheets, list) and isinstance(entries, dict)
    # The file is its header and every piece's bytes, nothing more.
    assert len(data) == body + sum(n for _, n in sheets)
    monkeypatch.setattr(prebuilt, "enabled", False)
    board = next(call for call in pieces.wanted() if call[1] is spezial_board.background)
    _, fn, args, kwargs = board
    key = prebuilt._pieces[fn].key(args, kwargs)
    assert key is not None
    sheet, begin, end, *_ = entries[key].split()
    at = body + sheets[int(sheet)][0]
    drawn = fn(*args, **kwargs)
    assert data[at + int(begin) : at + int(end)] == drawn.tobytes()
    # Loaded: an image over the mapped file's bytes (read-only, so never drawn on).
    store = prebuilt._open(built)
    assert store is not None
    loaded = store.get(key)
    assert isinstance(loaded, Image.Image) and loaded.readonly
    assert loaded.tobytes() == drawn.tobytes() and loaded.getpalette() == drawn.getpalette()
    # A sprite too: its image and its mask (a byte a pixel, 0 or 255) over the file's bytes,
    # pasted the same as the one drawn now (whose mask is 1-bit).
    _, fn, args, kwargs = next(call for call in pieces.wanted() if call[1] is sprites.joint_sprite)
    key = prebuilt._pieces[fn].key(args, kwargs)
    assert key is not None
    drawn_sprite = fn(*args, **kwargs)
    sprite = store.get(key)
    assert isinstance(sprite, sprites.Sprite) and drawn_sprite.mask.mode == "1"
    assert sprite.image.readonly and sprite.mask.readonly and sprite.mask.mode == "L"
    assert set(sprite.mask.tobytes()) == {0, 255}
    assert sprite.mask.tobytes() == drawn_sprite.mask.convert("L").tobytes()
    assert sprite.image.tobytes() == drawn_sprite.image.tobytes()
    assert sprite.image.getpalette() == drawn_sprite.image.getpalette()
    under = Image.new("P", (200, 200), 7)
    under.putpalette(drawn_sprite.image.getpalette() or [])
    pasted = [under.copy(), under.copy()]
    sprite.paste(pasted[0], 100, 100)
    drawn_sprite.paste(pasted[1], 100, 100)
    assert pasted[0].tobytes() == pasted[1].tobytes() != under.tobytes()


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


def first_boards(path: Path) -> dict[str, object]:
    """The boards of :data:`FIRST_BOARDS` in a new process told to use the file at
    ``path``: their digest, and the pieces drawn."""
    out: dict[str, object] = in_new_process(FIRST_BOARDS, path)
    return out


def in_new_process(script: str, path: Path) -> Any:
    """What ``script`` prints (JSON), run in a new process told to use the file at ``path``."""
    env = dict(os.environ, **{prebuilt.ENV: str(path)})
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env=env,
        timeout=PATIENCE,
    )
    return json.loads(result.stdout)


def test_a_new_process_draws_none_of_the_pieces_its_first_boards_need(
    built: Path, tmp_path: Path
) -> None:
    loaded = first_boards(built)
    assert loaded["drawn"] == {}
    # Without the file the same boards draw their empty boards, sprites and symbols.
    drawn = first_boards(tmp_path / "missing.bin")
    counts = drawn["drawn"]
    assert isinstance(counts, dict)
    assert counts["render.genial_board.background"] == 5
    assert counts["render.spezial_board.background"] == 3
    assert counts["render.sprites.cell_sprite"] > 0
    # And they are the same boards, byte for byte.
    assert loaded["digest"] == drawn["digest"]


# A late 4-player Genial Spezial board (bench_cold_board.py's) and the fonts it loaded.
FONTS_OF_A_FIRST_BOARD = """
import json, random
from engine.spezial import SpezialGame
import render
from render import fonts

loaded = []
load = fonts._load
def spy(name, size):
    loaded.append([name, size])
    return load(name, size)
fonts._load = spy
game, rng = SpezialGame(4, seed=7), random.Random(7)
for _ in range(40):
    game.play(game.random_placement(rng))
render.board_png(game.view(None), names=["Ann", "Bo", "Cy", "Di"])
print(json.dumps(loaded))
"""


def test_a_first_board_takes_its_points_and_counts_from_the_file_and_loads_one_font(
    built: Path,
) -> None:
    """Each font size's first text costs a new process ~0.3 ms (FreeType sets the size
    up): the points, the counts of tiles left and what sizes the points (block_fit) are
    in the file, so a first Genial Spezial board loads the names' size alone."""
    loaded = in_new_process(FONTS_OF_A_FIRST_BOARD, built)
    assert loaded == [["DejaVuSans-Bold.ttf", panel.NAME_SIZE]]


def test_a_file_for_other_code_or_another_pillow_is_not_used(built: Path, tmp_path: Path) -> None:
    assert prebuilt._open(built) is not None
    header = header_of(built)
    data = built.read_bytes()
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
    short = tmp_path / "short.bin"  # cut short (a copy that stopped half way)
    short.write_bytes(data[: len(prebuilt.MAGIC) + 100])
    assert prebuilt._open(short) is None
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    assert prebuilt._open(empty) is None


def test_a_source_changed_makes_another_digest(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The digest is of the drawing modules' text: one byte more in one of them, and the
    file is one of other code."""
    for name in prebuilt.SOURCES:
        (tmp_path / name).write_bytes((prebuilt.HERE / name).read_bytes())
    monkeypatch.setattr(prebuilt, "HERE", tmp_path)
    same = prebuilt.versions()["sources"]
    assert same == header_of(built)["versions"]["sources"]  # type: ignore[index]
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
    # Equal arguments of other types (1 == True == 1.0) are other calls, known apart
    # however often the same lattice was seen before.
    tower = prebuilt._pieces[spezial_board.tower_sprite]
    lat = spezial_board.layout(4).lattice
    keys = {
        tower.key((lat, "tall", COLOURS[0], v, d), {}) for v in (1, True, 1.0) for d in (0, False)
    }
    assert len(keys) == 6
    assert tower.key((lat, "tall", COLOURS[0], 1, 0), {}) == tower.key(
        (spezial_board.layout(2).lattice, "tall", COLOURS[0], 1, 0), {}
    )


def test_a_set_argument_is_known_by_its_items_in_any_order() -> None:
    """Sets of strings iterate in another order in each process (string hashes)."""
    assert prebuilt._canonical(frozenset({("b", 2), ("a", 1)})) == "{('a', 1), ('b', 2)}"
    assert prebuilt._canonical(({"b", "a"},)) == "({'a', 'b'})"


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This process as if no piece had been asked for yet (the file not yet looked for),
    put back as it was afterwards."""
    monkeypatch.setattr(prebuilt, "_opened", False)
    monkeypatch.setattr(prebuilt, "_store", None)
    panel.icon.cache_clear()  # type: ignore[attr-defined]
    yield
    panel.icon.cache_clear()  # type: ignore[attr-defined]


def test_a_missing_stale_or_broken_file_is_drawn_around(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh: None
) -> None:
    """The file named by GENIAL_RENDER_PIECES is used when it is good; missing, for other
    code or cut short, the piece is drawn, the same pixels, and nothing fails."""
    _, _, args, _ = next(call for call in pieces.wanted() if call[1] is panel.icon)
    name = "render.panel.icon"
    stale = tmp_path / "stale.bin"
    data = built.read_bytes()
    stale.write_bytes(data.replace(prebuilt.versions()["sources"].encode(), b"0" * 32, 1))
    short = tmp_path / "short.bin"
    short.write_bytes(data[: len(data) // 3])
    images = {}
    for case, path in (("good", built), ("missing", tmp_path / "none.bin"), ("stale", stale),
                       ("short", short)):  # fmt: skip
        monkeypatch.setenv(prebuilt.ENV, str(path))
        monkeypatch.setattr(prebuilt, "_opened", False)
        monkeypatch.setattr(prebuilt, "_store", None)
        panel.icon.cache_clear()  # type: ignore[attr-defined]
        before = prebuilt.drawn[name]
        image = panel.icon(*args)
        assert prebuilt.drawn[name] == before + (case != "good"), case
        images[case] = (image.mode, image.size, image.tobytes(), image.getpalette())
    assert images["missing"] == images["stale"] == images["short"] == images["good"]


def test_a_file_opened_at_the_start_is_the_one_the_first_board_uses(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh: None
) -> None:
    """``ready`` (a bot's start) opens the file for the process: the first piece asked for
    then neither digests the drawing code nor opens a file again. None found: it is looked
    for again at the first piece, so a file built meanwhile is used."""
    _, _, args, _ = next(call for call in pieces.wanted() if call[1] is panel.icon)
    name = "render.panel.icon"
    monkeypatch.setenv(prebuilt.ENV, str(tmp_path / "none.bin"))
    assert prebuilt.ready() is None
    monkeypatch.setenv(prebuilt.ENV, str(built))  # built meanwhile
    assert prebuilt.ready() == built

    def refused(*_: object) -> None:
        raise AssertionError("looked for again")

    monkeypatch.setattr(prebuilt, "_open", refused)
    monkeypatch.setattr(prebuilt, "versions", refused)
    before = prebuilt.drawn[name]
    image = panel.icon(*args)
    assert prebuilt.drawn[name] == before  # loaded from the file opened at the start
    assert prebuilt.ready() == built  # already open: nothing looked for
    monkeypatch.setattr(prebuilt, "enabled", False)
    panel.icon.cache_clear()  # type: ignore[attr-defined]
    drawn = panel.icon(*args)
    assert (image.tobytes(), image.getpalette()) == (drawn.tobytes(), drawn.getpalette())


def test_the_file_is_looked_for_where_it_is_named_else_beside_the_package_else_in_the_cache(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(prebuilt.ENV, str(tmp_path / "given.bin"))
    assert prebuilt.places() == [tmp_path / "given.bin"]
    assert prebuilt.find() is None  # named, but not there: nowhere else
    monkeypatch.delenv(prebuilt.ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(prebuilt, "PACKAGED", tmp_path / "package" / "pieces.bin")
    cache = prebuilt.cache_path()
    assert cache is not None
    assert cache.parent == tmp_path / "cache" / "genial-bot"
    assert re.fullmatch(r"pieces-[0-9a-f]{16}\.bin", cache.name)
    assert prebuilt.places() == [tmp_path / "package" / "pieces.bin", cache]
    assert prebuilt.find() is None
    cache.parent.mkdir(parents=True)
    cache.write_bytes(built.read_bytes())
    assert prebuilt.find() == cache
    # Beside the package first, if it is good there; a stale one there is passed over.
    prebuilt.PACKAGED.parent.mkdir()
    prebuilt.PACKAGED.write_bytes(b"stale")
    assert prebuilt.find() == cache
    prebuilt.PACKAGED.write_bytes(built.read_bytes())
    assert prebuilt.find() == prebuilt.PACKAGED
    # The cache's file is named by the versions: another Pillow, another file.
    real = prebuilt.versions()
    monkeypatch.setattr(prebuilt, "versions", lambda: dict(real, pillow="0.1"))
    assert prebuilt.cache_path() not in (None, cache)
    # A relative XDG_CACHE_HOME is ignored (the XDG spec): ~/.cache.
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert prebuilt.cache_path() is not None
    assert prebuilt.cache_path().parent == tmp_path / "home" / ".cache" / "genial-bot"  # type: ignore[union-attr]


def test_the_script_writes_where_it_is_told_else_beside_the_package_else_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(prebuilt.ENV, str(tmp_path / "given.bin"))
    assert pieces.target() == tmp_path / "given.bin"
    monkeypatch.delenv(prebuilt.ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "package"
    folder.mkdir()
    monkeypatch.setattr(prebuilt, "PACKAGED", folder / "pieces.bin")
    assert pieces.target() == folder / "pieces.bin"
    monkeypatch.setattr(pieces.os, "access", lambda path, mode: False)  # a system's site-packages
    assert pieces.target() == prebuilt.cache_path()


def test_a_file_that_cannot_be_written_is_said_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder that cannot be made (a file is in its place; as root, a read-only folder
    would still be written): exit status 1 and one line, no exception, nothing left."""
    (tmp_path / "blocked").write_text("a file, not a folder")
    assert cli.main(["pieces", str(tmp_path / "blocked" / "pieces.bin")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pieces.bin: not written" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocked"]
