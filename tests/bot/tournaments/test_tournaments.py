"""Tournaments through the service (issue 30), on both store backends, with the fake clock:
created, joined and started by message, each round paired once, its games played by the
players from their chat (or played out by the computer at the round's deadline), the
standings and the winner; leavers, restarts, two processes and wrong commands.

What is checked comes from the rules, not from the program: a two-player game hands out one
point, a player's points are their wins and half their ties as the engine ranks the
archived games, no two players meet twice where a pairing without a repeat exists.
"""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from bot.core import games
from bot.core.outbound import Chat, Outbound
from bot.service import Service
from engine.ranking import places
from tests.bot.helpers import Clock, make_service, user

pytestmark = pytest.mark.usefixtures("backend")

DAY = 86400.0
HOME = Chat("chat-1", "Club")
SIX = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]


class Cup:
    """A tournament as its players see it from one chat, and its stored state."""

    def __init__(self, service: Service, clock: Clock, chat: Chat = HOME) -> None:
        self.service = service
        self.clock = clock
        self.chat = chat
        self.log: list[Outbound] = []

    def say(
        self, name: str, text: str, *, chat: Chat | None = None, admin: bool = False
    ) -> list[Outbound]:
        out = self.service.handle(chat or self.chat, user(name), text, admin=admin)
        out += self.service.due(self.clock())
        self.log += out
        return out

    def ok(self, name: str, text: str, **kw: Any) -> list[Outbound]:
        out = self.say(name, text, **kw)
        errors = [o.text for o in out if o.kind == "error"]
        assert not errors, f"{text!r} was rejected: {errors}"
        return out

    def error(self, name: str, text: str, **kw: Any) -> str:
        out = self.say(name, text, **kw)
        assert [o.kind for o in out] == ["error"], [o.text for o in out]
        return out[0].text

    def data(self, tid: str) -> dict[str, Any]:
        found = self.service.store.load_tournament(tid)
        assert found is not None
        return found[1]

    def round(self, tid: str) -> dict[str, Any]:
        played: list[dict[str, Any]] = self.data(tid)["played"]
        return played[-1]

    def play_table(
        self, table_chat: str, rng: random.Random, *, where: Chat | None = None, named: str = ""
    ) -> int:
        """The players of a tournament table play it to its end, each typing their moves
        in the chat they see it in (the home chat): random legal moves; ``named``: each
        move names the table by its tournament's id."""
        n = 0
        while True:
            t = self.service.store.load(table_chat)
            assert t is not None
            if t.status != "playing":
                return n
            game = games.rebuild(t.record or {})
            seat = t.seats[game.to_move]
            assert seat.user is not None
            move = rng.choice(game.legal_moves())
            text = games.format_move(game, move)
            at = f" {named}" if named else ""
            command = f"/{text}{at}" if text in ("swap", "keep") else f"/play{at} {text}"
            name = seat.name
            self.ok(name, command, chat=where)
            n += 1
            assert n < 2000

    def play_moves(self, table_chat: str, rng: random.Random, moves: int) -> None:
        for _ in range(moves):
            t = self.service.store.load(table_chat)
            assert t is not None and t.status == "playing"
            game = games.rebuild(t.record or {})
            move = rng.choice(game.legal_moves())
            text = games.format_move(game, move)
            command = f"/{text}" if text in ("swap", "keep") else f"/play {text}"
            self.ok(t.seats[game.to_move].name, command)


def new_cup(cup: Cup, spec: str, people: list[str]) -> str:
    before = set(cup.service.store.tournaments_of(cup.chat.id))
    cup.ok("Ann", f"/tournament new {spec}")
    (tid,) = set(cup.service.store.tournaments_of(cup.chat.id)) - before
    for name in people:
        cup.ok(name, f"/tournament join {tid}")
    return tid


def archived_points(service: Service, chat: str, games_played: int) -> dict[str, Fraction]:
    """Each player's points from the games archived for ``chat`` (a tournament's games
    count on its home chat's ladder): the engine's ranking of each replayed record, a win
    1 and a tie 1/2 (two-player games)."""
    points: dict[str, Fraction] = {}
    rows = service.store.archived(chat)
    assert len(rows) == games_played
    for row in rows:
        game = games.rebuild(row["record"])
        ranking = game.ranking()
        assert ranking is not None
        place = places(ranking)
        users = [s["user"] or s["left_user"] for s in row["seats"]]
        a, b = users
        pa, pb = place[0], place[1]
        points[a] = points.get(a, Fraction(0)) + (
            1 if pa < pb else Fraction(1, 2) if pa == pb else 0
        )
        points[b] = points.get(b, Fraction(0)) + (
            1 if pb < pa else Fraction(1, 2) if pa == pb else 0
        )
    return points


