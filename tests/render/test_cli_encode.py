"""``python -m render``, the PNG writer and the palette."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from render.cli import main
from render.encode import png_bytes
from render.theme import GAMES, palette_colours, quantize
from tests.render.helpers import decode


def test_cli_writes_board_rack_and_result(shared: Path, tmp_path: Path) -> None:
    record = shared / "examples" / "05-genial-team-4p.json"
    board, rack, result = tmp_path / "b.png", tmp_path / "r.png", tmp_path / "res.png"
    code = main([str(record), "--out", str(board), "--rack", "2", str(rack), "--result",
                 str(result), "--names", "Anna,Bärbel,Carl,Dörte"])  # fmt: skip
    assert code == 0
    for path in (board, rack, result):
        decode(path.read_bytes())
    assert decode(board.read_bytes()).height > decode(rack.read_bytes()).height


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--rack", "4", "x.png"], "seat must be a number from 0 to 3"),
        (["--rack", "one", "x.png"], "seat must be a number"),
        (["--names", "a,b"], "expected 4 names"),
    ],
)
def test_cli_rejects_bad_arguments(
    shared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str],
    message: str,
) -> None:  # fmt: skip
    record = shared / "examples" / "04-genial-standard-4p.json"
    assert main([str(record), "--out", str(tmp_path / "b.png"), *extra]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "b.png").exists()  # nothing half-written


def test_cli_reports_a_bad_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"game": "genial", "players": 2, "moves": ["RG Z9 Z10"]}')
    assert main([str(bad), "--out", str(tmp_path / "b.png")]) == 2
    assert capsys.readouterr().err.startswith("move 1:")


def test_png_writer_keeps_every_pixel() -> None:
    img = Image.new("RGB", (37, 11), (10, 20, 30))
    for x in range(37):
        img.putpixel((x, x % 11), (250, 250, 246) if x % 2 else (226, 44, 48))
    indexed = quantize(img, "spezial")
    back = Image.open(io.BytesIO(png_bytes(indexed)))
    assert back.size == (37, 11) and back.mode == "P"
    assert back.convert("RGB").tobytes() == indexed.convert("RGB").tobytes()


def test_png_writer_refuses_rgb() -> None:
    with pytest.raises(ValueError, match="palette"):
        png_bytes(Image.new("RGB", (2, 2)))


@pytest.mark.parametrize("game", GAMES)
def test_every_palette_colour_maps_onto_itself(game: str) -> None:
    colours = palette_colours(game)
    assert len(colours) <= 256
    strip = Image.new("RGB", (len(colours), 1))
    strip.putdata(colours)
    indexed = quantize(strip, game)
    assert [indexed.getpixel((k, 0)) for k in range(len(colours))] == list(range(len(colours)))
