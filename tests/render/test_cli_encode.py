"""``python -m render``, the PNG writer and the palette."""

from __future__ import annotations

import io
import random
import struct
import zlib
from pathlib import Path

import pytest
from PIL import Image

from render import encode
from render.cli import main
from render.encode import BAND_ROWS, adler32_combine, band_tops, clear_cache, png_bytes
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


@pytest.mark.parametrize("lengths", [(0, 5), (5, 0), (1, 1), (70_000, 3), (3, 200_000)])
def test_adler32_of_two_strings_from_their_own(lengths: tuple[int, int]) -> None:
    rng = random.Random(sum(lengths))
    a = bytes(rng.randrange(256) for _ in range(lengths[0]))
    b = bytes([255]) * lengths[1]  # all 255: the sums wrap round the modulus soonest
    assert adler32_combine(zlib.adler32(a), zlib.adler32(b), len(b)) == zlib.adler32(a + b)


def _chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    """A PNG's chunks as (type, data), each chunk's CRC checked on the way."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, at = [], 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind, data = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", png[at + 8 + length : at + 12 + length])
        assert crc == zlib.crc32(kind + data)
        chunks.append((kind, data))
        at += 12 + length
    return chunks


@pytest.mark.parametrize("height", [1, BAND_ROWS - 1, BAND_ROWS, 3 * BAND_ROWS + 5])
def test_png_is_the_image_row_by_row_unfiltered(height: int) -> None:
    rng = random.Random(height)
    colours = palette_colours("genial")
    img = Image.new("RGB", (29, height))
    img.putdata([colours[rng.randrange(len(colours))] for _ in range(29 * height)])
    indexed = quantize(img, "genial")
    chunks = _chunks(png_bytes(indexed))
    assert [kind for kind, _ in chunks] == [b"IHDR", b"PLTE", b"IDAT", b"IEND"]
    # 29 x height, 8-bit palette indexes, no interlace.
    assert chunks[0][1] == struct.pack(">IIBBBBB", 29, height, 8, 3, 0, 0, 0)
    assert chunks[1][1] == bytes(v for rgb in colours for v in rgb)  # the palette, no padding
    rows = zlib.decompress(chunks[2][1])  # also checks the stream's Adler-32
    pixels = indexed.tobytes()
    assert rows == b"".join(b"\0" + pixels[y * 29 : (y + 1) * 29] for y in range(height))
    # Bands cut elsewhere and the lower ones deflated at another level: the same rows.
    other = png_bytes(indexed, 9, 7, cuts=(height // 2,), level_below=(height // 3, 1))
    assert zlib.decompress(dict(_chunks(other))[b"IDAT"]) == rows


def test_png_bytes_do_not_depend_on_what_was_encoded_before() -> None:
    img = Image.new("RGB", (40, 5 * BAND_ROWS), (226, 216, 194))
    for y in range(0, 5 * BAND_ROWS, 3):
        img.putpixel((y % 40, y), (226, 44, 48))
    indexed = quantize(img, "genial")
    clear_cache()
    first = png_bytes(indexed)
    assert encode._cache  # the bands are kept...
    assert png_bytes(indexed) == first  # ...and give the same bytes again
    clear_cache()
    changed = indexed.copy()
    changed.putpixel((0, 2 * BAND_ROWS), 1)  # one band differs, the others are known
    assert changed.tobytes() != indexed.tobytes()
    assert png_bytes(changed) != first
    assert png_bytes(indexed) == first
    clear_cache()
    assert png_bytes(indexed) == first


def test_bands_split_evenly_between_cuts() -> None:
    assert band_tops(40, 16) == (0, 13, 26)  # 40 rows: three bands of 13-14
    assert band_tops(40, 16, cuts=(10,)) == (0, 10, 25)  # 10, then 30 rows in two
    assert band_tops(40, 16, cuts=(0, 40, 99)) == (0, 13, 26)  # cuts at the edges: none
    assert band_tops(1, 16) == (0,)


def test_equal_rows_split_differently_are_not_mixed_up() -> None:
    # Rows 0-15 (a band with nothing above it) and rows 15-30 (row 15 above, as dictionary,
    # then 15 rows) are the same bytes when every row is alike; their deflated bytes differ.
    indexed = quantize(Image.new("RGB", (23, 31), (226, 216, 194)), "genial")
    clear_cache()
    idat = dict(_chunks(png_bytes(indexed, cuts=(16,))))[b"IDAT"]
    assert zlib.decompress(idat) == (b"\0" + indexed.tobytes()[:23]) * 31


def _noisy(width: int, height: int, seed: int) -> Image.Image:
    rng = random.Random(seed)
    colours = palette_colours("genial")
    img = Image.new("RGB", (width, height))
    img.putdata([colours[rng.randrange(len(colours))] for _ in range(width * height)])
    return quantize(img, "genial")


def _rows_of(data: bytes) -> bytes:
    return zlib.decompress(dict(_chunks(data))[b"IDAT"])


def _filtered_rows(indexed: Image.Image) -> bytes:
    width, height = indexed.size
    pixels = indexed.tobytes()
    return b"".join(b"\0" + pixels[y * width : (y + 1) * width] for y in range(height))


def test_row_buffers_reused_across_sizes_keep_each_image_its_own() -> None:
    # The writer lays each image out in a buffer it reuses; images of two sizes in turn,
    # each a little changed from the last of its size, must each come out as themselves.
    clear_cache()
    wide, tall = _noisy(31, 3 * BAND_ROWS, 1), _noisy(17, 2 * BAND_ROWS + 3, 2)
    for turn in range(8):
        for img in (wide, tall):
            img.putpixel((turn % img.width, (7 * turn) % img.height), turn % 5)
            assert _rows_of(png_bytes(img)) == _filtered_rows(img)
    # Two buffers per size at most: the last image's and one to fill.
    assert all(len(spare) <= encode.FREE_PER_SIZE for spare in encode._free.values())


def test_images_encoded_at_once_in_threads_come_out_as_themselves() -> None:
    # Threads share the last image of a size (compared with) and the spare buffers: a
    # buffer another thread compares with must not be filled meanwhile.
    from concurrent.futures import ThreadPoolExecutor

    clear_cache()
    images = [_noisy(64, 4 * BAND_ROWS, seed) for seed in range(6)]
    expected = [_filtered_rows(img) for img in images]
    order = [k % len(images) for k in range(120)]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda k: _rows_of(png_bytes(images[k])), order))
    assert got == [expected[k] for k in order]