def test_six_players_four_rounds_some_ended_by_the_deadline(tmp_path: Path) -> None:
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    cup = Cup(service, clock)
    tid = new_cup(cup, "swiss 4 rounds 2 players 1d", SIX)
    assert "Only the host, Ann, or a chat admin" in cup.error("Bob", "/tournament start")
    cup.ok("Ann", "/tournament start")
    # A seed whose games leave one player ahead (the move listing's order shapes them).
    rng = random.Random(6)
    met: list[frozenset[str]] = []
    played_chats: list[str] = []
    deadline_tables: list[str] = []
    for number in range(1, 5):
        r = cup.round(tid)
        assert r["number"] == number
        pairs = [p["players"] for p in r["pairings"]]
        if number == 1:
            # Nobody is rated yet: in order of joining, the first with the second...
            assert pairs == [["id-ann", "id-bob"], ["id-cid", "id-dee"], ["id-eve", "id-fay"]]
        met += [frozenset(p) for p in pairs]
        for n, p in enumerate(r["pairings"]):
            played_chats.append(p["chat"])
            if n == 0 and number in (1, 3):
                cup.play_moves(p["chat"], rng, 3)  # a few moves, then the deadline
                deadline_tables.append(p["chat"])
            else:
                cup.play_table(p["chat"], rng)
        if number in (2, 4):
            # Every game of the round is over: the next round is paired at once.
            assert cup.data(tid)["status"] == "finished" or cup.round(tid)["number"] == number + 1
        else:
            assert cup.round(tid)["number"] == number  # one table still plays
            clock.advance(DAY + 1)
            cup.log += service.due(clock())
            assert all(p["places"] for p in cup.data(tid)["played"][number - 1]["pairings"])
    data = cup.data(tid)
    assert data["status"] == "finished"
    # Six players, four rounds: 12 games and never a pairing twice (one exists).
    assert len(met) == 12 and len(set(met)) == 12
    ended = {p["chat"]: p["ended"] for r in data["played"] for p in r["pairings"]}
    assert sorted(c for c, how in ended.items() if how == "deadline") == sorted(deadline_tables)
    assert all(how == "played" for c, how in ended.items() if c not in deadline_tables)
    # Each round's pairings were said once, in the home chat.
    for number in range(1, 5):
        said = [o for o in cup.log if f"round {number} of 4 is paired" in o.text]
        assert len(said) == 1 and said[0].chat == HOME.id
    # The standings add up to the archived games as the engine ranks them.
    expected = archived_points(service, HOME.id, 12)
    assert sum(expected.values()) == 12
    # ... and the chat's own ladder holds them.
    top = service.handle(HOME, user("Ann"), "/top")[0].text
    assert all(name in top for name in SIX)
    standing = service.handle(HOME, user("Ann"), "/tournament")[0].text
    for name in SIX:
        value = expected.get(f"id-{name.lower()}", Fraction(0))
        shown = str(value.numerator) if value.denominator == 1 else f"{float(value):g}"
        assert f"{name}: {shown} point" in standing
    winner = [o for o in cup.log if o.kind == "result" and o.chat == HOME.id and "Winner" in o.text]
    assert len(winner) == 1
    # These seeded games leave one player ahead on points (no tie-break needed): the
    # winner is that player, by name.
    best = max(expected.values())
    (leader,) = [n for n in SIX if expected.get(f"id-{n.lower()}") == best]
    assert f"Winner: {leader}!" in winner[0].text
    # /stats names the tournament with the player's place.
    stats = service.handle(HOME, user("Bob"), "/stats")
    assert any(f"({tid}): place" in o.text for o in stats)


