"""``genial-bot`` with a worker thread kept busy once the Telegram bot runs: a call into a
worker thread that would last an hour, as a long computer game would, started as the
commands are registered. For the stop tests and ``benchmarks/bench_stop.py``:

    python -m tests.bot.telegram.busy_launch --config config.toml telegram
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from typing import Any

_busy: list[Any] = []


def _launch() -> int:
    from bot.telegram.adapter import TelegramAdapter

    registered = TelegramAdapter.register_commands

    async def register_commands(self: TelegramAdapter) -> None:
        await registered(self)
        loop = asyncio.get_running_loop()
        _busy.append(loop.run_in_executor(None, time.sleep, 3600))
        logging.getLogger(__name__).info("a worker thread is busy now")

    TelegramAdapter.register_commands = register_commands  # type: ignore[method-assign]
    from bot.__main__ import main

    return main(sys.argv[1:])


if __name__ == "__main__":
    raise SystemExit(_launch())
