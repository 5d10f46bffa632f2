"""Issue 43, item 2: each chat paced on its own, and a 429 holds back its chat alone.

The real bot (python-telegram-bot with our rate limiter, the adapter, the service) against
the fake Bot API with Telegram's flood limits switched on: 20 messages in any 60 s in a
group, one a second in a private chat, 30 a second in all, each refused past that with a
429 and its ``retry_after``. The service, the limiter and the fake share one clock that
the test moves (bot_time.py): every time below is exact, and a minute costs no wall-clock
time. What is read is what reached the fake, in its order and stamped with that clock.
"""

from __future__ import annotations

import asyncio
import itertools
import random
from pathlib import Path

import pytest

from bot.core import games
from bot.core.service import Step
from bot.core.stepping import REST
from bot.core.table import PLAYING
from tests.bot.helpers import START
from tests.bot.telegram import test_adapter as base
from tests.bot.telegram.bot_time import BotTime
from tests.bot.telegram.fake_api import (
    COUNTED,
    BotRunner,
    Call,
    FakeBotAPI,
    announced,
    bot_texts,
    told_in,
    told_moves,
)
from tests.bot.telegram.test_adapter import ADA, CAROL, DAN, GROUP, Room, _typed_move, start_bot
from tests.patience import wait_until

# The fake server and the bots' clean-up, as in the other Telegram tests.
api = base.api
stop_bots = base.stop_bots

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
OTHER = -1009876543210
MINUTE = 60.0


def paced_bot(api: FakeBotAPI, tmp_path: Path, clock: BotTime, **kw: object) -> BotRunner:
    """The bot on ``clock``, its limiter pacing every chat; the fake's limits on."""
    api.flood_limits(clock)
    runner = start_bot(
        api, tmp_path / "t.db", clock=clock, rate_limiter=clock.limiter, pictures=False, **kw
    )
    clock.loop = runner._loop
    clock.bot = runner
    return runner


def say(clock: BotTime, runner: BotRunner, chat: int, user: int, text: str) -> int:
    """``user`` types ``text`` in ``chat``; the bot's time runs until it is handled."""
    update = runner.api.say(chat, user, text)
    clock.run_until(lambda: update in runner.handled or runner.error is not None, text)
    assert runner.error is None
    return update


def messages_to(api: FakeBotAPI, chat: int) -> list[Call]:
    """The messages Telegram took in ``chat`` (posted or edited), oldest first."""
    with api._cond:
        return [c for c in api.calls if c.chat == chat and c.method in COUNTED and c.status == 200]


#: Ada starts a game with three computer players (her /leave then leaves them alone).
COMPUTERS_GAME = ("/join", "/addbot random", "/addbot random", "/addbot random", "/start")


def told_to_its_end(api: FakeBotAPI, room: Room) -> bool:
    """Whether the group's game is over, nothing waits to be told, and its end was told."""
    if room.table().status == PLAYING or room.runner.service.anything_waiting():
        return False
    return any(t.startswith("Game over") for t in bot_texts(api, GROUP))


def busiest(calls: list[Call], period: float) -> int:
    """The most of ``calls`` within any ``period`` seconds (each window ending at one)."""
    times = [c.at for c in calls if c.at is not None]
    return max((sum(1 for s in times if end - period < s <= end) for end in times), default=0)