def test_moves_typed_in_the_chat_reach_the_players_table(tmp_path: Path) -> None:
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    cup = Cup(service, clock)
    tid = new_cup(cup, "swiss 2 rounds 2 players 1d", ["Ann", "Bob"])
    cup.ok("Ann", "/tournament start")
    table = cup.round(tid)["pairings"][0]["chat"]
    # The table's messages reach the home chat, named; nothing goes to the table's own id.
    assert not [o for o in cup.log if o.chat == table]
    turn = [o for o in cup.log if o.kind == "turn"]
    assert (
        turn
        and turn[0].chat == HOME.id
        and turn[0].text.startswith(f"Tournament of Club ({tid}), round 1, table 1")
    )
    racks = [o for o in cup.log if o.kind == "rack"]
    assert sorted(o.user for o in racks) == ["id-ann", "id-bob"]
    # A person not at the table gets the chat's own answer; the table is untouched.
    before = service.store.load(table)
    out = service.handle(HOME, user("Zed"), "/play 1 A1 A2")
    assert [o.kind for o in out] == ["error"]
    assert service.store.load(table) == before
    # /hand in the chat: the player's own rack, privately, in the chat they asked in.
    out = service.handle(HOME, user("Bob"), "/hand")
    assert [(o.kind, o.user, o.chat) for o in out] == [("rack", "id-bob", HOME.id)]


def test_a_leaver_forfeits_and_is_paired_no_more(tmp_path: Path) -> None:
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    cup = Cup(service, clock)
    tid = new_cup(cup, "swiss 3 rounds 2 players 1d", ["Ann", "Bob", "Cid", "Dee"])
    cup.ok("Ann", "/tournament start")
    first = cup.round(tid)["pairings"]
    assert [p["players"] for p in first] == [["id-ann", "id-bob"], ["id-cid", "id-dee"]]
    cup.ok("Bob", "/tournament leave")
    # Bob's game ended there: Ann won it; his table closed.
    p = cup.round(tid)["pairings"][0]
    assert p["places"] == [1, 2] and p["ended"] == "forfeit"
    t = service.store.load(p["chat"])
    assert t is not None and t.status == "closed"
    cup.play_table(first[1]["chat"], random.Random(2))
    r = cup.round(tid)
    assert r["number"] == 2
    paired = [u for q in r["pairings"] for u in q["players"]] + r["byes"]
    assert "id-bob" not in paired and sorted(paired) == ["id-ann", "id-cid", "id-dee"]
    assert len(r["byes"]) == 1
    assert "You are not playing in tournament" in cup.error("Bob", "/tournament leave")


def test_wrong_commands_get_short_clear_answers(tmp_path: Path) -> None:
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    cup = Cup(service, clock)
    assert "No tournament here yet" in cup.error("Ann", "/tournament")
    assert "did not understand" in cup.error("Ann", "/tournament new swiss 5 rounds blitz")
    assert "2, 3 or 4 players" in cup.error("Ann", "/tournament new 9 players")
    assert "round robin is played at tables of 2" in cup.error(
        "Ann", "/tournament new round robin 3 players"
    )
    tid = new_cup(cup, "swiss 3 rounds 2 players 2d", ["Ann"])
    assert "already" in cup.error("Ann", "/tournament join")
    assert "You are not playing" in cup.error("Zed", "/tournament leave")
    assert "Only the host, Ann" in cup.error("Zed", "/tournament cancel")
    assert "Only the host, Ann" in cup.error("Zed", "/tournament invite")
    assert "at least 2 players" in cup.error("Ann", "/tournament start")
    assert "There is no tournament zzzz" in cup.error("Ann", "/tournament join zzzz")
    assert "fits no tournament" in cup.error("Ann", "/tournament team abcdef", admin=True)
    other = Chat("chat-2", "Elsewhere")
    assert "not played from this chat" in cup.error("Bob", f"/tournament join {tid}", chat=other)
    cup.ok("Bob", "/tournament join")
    # An admin of another chat is none of this tournament's.
    assert "Only the host, Ann" in cup.error(
        "Zed", f"/tournament cancel {tid}", chat=other, admin=True
    )
    cup.ok("Zed", "/tournament start", admin=True)  # a chat admin may start it
    assert "has begun" in cup.error("Cid", f"/tournament join {tid}")
    # Each answer is one short line, whatever was typed.
    long = "x" * 500
    text = cup.error("Ann", f"/tournament new {long}")
    assert len(text) < 300 and long not in text


