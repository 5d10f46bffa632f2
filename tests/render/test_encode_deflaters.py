"""The PNG writer with zlib-ng and with zlib: every board of fixed games, encoded turn after
turn as a table sees them (the bands of the turn before kept), decodes to exactly the pixels
and palette that were drawn, and both deflaters give the same pixels."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from engine.genial import GenialGame
from engine.spezial import SpezialGame
from render import encode, genial_board, spezial_board

NAMES = ["Anna", "Bärbel", "Çelik", "Dörte"]


def boards(game_name: str) -> list[tuple[Image.Image, bytes]]:
    """Every fifth board of a random 4-player game from its 30th placement on, each with
    the PNG bytes the writer made for it (the boards before it encoded first)."""
    game = GenialGame(4, seed=5) if game_name == "genial" else SpezialGame(4, seed=5)
    rng = random.Random(5)
    out = []
    n = 0
    while not game.over:
        moves = game.legal_moves()
        game.play(
            moves[0]
            if isinstance(game, GenialGame) and game.awaiting == "swap"
            else game.random_placement(rng)
        )
        n += 1
        if n >= 30 and n % 5 == 0 and not game.over:
            view = game.view(None)
            if isinstance(game, GenialGame):
                img = genial_board.draw_board(view, NAMES, frozenset())
                png = encode.png_bytes(img)
            else:
                img = spezial_board.draw_board(view, NAMES, frozenset())
                cuts = spezial_board.band_cuts(4)
                png = encode.png_bytes(
                    img,
                    spezial_board.PNG_LEVEL,
                    spezial_board.PNG_BAND_ROWS,
                    cuts,
                    (cuts[0], spezial_board.PANEL_PNG_LEVEL),
                )
            out.append((img, png))
    return out


@pytest.mark.parametrize("game_name", ["genial", "spezial"])
def test_both_deflaters_give_the_pixels_drawn(
    game_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    decoded = {}
    for deflate in ("zlib", "zlib-ng"):
        monkeypatch.setattr(encode, "DEFLATE", deflate)
        encode.clear_cache()
        pairs = boards(game_name)
        assert len(pairs) >= 5
        pixels = []
        for img, png in pairs:
            with Image.open(io.BytesIO(png)) as back:
                assert back.mode == "P" and back.size == img.size
                assert back.getpalette() == img.getpalette()
                assert back.tobytes() == img.tobytes()
                pixels.append(back.tobytes())
        decoded[deflate] = pixels
    assert decoded["zlib"] == decoded["zlib-ng"]


def test_the_deflaters_write_different_streams_of_one_image(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The switch really changes the deflater (the pixels test above would pass otherwise).
    img = boards("genial")[-1][0]
    streams = set()
    for deflate in ("zlib", "zlib-ng"):
        monkeypatch.setattr(encode, "DEFLATE", deflate)
        encode.clear_cache()
        streams.add(encode.png_bytes(img))
    assert len(streams) == 2