def test_a_flood_wait_in_one_group_holds_back_that_group_alone(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    clock = BotTime()
    api.group(OTHER, "Genial afternoon")
    runner = paced_bot(api, tmp_path, clock)
    # Telegram counted 20 messages in the group just now that this process does not know
    # of (it sent them before a restart): the group's next message is refused for 60 s.
    api.busy(GROUP, 20)
    held = api.say(GROUP, ADA, "/join")
    wait_until(lambda: clock.waits() == [MINUTE], "the group's lobby waiting out its 429")
    with api._cond:
        refused = [c for c in api.calls if c.chat == GROUP]
    assert [(c.method, c.status, c.at) for c in refused] == [("sendMessage", 429, START)]
    # At the same second the other group is answered: its lobby, and a press on its Join
    # button (answered on the button, as every press must be, within seconds).
    runner.wait(api.say(OTHER, CAROL, "/join"))
    press = api.press(DAN, api.last_message(OTHER, "Join"), "Join")
    runner.wait(press)
    assert api.answer(press)
    with api._cond:
        other = [c for c in api.calls if c.chat == OTHER]
        answers = api.of("answerCallbackQuery")
    assert [(c.method, c.status, c.at) for c in other] == [
        ("sendMessage", 200, START),  # Carol's lobby
        ("editMessageText", 200, START),  # Dan joined: the lobby in place
    ]
    assert [(c.status, c.at) for c in answers] == [(200, START)]
    # The held group has had nothing more meanwhile, and Ada's /join is not done.
    assert held not in runner.handled
    assert [c.status for c in api.calls if c.chat == GROUP] == [429]
    # Its wait over, the group's lobby goes out, after everything of the other group.
    clock.run_until(lambda: held in runner.handled, "the held group's lobby")
    with api._cond:
        posted = [c for c in api.calls if c.chat == GROUP and c.status == 200]
        order = list(api.calls)
    assert [(c.method, c.at) for c in posted] == [("sendMessage", START + MINUTE)]
    assert order.index(posted[0]) > max(order.index(c) for c in [*other, *answers])
    assert "Ada" in posted[0].text


def test_a_fast_game_is_paced_to_the_groups_minute_and_draws_no_429_after_it(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    clock = BotTime()
    runner = paced_bot(api, tmp_path, clock, seed=4)
    room = Room(api, runner)
    # Before a restart the bot sent 15 messages into the group over the last 42 s (one
    # every 3 s, within the limit): Telegram counts them, this process does not.
    api.busy(GROUP, 15, spread=42.0)
    for user, text in ((ADA, "/join"), (CAROL, "/join"), (CAROL, "/notify on"), (ADA, "/start")):
        say(clock, runner, GROUP, user, text)
    rng = random.Random(4)
    # Two people who move as soon as they see the board, a second after the last: 60 moves
    # a minute wanted, three times what the group takes.
    for _ in range(40):
        if room.table().status != PLAYING:
            break
        clock.advance(1.0)
        game = room.game()
        moves = sorted(game.legal_moves(), key=lambda m: games.format_move(game, m))
        say(clock, runner, GROUP, room.mover(), f"/{_typed_move(game, rng.choice(moves))}")
    with api._cond:
        floods = [c for c in api.calls if c.status == 429]
    group = messages_to(api, GROUP)
    # Telegram's count was fuller than the bot's in the first minute: one 429 there, held
    # out by the group alone; none after it, the group paced to its rolling minute.
    assert len(floods) == 1 and floods[0].at is not None and floods[0].at < START + MINUTE
    assert {c.chat for c in floods} == {GROUP}
    assert busiest(group, MINUTE) == 20
    assert len(group) > 40  # the game did outrun the group's minute
    # Every move was told, once and in order.
    record = room.table().record
    assert record is not None
    assert announced(bot_texts(api, GROUP)) == told_in(record)
    # The players' private chats: never two messages within a second.
    for user in (ADA, CAROL):
        times = [c.at for c in messages_to(api, user) if c.at is not None]
        assert len(times) > 5
        assert all(b - a >= 1.0 for a, b in itertools.pairwise(times)), (user, times)


def test_a_private_chat_takes_about_one_message_a_second(api: FakeBotAPI, tmp_path: Path) -> None:
    clock = BotTime()
    runner = paced_bot(api, tmp_path, clock)
    # Ada asks three times at once in her private chat: the answers go a second apart.
    updates = [api.say(ADA, ADA, "/games") for _ in range(3)]
    clock.run_until(lambda: set(updates) <= runner.handled, "the three answers")
    assert [c.at for c in messages_to(api, ADA)] == [START, START + 1, START + 2]
    with api._cond:
        assert not [c for c in api.calls if c.status == 429]


def test_thirty_messages_a_second_over_all_chats(api: FakeBotAPI, tmp_path: Path) -> None:
    # The bot's own python-telegram-bot client, through the limiter, says hello to 70
    # people at once: 30 a second, and Telegram refuses none.
    clock = BotTime()
    runner = paced_bot(api, tmp_path, clock)
    people = range(5000, 5070)
    for user in people:
        api.user(user, f"P{user}")
    assert runner._loop is not None
    bot = runner.adapter.api.bot

    async def hello() -> None:
        await asyncio.gather(*(bot.send_message(user, "hello") for user in people))

    sent = asyncio.run_coroutine_threadsafe(hello(), runner._loop)
    clock.run_until(sent.done, "70 messages")
    sent.result()
    with api._cond:
        calls = [c for c in api.calls if c.chat in people]
    assert [c.status for c in calls] == [200] * 70
    assert [sum(1 for c in calls if c.at == START + s) for s in (0, 1, 2)] == [30, 30, 10]


def test_a_computer_game_told_into_a_full_group_tells_a_round_a_message(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    # Issue 43, item 2: when a group is over its budget, the computer players' turns that
    # wait for it are told together (the turn texts one after another, the latest board),
    # so a whole game of computers goes at the group's pace of 20 messages a minute
    # without telling one move every 3 s for many minutes.
    clock = BotTime()
    runner = paced_bot(api, tmp_path, clock, seed=6)
    room = Room(api, runner)
    # Telegram counted 20 messages in the group over the last 57 s, one every 3 s, that
    # this process does not know of: the group's minute is full, and a place frees every
    # 3 s. Its first message draws a 429 (3 s to wait), and the bot goes on at that pace.
    api.busy(GROUP, 20, spread=57.0)
    for text in COMPUTERS_GAME:
        say(clock, runner, GROUP, ADA, text)
    say(clock, runner, GROUP, ADA, "/leave")  # a computer takes Ada's seat: computers alone

    clock.run_until(lambda: told_to_its_end(api, room), "the game of computers told to its end")
    with api._cond:
        floods = [c for c in api.calls if c.status == 429]
    # The one 429 is the first message's, into the minute Telegram had counted full.
    assert [(c.chat, c.at) for c in floods] == [(GROUP, START)]
    group = messages_to(api, GROUP)
    assert busiest(group, MINUTE) <= 20
    # From then on the group's messages take each place as it frees, one every 3 s.
    times = [c.at - START for c in group if c.at is not None]
    assert times == [3.0 * n for n in range(1, len(times) + 1)]
    # Every move reached the group once, in order, as the record holds it.
    record = room.table().record
    assert record is not None
    texts = bot_texts(api, GROUP)
    assert told_moves(texts) == list(record["moves"])
    # The group never had room when a computer's turn was told: each turn waited for the
    # next ones, and each message told a round of four (the turns one after another, a
    # blank line between), the game's last message the turns left. Each turn is told once
    # ("Next: ..." ends each turn but the game's last).
    turns = [t.split("\n\n") for t in texts if told_moves([t])]
    told = [turn for message in turns for turn in message]
    assert [len(message) for message in turns[:-1]] == [4] * (len(turns) - 1)
    assert 1 <= len(turns[-1]) <= 4
    assert len(told) == len(set(told)) > 60


def test_a_computer_step_that_did_nothing_rests_its_table_and_the_game_goes_on(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    # A computer player's step that could do nothing (the store busy a moment, or the
    # table changed while the computer thought) lets its table rest (bot.core.stepping):
    # the clock tries it again after the rest, neither at once nor never, and the game of
    # computers goes on to its end, each move told once.
    clock = BotTime()
    runner = paced_bot(api, tmp_path, clock, seed=6)
    room = Room(api, runner)
    for text in COMPUTERS_GAME:
        say(clock, runner, GROUP, ADA, text)
    service = runner.service
    real_step = service.step
    steps: list[float] = []  # the clock's time at each step of the computers' game

    def step(chat: str, now: float | None = None, **kw: int) -> Step:
        steps.append(clock.now)
        if len(steps) == 3:
            return Step([], False, False)  # nothing said, nothing changed
        return real_step(chat, now, **kw)

    service.step = step
    say(clock, runner, GROUP, ADA, "/leave")  # a computer takes Ada's seat: computers alone

    clock.run_until(lambda: told_to_its_end(api, room), "the game of computers told to its end")
    assert len(steps) > 20
    # The step after the one that did nothing came a rest later, no sooner.
    assert steps[3] - steps[2] >= REST
    record = room.table().record
    assert record is not None
    assert told_moves(bot_texts(api, GROUP)) == list(record["moves"])
