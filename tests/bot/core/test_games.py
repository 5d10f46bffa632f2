"""Whole games through the service, played by people: every kind of game to its end, a
restart in the middle of each, the export, and the privacy of racks."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from bot.core import games
from bot.core.outbound import Outbound
from bot.core.table import LOBBY
from bot.words.texts import COLOUR_SQUARES as SQUARES
from engine.record import Record, replay
from engine.tiles import Colour
from tests.bot.helpers import Room, make_service

#: Every test here runs on SQLite and on PostgreSQL (tests/bot/conftest.py).
pytestmark = pytest.mark.usefixtures("backend")

# kind: (people, options, game name in the texts, colour letters of the scores)
KINDS = {
    "standard-2p": (["Ada", "Bob"], [], "Genial", "RGBOYP"),
    "standard-3p": (["Ada", "Bob", "Cy"], [], "Genial", "RGBOYP"),
    "team": (["Ada", "Bob", "Cy", "Dee"], ["/option team"], "Genial, team game", "RGBOYP"),
    "solo": (["Ada"], [], "Genial, solo game", "RGBOYP"),
    "spezial-2p": (["Ada", "Bob"], ["/option spezial"], "Genial Spezial", "BGOP"),
    "spezial-3p": (["Ada", "Bob", "Cy"], ["/option spezial"], "Genial Spezial", "BGOP"),
}


def start(room: Room, kind: str) -> list[Outbound]:
    people, options, _, _ = KINDS[kind]
    for name in people:
        room.ok(name, "/join")
    for text in options:
        room.ok(people[0], text)
    return room.ok(people[0], "/start")


def sides(kind: str) -> list[str]:
    people = KINDS[kind][0]
    if kind == "team":
        return [f"{people[0]} & {people[2]}", f"{people[1]} & {people[3]}"]
    return people


def expected_places(kind: str, record: dict[str, object]) -> list[str]:
    """The result lines worked out from the final scores by RULES.md 2.9 / 3.4: sort each
    side's scores ascending, the higher list ranks higher, equal lists share a place."""
    game = replay(Record.from_dict(record))
    letters = KINDS[kind][3]
    names = sides(kind)
    scores = [game.score(s) for s in range(len(names))]
    key = [sorted(sc.values()) for sc in scores]
    order = sorted(range(len(names)), key=lambda s: key[s], reverse=True)
    lines, place = [], 0
    for i, side in enumerate(order):
        if i == 0 or key[side] != key[order[i - 1]]:
            place = i + 1
        # Each colour is told by its square (🟥 for red), the letters being for typing.
        row = " ".join(f"{SQUARES[c]}{scores[side][Colour(c)]}" for c in letters)
        lines.append(f"{place}. {names[side]}: {row}")
    return lines


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_complete_game(tmp_path: Path, kind: str) -> None:
    room = Room(make_service(tmp_path / "t.db", seed=3))
    start(room, kind)
    moves = room.play_out(random.Random(kind))
    t = room.table()
    assert t.status == LOBBY and t.due_at is None
    record = t.record
    assert record is not None and len(record["moves"]) == moves

    # One chat message per move, plus the one that starts the game.
    turns = [o for o in room.log if o.user is None and o.kind == "turn"]
    assert len(turns) == moves + 1
    # The end: why, the places by the rules, the winner.
    (result,) = [o for o in room.log if o.kind == "result"]
    lines = result.text.splitlines()
    assert lines[0] == f"Game over: {KINDS[kind][2]}."
    if kind == "solo":
        game = replay(Record.from_dict(record))
        assert lines[2] == f"Result of Ada: {min(game.score(0).values())} (the lowest colour)."
    else:
        places = expected_places(kind, record)
        assert lines[2 : 2 + len(places)] == places
        firsts = [p.split(": ")[0].split(". ", 1)[1] for p in places if p.startswith("1. ")]
        if len(firsts) == 1:
            verb = "win" if kind == "team" else "wins"
            assert lines[2 + len(places)] == f"{firsts[0]} {verb}!"
        else:
            assert lines[2 + len(places)] == f"Shared first place: {', '.join(firsts)}."


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_restart_mid_game_continues_identically(tmp_path: Path, kind: str) -> None:
    """A game played in one go and the same game with the bot restarted halfway (a new
    service on the same SQLite file) say exactly the same things."""

    def play(db: Path, restart_after: int | None) -> tuple[list[Outbound], dict[str, object]]:
        room = Room(make_service(db, seed=5))
        start(room, kind)
        rng = random.Random(11)
        n = 0
        while room.playing():
            if n == restart_after:
                room.service.store.close()
                # A new service (empty cache, another rng) on the same file.
                room.service = make_service(db, seed=999)
            room.play_turn(rng)
            n += 1
        assert n > 10
        return room.log, room.table().to_dict()

    whole, whole_table = play(tmp_path / "whole.db", None)
    restarted, restarted_table = play(tmp_path / "restarted.db", 9)
    assert restarted == whole
    assert restarted_table == whole_table


