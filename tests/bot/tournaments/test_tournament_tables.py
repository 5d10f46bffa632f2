"""Tournaments as a group lives with them (issue 44, items 9 to 16): several tables
waiting for one player in one chat, tied teams, the tables' names, a leaver's message,
mentions across platforms, the standings' links and picture, a cancelled tournament and a
bye in a round still being played.

What is checked comes from the rules and the issue, not from the program's output.
"""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from bot.core import games
from bot.core.outbound import Chat
from bot.tournaments.cup import Cup as TournamentCup
from bot.tournaments.standings import picture_rows, standings
from bot.words.texts import Texts
from tests.bot.helpers import Clock, make_service, user
from tests.bot.tournaments.test_tournaments import HOME, Cup, new_cup

pytestmark = pytest.mark.usefixtures("backend")


def _to_move(cup: Cup, table: str) -> str:
    t = cup.service.store.load(table)
    assert t is not None and t.status == "playing"
    seat = t.seats[games.rebuild(t.record or {}).to_move]
    assert seat.user is not None
    return seat.user


def _a_move(cup: Cup, table: str, rng: random.Random) -> str:
    t = cup.service.store.load(table)
    assert t is not None
    game = games.rebuild(t.record or {})
    moves = [m for m in game.legal_moves() if games.format_move(game, m) not in ("swap", "keep")]
    return games.format_move(game, rng.choice(moves))


def _moves(cup: Cup, table: str) -> int:
    t = cup.service.store.load(table)
    assert t is not None
    return len((t.record or {}).get("moves", []))


def test_a_player_waited_for_at_two_tables_in_one_chat_names_the_table(tmp_path: Path) -> None:
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    cup = Cup(service, clock)
    first = new_cup(cup, "swiss 1 round 2 players 1d", ["Ann", "Bob"])
    second = new_cup(cup, "swiss 1 round 2 players 1d", ["Ann", "Cid"])
    cup.ok("Ann", f"/tournament start {first}")
    cup.ok("Ann", f"/tournament start {second}")
    a = cup.round(first)["pairings"][0]["chat"]
    b = cup.round(second)["pairings"][0]["chat"]
    rng = random.Random(5)
    # Bob and Cid sit at one table each: their moves go there, until it is Ann's turn at
    # both tables.
    for table, other in ((a, "Bob"), (b, "Cid")):
        if _to_move(cup, table) != "id-ann":
            cup.ok(other, f"/play {_a_move(cup, table, rng)}")
        assert _to_move(cup, table) == "id-ann"
    before = (_moves(cup, a), _moves(cup, b))
    # A move without the table: refused, naming both tables (by name, with their ids).
    move = _a_move(cup, b, rng)
    text = cup.error("Ann", f"/play {move}")
    assert f"({first}), round 1, table 1" in text and f"({second}), round 1, table 1" in text
    assert (_moves(cup, a), _moves(cup, b)) == before
    # A tournament that is none of hers: said so, nothing played.
    assert "zzzz" in cup.error("Ann", "/play zzzz " + move)
    assert (_moves(cup, a), _moves(cup, b)) == before
    # Named: the move goes to the second tournament's table, the first is untouched.
    cup.ok("Ann", f"/play {second} {move}")
    assert (_moves(cup, a), _moves(cup, b)) == (before[0], before[1] + 1)
    # Now she is waited for at one table only: a move without the table goes there.
    cup.ok("Ann", f"/play {_a_move(cup, a, rng)}")
    assert _moves(cup, a) == before[0] + 1


def test_the_buttons_of_a_tournament_table_name_their_tournament(tmp_path: Path) -> None:
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    cup = Cup(service, clock)
    tid = new_cup(cup, "swiss 1 round 2 players 1d", ["Ann", "Bob"])
    cup.ok("Ann", "/tournament start")
    turn = [o for o in cup.log if o.kind == "turn" and o.chat == HOME.id]
    assert turn and f"/hand {tid}" in [b.command for b in turn[-1].buttons]
    # The tables' names carry their tournament's id: two tournaments of one chat differ.
    assert turn[-1].text.startswith(f"Tournament of Club ({tid}), round 1, table 1")
    # A button's command at the table's own chat (a private rack's) reaches it too.
    table = cup.round(tid)["pairings"][0]["chat"]
    out = service.handle(Chat(table), user("Ann"), f"/hand {tid}")
    assert [o.kind for o in out] == ["rack"]


def _tg_and_dc(service: Any, clock: Clock) -> tuple[Cup, Cup, str]:
    """A team battle of a Telegram group (Ann, Bob) and a Discord channel (Cid, Dee),
    one round of two-player tables, started."""
    tg = Cup(service, clock, Chat("-1001234567890", "Genial night"))
    dc = Cup(service, clock, Chat("998877665544332211", "Board games"))
    tid = new_cup(tg, "swiss 1 round 2 players 1d", ["Ann", "Bob"])
    tg.ok("Ann", "/tournament invite")
    dc.ok("Cid", f"/tournament team {tg.data(tid)['code']}", admin=True)
    for name in ["Cid", "Dee"]:
        dc.ok(name, "/tournament join")
    tg.ok("Ann", "/tournament start")
    return tg, dc, tid