def test_several_tournaments_in_one_chat_and_one_person_in_both(tmp_path: Path) -> None:
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    cup = Cup(service, clock)
    first = new_cup(cup, "swiss 1 round 2 players 1d", ["Ann", "Bob"])
    second = new_cup(cup, "swiss 1 round 2 players 1d", ["Ann", "Cid"])
    assert "Several tournaments" in cup.error("Ann", "/tournament start")
    cup.ok("Ann", f"/tournament start {first}")
    cup.ok("Ann", f"/tournament start {second}")
    a = cup.round(first)["pairings"][0]["chat"]
    b = cup.round(second)["pairings"][0]["chat"]
    assert a != b
    # Ann plays both from one chat: each move names its table (issue 44: where it is her
    # turn at both, a move without it is refused).
    cup.play_table(a, random.Random(1), named=first)
    cup.play_table(b, random.Random(2), named=second)
    assert cup.data(first)["status"] == "finished" and cup.data(second)["status"] == "finished"


def test_a_restart_mid_round_loses_nothing(tmp_path: Path) -> None:
    clock = Clock()
    db = tmp_path / "t.db"
    service = make_service(db, clock=clock)
    cup = Cup(service, clock)
    tid = new_cup(cup, "swiss 2 rounds 2 players 1d", ["Ann", "Bob", "Cid", "Dee"])
    cup.ok("Ann", "/tournament start")
    rng = random.Random(7)
    first = cup.round(tid)["pairings"]
    cup.play_moves(first[0]["chat"], rng, 4)
    before = {p["chat"]: service.store.load(p["chat"]) for p in first}
    # The bot stops mid-round and comes back on the same store.
    service.store.close()
    service = make_service(db, clock=clock)
    cup.service = service
    assert {c: service.store.load(c) for c in before} == before
    # What the first process said and no platform delivered waits for the restarted one,
    # each letter in the chat it is for (a table's in its players' chat, never its own id).
    clock.advance(121)  # the first process's claim on its letters runs out
    waiting = service.waiting()
    assert waiting and {o.chat for o in waiting} == {HOME.id}
    assert sum("The game begins" in o.text for o in waiting) == 2
    cup.play_table(first[0]["chat"], rng)
    cup.play_table(first[1]["chat"], rng)
    second = cup.round(tid)
    assert second["number"] == 2
    # Round two pairs the winners and the losers, no rematch.
    assert not {frozenset(p["players"]) for p in second["pairings"]} & {
        frozenset(p["players"]) for p in first
    }
    for p in second["pairings"]:
        cup.play_table(p["chat"], rng)
    assert cup.data(tid)["status"] == "finished"
    assert len([o for o in cup.log if "round 2 of 2 is paired" in o.text]) == 1


def test_two_processes_never_pair_a_round_twice(tmp_path: Path) -> None:
    clock = Clock()
    db = tmp_path / "t.db"
    one = make_service(db, clock=clock)
    two = make_service(db, clock=clock)
    cup = Cup(one, clock)
    tid = new_cup(cup, "swiss 2 rounds 2 players 1d start 1h", ["Ann", "Bob", "Cid", "Dee"])
    clock.advance(3600)
    # The first process holds the tournament's claim: the second does nothing meanwhile.
    assert one.store.claim_tournaments(clock(), one.owner, clock(), 60.0, tid=tid) == [tid]
    assert two.due(clock()) == []
    assert cup.data(tid)["played"] == []
    one.store.release_tournaments(one.owner, [tid])
    said = one.due(clock()) + two.due(clock())
    paired = [o for o in said if "round 1 of 2 is paired" in o.text]
    assert len(paired) == 1
    assert len(cup.data(tid)["played"]) == 1
    # Both look again: the round is there, nothing is paired or said twice.
    again = one.due(clock()) + two.due(clock())
    assert not [o for o in again if "is paired" in o.text]
    assert len(cup.data(tid)["played"]) == 1


def test_a_tournament_starts_on_time_or_is_called_off(tmp_path: Path) -> None:
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    cup = Cup(service, clock)
    full = new_cup(cup, "swiss 1 round 2 players 1d start 2h", ["Ann", "Bob"])
    empty = new_cup(cup, "swiss 1 round 2 players 1d start 2h", ["Cid"])
    assert service.next_due() == clock() + 7200
    clock.advance(7200)
    out = service.due(clock())
    assert cup.data(full)["status"] == "running"
    assert cup.data(empty)["status"] == "cancelled"
    assert any("needs at least 2 players" in o.text for o in out)


