"""What a table hears around its clocks and votes (issue 44, items 2 to 8): the result after
``/expel``, the options shown back, the reminder, a refused takeback, bad values answered
with what was wrong, and a grace live tables can vote in.

Every expected text is the rule or the catalogue's sentence worked out by hand.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.bot.helpers import START, Clock, Room, make_service

#: Every test here runs on SQLite and on PostgreSQL (tests/bot/conftest.py).
pytestmark = pytest.mark.usefixtures("backend")

DAY = 86400.0
HOUR = 3600.0


def two_with(db: Path, clock: Clock, *options: str, pictures: bool = False) -> Room:
    room = Room(make_service(db, clock=clock, pictures=pictures))
    for name in ("Ada", "Bob"):
        room.ok(name, "/join")
    for option in options:
        room.ok("Ada", f"/option {option}")
    room.ok("Ada", "/start")
    assert room.to_move() == "Ada"
    return room


def test_after_expel_the_result_names_the_winner_the_ladder_rates(tmp_path: Path) -> None:
    clock = Clock()
    room = two_with(tmp_path / "t.db", clock, "clock 1h+10m")
    clock.now = START + HOUR
    room.due(clock.now)
    said = room.ok("Bob", "/expel")
    assert said[0].text.splitlines()[:2] == [
        "Bob votes: a computer takes the seat.",
        "The table decided: a computer player takes Ada's seat for the rest of the game.",
    ]
    room.play_out(random.Random(4))
    (result,) = [o for o in room.log if o.kind == "result"]
    lines = result.text.splitlines()
    # Whatever the scores, Ada's seat (finished by a computer) is rated after Bob, who
    # stayed: the ladder credits Bob with the win, and so does the result.
    places = [line.split(":")[0] for line in lines if line[:1].isdigit()]
    assert places == ["1. Bob", "2. Ada (computer)"]
    assert lines[-2] == "Bob wins!"
    # The computer scored best in Ada's seat here: the case the result got wrong.
    assert room.game().ranking() == [[0], [1]]
    (stats,) = room.ok("Bob", "/stats")
    assert "games 1, wins 1 (100%)" in stats.text
    look = room.service.page_look(room.chat.id)
    assert look is not None and look.result[-1] == "Bob wins!"


def test_the_grace_period_is_shown_back_in_the_options_and_the_lobby(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Ada", "/join")
    (options,) = room.ok("Ada", "/option grace 12h")
    assert "Time to vote on a player out of time: 12h" in options.text.splitlines()
    (lobby,) = [o for o in room.ok("Bob", "/join") if o.kind == "lobby"]
    assert "Time to vote on a player out of time: 12h" in lobby.text.splitlines()
    # The default, as it comes out for the table's clock: one increment by message.
    room.ok("Ada", "/option grace default")
    (options,) = room.ok("Ada", "/option clock 3d+1d")
    assert "Time to vote on a player out of time: 24h (default)" in options.text.splitlines()
    (options,) = room.ok("Ada", "/option grace off")
    assert "Time to vote on a player out of time: no vote" in options.text.splitlines()


def test_an_unknown_option_lists_every_option(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Ada", "/join")
    text = room.error("Ada", "/option foo")
    listed = text.split("Options: ")[1].rstrip(".").split(", ")
    assert listed == [
        "team",
        "genial",
        "spezial",
        "timeout",
        "hints",
        "order",
        "lang",
        "clock",
        "grace",
        "undo",
        "puzzle",
    ]
    # Each one is an option indeed.
    values = {"timeout": "24h", "order": "random", "lang": "en", "clock": "3d+1d"}
    values |= {"grace": "12h", "puzzle": "off"}
    for name in listed:
        room.ok("Ada", f"/option {name} {values.get(name, '')}".rstrip())


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("/option grace", "/option grace needs a value, for example /option grace 12h."),
        ("/option clock", "/option clock needs a value, for example /option clock 3d+1d."),
        ("/option timeout", "/option timeout needs a value, for example /option timeout 24h."),
        ("/option lang", "/option lang needs a value, for example /option lang de."),
        (
            "/notify quiet 8-8",
            "8-8 are no quiet hours: give the hour they begin and the hour they end, two"
            " different hours from 0 to 23, like /notify quiet 22-08 (or off).",
        ),
        (
            "/notify digest 25",
            "25 is no hour of the day: /notify digest takes one from 0 to 23, like"
            " /notify digest 8.",
        ),
    ],
)
def test_a_missing_or_wrong_value_is_answered_with_what_was_wrong(
    tmp_path: Path, text: str, answer: str
) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Ada", "/join")
    assert room.error("Ada", text) == answer


def test_the_reminder_tells_of_the_vote_and_its_grace(tmp_path: Path) -> None:
    clock = Clock()
    room = two_with(tmp_path / "t.db", clock, "clock 3d+1d")
    # Half of Ada's three days: 1d 12h left, then Bob votes for one increment (a day).
    (reminder,) = room.due(START + 1.5 * DAY)
    assert reminder.text == (
        "Ada, it is your turn at Test room: 1d 12h left. Then the others have 1d to vote"
        " on skipping your move, giving your seat to a computer or waiting; without a"
        " majority, a computer player moves for you."
    )
    # Alone with a computer player nobody votes: the computer moves when time is up.
    solo = Room(make_service(tmp_path / "s.db", clock=clock), "chat-2")
    solo.ok("Ada", "/join")
    solo.ok("Ada", "/addbot")
    solo.ok("Ada", "/option clock 3d+1d")
    solo.ok("Ada", "/option order join")
    solo.ok("Ada", "/start")
    (reminder,) = solo.due(START + 1.5 * DAY)
    assert reminder.text == (
        "Ada, it is your turn at Test room: 1d 12h left, then a computer player moves for you."
    )


def test_asking_again_after_a_refused_takeback_says_it_was_refused(tmp_path: Path) -> None:
    room = two_with(tmp_path / "t.db", Clock())
    room.play_turn(random.Random(1))
    assert room.to_move() == "Bob"
    room.ok("Ada", "/undo")
    (refused,) = room.ok("Bob", "/undo no")
    assert refused.text == "Bob refuses: Ada's move stays."
    assert room.error("Ada", "/undo") == (
        "Bob refused to take this move back: it stays. /undo works again after your next move."
    )
    # Bob moves, then Ada: her new move may be asked for again.
    room.play_turn(random.Random(2))
    room.play_turn(random.Random(3))
    (asked,) = room.ok("Ada", "/undo")
    assert asked.text.startswith("Ada asks to take back")


def test_a_live_clock_gives_the_others_two_minutes_to_vote(tmp_path: Path) -> None:
    clock = Clock()
    room = two_with(tmp_path / "t.db", clock, "clock 10m+5s")
    (told,) = room.due(START + 600)
    assert "Without a majority within 2m, a computer player moves." in told.text
    # One increment (5 s) is no longer the end of the vote: Bob can still vote then.
    assert room.due(START + 605) == []
    clock.now = START + 660
    voted = room.ok("Bob", "/skip")
    assert "The table decided: a computer player makes this move for Ada." in voted[0].text
    # Nobody votes at another table: the computer moves after the two minutes.
    other = two_with(tmp_path / "u.db", clock := Clock(), "clock 10m+5s")
    other.due(START + 600)
    assert other.due(START + 600 + 119) == []
    out = other.due(START + 600 + 120)
    assert any(o.text.startswith("Time is up for Ada") for o in out)
    # /rules says what the default is, and why.
    (rules,) = room.ok("Ada", "/rules")
    assert "at least 2m on a live clock" in rules.text


def test_a_vote_short_of_a_majority_is_counted_and_keeps_its_buttons(tmp_path: Path) -> None:
    """Three people, Ada out of time: Bob's vote is one of two, no majority (more than
    half), so the table hears the count and can still vote."""
    clock = Clock()
    room = Room(make_service(tmp_path / "t.db", clock=clock))
    for name in ("Ada", "Bob", "Cy"):
        room.ok(name, "/join")
    room.ok("Ada", "/option clock 1h+10m")
    room.ok("Ada", "/start")
    assert room.to_move() == "Ada"
    clock.now = START + HOUR
    room.due(clock.now)
    (said,) = room.ok("Bob", "/skip")
    assert said.text == "Bob votes: skip this move.\n1 of 2 has voted; a majority decides."
    assert [b.command.split(" #")[0] for b in said.buttons] == ["/skip", "/expel", "/wait"]
    assert room.table().out_of_time is not None
