"""Paths of the Telegram adapter the mutation runs of issues 22 and 42 found untested.

A 429 that gets past the rate limiter (bot.telegram.limiter): the limiter here sends nothing
again (``flood_retries=0``), so the flood wait reaches the adapter itself, which must keep
the message (Telegram surely did not take it) until the clock's next look, not count it as
"maybe delivered" and drop it. And a player who blocked the bot: their private chat
answering "bot was blocked" closes nothing, whatever was sent there.

Only the bot's behaviour towards the fake Bot API is read (what the group was told, the
table in the store), so these tests hold however the adapter is split into modules.

Below them, the table's outbox on its own (issue 42's rerun), against test_outbox's
stand-ins: a forum topic closed and reopened, a command typed in the closed topic, the
clock's turns gathered while the group has no room, and a rack said with its player's ping.
"""

from __future__ import annotations

import asyncio
import logging
import random
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from telegram.error import BadRequest, RetryAfter

from bot.core import games
from bot.core.commands import Board
from bot.core.outbound import Outbound, User
from bot.core.table import PLAYING
from bot.store.base import CLAIM_BATCH
from bot.telegram.botapi import BotAPI
from bot.telegram.messages import Origin
from bot.telegram.outbox import MERGED_TURNS, Outbox, TableLocks
from bot.words.texts import squared
from tests.bot.telegram import test_adapter as base
from tests.bot.telegram.fake_api import FLOOD, FakeBotAPI, announced, bot_texts
from tests.bot.telegram.test_adapter import ADA, CAROL, GROUP
from tests.bot.telegram.test_faults import bot, expected, play_out, seat_two
from tests.bot.telegram.test_outbox import ADA as ADA_ID
from tests.bot.telegram.test_outbox import GROUP as TABLE
from tests.bot.telegram.test_outbox import (
    Messages,
    PrivateBot,
    Seated,
    Service,
    logged,
    outbox,
)
from tests.patience import wait_until

# The fake server and the bots' clean-up, as in the other Telegram tests.
api = base.api
stop_bots = base.stop_bots

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


