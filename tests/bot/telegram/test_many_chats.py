"""One bot, many groups at once (issue 43): a group whose posts do not get through (a game of
computer players being told, a group over its budget, a slow connection) never holds back
another group's reminder or timeout. The real adapter against the fake Bot API, with the
service's clock moved by the test (no wall-clock waits)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.core import games
from bot.core.config import Settings
from bot.core.table import PLAYING
from bot.service import Service
from bot.store import SQLiteStore
from tests.bot.helpers import Clock
from tests.bot.telegram.fake_api import BotRunner, FakeBotAPI, bot_texts, told_moves
from tests.bot.telegram.test_adapter import TOKEN, VirtualSleep
from tests.patience import wait_until

#: Group A tells a game of computer players; group B plays with a one-minute clock.
BUSY, QUIET = -1001000000001, -1001000000002
ADA, BOB, CAROL, DAN = 101, 202, 303, 404
# python-telegram-bot warns about its own RetryAfter when a 429 is answered.
pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


@pytest.fixture
def api() -> Iterator[FakeBotAPI]:
    api = FakeBotAPI(TOKEN).start()
    api.group(BUSY, "Computers")
    api.group(QUIET, "Clocked")
    api.user(ADA, "Ada")
    api.user(CAROL, "Carol")
    yield api
    api.close()


@pytest.fixture
def runners(api: FakeBotAPI) -> Iterator[list[BotRunner]]:
    started: list[BotRunner] = []
    yield started
    for chat in list(api.stalled):  # a failed test: let the held posts go, then stop
        api.release(chat)
    for runner in started:
        runner.stop()


def _game_over(runner: BotRunner, chat: int) -> bool:
    table = runner.service.table(str(chat))
    return table is not None and (table.status != PLAYING or games.rebuild(table.record).over)


def test_a_stalled_group_does_not_hold_back_another_groups_clock(
    api: FakeBotAPI, runners: list[BotRunner], tmp_path: Path
) -> None:
    clock = Clock()
    start = clock.now
    sleep = VirtualSleep(clock)  # the service's time moves only as far as the test lets it

    def make_service(path: Path) -> Service:
        store = SQLiteStore(path)
        return Service(store, Settings(), rng=random.Random(5), clock=clock, pictures=False)

    runner = BotRunner(api, tmp_path / "t.db", make_service=make_service, sleep=sleep).start()
    runners.append(runner)

    def say(chat: int, user: int, text: str) -> None:
        runner.wait(api.say(chat, user, text))

    # Group B: Carol against a computer, one minute a turn; Carol moves first.
    for text in ("/join", "/addbot random", "/option timeout 1m", "/start"):
        say(QUIET, CAROL, text)
    # Group A: four computer players; nothing posted there gets through from now on.
    for text in ("/join", "/addbot random", "/addbot random", "/addbot random", "/start"):
        say(BUSY, ADA, text)
    api.stall(BUSY)
    posted = len(api.sent(BUSY))
    api.say(BUSY, ADA, "/leave")  # a computer takes Ada's seat: computers alone
    wait_until(lambda: any(c.chat == BUSY for c in api.held), "a post to group A held")

    # Group B's half-time reminder at 30 s and its timeout at 60 s come on time while
    # every post to group A waits.
    sleep.limit = start + 65
    wait_until(
        lambda: any(c.text.startswith("Time is up for Carol") for c in api.sent(QUIET)),
        "group B's timeout, while group A is stalled",
    )
    reminders = [c for c in api.sent(QUIET) if c.text.startswith("Carol, it is your turn")]
    assert len(reminders) == 1
    table = runner.service.table(str(QUIET))
    assert table is not None and table.turn_started == start + 60  # timed out at 60 s
    assert not _game_over(runner, BUSY)
    assert len(api.sent(BUSY)) == posted  # nothing got through to group A meanwhile

    # Group A's posts get through again: its computers play their game to the end.
    api.release(BUSY)
    wait_until(lambda: _game_over(runner, BUSY), "group A's game of computers to its end")
    wait_until(lambda: any("wins" in c.text for c in api.sent(BUSY)), "group A's result posted")


def test_a_rounds_play_out_is_told_once_in_a_group_without_topics(
    api: FakeBotAPI, runners: list[BotRunner], tmp_path: Path
) -> None:
    """At a tournament round's deadline the computer plays its tables out, a turn at a
    time, each told in the group where the tables are played (it has no topics): every
    move the store holds is told there once, never twice (a step's letters for the group
    and the clock's look at the group's waiting letters take turns)."""
    clock = Clock()
    start = clock.now
    sleep = VirtualSleep(clock)

    def make_service(path: Path) -> Service:
        store = SQLiteStore(path)
        return Service(store, Settings(), rng=random.Random(5), clock=clock, pictures=False)

    runner = BotRunner(api, tmp_path / "t.db", make_service=make_service, sleep=sleep).start()
    runners.append(runner)
    players = {ADA: "Ada", CAROL: "Carol", BOB: "Bob", DAN: "Dan"}
    for user, name in players.items():
        if user not in (ADA, CAROL):
            api.user(user, name)

    def say(user: int, text: str) -> None:
        runner.wait(api.say(BUSY, user, text))

    say(ADA, "/tournament new swiss 1 rounds 2 players 10m")
    (tid,) = runner.service.store.tournaments_of(str(BUSY))
    for user in players:
        say(user, f"/tournament join {tid}")
    say(ADA, f"/tournament start {tid}")
    found = runner.service.store.load_tournament(tid)
    assert found is not None
    (round_one,) = found[1]["played"]
    tables = [p["chat"] for p in round_one["pairings"]]
    assert len(tables) == 2 and round_one["deadline"] == start + 600

    # Nobody moves: ten minutes on, the computer plays both tables to their end.
    sleep.limit = start + 660

    def finished() -> bool:
        found = runner.service.store.load_tournament(tid)
        return found is not None and found[1]["status"] == "finished"

    wait_until(finished, "the round played out and the tournament over")
    wait_until(
        lambda: any(" is over. Winner: " in text for text in bot_texts(api, BUSY)),
        "the winner told in the group",
    )
    found = runner.service.store.load_tournament(tid)
    assert found is not None
    assert [p["ended"] for p in found[1]["played"][0]["pairings"]] == ["deadline", "deadline"]
    held: Counter[str] = Counter()
    for table in tables:
        t = runner.service.table(table)
        assert t is not None and t.record is not None and t.status != PLAYING
        held.update(str(m) for m in t.record["moves"])
    told = Counter(told_moves(bot_texts(api, BUSY)))
    assert told == held
    texts = bot_texts(api, BUSY)
    assert sum("The round's time is up" in text for text in texts) == 2  # once a table
