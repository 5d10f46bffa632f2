"""The Discord platform: the whole adapter for discord.py.

``genial-bot discord`` runs :func:`main`.
"""

from bot.discord.app import main

__all__ = ["main"]