def test_export_shows_the_bag_only_after_the_end(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db", seed=4))
    start(room, "standard-2p")
    rng = random.Random(1)
    for _ in range(5):
        room.play_turn(rng)
    (out,) = room.ok("Bob", "/export")
    assert out.kind == "export" and out.user is None
    assert out.attachment is not None and out.attachment.mime == "application/json"
    partial = json.loads(out.attachment.data)
    assert "bag" not in partial
    assert partial["moves"] == room.table().record["moves"]
    assert out.text == "The game record so far (5 moves). The draw order is added after the end."

    room.play_out(rng)
    (out,) = room.ok("Bob", "/export")
    full = json.loads(out.attachment.data)
    assert len(full["bag"]) == 120
    # The exported record is the game: replaying it reaches the end.
    assert replay(Record.from_dict(full)).over


def _rack_texts(room: Room) -> dict[str, str]:
    """Each seated person's rack as the bot writes it, by user id (Genial only)."""
    game = room.game()
    t = room.table()
    return {
        seat.user: games.rack_text(game.view(i).rack)
        for i, seat in enumerate(t.seats)
        if seat.user is not None
    }


@pytest.mark.parametrize("kind", ["standard-2p", "team"])
def test_racks_reach_only_their_owner(tmp_path: Path, kind: str) -> None:
    room = Room(make_service(tmp_path / "t.db", seed=8))
    rng = random.Random(2)
    sent = start(room, kind)
    racks_seen = 0
    while True:
        racks = _rack_texts(room)
        for out in sent:
            for owner, rack in racks.items():
                if out.user != owner:
                    assert rack not in out.text, (out, owner)
            if out.kind == "rack":
                racks_seen += 1
                assert out.text.splitlines()[0] == f"Your tiles at Test room: {racks[out.user]}"
        if not room.playing():
            break
        if rng.random() < 0.1:
            name = rng.choice(list(room.people))
            sent = room.ok(name, "/hand")
            (rack,) = sent
            assert rack.kind == "rack" and rack.user == room.people[name].id
            continue
        sent = room.play_turn(rng)
    assert racks_seen > 20


def test_first_racks_go_to_every_player_privately(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    out = start(room, "team")
    chat = [o for o in out if o.user is None]
    private = [o for o in out if o.user is not None]
    assert [o.kind for o in chat] == ["turn"]
    assert sorted(o.user for o in private) == ["id-ada", "id-bob", "id-cy", "id-dee"]
    assert all(o.kind == "rack" for o in private)
    first = chat[0]
    assert first.text.splitlines() == [
        "The game begins: Genial, team game. Seats: 1. Ada, 2. Bob, 3. Cy, 4. Dee.",
        "Teams: Ada & Cy against Bob & Dee.",
        "Ada, your turn.",
        "96 tiles left in the bag.",
    ]
    assert first.mentions == ("id-ada",)
    assert [(b.label, b.command) for b in first.buttons] == [("My tiles", "/hand")]


def test_random_seat_order(tmp_path: Path) -> None:
    orders = set()
    for seed in range(6):
        room = Room(make_service(tmp_path / f"{seed}.db", seed=seed))
        for name in ("Ada", "Bob", "Cy"):
            room.ok(name, "/join")
        room.ok("Ada", "/option order random")
        room.ok("Ada", "/start")
        orders.add(tuple(s.name for s in room.table().seats))
    assert len(orders) > 1
    assert all(sorted(o) == ["Ada", "Bob", "Cy"] for o in orders)


def test_a_second_game_after_the_end(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    start(room, "spezial-2p")
    room.play_out(random.Random(3))
    (result,) = [o for o in room.log if o.kind == "result"]
    assert result.text.splitlines()[-1] == (
        "/start plays again with the same seats; /join and /leave change them."
    )
    out = room.ok("Bob", "/start")
    assert out[0].text.splitlines()[0] == "The game begins: Genial Spezial. Seats: 1. Ada, 2. Bob."
    assert room.table().record["moves"] == []


def test_one_person_at_tables_in_two_chats(tmp_path: Path) -> None:
    service = make_service(tmp_path / "t.db")
    kitchen = Room(service, "chat-k", "Kitchen")
    garden = Room(service, "chat-g", "Garden")
    for room in (kitchen, garden):
        room.ok("Ada", "/join")
        room.ok("Bob", "/join")
    kitchen.ok("Ada", "/start")
    garden.ok("Ada", "/option spezial")
    (turn,) = garden.ok("Ada", "/start")
    assert turn.kind == "turn"  # Genial Spezial: no racks to send
    racks = [o for o in kitchen.log if o.kind == "rack"]
    assert {o.chat for o in racks} == {"chat-k"}
    assert all(o.text.startswith("Your tiles at Kitchen: ") for o in racks)
    # Each table goes its own way; Ada's seat view follows the chat asked about.
    kitchen.play_turn(random.Random(1))
    assert service.seat_view("chat-k", "id-ada").moves != ()
    assert service.seat_view("chat-g", "id-ada").moves == ()
    assert service.seat_view("chat-g", "id-cy") is None
    assert service.seat_view("nowhere", "id-ada") is None
