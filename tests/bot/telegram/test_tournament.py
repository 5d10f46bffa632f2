"""A tournament on Telegram (issue 30), end to end through the real python-telegram-bot
Application and the fake Bot API: made, joined and started in a forum group's General
topic, each table in a forum topic the bot opens for it, moves typed in that topic, the
winner announced in the General topic. In a group without topics, the tables are played
in the group itself, their messages named.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.core import games
from bot.core.config import Settings
from bot.service import Service
from tests.bot.backends import store_at
from tests.bot.telegram.fake_api import BotRunner, FakeBotAPI
from tests.patience import wait_until

TOKEN = "424242:AAHtestTOKENnever-shown_0123456789"
FORUM = -1009876543210
GROUP = -1001234567890
ADA, BOB, CAROL, DAN = 101, 202, 303, 404
NAMES = {ADA: "Ada", BOB: "Bob", CAROL: "Carol", DAN: "Dan"}
pytestmark = [
    pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning"),
    pytest.mark.usefixtures("backend"),
]


@pytest.fixture
def api() -> Iterator[FakeBotAPI]:
    api = FakeBotAPI(TOKEN).start()
    api.group(FORUM, "Game club", forum=True)
    api.group(GROUP, "Genial night")
    for user, name in NAMES.items():
        api.user(user, name)
    api.admins.add((FORUM, ADA))
    yield api
    api.close()


@pytest.fixture
def runner(api: FakeBotAPI, tmp_path: Path) -> Iterator[BotRunner]:
    def make_service(path: Path) -> Service:
        return Service(
            store_at(path), Settings(), rng=random.Random(3), clock=time.time, pictures=False
        )

    bot = BotRunner(api, tmp_path / "t.db", make_service=make_service).start()
    yield bot
    bot.stop()


def say(
    api: FakeBotAPI, bot: BotRunner, user: int, text: str, chat: int, thread: int | None = None
) -> None:
    bot.wait(api.say(chat, user, text, thread=thread))


def cup_data(bot: BotRunner, tid: str) -> dict[str, Any]:
    found = bot.service.store.load_tournament(tid)
    assert found is not None
    return found[1]


def play_in_place(
    api: FakeBotAPI, bot: BotRunner, table: str, chat: int, thread: int | None
) -> None:
    """The table's players type random legal moves where they see it until it ends."""
    rng = random.Random(table)
    for _ in range(500):
        t = bot.service.table(table)
        if t.status != "playing":
            return
        game = games.rebuild(t.record)
        move = rng.choice(game.legal_moves())
        text = games.format_move(game, move)
        command = f"/{text}" if text in ("swap", "keep") else f"/play {text}"
        say(api, bot, int(t.seats[game.to_move].user), command, chat, thread)
    raise AssertionError("the game did not end")


def test_a_tournament_in_a_forum_group_plays_each_table_in_a_topic_of_its_own(
    api: FakeBotAPI, runner: BotRunner
) -> None:
    say(api, runner, ADA, "/tournament new swiss 1 round 2 players 1d", FORUM)
    (tid,) = runner.service.store.tournaments_of(str(FORUM))
    for user in NAMES:
        say(api, runner, user, f"/tournament join {tid}", FORUM)
    say(api, runner, BOB, "/tournament start", FORUM)
    assert "Only the host, Ada, or a chat admin" in api.sent(FORUM)[-1].text
    say(api, runner, ADA, "/tournament start", FORUM)
    r = cup_data(runner, tid)["played"][0]
    assert len(r["pairings"]) == 2
    # Each table got a forum topic named after it, and its game begins there.
    topics = [c for c in api.of("createForumTopic")]
    assert [c.params["name"] for c in topics] == [
        f"Tournament of Game club ({tid}), round 1, table 1",
        f"Tournament of Game club ({tid}), round 1, table 2",
    ]
    threads = []
    for p in r["pairings"]:
        places = set(p["seen_at"].values())
        assert len(places) == 1
        (place,) = places
        group, thread = place.split("/")
        assert int(group) == FORUM
        threads.append(int(thread))
        begins = [
            c for c in api.sent(FORUM) if c.thread == int(thread) and "The game begins" in c.text
        ]
        assert len(begins) == 1
    # The pairings were said once, in the General topic.
    paired = [c for c in api.sent(FORUM) if "round 1 of 1 is paired" in c.text]
    assert len(paired) == 1 and paired[0].thread is None
    # /tournament in the General topic: each table's line links to its topic's latest
    # message (the turn message there).
    say(api, runner, CAROL, "/tournament", FORUM)
    standings = api.sent(FORUM)[-1].text.split("\n")
    for line, thread in zip(standings[-2:], threads, strict=True):
        assert line.startswith("Table ") and f"https://t.me/c/9876543210/{thread}/" in line
    # The players type their moves in their table's topic.
    for p, thread in zip(r["pairings"], threads, strict=True):
        play_in_place(api, runner, p["chat"], FORUM, thread)
    wait_until(lambda: [c for c in api.sent(FORUM) if "Winner:" in c.text], "the winner")
    assert cup_data(runner, tid)["status"] == "finished"
    winner = [c for c in api.sent(FORUM) if "Winner:" in c.text]
    assert len(winner) == 1 and winner[0].thread is None
    # Nothing was sent to a chat or topic that is none (the fake refuses those).
    assert all(c.status == 200 for c in api.calls if c.chat == FORUM)


