"""Pings that respect people: a daily digest at the hour a person chose, in their time
zone; quiet hours (across midnight) during which pings wait for the morning; a ping that is
no longer true is never sent. With the service's injected clock, on both store backends.

The clock starts at 1_700_000_000 = 2023-11-14 22:13:20 UTC, 23:13:20 in Berlin (winter
time, UTC+1): 08:00 in Berlin the next morning is 07:00 UTC, 1_700_031_600.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.core.commands import CommandError, Notify
from bot.core.parsing import parse_command
from tests.bot.helpers import START, Clock, Room, make_service

#: Every test here runs on SQLite and on PostgreSQL (tests/bot/conftest.py).
pytestmark = pytest.mark.usefixtures("backend")

BERLIN_8AM = 1_700_031_600.0


def test_notify_settings_parse() -> None:
    assert parse_command("/notify digest 8") == Notify(setting="digest", value="8")
    assert parse_command("/notify digest 08:00") == Notify(setting="digest", value="8")
    assert parse_command("/notify quiet 22-08") == Notify(setting="quiet", value="22-8")
    assert parse_command("/notify quiet off") == Notify(setting="quiet", value="")
    assert parse_command("/notify tz Europe/Berlin") == Notify(setting="tz", value="Europe/Berlin")
    assert parse_command("/notify now") == Notify(on=True)
    # An hour that is none is answered with what was wrong (issue 44, item 7).
    for bad, key in (
        ("/notify digest 24", "notify.bad_digest"),
        ("/notify quiet 22", "notify.bad_quiet"),
        ("/notify quiet 8-8", "notify.bad_quiet"),
        ("/notify quiet", "usage.notify"),
        ("/notify maybe", "usage.notify"),
    ):
        with pytest.raises(CommandError) as caught:
            parse_command(bad)
        assert caught.value.key == key


def two_tables(db: Path, clock: Clock) -> tuple[Room, Room]:
    service = make_service(db, clock=clock)
    rooms = (Room(service, "chat-1", "One"), Room(service, "chat-2", "Two"))
    for room in rooms:
        room.ok("Ada", "/join")
        room.ok("Bob", "/join")
        room.ok("Ada", "/start")
    return rooms


def pings(room: Room, since: int = 0) -> list[str]:
    return [o.text for o in room.log[since:] if o.kind == "ping"]


def test_a_digest_once_a_day_at_the_hour_in_the_right_time_zone(tmp_path: Path) -> None:
    clock = Clock()
    one, two = two_tables(tmp_path / "t.db", clock)
    out = one.ok("Bob", "/notify tz Europe/Berlin")
    assert out[0].text.startswith("Turn pings are off.")
    (answer,) = one.ok("Bob", "/notify digest 8")
    assert answer.text.splitlines()[0] == (
        "Turn pings come as one daily digest at 08:00 (Europe/Berlin): every game waiting "
        "for you, in one message."
    )
    one.play_turn(random.Random(1))
    clock.advance(600)
    two.play_turn(random.Random(2))
    assert pings(one) == [] and pings(two) == []
    assert one.table().ping_at == BERLIN_8AM and two.table().ping_at == BERLIN_8AM
    assert one.due(BERLIN_8AM - 1) == []
    out = one.due(BERLIN_8AM)
    digests = [o for o in out if o.kind == "ping"]
    assert len(digests) == 1  # one digest for both tables
    (digest,) = digests
    assert digest.user == "id-bob"
    waited_one = BERLIN_8AM - START  # 8h 46m 40s
    assert digest.text.splitlines() == [
        "Your turn in 2 games:",
        "One (Genial), waiting 8h 46m",
        "Two (Genial), waiting 8h 36m",
    ]
    assert waited_one == 31_600
    assert digest.tables == ("chat-1", "chat-2")
    # Never again for these turns, the next morning neither.
    assert [o for o in one.due(BERLIN_8AM + 86_400) if o.kind == "ping"] == []


def test_quiet_hours_across_midnight(tmp_path: Path) -> None:
    clock = Clock()
    one, _ = two_tables(tmp_path / "t.db", clock)
    one.ok("Bob", "/notify on")
    one.ok("Bob", "/notify tz Europe/Berlin")
    (answer,) = one.ok("Bob", "/notify quiet 22-08")
    assert "Quiet hours 22:00 to 08:00 (Europe/Berlin): pings wait until they end." in (answer.text)
    # 23:13 in Berlin: within the quiet hours, so the ping waits for the morning.
    one.play_turn(random.Random(1))
    assert pings(one) == []
    assert one.table().ping_at == BERLIN_8AM
    assert one.due(BERLIN_8AM - 1) == []
    (ping,) = [o for o in one.due(BERLIN_8AM) if o.kind == "ping"]
    assert ping.user == "id-bob" and ping.text == "Your turn at One (Genial)."
    # 21:59 in Berlin the next evening is outside them: a ping at once.
    clock.now = BERLIN_8AM + 14 * 3600 - 60
    one.play_turn(random.Random(2))  # Bob
    seen = len(one.log)
    one.play_turn(random.Random(3))  # Ada: Bob's turn again
    assert pings(one, seen) == ["Your turn at One (Genial)."]
    # 22:00 is within them again (after midnight too, up to 07:59).
    clock.now = BERLIN_8AM + 14 * 3600
    one.play_turn(random.Random(4))
    seen = len(one.log)
    one.play_turn(random.Random(5))
    assert pings(one, seen) == []
    assert one.table().ping_at == BERLIN_8AM + 86_400


def test_a_ping_no_longer_true_is_not_sent(tmp_path: Path) -> None:
    clock = Clock()
    one, _ = two_tables(tmp_path / "t.db", clock)
    one.ok("Bob", "/notify on")
    one.ok("Bob", "/notify quiet 22-08")  # in UTC: 22:13 is quiet
    one.play_turn(random.Random(1))
    assert one.table().ping_at == START + 9 * 3600 + 46 * 60 + 40  # 08:00 UTC
    # Bob, awake after all, moves at night: the turn passed, the held ping is dropped.
    clock.advance(60)
    one.play_turn(random.Random(2))
    assert one.table().ping_at is None
    assert [o for o in one.due(START + 86_400) if o.kind == "ping" and o.user == "id-bob"] == []


def test_an_unknown_time_zone_is_refused(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    out = room.say("Ada", "/notify tz Mars/Olympus")
    assert [o.kind for o in out] == ["error"]
    assert out[0].text.startswith("I do not know the time zone Mars/Olympus")


def test_a_sent_ping_is_taken_back_once_its_turn_passes_and_a_digest_never(
    tmp_path: Path,
) -> None:
    clock = Clock()
    one, _ = two_tables(tmp_path / "t.db", clock)
    one.ok("Bob", "/notify on")
    out = one.play_turn(random.Random(1))  # Ada: Bob's turn, pinged at once
    assert [(o.kind, o.user) for o in out if o.kind in ("ping", "unping")] == [("ping", "id-bob")]
    # Bob keeps or swaps, then places: while it is his turn the ping stays true.
    while one.to_move() == "Bob":
        out = one.play_turn(random.Random(2))
        unpings = [o for o in out if o.kind == "unping"]
        if one.to_move() == "Bob":
            assert unpings == []
    assert [(o.chat, o.user, o.text) for o in unpings] == [("chat-1", "id-bob", "")]
    # Ada plays: Bob's turn again, a new ping; Ada never asked, so nothing of hers goes.
    out = one.play_turn(random.Random(3))
    assert [(o.kind, o.user) for o in out if o.kind in ("ping", "unping")] == [("ping", "id-bob")]
    # With a daily digest, the digest (about every game waiting for him) is never deleted.
    one.ok("Bob", "/notify digest 8")
    while one.to_move() == "Bob":
        one.play_turn(random.Random(4))  # the ping sent before goes
    one.play_turn(random.Random(5))
    digest = [o for o in one.due(START + 86_400) if o.kind == "ping"]
    assert len(digest) == 1
    while one.to_move() == "Bob":
        out = one.play_turn(random.Random(6))
        assert [o for o in out if o.kind == "unping"] == []
