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
from tests.bot.discord.support import only_answer, text, world
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


async def test_a_telegram_tables_ping_reaches_ada_on_discord_when_she_asks(
    tmp_path: Path,
) -> None:
    # The service of Discord's process also hears a Telegram group's commands here (as
    # Telegram's process would, on the same store): the ping for Ada's turn there goes to
    # her Discord account, which she asked for with /notify on discord, and is deleted
    # once she has played.
    from bot.core import games
    from bot.core.outbound import Chat, User

    async with world(tmp_path, dm=False) as w:
        ada = w.person("Ada")
        ada_tg, bob_tg = User("50001", "Ada"), User("50002", "Bob")
        assert w.service.store.link(ada_tg.id, str(ada.id))
        only_answer(await ada.slash(w.channel, "notify", switch="on", value="discord"))
        group = Chat("-100500", "Club")
        for who in (ada_tg, bob_tg):
            w.service.handle(group, who, "/join")
        w.service.handle(group, ada_tg, "/start")
        rng = random.Random(5)

        async def move() -> None:
            t = w.service.table(group.id)
            game = games.rebuild(t.record)
            who = ada_tg if t.seats[game.to_move].user == ada_tg.id else bob_tg
            typed = games.format_move(game, rng.choice(game.legal_moves()))
            command = f"/{typed}" if typed in ("swap", "keep") else f"/play {typed}"
            w.service.handle(group, who, command)
            for _ in range(5):  # Discord's process looks at the outbox
                w.client.wake()
                await w.env.advance_time(1)

        def to_move() -> str:
            t = w.service.table(group.id)
            return str(t.seats[games.rebuild(t.record).to_move].user)

        while to_move() != bob_tg.id:
            await move()
        await move()  # Bob's: Ada's turn
        dm = ada.user.dm_channel
        assert dm is not None
        (ping,) = list(dm.history())
        assert text(ping).startswith("Your turn at Club")
        assert "50001" not in text(ping) and str(ada.id) not in text(ping)
        while to_move() == ada_tg.id:
            await move()
        assert list(dm.history()) == []


async def test_games_lists_both_platforms_tables_each_with_its_own_link(tmp_path: Path) -> None:
    """Ada, linked, plays in a public Telegram supergroup, in a Telegram inline message
    and in a Discord channel: ``/games`` on either platform lists the three, each line
    naming its platform and linking where the platform gives a link: the group's turn
    message by its public username, the inline table's board by the bot's Mini App
    (Telegram links no inline message), the Discord turn message by its jump URL."""
    from bot.core.config import WebSettings
    from tests.bot.telegram.fake_api import buttons
    from tests.bot.telegram.inline_world import Chat

    bob, group = 202, -1001234567890
    api = FakeBotAPI(TOKEN).start()
    api.user(ADA, "Ada")
    api.user(bob, "Bob")
    api.group(group, "Club", username="genialclub")
    web = WebSettings(public_url="https://genial.example", telegram_app="board")
    try:
        async with world(tmp_path) as w:

            def make_service(path: Path) -> Service:
                return Service(
                    store_at(w.db), Settings(level="random", web=web), rng=random.Random(5),
                    clock=w.clock, pictures=False,
                )  # fmt: skip

            tg = BotRunner(api, w.db, make_service=make_service)
            await asyncio.to_thread(tg.start)
            try:
                ada, carol = w.person("Ada"), w.person("Carol")
                assert w.service.store.link(str(ADA), str(ada.id))

                # The supergroup: its turn message is t.me/<username>/<message id>.
                for who, said in ((ADA, "/join"), (bob, "/join"), (ADA, "/start")):
                    await asyncio.to_thread(tg.wait, api.say(group, who, said))
                (turn_id,) = [
                    m["message_id"]
                    for (chat, _), m in api.messages.items()
                    if chat == group and m.get("text", "").startswith("The game begins")
                ]
                club = f"(on Telegram, latest message: https://t.me/genialclub/{turn_id})"

                # The inline message: its board, the Mini App button on the message.
                inline = Chat(api, tg)
                await asyncio.to_thread(inline.offer, ADA, "pair")
                await asyncio.to_thread(inline.press, bob, "Join")
                (app,) = [
                    b["url"] for b in buttons(inline.message()) if "startapp=" in b.get("url", "")
                ]
                assert app.startswith("https://t.me/GenialTestBot/board?startapp=")
                board = f"(on Telegram, the board: {app})"

                # The Discord channel: its turn message's jump URL.
                for person, command in ((ada, "join"), (carol, "join"), (ada, "start")):
                    await person.slash(w.channel, command)
                (turn,) = [m for m in w.public() if "The game begins" in text(m)]
                jump = f"https://discord.com/channels/{w.guild.id}/{w.channel.id}/{turn.id}"
                channel = f"(on Discord, latest message: {jump})"

                expected = {club, board, channel}
                listed = only_answer(await ada.slash(w.channel, "games")).split("\n")
                assert listed[0] == "Your running tables (3):"
                assert {line[line.index(" (on ") + 1 :] for line in listed[1:]} == expected

                await asyncio.to_thread(tg.wait, api.say(ADA, ADA, "/games"))
                listed = api.sent(ADA)[-1].text.split("\n")
                assert listed[0] == "Your running tables (3):"
                assert {line[line.index(" (on ") + 1 :] for line in listed[1:]} == expected

                # Bob plays on Telegram only: his listing names no platform.
                await asyncio.to_thread(tg.wait, api.say(bob, bob, "/games"))
                listed = api.sent(bob)[-1].text.split("\n")
                assert listed[0] == "Your running tables (2):"
                ends = {line[line.rindex(" (") + 1 :] for line in listed[1:]}
                assert ends == {
                    f"(latest message: https://t.me/genialclub/{turn_id})",
                    f"(the board: {app})",
                }
            finally:
                await asyncio.to_thread(tg.stop)
    finally:
        api.close()
