"""The rules of Genial and Genial Spezial: pure Python, standard library only.

Knows nothing of chat, images, storage or time. See DESIGN.md.
"""

from engine.errors import (
    EngineError,
    GameOver,
    IllegalMove,
    InvalidRecord,
    NotationError,
    NotYourTurn,
)
from engine.genial import GenialGame, GenialView, Setup
from engine.hexgrid import Area, Hex
from engine.moves import KEEP, SWAP, Placement, SpezialPlacement, SwapChoice
from engine.spezial import SpezialGame, SpezialView
from engine.tiles import COLOURS, Bag, Colour, Tile

__all__ = [
    "COLOURS",
    "KEEP",
    "SWAP",
    "Area",
    "Bag",
    "Colour",
    "EngineError",
    "GameOver",
    "GenialGame",
    "GenialView",
    "Hex",
    "IllegalMove",
    "InvalidRecord",
    "NotYourTurn",
    "NotationError",
    "Placement",
    "Setup",
    "SpezialGame",
    "SpezialPlacement",
    "SpezialView",
    "SwapChoice",
    "Tile",
]
