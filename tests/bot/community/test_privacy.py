"""A person's data on request (issue 28): ``/mydata`` sends everything kept about them,
privately, as a JSON file; ``/forget me`` twice forgets them in every finished game and
table (as "a former player"), their ratings and settings, and everyone else's ratings stay
exactly what they were.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest

from bot.community.privacy import CONFIRM_WITHIN, FORMER_NAME
from bot.core.outbound import Outbound
from bot.core.table import PLAYING
from bot.store import DamagedTable
from engine.record import Record, replay
from tests.bot.helpers import START, Clock, Room, make_service

#: Every test here runs on SQLite and on PostgreSQL (tests/bot/conftest.py).
pytestmark = pytest.mark.usefixtures("backend")

ADA, BOB, CID = "id-ada", "id-bob", "id-cid"


def private(out: list[Outbound], user: str) -> Outbound:
    (one,) = [o for o in out if o.user == user]
    return one


def my_data(room: Room, name: str) -> dict[str, Any]:
    answer = private(room.ok(name, "/mydata"), f"id-{name.lower()}")
    assert answer.kind == "export" and answer.chat == room.chat.id
    assert answer.attachment is not None
    assert answer.attachment.filename == "mydata.json"
    assert answer.attachment.mime == "application/json"
    data: dict[str, Any] = json.loads(answer.attachment.data)
    return data


def plackett_luce(
    players: list[tuple[float, float]], ranks: list[int]
) -> list[tuple[float, float]]:
    """Weng & Lin (2011), Algorithm 4, with openskill's defaults as bot/community/ratings.py
    names them (beta 25/6, tau 25/300 added to each sigma before the game, kappa 1e-4,
    gamma sigma/c): each player's (mu, sigma) after one game; ``ranks``: 1 first, ties
    share a rank."""
    beta, tau, kappa = 25 / 6, 25 / 300, 0.0001
    before = [(mu, math.sqrt(sigma**2 + tau**2)) for mu, sigma in players]
    c = math.sqrt(sum(sigma**2 + beta**2 for _, sigma in before))
    e = [math.exp(mu / c) for mu, _ in before]
    n = range(len(before))
    below = [sum(e[s] for s in n if ranks[s] >= ranks[q]) for q in n]
    tied = [sum(1 for s in n if ranks[s] == ranks[q]) for q in n]
    after = []
    for i, (mu, sigma) in enumerate(before):
        omega = delta = 0.0
        for q in n:
            if ranks[q] <= ranks[i]:
                share = e[i] / below[q]
                omega += ((q == i) - share) / tied[q]
                delta += share * (1 - share) / tied[q]
        var = sigma**2
        shrink = max(1 - (sigma / c) * var / c**2 * delta, kappa)
        after.append((mu + var / c * omega, math.sqrt(var * shrink)))
    return after


def play_out(room: Room, seed: int) -> None:
    room.ok("Ada", "/start")
    room.play_out(random.Random(seed))


def community(tmp_path: Path) -> tuple[Room, Room, Clock]:
    """chat-1: Ada and Bob finish a game; chat-2: Ada and Cid, then Ada and Bob; Bob asked
    for turn pings."""
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    one = Room(service, "chat-1", "Club one")
    one.ok("Ada", "/join")
    one.ok("Bob", "/join")
    play_out(one, 1)
    two = Room(service, "chat-2", "Club two")
    two.ok("Ada", "/join")
    two.ok("Cid", "/join")
    play_out(two, 2)
    two.ok("Cid", "/leave")
    two.ok("Bob", "/join")
    play_out(two, 3)
    one.ok("Bob", "/notify on")
    return one, two, clock


def test_mydata_is_everything_kept_about_me(tmp_path: Path) -> None:
    one, _, clock = community(tmp_path)
    data = my_data(one, "Bob")
    assert (data["user"], data["name"], data["made_at"]) == (BOB, "Bob", clock.now)
    assert data["settings"] == {"notify": "on"}
    assert data["running_tables"] == []
    games = data["finished_games"]
    assert [(g["chat"], g["title"]) for g in games] == [
        ("chat-1", "Club one"),
        ("chat-2", "Club two"),
    ]
    for g in games:
        # Bob sits at exactly the seats listed, and the record is the whole game.
        assert [g["seats"][n]["user"] for n in g["my_seats"]] == [BOB]
        assert g["record"]["players"] == 2
    # Rated on chat-1's ladder, chat-2's and the global one (two games there).
    ladders = {(r["ladder"], r["game"]): r["games"] for r in data["ratings"]}
    assert ladders == {("chat-1", "genial"): 1, ("chat-2", "genial"): 1, ("global", "genial"): 2}
    # The global ladder worked out by hand: the three games in the order they finished
    # (Ada and Bob at chat-1, Ada and Cid, then Ada and Bob at chat-2), every newcomer at
    # mu 25, sigma 25/3, each game rated by Plackett-Luce from the engine's ranking.
    rated: dict[str, tuple[float, float]] = {}
    shown: list[int] = []
    for row in one.service.store.archived("chat-1") + one.service.store.archived("chat-2"):
        ranking = replay(Record.from_dict(row["record"])).ranking()
        assert ranking is not None
        place = {seat: n for n, group in enumerate(ranking, 1) for seat in group}
        users = [seat["user"] for seat in row["seats"]]
        ranks = [place[seat] for seat in range(len(users))]
        new = plackett_luce([rated.get(u, (25.0, 25 / 3)) for u in users], ranks)
        rated.update(zip(users, new, strict=True))
        if BOB in users:
            shown.append(round(1000 + 25 * (rated[BOB][0] - 3 * rated[BOB][1])))
    mu, sigma = rated[BOB]
    (overall,) = [r for r in data["ratings"] if r["ladder"] == "global"]
    assert overall["mu"] == pytest.approx(mu, abs=1e-9)
    assert overall["sigma"] == pytest.approx(sigma, abs=1e-9)
    assert overall["rating"] == round(1000 + 25 * (mu - 3 * sigma))
    assert overall["history"] == shown and len(shown) == 2
    # Worked from the rules and the docs: chat-1 rated one game of two newcomers (mu 25,
    # sigma 25/3): the winner's mu rose above 25, the loser's fell below, both sigmas
    # shrank; the number shown is 1000 + 25 * (mu - 3 * sigma), rounded.
    first = Record.from_dict(data["finished_games"][0]["record"])
    bob_won = replay(first).ranking()[0] == [1]
    (club,) = [r for r in data["ratings"] if r["ladder"] == "chat-1"]
    assert (club["games"], club["wins"]) == (1, int(bob_won))
    assert (club["mu"] > 25) is bob_won and club["sigma"] < 25 / 3
    # Two newcomers, one game: c = sqrt(2 (s^2 + beta^2)) with s^2 = (25/3)^2 + (25/300)^2;
    # the winner gains s^2 / 2c, the loser loses as much (each wins half of the Plackett-
    # Luce weight); both variances shrink by the factor 1 - (s / c) s^2 / c^2 / 4.
    s2 = (25 / 3) ** 2 + (25 / 300) ** 2
    c = math.sqrt(2 * (s2 + (25 / 6) ** 2))
    gain = s2 / (2 * c)
    assert club["mu"] == pytest.approx(25 + gain if bob_won else 25 - gain, abs=1e-9)
    assert club["sigma"] == pytest.approx(math.sqrt(s2 * (1 - s2**1.5 / c**3 / 4)), abs=1e-9)
    assert club["rating"] == round(1000 + 25 * (club["mu"] - 3 * club["sigma"]))
    # chat-1's own history: its one game, not the global ladder's two.
    assert club["history"] == [club["rating"]]
    # Nothing of Ada's or Cid's games: Cid is in none of Bob's.
    assert all(CID not in {s["user"] for s in g["seats"]} for g in games)


def test_forget_me_twice_forgets_and_others_ratings_stay(tmp_path: Path) -> None:
    one, two, clock = community(tmp_path)
    service = one.service
    ladder = service.community.ladder
    kept = {
        (scope, player): (s.mu, s.sigma, s.games, s.wins)
        for (scope, game), board in ladder.boards.items()
        for player, s in board.items()
        if player != BOB
    }
    # Bob's seat in a running game: he must leave it first (the game would keep his id).
    three = Room(service, "chat-3", "Club three")
    three.ok("Ada", "/join")
    three.ok("Bob", "/join")
    three.ok("Ada", "/start")
    assert "still sit at a running game" in three.error("Bob", "/forget me")
    three.ok("Bob", "/leave")  # a computer player takes his seat; the seat remembers him

    ask = private(one.ok("Bob", "/forget me"), BOB)
    assert "Send /forget me again within 10 minutes to confirm." in ask.text
    assert service.store.archived()[0]["seats"][1]["user"] == BOB  # nothing forgotten yet
    clock.advance(CONFIRM_WITHIN - 1)
    done = private(one.ok("Bob", "/forget me"), BOB)
    assert done.text.startswith("Done: I have forgotten you.")

    rows = service.store.archived()
    assert len(rows) == 3
    text = json.dumps(rows)
    assert BOB not in text and '"Bob"' not in text
    aliases = {s["user"] for r in rows for s in r["seats"] if s["name"] == FORMER_NAME}
    (alias,) = aliases  # one alias in every game, so his opponents' ratings are the same
    assert alias.startswith("former:")
    # No table keeps him either: chat-3's running game names the former player.
    assert service.store.tables_with(json.dumps(BOB)) == []
    seat = three.table().seats[1]
    assert (seat.left_user, seat.name, seat.user) == (alias, FORMER_NAME, None)
    assert service.store.note(BOB, "notify") is None
    assert service.store.notes_of(BOB) == {}

    for again in (service, make_service(tmp_path / "t.db")):  # and after a restart
        now = {
            (scope, player): (s.mu, s.sigma, s.games, s.wins)
            for (scope, game), board in again.community.ladder.boards.items()
            for player, s in board.items()
            if player != alias
        }
        assert now == kept
    (top,) = one.ok("Ada", "/top")
    assert [line.split(":")[0] for line in top.text.splitlines()[1:]] == ["1. Ada"]
    (top,) = two.ok("Ada", "/top global")
    assert "former" not in top.text and "Bob" not in top.text
    assert "Nobody called Bob" in one.say("Ada", "/stats Bob")[0].text

    # What Bob gets now: nothing of his is left.
    data = my_data(one, "Bob")
    assert (data["finished_games"], data["ratings"], data["settings"]) == ([], [], {})

    # chat-3's game ends: the archive keeps the former player, not Bob.
    assert three.playing()
    three.play_out(random.Random(4))
    last = service.store.archived("chat-3")
    assert [s["left_user"] for s in last[0]["seats"]] == [None, alias]


def test_a_late_second_forget_asks_again(tmp_path: Path) -> None:
    _, two, clock = community(tmp_path)
    assert "confirm" in private(two.ok("Cid", "/forget me"), CID).text
    clock.advance(CONFIRM_WITHIN + 1)
    assert "confirm" in private(two.ok("Cid", "/forget me"), CID).text
    assert CID in json.dumps(two.service.store.archived())
    # A word other than "me" forgets nobody.
    assert two.error("Cid", "/forget Ada") == (
        "To be forgotten, send /forget me (twice: the second confirms)."
    )


def test_forget_in_a_lobby_gives_up_the_seat_and_the_host(tmp_path: Path) -> None:
    one, _, _ = community(tmp_path)
    lobby = Room(one.service, "chat-4")
    lobby.ok("Bob", "/join")
    lobby.ok("Cid", "/join")
    lobby.ok("Bob", "/forget me")
    lobby.ok("Bob", "/forget me")
    t = lobby.table()
    assert t.status != PLAYING
    assert [s.user for s in t.seats] == [CID]
    assert (t.host, t.host_name) == (CID, "Cid")


def test_the_texts_in_german(tmp_path: Path) -> None:
    one, _, _ = community(tmp_path)
    one.ok("Ada", "/rematch")
    one.ok("Ada", "/option lang de")
    ask = private(one.ok("Cid", "/forget me"), CID)
    assert ask.text.endswith(
        "Sende /forget me innerhalb von 10 Minuten noch einmal, um es zu bestätigen."
    )


def test_mydata_lists_the_finished_games_i_left(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db", clock=Clock()), "chat-3", "Club three")
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    room.ok("Bob", "/leave")  # a computer player takes his seat; the seat remembers him
    room.play_out(random.Random(4))
    data = my_data(room, "Bob")
    (game,) = data["finished_games"]
    assert (game["chat"], game["title"], game["my_seats"]) == ("chat-3", "Club three", [1])
    assert game["finished_at"] == START  # the test's clock never moved
    # The table's options as they were: the defaults (no time limit, takebacks on).
    assert (game["options"]["timeout"], game["options"]["undo"]) == (0, True)
    assert game["seats"][1]["left_user"] == BOB and game["seats"][1]["user"] is None


def test_mydata_lists_the_table_i_play_at(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db", clock=Clock()), "chat-5", "Club five")
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    (table,) = my_data(room, "Bob")["running_tables"]
    assert (table["chat"], table["title"], table["status"]) == ("chat-5", "Club five", "playing")
    seats = table["seats"]
    assert sorted((s["user"], s["name"]) for s in seats) == [(ADA, "Ada"), (BOB, "Bob")]
    # His one seat, wherever the start put him.
    assert [seats[n]["user"] for n in table["my_seats"]] == [BOB]


def test_mydata_goes_past_a_damaged_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bob plays at two tables; the first one's row no longer reads as a table: /mydata
    still lists the second."""
    service = make_service(tmp_path / "t.db", clock=Clock())
    rooms = [Room(service, chat, "Club") for chat in ("chat-a", "chat-b")]
    for room in rooms:
        room.ok("Ada", "/join")
        room.ok("Bob", "/join")
        room.ok("Ada", "/start")
    assert service.store.playing(BOB) == ["chat-a", "chat-b"]
    real = service.store.load

    def damaged(chat: str) -> Any:
        if chat == "chat-a":
            raise DamagedTable(chat, 3, "JSONDecodeError")
        return real(chat)

    monkeypatch.setattr(service.store, "load", damaged)
    data = my_data(rooms[1], "Bob")
    assert [t["chat"] for t in data["running_tables"]] == ["chat-b"]