def test_in_a_group_without_topics_the_tables_play_in_the_group(
    api: FakeBotAPI, runner: BotRunner
) -> None:
    say(api, runner, ADA, "/tournament new swiss 1 round 2 players 1d", GROUP)
    (tid,) = runner.service.store.tournaments_of(str(GROUP))
    for user in (ADA, BOB):
        say(api, runner, user, "/tournament join", GROUP)
    say(api, runner, ADA, "/tournament start", GROUP)
    (p,) = cup_data(runner, tid)["played"][0]["pairings"]
    assert p["seen_at"] == {str(ADA): str(GROUP), str(BOB): str(GROUP)}
    begins = [c for c in api.sent(GROUP) if "The game begins" in c.text]
    assert len(begins) == 1
    assert begins[0].text.startswith(f"Tournament of Genial night ({tid}), round 1, table 1\n")
    # The racks go privately to each player.
    assert any(c.text.startswith("Your tiles at Tournament of Genial night") for c in api.sent(ADA))
    play_in_place(api, runner, p["chat"], GROUP, None)
    wait_until(lambda: [c for c in api.sent(GROUP) if "Winner:" in c.text], "the winner")


def test_a_player_who_leaves_the_group_forfeits(api: FakeBotAPI, runner: BotRunner) -> None:
    say(api, runner, ADA, "/tournament new swiss 2 rounds 2 players 1d", GROUP)
    (tid,) = runner.service.store.tournaments_of(str(GROUP))
    for user in (ADA, BOB, CAROL, DAN):
        say(api, runner, user, "/tournament join", GROUP)
    say(api, runner, ADA, "/tournament start", GROUP)
    first = cup_data(runner, tid)["played"][0]["pairings"]
    assert [p["players"] for p in first] == [[str(ADA), str(BOB)], [str(CAROL), str(DAN)]]
    runner.wait(api.leave(GROUP, BOB))
    # Bob's game ended: Ada won it; the group was told.
    p = cup_data(runner, tid)["played"][0]["pairings"][0]
    assert p["places"] == [1, 2] and p["ended"] == "forfeit"
    assert any("Bob left tournament" in c.text for c in api.sent(GROUP))
    play_in_place(api, runner, first[1]["chat"], GROUP, None)
    wait_until(lambda: len(cup_data(runner, tid)["played"]) == 2, "round two")
    second = cup_data(runner, tid)["played"][1]
    paired = [u for q in second["pairings"] for u in q["players"]] + second["byes"]
    assert str(BOB) not in paired and len(paired) == 3


def test_a_group_admin_enters_the_group_as_a_team(api: FakeBotAPI, runner: BotRunner) -> None:
    api.admins.add((GROUP, BOB))
    say(api, runner, ADA, "/tournament new swiss 1 round 2 players 1d", FORUM)
    (tid,) = runner.service.store.tournaments_of(str(FORUM))
    say(api, runner, ADA, "/tournament invite", FORUM)
    code = cup_data(runner, tid)["code"]
    # Carol is no admin of the group: she may not; Bob is one: he may.
    say(api, runner, CAROL, f"/tournament team {code}", GROUP)
    assert "Only an admin of this chat" in api.sent(GROUP)[-1].text
    say(api, runner, BOB, f"/tournament team {code}", GROUP)
    assert cup_data(runner, tid)["teams"] == [str(FORUM), str(GROUP)]
    assert api.sent(GROUP)[-1].text.startswith(f"This chat is a team of tournament {tid}")
    # A group admin who is not the host may start it too (from a chat it is played from).
    for user, chat in ((ADA, FORUM), (CAROL, GROUP)):
        say(api, runner, user, "/tournament join", chat)
    say(api, runner, BOB, f"/tournament start {tid}", GROUP)
    assert cup_data(runner, tid)["status"] == "running"


def test_a_tournament_follows_its_group_when_it_becomes_a_supergroup(
    api: FakeBotAPI, runner: BotRunner
) -> None:
    basic, upgraded = -4242, -1004242424242
    api.group(basic, "Old friends")
    say(api, runner, ADA, "/tournament new swiss 1 round 2 players 1d", basic)
    (tid,) = runner.service.store.tournaments_of(str(basic))
    for user in (ADA, BOB):
        say(api, runner, user, "/tournament join", basic)
    say(api, runner, ADA, "/tournament start", basic)
    (p,) = cup_data(runner, tid)["played"][0]["pairings"]
    assert set(p["seen_at"].values()) == {str(basic)}
    runner.wait(*api.migrate(basic, upgraded, ADA))
    # The tournament, its players and its table's places are the supergroup's now.
    data = cup_data(runner, tid)
    assert data["home"] == str(upgraded)
    assert {e["chat"] for e in data["entrants"]} == {str(upgraded)}
    (p,) = data["played"][0]["pairings"]
    assert set(p["seen_at"].values()) == {str(upgraded)}
    assert runner.service.store.tournaments_of(str(upgraded)) == [tid]
    assert runner.service.store.tournaments_of(str(basic)) == []
    table = runner.service.table(p["chat"])
    assert set(table.tournament["places"].values()) == {str(upgraded)}
    # Moves typed in the supergroup reach the table, and the winner is told there.
    play_in_place(api, runner, p["chat"], upgraded, None)
    wait_until(lambda: [c for c in api.sent(upgraded) if "Winner:" in c.text], "the winner")
    assert cup_data(runner, tid)["status"] == "finished"