def test_a_flood_wait_past_the_rate_limiter_keeps_the_board_until_telegram_takes_it(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    room = bot(api, tmp_path, pictures=False, flood_retries=0)
    seat_two(room)  # Ada and Carol; Ada is to move
    racks = len(api.sent(CAROL))
    # Every message the bot sends is answered 429 for now (the clock's own looks too).
    calls = len(api.calls)
    api.chaos(1.0, seed=1, faults=(FLOOD,), methods=frozenset({"sendMessage"}))
    game = room.game()
    move = games.format_move(game, game.legal_moves()[0])
    room.say(ADA, f"/play {move}")
    assert len(room.game().moves) == 1  # the move was accepted and stored
    refused = [c for c in api.calls[calls:] if c.method == "sendMessage"]
    assert refused and {c.status for c in refused} == {429}
    assert announced(bot_texts(api, GROUP)) == []  # not told: Telegram did not take it
    api.chaos(0, seed=0)  # the flood wait is over
    # The clock's next look sends what waited, in order. A look of the clock's own (it
    # tries waiting letters every OUTBOX_RETRY s) may be under way still, meeting the 429:
    # then the look after it.
    wait_until(
        lambda: room.runner.tick() or announced(bot_texts(api, GROUP)),
        "the board told once Telegram takes it",
    )
    texts = bot_texts(api, GROUP)
    assert announced(texts) == ["placed"] == expected(room)
    assert any(f"placed {squared(move)}" in t for t in texts)
    # Carol's rack waited behind the board and came after it, once.
    assert len(api.sent(CAROL)) == racks + 1
    assert api.sent(CAROL)[-1].text.startswith("Your tiles at")
    room.runner.tick()  # nothing waits any more: nothing is sent twice
    assert announced(bot_texts(api, GROUP)) == ["placed"]
    assert len(api.sent(CAROL)) == racks + 1


def test_a_blocked_private_chat_leaves_the_groups_table_alone(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    room = bot(api, tmp_path, pictures=False)
    seat_two(room)
    game = room.game()
    room.say(ADA, f"/play {games.format_move(game, game.legal_moves()[0])}")
    assert room.mover() == CAROL
    api.block(ADA)
    # Ada, out of turn, sends a move from her private chat: the service answers "not your
    # turn" there, and Telegram refuses it, "bot was blocked by the user" (a chat gone for
    # the bot, but hers, not the group's).
    game = room.game()
    calls = len(api.calls)
    room.say(ADA, f"/play {games.format_move(game, game.legal_moves()[0])}", chat=ADA)
    answers = [c for c in api.calls[calls:] if c.chat == ADA]
    assert [(c.method, c.status) for c in answers] == [("sendMessage", 403)]
    assert answers[0].text == "It is not your turn: Carol is to move."
    table = room.table()
    assert table.status == PLAYING
    assert [s.user for s in table.seats] == [str(ADA), str(CAROL)]
    # The group's game goes on, every move told there.
    play_out(room, random.Random(3), limit=3)
    assert len(room.game().moves) == 4
    assert announced(bot_texts(api, GROUP)) == expected(room)


# --- the outbox on its own ---------------------------------------------------------------------

#: What each player is told privately when the table's topic is closed (en.toml).
TOPIC_CLOSED = (
    "The topic of table Kitchen was closed, so nothing can be posted there: the game is "
    "kept, and its boards wait until an admin reopens the topic."
)


def test_a_closed_topic_keeps_its_letters_and_tells_the_players_once_a_pause() -> None:
    # Ada (11) and Bob (12) sit at the table; Telegram refuses its board: the topic is closed.
    class Kept(Seated):
        """Records the letters handed back to the store to wait."""

        def __init__(self, seats: list[tuple[str | None, bool]]) -> None:
            super().__init__(seats)
            self.handed_back: list[str] = []

        def undelivered(self, outs: list[Outbound]) -> list[Outbound]:
            self.handed_back += [out.text for out in outs]
            return super().undelivered(outs)

    service = Kept([("11", False), ("12", False)])
    private = PrivateBot({})
    api = BotAPI(send_retries=0, backoff=0.5)
    api.app = SimpleNamespace(bot=private)  # type: ignore[assignment]
    messages = Messages(board=BadRequest("Bad Request: TOPIC_CLOSED"))
    box = Outbox(service, api, messages)  # type: ignore[arg-type]
    outs = service.said(
        Outbound(TABLE, "rack", "rack", user=ADA_ID),
        Outbound(TABLE, "board", "turn"),
        Outbound(TABLE, "next", "info"),
    )
    asyncio.run(box.deliver(outs, None))
    # The table's two letters wait, each handed back once; Ada's rack goes to her private
    # chat; each player is told once, though two letters met the closed topic.
    assert messages.delivered == ["rack"]
    assert service.texts() == ["board", "next"] == service.handed_back
    assert private.sent == [(11, TOPIC_CLOSED), (12, TOPIC_CLOSED)]
    assert service.asked == [TABLE]
    assert box.paused == box.told_paused == box.held == {TABLE}
    # Reopened: what waited goes out, in order, and the pause is over.
    asyncio.run(box.reopened(TABLE))
    assert messages.delivered == ["rack", "board", "next"] and service.box == []
    assert box.paused == box.told_paused == box.held == set()
    assert service.handed_back == ["board", "next"]
    # Closed again later: a new pause, so the players are told again.
    messages.failures["later"] = BadRequest("Bad Request: TOPIC_CLOSED")
    asyncio.run(box.deliver(service.said(Outbound(TABLE, "later", "turn")), None))
    assert private.sent[2:] == [(11, TOPIC_CLOSED), (12, TOPIC_CLOSED)]


def test_a_command_typed_in_the_closed_topic_delivers_what_waited_there_first(
    caplog: pytest.LogCaptureFixture,
) -> None:
    service = Seated([])
    messages = Messages(board=BadRequest("Bad Request: TOPIC_CLOSED"))
    box = outbox(messages, service)
    with caplog.at_level(logging.INFO):
        asyncio.run(box.deliver(service.said(Outbound(TABLE, "board", "turn")), None))
    assert box.paused == {TABLE}
    assert logged(caplog) == [
        (logging.INFO, f"the forum topic of table {TABLE} is closed: its messages wait")
    ]
    # /help typed in the topic: only an open topic takes it, so it is open again.
    typed = Origin(TABLE, TABLE, User(ADA_ID, "Ada"), None, 8)
    asyncio.run(box.deliver([Outbound(TABLE, "help", "info")], typed))
    assert messages.delivered == ["board", "help"] and service.box == []
    assert box.paused == box.told_paused == set()


def test_an_answer_refused_without_a_command_waits_without_one() -> None:
    # An answer that changed nothing, from the clock (no command): Telegram refuses it for
    # now, so it is stored and the table held; it has no command to remember.
    messages = Messages(help=RetryAfter(3))
    service = Service()
    box = outbox(messages, service)
    asyncio.run(box.deliver([Outbound(TABLE, "help", "info")], None))
    assert service.texts() == ["help"] and box.held == {TABLE} and box.origins == {}
    # Another process delivered it meanwhile: the next look finds nothing, and holds nothing.
    service.box.clear()
    asyncio.run(box.flush(TABLE))
    assert messages.delivered == [] and box.held == set()
    # Refused again, then taken at the next look: nothing is held after it.
    messages.failures["again"] = RetryAfter(3)
    asyncio.run(box.deliver([Outbound(TABLE, "again", "info")], None))
    assert box.held == {TABLE}
    asyncio.run(box.flush(TABLE))
    assert messages.delivered == ["again"] and box.held == set()


def test_an_error_to_a_command_typed_privately_is_not_held_by_the_closed_topic() -> None:
    # The topic is closed, its board waits; Ada's /play typed in her private chat is
    # refused: the error goes back to her there, not into the closed topic.
    service = Seated([])
    messages = Messages(board=BadRequest("Bad Request: TOPIC_CLOSED"))
    box = outbox(messages, service)
    asyncio.run(box.deliver(service.said(Outbound(TABLE, "board", "turn")), None))
    typed = Origin(TABLE, ADA_ID, User(ADA_ID, "Ada"), None, 10)
    asyncio.run(box.deliver(service.said(Outbound(TABLE, "not your turn", "error")), typed))
    assert messages.delivered == ["not your turn"] and service.texts() == ["board"]
    assert box.paused == {TABLE}


class Capped(Service):
    """Hands out the outbox as the store does: at most CLAIM_BATCH letters at a time."""

    def waiting(self, chat: str | None = None) -> list[Outbound]:
        return super().waiting(chat)[:CLAIM_BATCH]


def crowded_api() -> SimpleNamespace:
    return SimpleNamespace(bot=SimpleNamespace(id=42, first_name="Genial"), crowded=lambda *_: True)


@pytest.mark.parametrize(("turns", "gathered"), [(3, True), (MERGED_TURNS, False)])
def test_at_most_three_turns_wait_for_the_next(turns: int, gathered: bool) -> None:
    # The clock's step while the group has no room: three turns wait for the next ones;
    # four (MERGED_TURNS) wait no longer and go as one message.
    messages = Messages()
    service = Capped()
    box = Outbox(service, crowded_api(), messages)  # type: ignore[arg-type]
    texts = [f"turn {n}" for n in range(turns)]
    outs = service.said(*(Outbound(TABLE, text, "turn") for text in texts))
    asyncio.run(box.deliver(outs, None, gather=True))
    assert messages.delivered == ([] if gathered else ["\n\n".join(texts)])
    assert box.gathering == ({TABLE} if gathered else set())


def test_the_last_turns_of_a_full_batch_do_not_wait_for_the_next() -> None:
    # A batch of CLAIM_BATCH letters may have more behind it: its last two turns are not
    # the last of the table's, so they go (as one, the group being full) and are not held.
    messages = Messages()
    service = Capped()
    box = Outbox(service, crowded_api(), messages)  # type: ignore[arg-type]
    infos = [f"info {n}" for n in range(CLAIM_BATCH - 2)]
    service.said(*(Outbound(TABLE, text, "info") for text in infos))
    outs = service.said(Outbound(TABLE, "a", "turn"), Outbound(TABLE, "b", "turn"))
    asyncio.run(box.deliver(outs, None, gather=True))
    assert messages.delivered == [*infos, "a\n\nb"] and box.gathering == set()


def test_a_flush_goes_on_past_a_full_batch() -> None:
    # 51 letters: the store hands out 50, then the last one; one flush delivers them all.
    messages = Messages()
    service = Capped()
    box = outbox(messages, service)
    texts = [f"info {n}" for n in range(CLAIM_BATCH + 1)]
    service.said(*(Outbound(TABLE, text, "info") for text in texts))
    asyncio.run(box.flush(TABLE))
    assert messages.delivered == texts and service.box == [] and box.held == set()


def test_one_tables_slow_delivery_does_not_hold_up_anothers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each table's flush waits only for that table's: while Telegram is slow to answer the
    # topic's board, the group's own letter goes out.
    async def inline(call: Any, /, *args: Any, **kwargs: Any) -> Any:
        return call(*args, **kwargs)

    monkeypatch.setattr(asyncio, "to_thread", inline)

    class Slow(Messages):
        async def deliver_one(self, out: Outbound, origin: Origin | None) -> None:
            if out.text == "slow":
                for _ in range(3):
                    await asyncio.sleep(0)  # Telegram answers later
            await super().deliver_one(out, origin)

    messages = Slow()
    service = Service()
    box = outbox(messages, service)
    service.said(Outbound(f"{TABLE}/7", "slow", "turn"), Outbound(TABLE, "quick", "info"))

    async def both() -> None:
        await asyncio.gather(box.flush(f"{TABLE}/7"), box.flush(TABLE))

    asyncio.run(both())
    assert messages.delivered == ["quick", "slow"]


@pytest.mark.parametrize(
    ("table", "chat"),
    [(f"{TABLE}/7", int(TABLE)), ("inline~0123456789abcdef", "inline~0123456789abcdef")],
)
def test_the_clocks_turns_wait_for_the_next_while_the_chat_has_no_room(
    table: str, chat: int | str
) -> None:
    # A forum topic's messages are paced as its group's (the group's id, a number); an
    # inline message's as its own table's.
    asked: list[tuple[int | str, int]] = []
    room = [False]

    def crowded(where: int | str, count: int = 1) -> bool:
        asked.append((where, count))
        return not room[0]

    messages = Messages()
    service = Service()
    api = SimpleNamespace(bot=SimpleNamespace(id=42, first_name="Genial"), crowded=crowded)
    box = Outbox(service, api, messages)  # type: ignore[arg-type]
    outs = service.said(Outbound(table, "a", "turn"), Outbound(table, "b", "turn"))
    # The clock's step, a computer to move next: two turns (fewer than four) wait.
    asyncio.run(box.deliver(outs, None, gather=True))
    assert messages.delivered == [] and service.texts() == ["a", "b"]
    assert box.gathering == {table} and asked == [(chat, 1)]
    # The next flush, with room: each goes as it is, and nothing is gathering any more.
    room[0] = True
    asyncio.run(box.flush(table))
    assert messages.delivered == ["a", "b"] and service.box == []
    # Two messages would go out: whether the chat has room for two is asked.
    assert box.gathering == set() and asked == [(chat, 1), (chat, 2)]


def test_a_rack_is_said_with_its_players_ping_and_the_answer_goes_back_its_way() -> None:
    class Pinged(Messages):
        def __init__(self) -> None:
            super().__init__()
            self.origins: list[Origin | None] = []

        async def with_ping(self, rack: Outbound, ping: Outbound) -> Outbound:
            return replace(rack, text=f"{ping.text} / {rack.text}")

        async def deliver_one(self, out: Outbound, origin: Origin | None) -> None:
            self.origins.append(origin)
            await super().deliver_one(out, origin)

    messages = Pinged()
    service = Service()
    box = outbox(messages, service)  # type: ignore[arg-type]
    typed = Origin(TABLE, ADA_ID, User(ADA_ID, "Ada"), None, 9)
    outs = service.said(
        Outbound(TABLE, "Bob, your turn", "ping", user="12"),
        Outbound(TABLE, "board", "turn"),
        Outbound(TABLE, "rack", "rack", user=ADA_ID),
        Outbound(TABLE, "your turn", "ping", user=ADA_ID),
        Outbound(TABLE, "after", "info"),
    )
    asyncio.run(box.deliver(outs, typed))
    # Bob's ping has no rack with it: alone. Ada's is one private message, the ping, then
    # the rack; the ping is not said again alone, and what follows it goes out.
    told = ["Bob, your turn", "board", "your turn / rack", "after"]
    assert messages.delivered == told and service.box == []
    assert messages.origins == [typed] * 4


def test_an_answer_to_another_closed_topic_pauses_nothing() -> None:
    # /board typed in the forum's General topic (3) for the table of topic 7; General is
    # closed too: Telegram refuses the error there, which is given up; the table's own topic
    # is not paused for it.
    topic = f"{TABLE}/7"
    service = Service()
    messages = Messages(oops=BadRequest("Bad Request: TOPIC_CLOSED"))
    box = outbox(messages, service)
    general = Origin(topic, f"{TABLE}/3", User(ADA_ID, "Ada"), None, 11)
    asyncio.run(box.deliver(service.said(Outbound(topic, "oops", "error")), general))
    asyncio.run(box.deliver(service.said(Outbound(topic, "board", "turn")), None))
    assert messages.delivered == ["board"] and service.box == []
    assert box.paused == box.held == set()


def test_a_board_asked_for_is_not_merged_with_the_turns_before_it() -> None:
    # Two turns wait while the group is full, the second the answer to /board (a document
    # of its own): they go as they are, not as one message.
    messages = Messages()
    service = Service()
    box = Outbox(service, crowded_api(), messages)  # type: ignore[arg-type]
    _, asked = service.said(Outbound(TABLE, "a", "turn"), Outbound(TABLE, "b", "turn"))
    assert asked.stored is not None
    box.origins[asked.stored.id] = Origin(TABLE, TABLE, User(ADA_ID, "Ada"), Board(), 12)
    asyncio.run(box.flush(TABLE))
    assert messages.delivered == ["a", "b"]


def test_a_table_that_moved_to_a_supergroup_keeps_its_first_lock() -> None:
    # The group -200 became the supergroup -100200: one table, under its first id's lock.
    locks = TableLocks(lambda chat: {"-100200": "-200"}.get(chat, chat))
    seen: list[str] = []

    async def hold(chat: str) -> None:
        async with locks.hold(chat):
            seen.append(f"in {chat}")
            for _ in range(3):
                await asyncio.sleep(0)
            seen.append(f"out {chat}")

    async def both() -> None:
        await asyncio.gather(hold("-200"), hold("-100200"))

    asyncio.run(both())
    assert seen == ["in -200", "out -200", "in -100200", "out -100200"]