def test_mydata_is_a_file_a_person_can_read(tmp_path: Path) -> None:
    """The file is JSON indented one space a level, with the name as it is written (UTF-8,
    not ``\\u`` escapes); an account linked with no other lists no linked accounts."""
    room = Room(make_service(tmp_path / "t.db", clock=Clock()), "chat-4", "Club four")
    answer = private(room.ok("Zoë", "/mydata"), "id-zoë")
    assert answer.attachment is not None
    body = answer.attachment.data
    assert body.startswith(b'{\n "user": "id-zo\xc3\xab",\n "name": "Zo\xc3\xab",\n')
    data = json.loads(body)
    assert "linked" not in data


# --- a stored table without the person (privacy.scrub), on tables made by hand ---------


def _seat(name: str, user: str | None, **more: Any) -> Any:
    from bot.core.table import Seat

    return Seat(name, user=user, **more)


def test_a_lobby_without_its_host_is_hosted_by_the_first_person_left() -> None:
    from bot.community.privacy import scrub
    from bot.core.table import Table

    t = Table(
        "c",
        host="u-ada",
        host_name="Ada",
        seats=[
            _seat("Ada", "u-ada"),
            _seat("Computer 1", None, level="easy"),
            _seat("Bob", "u-bob"),
            _seat("Cy", "u-cy"),
        ],
    )
    assert scrub(t, "u-ada", "former:1", ["Ada"]) is True
    assert [s.name for s in t.seats] == ["Computer 1", "Bob", "Cy"]
    assert (t.host, t.host_name) == ("u-bob", "Bob")
    # Nothing of theirs: nothing changes, and a host stays.
    assert scrub(t, "u-zed", "former:2", ["Zed"]) is False
    assert (t.host, t.host_name) == ("u-bob", "Bob")
    # A lobby of computers only is hosted by nobody.
    solo = Table(
        "d", host="u-ada", host_name="Ada", seats=[_seat("Ada", "u-ada"), _seat("C", None)]
    )
    assert scrub(solo, "u-ada", "former:1") is True
    assert (solo.host, solo.host_name, [s.name for s in solo.seats]) == (None, "", ["C"])