def test_a_team_battle_follows_a_team_group_that_becomes_a_supergroup(
    api: FakeBotAPI, runner: BotRunner
) -> None:
    basic, upgraded = -4343, -1004343434343
    api.group(basic, "Old friends")
    api.admins.add((basic, BOB))
    say(api, runner, ADA, "/tournament new swiss 1 round 2 players 1d", FORUM)
    (tid,) = runner.service.store.tournaments_of(str(FORUM))
    say(api, runner, ADA, "/tournament invite", FORUM)
    say(api, runner, BOB, f"/tournament team {cup_data(runner, tid)['code']}", basic)
    say(api, runner, ADA, "/tournament join", FORUM)
    say(api, runner, CAROL, "/tournament join", basic)
    say(api, runner, ADA, "/tournament start", FORUM)
    (p,) = cup_data(runner, tid)["played"][0]["pairings"]
    assert p["seen_at"][str(CAROL)] == str(basic)
    runner.wait(*api.migrate(basic, upgraded, BOB))
    # The team is the supergroup now, with its name; Carol plays from there; the home
    # team, a forum group that did not move, keeps its topic.
    data = cup_data(runner, tid)
    assert data["teams"] == [str(FORUM), str(upgraded)]
    assert set(data["team_names"]) == {str(FORUM), str(upgraded)}
    assert {e["user"]: e["chat"] for e in data["entrants"]} == {
        str(ADA): str(FORUM),
        str(CAROL): str(upgraded),
    }
    (p,) = data["played"][0]["pairings"]
    assert p["seen_at"][str(CAROL)] == str(upgraded)
    assert p["seen_at"][str(ADA)].startswith(f"{FORUM}/")
    assert runner.service.store.tournaments_of(str(basic)) == []
    # Each types their moves where they see the table; the winner is told in both teams.
    rng = random.Random(5)
    for _ in range(500):
        t = runner.service.table(p["chat"])
        if t.status != "playing":
            break
        game = games.rebuild(t.record)
        move = rng.choice(game.legal_moves())
        text = games.format_move(game, move)
        command = f"/{text}" if text in ("swap", "keep") else f"/play {text}"
        user = t.seats[game.to_move].user
        chat, _, thread = p["seen_at"][user].partition("/")
        say(api, runner, int(user), command, int(chat), int(thread) if thread else None)
    assert runner.service.table(p["chat"]).status != "playing"
    for chat in (FORUM, upgraded):
        wait_until(lambda c=chat: [m for m in api.sent(c) if "Winner:" in m.text], "the winner")
    assert not [m for m in api.sent(basic) if "Winner:" in m.text]
    assert cup_data(runner, tid)["status"] == "finished"


def test_the_standings_link_each_table_played_in_the_group_to_its_own_message(
    api: FakeBotAPI, runner: BotRunner
) -> None:
    # Two tables play in one group without topics (issue 44): each line of the standings
    # links to its own table's latest message, not both to the group's latest.
    say(api, runner, ADA, "/tournament new swiss 1 round 2 players 1d", GROUP)
    (tid,) = runner.service.store.tournaments_of(str(GROUP))
    for user in (ADA, BOB, CAROL, DAN):
        say(api, runner, user, "/tournament join", GROUP)
    say(api, runner, ADA, "/tournament start", GROUP)

    def begins(n: int) -> int:
        name = f"Tournament of Genial night ({tid}), round 1, table {n}\nThe game begins"
        with api._cond:
            found = [
                m["message_id"]
                for (c, _), m in api.messages.items()
                if c == GROUP and str(m.get("text", "")).startswith(name)
            ]
        assert len(found) == 1, found
        return int(found[0])

    wait_until(lambda: len(begun_in(api)) == 2, "both tables begun")
    first, second = begins(1), begins(2)
    assert first != second
    say(api, runner, BOB, "/tournament", GROUP)
    lines = api.sent(GROUP)[-1].text.splitlines()
    (one,) = [x for x in lines if x.startswith("Table 1:")]
    (two,) = [x for x in lines if x.startswith("Table 2:")]
    # A supergroup's message link: t.me/c/<the id without -100>/<message>.
    assert one.endswith(f"(latest message: https://t.me/c/1234567890/{first})")
    assert two.endswith(f"(latest message: https://t.me/c/1234567890/{second})")


def begun_in(api: FakeBotAPI) -> list[str]:
    return [c.text for c in api.sent(GROUP) if "The game begins" in c.text]