def test_tables_of_three_and_four_by_score_groups(tmp_path: Path) -> None:
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    cup = Cup(service, clock)
    seven = [*SIX, "Gus"]
    tid = new_cup(cup, "swiss 2 rounds 3 players 1d", seven)
    cup.ok("Ann", "/tournament start")
    r = cup.round(tid)
    # Seven players at tables of three: one of four and one of three, nobody left out.
    assert [len(p["players"]) for p in r["pairings"]] == [4, 3] and r["byes"] == []
    rng = random.Random(4)
    for p in r["pairings"]:
        cup.play_table(p["chat"], rng)
    first, second = cup.data(tid)["played"]
    assert second["number"] == 2
    # The two winners of round one (1 point each, never met) head the order: they sit
    # together at the first table of round two. These seeded games have no shared first
    # place, so each table has one winner.
    assert [p["places"].count(1) for p in first["pairings"]] == [1, 1]
    winners = [p["players"][p["places"].index(1)] for p in first["pairings"]]
    assert set(winners) <= set(second["pairings"][0]["players"])


def test_a_team_battle_between_two_communities(tmp_path: Path) -> None:
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    # A Telegram group and a Discord channel, as their chat ids look.
    tg = Cup(service, clock, Chat("-1001234567890", "Genial night"))
    dc = Cup(service, clock, Chat("998877665544332211", "Board games"))
    tid = new_cup(tg, "swiss 2 rounds 2 players 1d", ["Ann", "Bob"])
    tg.ok("Ann", "/tournament invite")
    code = tg.data(tid)["code"]
    assert len(code) == 6 and f"/tournament team {code}" in tg.log[-1].text
    assert "Only an admin" in dc.error("Cid", f"/tournament team {code}")
    dc.ok("Cid", f"/tournament team {code}", admin=True)
    # The host's chat hears the new team; the new team's chat how to join.
    assert any("Board games joined tournament" in o.text for o in dc.log if o.chat == tg.chat.id)
    for name in ["Cid", "Dee"]:
        dc.ok(name, "/tournament join")
    assert "already" in dc.error("Cid", f"/tournament team {code}", admin=True)
    tg.ok("Ann", "/tournament start")
    r = tg.round(tid)
    team = {"id-ann": "tg", "id-bob": "tg", "id-cid": "dc", "id-dee": "dc"}
    # Players are paired across teams where they can be.
    assert all(team[a] != team[b] for a, b in (p["players"] for p in r["pairings"]))
    # Each table's messages reach both chats: each player sees it in their own.
    for p in r["pairings"]:
        seen = service.store.load(p["chat"])
        assert seen is not None
        assert {seen.tournament["places"][u] for u in p["players"]} == {tg.chat.id, dc.chat.id}
    rng = random.Random(13)  # games that end one team on 1 point, the other on 3
    for p in r["pairings"]:
        t = service.store.load(p["chat"])
        assert t is not None
        # Each player types their moves in their own community's chat.
        while True:
            t = service.store.load(p["chat"])
            assert t is not None
            if t.status != "playing":
                break
            game = games.rebuild(t.record or {})
            seat = t.seats[game.to_move]
            where = tg if team[seat.user or ""] == "tg" else dc
            move = rng.choice(game.legal_moves())
            text = games.format_move(game, move)
            where.ok(seat.name, f"/{text}" if text in ("swap", "keep") else f"/play {text}")
    clock.advance(DAY + 1)
    service.due(clock())
    assert tg.data(tid)["status"] == "finished"
    # Each chat sees both teams' scores, its own marked; a team's score is its players'
    # points (two players each, the smaller team's size), each player's points worked out
    # from the four archived games as the engine ranks them (a win 1, a tie 1/2).
    final = service.handle(dc.chat, user("Cid"), "/tournament")[0].text
    points = archived_points(service, tg.chat.id, 4)

    def score(names: list[str]) -> str:
        value = sum((points[f"id-{n.lower()}"] for n in names), Fraction(0))
        number = str(value.numerator) if value.denominator == 1 else f"{float(value):g}"
        # Issue 44, item 31: one point is singular.
        return f"{number} point" if value == 1 else f"{number} points"

    lines = final.splitlines()
    assert f"Team Board games (this chat): {score(['Cid', 'Dee'])}" in lines
    assert f"Team Genial night: {score(['Ann', 'Bob'])}" in lines
    # The seeded games reach both forms: a team on one point, the other on several.
    assert sorted([score(["Cid", "Dee"]), score(["Ann", "Bob"])]) == ["1 point", "3 points"]
    # Each player's own line agrees with the archive.
    for name in ["Ann", "Bob", "Cid", "Dee"]:
        value = points[f"id-{name.lower()}"]
        word = "point" if value == 1 else "points"
        assert any(f". {name}: {value} {word} (" in line for line in lines), name