def test_a_game_keeps_the_seat_of_a_person_forgotten_under_the_alias() -> None:
    from bot.community.privacy import scrub
    from bot.core.table import PLAYING, Table

    t = Table(
        "c",
        status=PLAYING,
        host="u-ada",
        host_name="Ada",
        seats=[
            _seat("Ada", "u-ada"),
            _seat("Computer 2", None, left=True, left_user="u-ada"),
            _seat("Bob", "u-bob"),
        ],
        players=[_seat("Ada", "u-ada"), _seat("Bob", "u-bob")],
        pending=["Ada placed a tile.", "Adam and Ada's friend Adaline wait."],
        undoable={"user": "u-bob", "asked": True, "accepted": ["u-ada", "u-cy"]},
        ping_at=5.0,
        ping_user="u-ada",
        ping_turn="t1",
        pinged="u-ada",
        out_of_time={"seat": 0, "since": 1.0, "votes": {"u-ada": "wait", "u-bob": "skip"}},
        tournament={"seen": ["u-ada", "u-bob"]},
    )
    assert scrub(t, "u-ada", "former:1", ["Ada"]) is True
    assert [(s.name, s.user, s.left_user) for s in t.seats] == [
        (FORMER_NAME, "former:1", None),
        (FORMER_NAME, None, "former:1"),
        ("Bob", "u-bob", None),
    ]
    assert [(s.name, s.user) for s in t.players] == [
        (FORMER_NAME, "former:1"),
        ("Bob", "u-bob"),
    ]
    assert t.pending == [
        "a former player placed a tile.",
        "Adam and a former player's friend Adaline wait.",
    ]
    assert (t.host, t.host_name) == (None, "")  # a running game gets no new host
    assert t.undoable == {"user": "u-bob", "asked": True, "accepted": ["u-cy"]}
    assert (t.ping_at, t.ping_user, t.ping_turn, t.pinged) == (None, None, "", None)
    assert t.out_of_time == {
        "seat": 0,
        "since": 1.0,
        "votes": {"former:1": "wait", "u-bob": "skip"},
    }
    assert t.tournament == {"seen": ["former:1", "u-bob"]}


