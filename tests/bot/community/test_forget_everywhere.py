"""``/forget me`` leaves nothing of the person in the store (issue 45, item 1): after it,
every value of every column of every table, read straight from the database on SQLite
and on PostgreSQL, is searched for their id and their name, and neither is found.

The person (Quentin, a name nothing else in these games contains) has done everything
the bot keeps something of: finished games (one in his private chat, whose id is his, as
in Telegram, named after him), their reviews, the last move of a game against a computer
(a table's ``undoable``), a game he left midway, a lobby he hosts, turn pings and quiet
hours, a puzzle's answer, a finished tournament, and the notes the platforms keep about
him; and since no platform delivers here, every message said about him still waits in
the outbox.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from bot.community.privacy import FORMER_NAME
from bot.core.outbound import Chat
from bot.pages import links
from bot.telegram import notes as telegram_notes
from tests.bot import backends
from tests.bot.helpers import Clock, Room, make_service, user
from tests.bot.review_fixtures import store_puzzle_game
from tests.bot.tournaments.test_tournaments import Cup, new_cup

pytestmark = pytest.mark.usefixtures("backend")

NAME = "Quentin"
ID = user(NAME).id


def found(where: str, *needles: str) -> list[tuple[str, str, str]]:
    """Each (table, column, needle) where a value holds a needle."""
    return sorted(
        {
            (table, column, needle)
            for table, column, value in backends.every_value(where)
            for needle in needles
            if backends.holds(value, needle)
        }
    )


def test_forget_me_leaves_neither_id_nor_name_anywhere_in_the_store(tmp_path: Path) -> None:
    clock = Clock()
    db = tmp_path / "t.db"
    service = make_service(db, clock=clock)
    where = backends.location(db)
    rng = random.Random(6)

    # A finished game against Ada (reviewed), and his turn pings and quiet hours.
    one = Room(service, "chat-1", "Club one")
    one.ok(NAME, "/join")
    one.ok("Ada", "/join")
    one.ok(NAME, "/start")
    one.play_out(rng)
    one.ok(NAME, "/notify on")
    one.ok(NAME, "/notify quiet 22-08")
    # Games against a computer, in his private chat (its id is his, its title his name):
    # each ends on his move, so the table's takeback names him.
    dm = Room(service, ID, NAME)
    dm.ok(NAME, "/join")
    dm.ok(NAME, "/addbot")
    dm.ok(NAME, "/start")
    dm.play_out(rng)
    assert (dm.table().undoable or {}).get("user") == ID
    # A game with Ada and Bob that he leaves after his move (a computer takes his seat).
    two = Room(service, "chat-2", "Club two")
    for name in (NAME, "Ada", "Bob"):
        two.ok(name, "/join")
    two.ok("Ada", "/start")
    while two.to_move() != NAME:
        two.play_turn(rng)
    two.play_turn(rng)
    assert (two.table().undoable or {}).get("user") == ID
    two.ok(NAME, "/leave")
    assert two.playing()
    assert (two.table().undoable or {}).get("user") == ID
    # The case: a group's game against a computer, over, its last person's move
    # his, so the table's takeback still names him.
    six = Room(service, "chat-6", "Club six")
    six.ok(NAME, "/join")
    six.ok(NAME, "/addbot")
    six.ok(NAME, "/start")
    six.play_out(rng)
    assert (six.table().undoable or {}).get("user") == ID
    # A lobby he hosts.
    three = Room(service, "chat-3", "Club three")
    three.ok(NAME, "/join")
    three.ok("Cid", "/join")
    # A puzzle he found.
    puzzled, _ = store_puzzle_game(service.store, "chat-4")
    four = Room(service, "chat-4", "Club four")
    four.ok("Ada", "/puzzle")
    four.ok(NAME, f"/puzzle {puzzled.answer}")
    # A finished tournament.
    cup = Cup(service, clock, Chat("chat-5", "Club five"))
    tid = new_cup(cup, "swiss 1 round 2 players 1d", ["Ann", NAME])
    cup.ok("Ann", f"/tournament start {tid}")
    cup.play_table(cup.round(tid)["pairings"][0]["chat"], random.Random(8))
    assert cup.data(tid)["status"] == "finished"
    # What the platforms note about him: who was told a game's news, where his turn ping
    # was posted, his closed private chat, and the web board's id of his private chat.
    told = json.dumps({"game": "1", "users": ["x", ID]})
    service.set_note("chat-1", telegram_notes.NOTE_TOLD, told)
    service.set_note("chat-1", telegram_notes.NOTE_PING.format(user=ID), "55")
    service.set_note(ID, telegram_notes.NOTE_CLOSED, "1")
    service.set_note(links.ID_CHAT + "abc", "chat", ID)

    before = found(where, ID, NAME)
    tables_before = {table for table, _, _ in before}
    # Every kind of place holds him before: the test looks where it should.
    assert {"tables", "finished", "notes", "outbox", "puzzle_answers", "tournaments"} <= (
        tables_before
    )
    three.ok(NAME, "/forget me")
    three.ok(NAME, "/forget me")

    assert found(where, ID, NAME) == []
    # The games stay whole for the others: the finished games with him in other chats
    # name the former player, and Ada's game in chat-2 goes on.
    seats = [s for row in service.store.archived("chat-1") for s in row["seats"]]
    assert sorted(s["name"] for s in seats) == ["Ada", FORMER_NAME]
    assert two.playing()
    two.play_out(rng)
    assert [s.user for s in three.table().seats] == [user("Cid").id]
    assert six.table().undoable is None