def test_a_look_typed_at_the_tournament_table_itself_goes_to_its_places(tmp_path: Path) -> None:
    # A platform that takes moves from the private chat hands them to the table's own id
    # (the player's running tables): what the table says then reaches the players' chat.
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    cup = Cup(service, clock)
    tid = new_cup(cup, "swiss 1 round 2 players 1d", ["Ann", "Bob"])
    cup.ok("Ann", "/tournament start")
    table = cup.round(tid)["pairings"][0]["chat"]
    assert service.playing_tables("id-ann") == [table]
    out = service.handle(Chat(table), user("Ann"), "/score")
    assert out and all(o.chat == HOME.id for o in out)
    assert out[0].text.startswith(f"Tournament of Club ({tid}), round 1, table 1\n")


def test_the_standings_and_the_winner_come_with_a_picture(tmp_path: Path) -> None:
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock, pictures=True)
    cup = Cup(service, clock)
    tid = new_cup(cup, "swiss 1 round 2 players 1d", ["Ann", "Bob"])
    cup.ok("Ann", "/tournament start")
    (shown,) = service.handle(HOME, user("Bob"), f"/tournament {tid}")
    assert shown.attachment is not None and shown.attachment.data.startswith(b"\x89PNG")
    clock.advance(DAY + 1)
    out = service.due(clock())
    (winner,) = [o for o in out if o.kind == "result" and o.chat == HOME.id and "Winner" in o.text]
    assert winner.attachment is not None and winner.attachment.filename == "standings.png"
    (tmp_path / "standings.png").write_bytes(winner.attachment.data)


def test_two_processes_looking_at_once_pair_a_round_once(tmp_path: Path) -> None:
    import threading

    clock = Clock()
    db = tmp_path / "t.db"
    services = [make_service(db, clock=clock) for _ in range(2)]
    cup = Cup(services[0], clock)
    tids = [
        new_cup(cup, "swiss 2 rounds 2 players 1d start 1h", ["Ann", "Bob", "Cid", "Dee"])
        for _ in range(3)
    ]
    clock.advance(3600)
    said: list[Outbound] = []
    start = threading.Barrier(2)

    def look(service: Service) -> None:
        start.wait()
        for _ in range(3):
            said.extend(service.due(clock()))

    threads = [threading.Thread(target=look, args=(s,)) for s in services]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for tid in tids:
        assert len(cup.data(tid)["played"]) == 1
        # Each table of the round exists once, and its start was said once.
        chats = [p["chat"] for p in cup.round(tid)["pairings"]]
        assert len(chats) == 2 and all(services[0].store.load(c) for c in chats)
    assert len([o for o in said if "round 1 of 2 is paired" in o.text]) == 3
    assert len([o for o in said if "The game begins" in o.text]) == 6