def test_each_chat_mentions_only_its_own_players(tmp_path: Path) -> None:
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    tg, dc, tid = _tg_and_dc(service, clock)
    turns = [o for o in tg.log + dc.log if o.kind == "turn"]
    here = {tg.chat.id: {"id-ann", "id-bob"}, dc.chat.id: {"id-cid", "id-dee"}}
    assert {o.chat for o in turns} == set(here)
    # A Discord chat never gets a Telegram player's id to mention (nor the other way).
    assert all(set(o.mentions) <= here[o.chat] for o in turns)
    # The player to move is mentioned in their own chat.
    mentioned = {u for o in turns for u in o.mentions}
    for p in tg.round(tid)["pairings"]:
        assert _to_move(tg, p["chat"]) in mentioned


def test_a_tied_team_battle_is_shared(tmp_path: Path) -> None:
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    tg, dc, tid = _tg_and_dc(service, clock)
    team = {"id-ann": tg, "id-bob": tg, "id-cid": dc, "id-dee": dc}
    first, second = tg.round(tid)["pairings"]
    # At the first table the Telegram player leaves, at the second the Discord player:
    # each team wins one game, 1 point each (two players a team: both count).
    (gone_tg,) = [u for u in first["players"] if team[u] is tg]
    (gone_dc,) = [u for u in second["players"] if team[u] is dc]
    for gone in (gone_tg, gone_dc):
        name = gone.removeprefix("id-").title()
        team[gone].ok(name, "/tournament leave")
    assert tg.data(tid)["status"] == "finished"
    said = tg.log + dc.log
    (winner,) = [o for o in said if o.chat == tg.chat.id and "is over" in o.text]
    assert f"({tid}) is over" in winner.text  # which tournament it was
    assert "The teams share the win: Genial night, Board games!" in winner.text
    assert "The winning team" not in winner.text


def test_a_leavers_table_message_is_stored_once(tmp_path: Path) -> None:
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    cup = Cup(service, clock)
    new_cup(cup, "swiss 2 rounds 2 players 1d", ["Ann", "Bob"])
    cup.ok("Ann", "/tournament start")
    cup.ok("Bob", "/tournament leave")
    # One table, seen in one chat: its end is said there once, as stored to be posted.
    ended = [o for o in service.waiting() if "this game ends here" in o.text]
    assert len(ended) == 1


def _points_of(cup: Cup, tid: str) -> dict[str, Fraction]:
    kept = TournamentCup.from_dict(cup.data(tid))
    return {x.player: x.points for x in standings(cup.service, kept)}


def test_a_bye_counts_once_its_round_is_played_and_the_picture_ranks_no_one_before(
    tmp_path: Path,
) -> None:
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    cup = Cup(service, clock)
    tid = new_cup(cup, "swiss 2 rounds 2 players 1d", ["Ann", "Bob", "Cid"])
    cup.ok("Ann", "/tournament start")
    r = cup.round(tid)
    (bye,) = r["byes"]
    (table,) = r["pairings"]
    # Nobody has played yet: nobody has a point, nobody is ranked in the picture.
    assert set(_points_of(cup, tid).values()) == {0}
    kept = TournamentCup.from_dict(cup.data(tid))
    rows = picture_rows(kept, standings(service, kept), Texts("en"))
    assert [row[0] for row in rows] == ["–", "–", "–"]
    # A game of the round played: the bye's point with it (a two-player game hands out
    # one point: three players, one game and one bye make two points in all).
    cup.play_table(table["chat"], random.Random(3))
    points = _points_of(cup, tid)
    assert points[bye] == 1 and sum(points.values()) == 2


def test_the_picture_marks_who_left(tmp_path: Path) -> None:
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    cup = Cup(service, clock)
    tid = new_cup(cup, "swiss 2 rounds 2 players 1d", ["Ann", "Bob", "Cid", "Dee"])
    cup.ok("Ann", "/tournament start")
    cup.ok("Dee", "/tournament leave")
    kept = TournamentCup.from_dict(cup.data(tid))
    rows = picture_rows(kept, standings(service, kept), Texts("en"))
    assert sorted(row[1] for row in rows) == ["Ann", "Bob", "Cid", "Dee (left)"]
    # Dee's opponent won that game: they rank first, with the medal's "1".
    assert [row[0] for row in rows if row[2] == "1"] == ["1"]


def test_a_cancelled_tournament_ends_its_running_tables(tmp_path: Path) -> None:
    clock = Clock()
    service = make_service(tmp_path / "t.db", clock=clock)
    cup = Cup(service, clock)
    tid = new_cup(cup, "swiss 2 rounds 2 players 1d", ["Ann", "Bob"])
    cup.ok("Ann", "/tournament start")
    (table,) = cup.round(tid)["pairings"]
    out = cup.ok("Ann", "/tournament cancel")
    assert any(f"Tournament {tid} was called off: this game ends here." in o.text for o in out)
    t = service.store.load(table["chat"])
    assert t is not None and t.status == "closed" and t.due_at is None
    # Nothing runs for it any more: a move typed in the chat reaches no table.
    before = service.store.load(table["chat"])
    mover = _to_move_name(before)
    assert [o.kind for o in service.handle(HOME, user(mover), "/play 1 A1 A2")] == ["error"]
    assert service.store.load(table["chat"]) == before
    assert service.playing_tables("id-ann") == []


def _to_move_name(t: Any) -> str:
    return str(t.players[games.rebuild(t.record or {}).to_move].name)