def test_a_takeback_asked_by_the_person_forgotten_goes() -> None:
    from bot.community.privacy import scrub
    from bot.core.table import PLAYING, Table

    t = Table(
        "c",
        status=PLAYING,
        seats=[_seat("Ada", "u-ada"), _seat("Bob", "u-bob")],
        undoable={"user": "u-ada", "asked": True, "accepted": []},
        ping_user="u-bob",
        ping_at=9.0,
        pinged="u-bob",
    )
    assert scrub(t, "u-ada", "former:1") is True
    assert t.undoable is None
    assert (t.ping_at, t.ping_user, t.pinged) == (9.0, "u-bob", "u-bob")
    # Only the pending lines changing is a change too.
    told = Table("d", status=PLAYING, pending=["Ada left."], seats=[_seat("Bob", "u-bob")])
    assert scrub(told, "u-ada", "former:1", ["Ada"]) is True
    assert told.pending == ["a former player left."]


def test_every_name_a_person_was_called_is_found(tmp_path: Path) -> None:
    import dataclasses

    from bot.community.privacy import called

    service = make_service(tmp_path / "t.db", clock=Clock())
    done = Room(service, "chat-1")
    done.ok("Ada", "/join")
    done.ok("Ada", "/addbot random")
    done.ok("Ada", "/start")
    done.play_out(random.Random(1))  # a finished game: Ada's seat is named "Ada"
    running = Room(service, "chat-2")
    running.ok("Ada", "/join")
    running.ok("Bob", "/join")
    running.ok("Ada", "/start")
    # The platform's names changed since: each table remembers her under another (its
    # host's name, its seats and its last game's players); the finished game as "Ada".
    for room, host, seated in (
        (done, "Ada back", "Ada back"),
        (running, "Ada at home", "Ada seated"),
    ):
        t = room.table()
        loaded = t.version
        t.host_name = host
        t.seats = [dataclasses.replace(p, name=seated) if p.user == ADA else p for p in t.seats]
        t.players = [dataclasses.replace(p, name=seated) if p.user == ADA else p for p in t.players]
        t.version += 1
        service.store.save(t, loaded)
        assert room.table().host_name == host
    assert called(service, ADA, "Ada now") == {
        "Ada now",
        "Ada",
        "Ada back",
        "Ada at home",
        "Ada seated",
    }
    assert called(service, BOB, "Bob") == {"Bob"}