def test_the_store_keeps_tournaments_with_versions_claims_and_codes(tmp_path: Path) -> None:
    from bot.store import SavedTournament, StaleTable
    from tests.bot.backends import store_at

    store = store_at(tmp_path / "t.db")
    first = SavedTournament("abcd", 1, "open", {"id": "abcd"}, 100.0, "code42", ("c1", "c2"))
    store.save_tournament(first, None)
    with pytest.raises(StaleTable):  # the id is taken
        store.save_tournament(first, None)
    with pytest.raises(StaleTable):  # so is the invite code
        store.save_tournament(SavedTournament("efgh", 1, "open", {}, None, "code42"), None)
    assert store.load_tournament("abcd") == (1, {"id": "abcd"})
    assert store.tournaments_of("c2") == ["abcd"] and store.tournaments_of("c3") == []
    assert store.tournament_by_code("code42") == "abcd"
    # A change over the version it was loaded at, once.
    second = SavedTournament("abcd", 2, "running", {"id": "abcd", "n": 2}, 50.0, None, ("c3",))
    store.save_tournament(second, 1)
    with pytest.raises(StaleTable):
        store.save_tournament(second, 1)
    assert store.tournaments_of("c1") == [] and store.tournaments_of("c3") == ["abcd"]
    assert store.tournament_by_code("code42") is None
    # Due work: claimed by one owner until its lease runs out.
    assert store.next_tournament_due() == 50.0
    assert store.due_tournaments(49.0) == [] and store.due_tournaments(50.0) == ["abcd"]
    assert store.claim_tournaments(60.0, "one", 60.0, 30.0) == ["abcd"]
    assert store.claim_tournaments(60.0, "two", 70.0, 30.0) == []
    assert store.claim_tournaments(60.0, "two", 91.0, 30.0) == ["abcd"]  # one's ran out
    store.release_tournaments("two", ["abcd"])
    assert store.claim_tournaments(60.0, "one", 92.0, 30.0) == ["abcd"]
    assert "one" in store.claimants()
    store.release_owner("one")
    assert store.claim_tournaments(60.0, "two", 93.0, 30.0) == ["abcd"]


def test_forget_me_leaves_no_trace_in_tournaments_and_keeps_the_results(tmp_path: Path) -> None:
    import json

    from bot.community.privacy import FORMER_NAME

    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    cup = Cup(service, clock)
    done = new_cup(cup, "swiss 1 round 2 players 1d", ["Ann", "Bob"])
    cup.ok("Ann", f"/tournament start {done}")
    cup.play_table(cup.round(done)["pairings"][0]["chat"], random.Random(8))
    assert cup.data(done)["status"] == "finished"
    before = service.handle(HOME, user("Ann"), f"/tournament {done}")[0].text
    open_one = new_cup(cup, "swiss 1 round 2 players 1d", ["Bob", "Cid"])
    new_cup(cup, "swiss 1 round 2 players 1d", ["Ann", "Cid"])  # not his
    # /mydata holds both of his tournaments, and not the third.
    (mine,) = [o for o in service.handle(HOME, user("Bob"), "/mydata") if o.attachment]
    kept = json.loads(mine.attachment.data)
    assert sorted(t["id"] for t in kept["tournaments"]) == sorted([done, open_one])
    cup.ok("Bob", "/forget me")
    cup.ok("Bob", "/forget me")
    for tid in (done, open_one):
        text = json.dumps(cup.data(tid))
        assert "id-bob" not in text and '"Bob"' not in text
    # He left the open one; the finished one keeps its results under "a former player".
    assert [e["user"] for e in cup.data(open_one)["entrants"]] == ["id-cid"]
    after = service.handle(HOME, user("Ann"), f"/tournament {done}")[0].text
    assert after == before.replace("Bob", FORMER_NAME)


def test_a_damaged_tournament_stops_no_other(tmp_path: Path) -> None:
    from bot.store import SavedTournament

    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    cup = Cup(service, clock)
    # A row whose data is not a tournament's (hand-edited, say), due now.
    service.store.save_tournament(SavedTournament("bad1", 1, "running", {"id": 1}, clock()), None)
    tid = new_cup(cup, "swiss 1 round 2 players 1d start 1h", ["Ann", "Bob"])
    clock.advance(3600)
    out = service.due(clock())
    assert cup.data(tid)["status"] == "running"
    assert any("round 1 of 1 is paired" in o.text for o in out)
    assert "Tournament" not in " ".join(o.text for o in service.due(clock()))


