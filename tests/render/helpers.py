"""Shared helpers for the renderer's tests: games from records, decoding PNGs."""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path

from PIL import Image

from engine.genial import GenialGame
from engine.record import read_record, replay


def genial_game(shared: Path, name: str, moves: int | None = None) -> GenialGame:
    """The game an example record reaches, optionally after only its first ``moves``."""
    record = read_record(str(shared / "examples" / f"{name}.json"))
    if moves is not None:
        record = dataclasses.replace(record, moves=record.moves[:moves])
    game = replay(record)
    assert isinstance(game, GenialGame)
    return game


def decode(png: bytes) -> Image.Image:
    """A PNG as an RGB image (and checks it is a valid palette PNG)."""
    img = Image.open(io.BytesIO(png))
    img.load()
    assert img.format == "PNG"
    assert img.mode == "P"
    return img.convert("RGB")