def test_scrub_says_a_change_was_made_whatever_changed() -> None:
    """Each change alone counts (the caller saves the table only then): a lobby seat given
    up, a seat left by the person, a seat of theirs in a game, their turn ping."""
    from bot.community.privacy import scrub
    from bot.core.table import PLAYING, Table

    lobby = Table(
        "c", host="u-bob", host_name="Bob", seats=[_seat("Bob", "u-bob"), _seat("Ada", "u-ada")]
    )
    assert scrub(lobby, "u-ada", "former:1", ["Ada"]) is True
    assert [s.user for s in lobby.seats] == ["u-bob"]
    left = Table(
        "d",
        status=PLAYING,
        seats=[_seat("Computer 1", None, left=True, left_user="u-ada"), _seat("Bob", "u-bob")],
    )
    assert scrub(left, "u-ada", "former:1", ["Ada"]) is True
    assert (left.seats[0].left_user, left.seats[0].name) == ("former:1", FORMER_NAME)
    seated = Table("f", status=PLAYING, seats=[_seat("Ada", "u-ada"), _seat("Bob", "u-bob")])
    assert scrub(seated, "u-ada", "former:1") is True
    assert (seated.seats[0].user, seated.seats[0].name) == ("former:1", FORMER_NAME)
    # Only the turn ping was theirs, and nothing told names them.
    pinged = Table(
        "e",
        status=PLAYING,
        seats=[_seat("Bob", "u-bob")],
        pending=["Bob placed a tile."],
        ping_at=9.0,
        ping_user="u-ada",
    )
    assert scrub(pinged, "u-ada", "former:1", ["Ada", "Ada Lovelace"]) is True
    assert (pinged.ping_at, pinged.ping_user, pinged.pending) == (
        None,
        None,
        ["Bob placed a tile."],
    )