def test_a_bot_stopped_while_opening_a_round_opens_the_rest_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.play import lobby

    clock = Clock()
    db = tmp_path / "t.db"
    service = make_service(db, clock=clock)
    cup = Cup(service, clock)
    tid = new_cup(cup, "swiss 1 round 2 players 1d", ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"])
    real_start = lobby.start
    started: list[str] = []

    def start_then_die(tables: Any, ctx: Any, cmd: Any) -> None:
        if started:
            raise RuntimeError("the process was stopped here")
        started.append(ctx.table.chat)
        real_start(tables, ctx, cmd)

    monkeypatch.setattr(lobby, "start", start_then_die)
    cup.ok("Ann", "/tournament start")
    r = cup.round(tid)
    opened = [p["chat"] for p in r["pairings"] if p["opened"]]
    assert opened == started and len(opened) == 1
    monkeypatch.setattr(lobby, "start", real_start)
    # The bot comes back: the rest of the round is opened, the first table is not again.
    service.store.close()
    service = make_service(db, clock=clock)
    cup.service = service
    cup.log += service.due(clock())
    r = cup.round(tid)
    assert all(p["opened"] for p in r["pairings"])
    begun = [o.text.split("\n")[0] for o in cup.log if "The game begins" in o.text]
    assert sorted(begun) == [f"Tournament of Club ({tid}), round 1, table {n}" for n in (1, 2, 3)]
    assert len([o for o in cup.log if "round 1 of 1 is paired" in o.text]) == 1
    for p in r["pairings"]:
        t = service.store.load(p["chat"])
        assert t is not None and t.status == "playing"


def test_a_round_robin_of_genial_spezial_with_a_leaver(tmp_path: Path) -> None:
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    cup = Cup(service, clock)
    tid = new_cup(cup, "round robin spezial 1d", ["Ann", "Bob", "Cid", "Dee", "Eve"])
    cup.ok("Ann", "/tournament start")
    # Five players: five rounds (the circle method), two tables and a bye each round.
    first = cup.round(tid)
    assert len(first["pairings"]) == 2 and len(first["byes"]) == 1
    assert cup.data(tid)["played"][0]["number"] == 1
    t = service.store.load(first["pairings"][0]["chat"])
    assert t is not None and t.record is not None and t.record["game"] == "spezial"
    # Every game of round one runs to the deadline; then Eve leaves.
    clock.advance(DAY + 1)
    cup.log += service.due(clock())
    cup.ok("Eve", "/tournament leave")
    for _ in range(4):
        clock.advance(DAY + 1)
        cup.log += service.due(clock())
    data = cup.data(tid)
    assert data["status"] == "finished" and len(data["played"]) == 5
    pairs = [frozenset(p["players"]) for r in data["played"] for p in r["pairings"]]
    assert len(pairs) == 10 == len(set(pairs))  # everyone met everyone once
    byes = [b for r in data["played"] for b in r["byes"]]
    # One bye each, in the circle method's order: Eve's falls in round four, after she
    # left, and goes unused.
    assert sorted(byes) == ["id-ann", "id-bob", "id-cid", "id-dee"]
    assert [r["byes"] for r in data["played"]][3] == []
    # Eve meets the four others once: round one at the deadline, then three games after
    # she left during round two: that one ended at its table; her later ones were won by
    # her opponents with no table at all.
    eve = [
        (r["number"], p) for r in data["played"] for p in r["pairings"] if "id-eve" in p["players"]
    ]
    assert [n for n, _ in eve] == [1, 2, 3, 5]
    assert eve[0][1]["ended"] == "deadline"
    for number, p in eve[1:]:
        assert p["ended"] == "forfeit"
        assert (p["chat"] == "") == (number > 2)
        assert p["places"][p["players"].index("id-eve")] == 2


def test_tables_of_three_end_when_fewer_than_three_are_left(tmp_path: Path) -> None:
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    cup = Cup(service, clock)
    tid = new_cup(cup, "swiss 3 rounds 3 players 1d", ["Ann", "Bob", "Cid"])
    cup.ok("Ann", "/tournament start")
    (p,) = cup.round(tid)["pairings"]
    assert sorted(p["players"]) == ["id-ann", "id-bob", "id-cid"]
    # Cid leaves: a computer plays his seat on and he finishes last; two are left, too
    # few for a table of three, so the tournament ends after this round (no round of byes).
    cup.ok("Cid", "/tournament leave")
    clock.advance(DAY + 1)
    cup.log += service.due(clock())
    data = cup.data(tid)
    assert data["status"] == "finished" and len(data["played"]) == 1
    (done,) = data["played"][0]["pairings"]
    assert done["places"][done["players"].index("id-cid")] == 3
