"""The Telegram platform: the whole adapter for python-telegram-bot.

``genial-bot telegram`` runs :func:`main`.
"""

from bot.telegram.app import main

__all__ = ["main"]
