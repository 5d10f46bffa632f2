"""One person on two platforms (issue 49), through both real adapters on one store: the
Telegram adapter against the fake Bot API in a thread of its own and the Discord client
in SimCord, each with its own service, as two processes share one database. Ada asks for
a code in her private chat with the Telegram bot, redeems it with Discord's ``/link``,
and both bots then count her as one person; ``/unlink`` on Discord makes her two again.
"""

from __future__ import annotations

import asyncio
import random
import re
from pathlib import Path

import pytest

from bot.core.config import Settings
from bot.service import Service
from tests.bot.backends import store_at
from tests.bot.discord.support import only_answer, world
from tests.bot.telegram.fake_api import BotRunner, FakeBotAPI

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.usefixtures("backend"),
    pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning"),
]
TOKEN = "424242:AAHtestTOKENnever-shown_0123456789"
ADA = 101


async def test_a_code_from_the_telegram_bot_links_ada_on_discord(tmp_path: Path) -> None:
    api = FakeBotAPI(TOKEN).start()
    api.user(ADA, "Ada")
    try:
        async with world(tmp_path) as w:

            def make_service(path: Path) -> Service:
                return Service(
                    store_at(w.db), Settings(level="random"), rng=random.Random(5),
                    clock=w.clock, pictures=False,
                )  # fmt: skip

            tg = BotRunner(api, w.db, make_service=make_service)
            await asyncio.to_thread(tg.start)
            try:
                update = api.say(ADA, ADA, "/link")
                await asyncio.to_thread(tg.wait, update)
                told = api.sent(ADA)[-1].text
                (code,) = set(re.findall(r"\b[A-Z2-9]{6}\b", told))
                assert "10 minutes" in told
                ada = w.person("Ada")
                linked = only_answer(await ada.slash(w.channel, "link", code=code))
                assert linked.startswith("Linked:")
                # Nothing of it was said in the channel: the code and the answer are hers.
                assert not [m for m in w.public() if code in (m.content or "")]
                assert tg.service.store.linked(str(ADA)) == sorted([str(ADA), str(ada.id)])
                # Telegram's bot knows it too: /link there says she is linked already.
                update = api.say(ADA, ADA, "/link")
                await asyncio.to_thread(tg.wait, update)
                assert "/unlink" in api.sent(ADA)[-1].text
                # The code is spent.
                again = only_answer(await ada.slash(w.channel, "link", code=code))
                assert "wrong or has expired" in again
                unlinked = only_answer(await ada.slash(w.channel, "unlink"))
                assert unlinked.startswith("Unlinked:")
                assert tg.service.store.linked(str(ADA)) == []
            finally:
                await asyncio.to_thread(tg.stop)
    finally:
        api.close()