def test_forget_me_scrubs_each_stored_table_that_holds_me_and_no_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tables made by hand and stored: chat-6 holds Bob but no longer reads as a table;
    chat-7 holds his left seat under the name he had then ("Robert"), and its story since
    the last person's move names him and Ada; chat-8 is another Bob's (id-bob2), not his.
    While his /forget me scrubs chat-7, another command saves it first."""
    from bot.community.privacy import called
    from bot.core.table import Table

    service = make_service(tmp_path / "t.db", clock=Clock())
    store = service.store

    def stored(chat: str, version: int, seats: list[Any], pending: list[str]) -> None:
        t = Table(chat, status=PLAYING, seats=seats, pending=pending)
        t.version = version
        store.save(t, None)

    gone = _seat("Robert", None, level="easy", left=True, left_user=BOB)
    stored("chat-6", 1, [_seat("Ada", ADA), gone], ["Robert left."])
    stored("chat-7", 4, [_seat("Ada", ADA), gone], ["Robert left.", "Ada placed a tile."])
    stored("chat-8", 2, [_seat("Bob", "id-bob2"), _seat("Ada", ADA)], ["Bob placed a tile."])
    real_load, real_save = store.load, store.save

    def load(chat: str) -> Any:
        if chat == "chat-6":
            raise DamagedTable(chat, 1, "JSONDecodeError")
        return real_load(chat)

    first: list[int] = []

    def save(t: Any, loaded: Any, *more: Any, **named: Any) -> Any:
        if t.chat == "chat-7" and not first:
            # Another command got there first: its version is the one stored now.
            other = real_load("chat-7")
            first.append(other.version)
            other.pending = [*other.pending, "Ada swapped."]
            other.version += 1
            real_save(other, first[0])
        return real_save(t, loaded, *more, **named)

    monkeypatch.setattr(store, "load", load)
    monkeypatch.setattr(store, "save", save)
    # Past the damaged table, what he was called at chat-7 too (and no other seat's name).
    assert called(service, BOB, "Bob") == {"Bob", "Robert"}
    room = Room(service, "chat-1", "Club one")
    room.ok("Bob", "/forget me")
    room.ok("Bob", "/forget me")

    assert first == [4]
    seven = real_load("chat-7")
    # Stored at 4, saved by the other command at 5, scrubbed again from there: 6.
    assert seven.version == 6
    assert seven.pending == ["a former player left.", "Ada placed a tile.", "Ada swapped."]
    ((alias,),) = [{s.left_user for s in seven.seats if s.left}]
    assert alias.startswith("former:")
    assert [(s.name, s.user, s.left_user) for s in seven.seats] == [
        ("Ada", ADA, None),
        (FORMER_NAME, None, alias),
    ]
    # The other Bob's table is left as it was.
    eight = real_load("chat-8")
    assert (eight.version, eight.pending) == (2, ["Bob placed a tile."])
    assert [s.name for s in eight.seats] == ["Bob", "Ada"]


def test_forget_me_confirmed_to_the_second_in_the_chat_asked(tmp_path: Path) -> None:
    """The second /forget me confirms within CONFIRM_WITHIN seconds, that second included;
    a first asking stored as something that is no time asks again. Both answers go to the
    person, in the chat they wrote in."""
    from bot.community.privacy import ASKED

    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    room = Room(service, "chat-1", "Club one")
    ask = private(room.ok("Bob", "/forget me"), BOB)
    assert (ask.chat, ask.kind) == ("chat-1", "info")
    assert "Send /forget me again within 10 minutes to confirm." in ask.text
    clock.advance(CONFIRM_WITHIN)
    done = private(room.ok("Bob", "/forget me"), BOB)
    assert (done.chat, done.kind) == ("chat-1", "info")
    assert done.text.startswith("Done: I have forgotten you.")
    service.store.set_note(CID, ASKED, "yesterday")
    again = private(room.ok("Cid", "/forget me"), CID)
    assert "Send /forget me again within 10 minutes to confirm." in again.text
    assert service.store.note(CID, ASKED) == repr(clock.now)


def test_mydata_lists_my_solo_bests_on_the_chats_ladder_and_the_global_one(tmp_path: Path) -> None:
    service = make_service(tmp_path / "t.db", clock=Clock())
    for chat, name, seed in (("chat-s", "Ada", 5), ("chat-t", "Bob", 6)):
        room = Room(service, chat, "Solo")
        room.ok(name, "/join")
        room.ok(name, "/start")  # one person: a solo game
        room.play_out(random.Random(seed))
    (row,) = service.store.archived("chat-s")
    final = replay(Record.from_dict(row["record"]))
    lowest = min(final.score(0).values())  # the best lowest colour of her one solo game
    data = my_data(Room(service, "chat-s", "Solo"), "Ada")
    assert sorted(data["solo"], key=lambda s: str(s["ladder"])) == [
        {"ladder": "chat-s", "games": 1, "best": lowest},
        {"ladder": "global", "games": 1, "best": lowest},
    ]
    assert data["ratings"] == []  # a solo game is rated on no ladder
