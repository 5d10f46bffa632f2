"""Issue 13 through the service: finished games archived and rated, /top, /stats,
/history, /replay, /rematch, /games and turn pings.

Expected values come from the engine (who won, the lowest colours) and from openskill
called directly, never from the service's own answers. Those taken from openskill check
the wiring, not the model: the model's numbers are worked out by hand from Weng & Lin's
formulas in test_ratings (a two-player, a second two-player and a four-player game).
"""

from __future__ import annotations

import io
import json
import random
import re
from pathlib import Path

import pytest
from openskill.models import PlackettLuce
from PIL import Image

from bot.community import ladders as community
from bot.community import ratings
from bot.core import games
from bot.core.outbound import with_links
from bot.core.table import LOBBY, PLAYING, Options, Seat, Table
from bot.words.texts import Texts
from engine.events import TurnStarted
from engine.record import Record, replay
from tests.bot.community.test_ratings import two_sides_equal
from tests.bot.helpers import Room, make_service

ADA = "id-ada"
COMPUTER = ratings.computer_key("random")


def two_games(tmp_path: Path, seed: int = 4) -> Room:
    """Ada plays two Genial games against a random computer player, at chat-1."""
    room = Room(make_service(tmp_path / "t.db", seed=seed))
    room.ok("Ada", "/join")
    room.ok("Ada", "/addbot random")
    rng = random.Random(seed)
    for _ in range(2):
        room.ok("Ada", "/start")
        room.play_out(rng)
    return room


def outcome(row: dict[str, object]) -> tuple[list[int], list[int]]:
    """From the engine: each seat's place (1 or 2; a tie is 1 for both) and lowest colour
    at the end of an archived two-seat game."""
    game = replay(Record.from_dict(row["record"]))  # type: ignore[arg-type]
    ranking = game.ranking()
    assert ranking is not None
    places = [1 if s in ranking[0] else 2 for s in (0, 1)]
    return places, [min(game.score(s).values()) for s in (0, 1)]


def test_a_person_who_leaves_is_remembered_on_the_seat(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    room.ok("Bob", "/leave")
    seat = room.table().seats[1]
    assert (seat.user, seat.left, seat.left_user) == (None, True, "id-bob")
    room.play_out(random.Random(1))
    (row,) = room.service.store.archived("chat-1")
    game = ratings.from_archive(row)
    assert game is not None
    bob = next(s for s in game.seats if s.player == "id-bob")
    assert bob.left  # rated as Bob's loss, not the computer's
    assert ratings.computer_key("greedy") not in {s.player for s in game.seats}


def test_finished_games_are_archived_and_rated_as_openskill_says(tmp_path: Path) -> None:
    room = two_games(tmp_path)
    rows = room.service.store.archived("chat-1")
    assert len(rows) == 2
    assert [s["user"] for s in rows[0]["seats"]] == [ADA, None]
    assert rows[0]["options"]["game"] == "genial"
    # openskill by hand: two games of Ada against one computer, ranks from the engine.
    model = PlackettLuce()
    ada, cpu = model.rating(), model.rating()
    wins = 0
    for row in rows:
        places, _ = outcome(row)
        wins += places[0] == 1
        [[ada], [cpu]] = model.rate([[ada], [cpu]], ranks=[float(p) for p in places])
    s = room.service.community.ladder.standing(ADA, "genial", "chat-1")
    assert s is not None
    assert (s.games, s.wins) == (2, wins)
    assert abs(s.mu - ada.mu) < 1e-9 and abs(s.sigma - ada.sigma) < 1e-9
    c = room.service.community.ladder.standing(COMPUTER, "genial", "chat-1")
    assert c is not None and abs(c.mu - cpu.mu) < 1e-9
    # A service started afresh on the same store rebuilds the same ladder from the archive.
    again = make_service(tmp_path / "t.db")
    assert again.community.ladder == room.service.community.ladder


def test_top_and_stats_after_two_games_against_a_computer(tmp_path: Path) -> None:
    room = two_games(tmp_path)
    rows = room.service.store.archived("chat-1")
    results = [outcome(row) for row in rows]
    wins = [sum(places[k] == 1 for places, _ in results) for k in (0, 1)]
    ladder = room.service.community.ladder
    ada = ladder.standing(ADA, "genial", "chat-1")
    cpu = ladder.standing(COMPUTER, "genial", "chat-1")
    assert ada is not None and cpu is not None
    (top,) = room.ok("Ada", "/top")
    # Best first: by points, then the player key (both played two games).
    order = sorted(
        [("Ada", ada.points, wins[0], ADA), ("Computer (random)", cpu.points, wins[1], COMPUTER)],
        key=lambda r: (-r[1], r[3]),
    )
    assert top.text.splitlines() == [
        "Genial: the ladder here (rank. name: rating · games · wins)",
        *(f"{i}. {name}: {pts} · 2 · {w}" for i, (name, pts, w, _) in enumerate(order, 1)),
    ]
    (stats,) = room.ok("Ada", "/stats")
    average = sum(lowest[0] for _, lowest in results) / 2
    best = max(lowest[0] for _, lowest in results)
    assert stats.text.splitlines() == [
        "Statistics of Ada:",
        f"Genial: rating {ada.points}, games 2, wins {wins[0]} ({round(50 * wins[0])}%), "
        f"average lowest colour {average:.1f}, best game {best}",
        # The same two games are all Ada played anywhere: the global ladder agrees.
        f"Genial everywhere (all chats): rating {ada.points}, games 2, wins {wins[0]}",
    ]
    assert room.ok("Bob", "/stats Ada")[0].text == stats.text
    assert "Nobody called Zed" in room.say("Bob", "/stats Zed")[0].text
    assert room.ok("Ada", "/top 2")[0].text.splitlines()[1] == "No players on page 2."


def test_stats_shows_the_chat_ladder_and_the_global_one(tmp_path: Path) -> None:
    """Ada plays one game against a computer in each of two chats: each chat's ladder
    knows one game, the global one both, rated one after the other as openskill says."""
    service = make_service(tmp_path / "t.db", seed=4)
    rng = random.Random(4)
    rooms = [Room(service, f"chat-{n}", f"Room {n}") for n in (1, 2)]
    for room in rooms:
        room.ok("Ada", "/join")
        room.ok("Ada", "/addbot random")
        room.ok("Ada", "/start")
        room.play_out(rng)
    (first,) = service.store.archived("chat-1")
    (second,) = service.store.archived("chat-2")
    model = PlackettLuce()
    ada, cpu = model.rating(), model.rating()
    shown = []
    cpu_wins = 0
    for row in (first, second):
        places, _ = outcome(row)
        [[ada], [cpu]] = model.rate([[ada], [cpu]], ranks=[float(p) for p in places])
        shown.append((ratings.points(ada.mu, ada.sigma), int(places[0] == 1)))
        cpu_wins += places[1] == 1
    # Alone on chat-1's ladder, the first game rated Ada as the global ladder did then.
    (here_points, here_won), _ = shown
    everywhere = ratings.points(ada.mu, ada.sigma)
    wins = sum(won for _, won in shown)
    (stats,) = rooms[0].ok("Ada", "/stats")
    lines = stats.text.splitlines()
    assert lines[0] == "Statistics of Ada:"
    assert lines[1].startswith(f"Genial: rating {here_points}, games 1, wins {here_won} (")
    assert lines[2:] == [
        f"Genial everywhere (all chats): rating {everywhere}, games 2, wins {wins}"
    ]
    assert here_points != everywhere  # two games in, one game here: they differ
    # /top global: both games, wherever it is asked; /top: this chat's one game.
    rows = sorted(
        [
            ("Ada", everywhere, wins, ADA),
            ("Computer (random)", ratings.points(cpu.mu, cpu.sigma), cpu_wins, COMPUTER),
        ],
        key=lambda r: (-r[1], r[3]),
    )
    (top,) = rooms[1].ok("Ada", "/top global")
    assert top.text.splitlines() == [
        "Genial: the ladder of all chats (rank. name: rating · games · wins)",
        *(f"{i}. {name}: {pts} · 2 · {w}" for i, (name, pts, w, _) in enumerate(rows, 1)),
    ]
    assert [line.split(": ")[1].split(" · ")[1] for line in
            rooms[1].ok("Ada", "/top")[0].text.splitlines()[1:]] == ["1", "1"]  # fmt: skip
    assert rooms[1].ok("Ada", "/top global 2")[0].text.splitlines()[1] == "No players on page 2."
    # Someone who finished no game anywhere: no ladder line at all.
    assert rooms[0].ok("Bob", "/stats")[0].text.splitlines() == [
        "Statistics of Bob:",
        "Bob has no finished game here yet.",
    ]


def test_top_global_before_any_game(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    assert room.error("Ada", "/top global") == "No rated game has finished anywhere yet."


def test_top_pages_ten_rows(tmp_path: Path) -> None:
    service = make_service(tmp_path / "t.db")
    ladder = service.community.ladder
    for n in range(12):  # twelve made-up players, one game each against a computer
        game = ratings.RatedGame(
            "chat-1",
            "genial",
            "standard",
            float(n),
            (ratings.SeatResult(f"p{n}", 0, 1, 5), ratings.SeatResult(COMPUTER, 1, 2, 3)),
        )
        ladder.apply(game)
    room = Room(service)
    first = room.ok("Ada", "/top")[0].text.splitlines()
    assert len(first) == 1 + 10 + 1 and first[-1] == "More: /top 2"
    second = room.ok("Ada", "/top 2")[0].text.splitlines()
    assert [line.split(".")[0] for line in second[1:]] == ["11", "12", "13"]  # 12 + computer
    assert "/top" in room.say("Ada", "/top x")[0].text
    # Elsewhere, the global ladder holds the same thirteen; this chat's is empty.
    other = Room(service, "chat-9", "Elsewhere")
    everyone = other.ok("Ada", "/top global")[0].text.splitlines()
    assert len(everyone) == 12 and everyone[-1] == "More: /top global 2"
    assert other.ok("Ada", "/top global 2")[0].text.splitlines()[1:] == second[1:]
    # This chat has no ladder of its own (a private chat, a new group): where one is.
    assert other.error("Ada", "/top") == (
        "No rated game has finished in this chat yet: /top global shows the ladder of all chats."
    )


def test_history_tells_the_last_moves_of_a_known_record(tmp_path: Path, shared: Path) -> None:
    record = json.loads((shared / "examples" / "01-genial-standard-2p.json").read_text())
    service = make_service(tmp_path / "t.db")
    seats = [Seat("Ada", "id-ada"), Seat("Bob", "id-bob")]
    table = Table("chat-1", "Room", status=LOBBY, seats=seats, players=seats, record=record)
    service.store.save(table, None)
    room = Room(service)
    (out,) = room.ok("Ada", "/history 3")
    lines = out.text.splitlines()
    assert lines[0] == "Genial: the last 3 moves"
    # Who made each of the last three moves, from the engine.
    game = replay(Record.from_dict({**record, "moves": []}))
    movers = []
    for text in record["moves"]:
        movers.append(game.to_move)
        game.play_text(text)
    names = ["Ada", "Bob"]
    for line, number in zip(lines[1:], (43, 44, 45), strict=True):
        text = record["moves"][number - 1]
        cells = " ".join(text.split()[1:])
        assert line.startswith(f"{number}. {names[movers[number - 1]]} ")
        assert cells in line
    assert len(room.ok("Ada", "/history")[0].text.splitlines()) == 1 + 10
    # Issue 44, item 29: more than it tells at once is the most it tells (30), not refused.
    most = room.ok("Ada", "/history 99")[0].text.splitlines()
    assert most[0] == "Genial: the last 30 moves"
    assert len(most) == 1 + 30
    assert "/history 10" in room.say("Ada", "/history 0")[0].text


def test_replay_has_a_frame_per_placement_and_the_ranking(tmp_path: Path, shared: Path) -> None:
    record = json.loads((shared / "examples" / "01-genial-standard-2p.json").read_text())
    service = make_service(tmp_path / "t.db", pictures=True)
    seats = [Seat("Ada", "id-ada"), Seat("Bob", "id-bob")]
    service.store.save(
        Table("chat-1", "Room", status=LOBBY, seats=seats, players=seats, record=record), None
    )
    room = Room(service)
    (out,) = room.ok("Ada", "/replay")
    assert out.attachment is not None and out.attachment.mime == "image/gif"
    placements = [m for m in record["moves"] if m not in ("swap", "keep")]
    with Image.open(io.BytesIO(out.attachment.data)) as gif:
        assert gif.n_frames == len(placements) + 1
    assert out.text == f"Genial, replayed: {len(record['moves'])} moves."


def test_no_replay_while_the_game_runs(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    assert room.error("Ada", "/replay") == "The replay comes after the end of the game."


def test_rematch_keeps_seats_and_options(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Ada", "/join")
    room.ok("Ada", "/addbot random")
    room.ok("Bob", "/join")
    room.ok("Ada", "/option hints on")
    room.ok("Ada", "/option timeout 2h")
    room.ok("Ada", "/start")
    before = room.table().seats
    room.play_out(random.Random(2))
    (result,) = [o for o in room.log if o.kind == "result"]
    assert [b.command.split(" #")[0] for b in result.buttons] == ["/rematch"]
    room.ok("Bob", "/leave")  # the lobby changes after the end ...
    room.ok("Ada", "/option hints off")
    (lobby,) = room.ok("Bob", result.buttons[0].command.split(" #")[0])
    t = room.table()
    assert t.status == LOBBY
    assert [(s.name, s.user, s.level) for s in t.seats] == [
        (s.name, s.user, s.level) for s in before
    ]
    assert t.options == Options(hints=True, timeout=7200)
    assert t.host == "id-bob"
    assert "Bob sets the table again" in lobby.text
    room.ok("Bob", "/start")  # one more press
    assert room.table().status == PLAYING


def test_pings_once_per_turn_and_only_when_asked(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    (on,) = room.ok("Bob", "/notify on")
    assert on.user == "id-bob" and "on" in on.text
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    rng = random.Random(3)
    turns_given = 0
    while room.playing():
        before = room.game().to_move
        out = room.play_turn(rng)
        pings = [o for o in out if o.kind == "ping"]
        after = room.game().to_move if room.playing() else None
        if after == 1 and before != 1:
            turns_given += 1
            assert [(p.user, p.text) for p in pings] == [
                ("id-bob", "Your turn at Test room (Genial).")
            ]
        else:
            assert pings == []
        assert room.ok("Ada", "/board")[0].kind == "turn"  # looking never pings
    assert turns_given > 3
    assert all(o.user == "id-bob" for o in room.log if o.kind == "ping")
    assert sum(o.kind == "ping" for o in room.log) == turns_given
    room.ok("Bob", "/notify off")
    room.ok("Ada", "/start")
    room.play_out(rng)
    assert sum(o.kind == "ping" for o in room.log) == turns_given  # none after /notify off


def test_games_lists_exactly_my_running_tables(tmp_path: Path) -> None:
    service = make_service(tmp_path / "t.db")
    one, two, three = (Room(service, f"chat-{n}", f"Room {n}") for n in (1, 2, 3))
    for room, people in ((one, ["Ada", "Bob"]), (two, ["Cy", "Ada"]), (three, ["Ada", "Bob"])):
        for name in people:
            room.ok(name, "/join")
    one.ok("Ada", "/start")
    two.ok("Cy", "/option timeout 1h")
    two.ok("Cy", "/start")  # three stays a lobby
    (mine,) = one.ok("Ada", "/games")
    assert mine.user == "id-ada"
    assert mine.text.splitlines() == [
        "Your running tables (2):",
        "Room 1: Genial, your turn",
        "Room 2: Genial, Cy to move, 1h left",
    ]
    # Each table's line is named, so a platform can add its link (none for chat-2 here).
    assert mine.tables == ("chat-1", "chat-2")
    linked = with_links(mine, {"chat-1": "(latest message: https://example.org/1/9)"})
    assert linked.text.splitlines() == [
        "Your running tables (2):",
        "Room 1: Genial, your turn (latest message: https://example.org/1/9)",
        "Room 2: Genial, Cy to move, 1h left",
    ]
    assert [g.chat for g in service.running_games("id-bob")] == ["chat-1"]
    assert service.running_games("id-cy")[0].deadline == service.clock() + 3600
    assert one.ok("Dan", "/games")[0].text == "You sit at no running table."


def test_no_pings_for_the_only_person_at_a_table_of_computers(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Ada", "/notify on")
    room.ok("Ada", "/join")
    room.ok("Ada", "/addbot random")
    room.ok("Ada", "/start")
    room.play_out(random.Random(1))
    assert [o for o in room.log if o.kind == "ping"] == []


COLOURS = {"red": "R", "green": "G", "blue": "B", "orange": "O", "yellow": "Y", "purple": "P"}
_GAINED = re.compile(r"\+(\d+) (red|green|blue|orange|yellow|purple)\b")
_CAPPED = re.compile(r"(red|green|blue|orange|yellow|purple) \d+ \(\+(\d+), capped\)")


def test_history_points_add_up_to_the_final_scores(shared: Path) -> None:
    """Every move of example 01 told by /history's lines: what they say each seat gained,
    added up, is the final score the example's expected file gives."""
    base = shared / "examples" / "01-genial-standard-2p"
    record = json.loads(base.with_suffix(".json").read_text())
    expected = json.loads(Path(f"{base}.expected.json").read_text())["scores"]
    lines = community.history_lines(record, ["Ada", "Bob"], 100, Texts("en"))
    assert len(lines) == len(record["moves"])
    totals: list[dict[str, int]] = [dict.fromkeys(COLOURS.values(), 0) for _ in range(2)]
    for line in lines:
        seat = 0 if line.split(". ", 1)[1].startswith("Ada ") else 1
        for points, colour in _GAINED.findall(line):
            totals[seat][COLOURS[colour]] += int(points)
        for colour, points in _CAPPED.findall(line):
            totals[seat][COLOURS[colour]] += int(points)
    assert totals == expected


def test_the_ratings_script_rebuilds_the_ladder_from_the_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    room = two_games(tmp_path)
    ladder = room.service.community.ladder
    ada = ladder.standing(ADA, "genial")
    cpu = ladder.standing(COMPUTER, "genial")
    assert ada is not None and cpu is not None
    assert ratings.main(["--db", str(tmp_path / "t.db")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "2 finished games, genial, ladder *"
    assert sorted(lines[1:]) == sorted(
        [
            f"  {i}. {name}: {s.points} (2 games, {s.wins} wins)"
            for i, (name, s) in enumerate(
                sorted(
                    [("Ada", ada), ("computer:random", cpu)],
                    key=lambda r: (-r[1].points, r[1].player),
                ),
                1,
            )
        ]
    )


def test_a_team_game_through_the_service_rates_the_two_teams(tmp_path: Path) -> None:
    """Four people play a whole team game through the service: seats 1 and 3 are one team,
    2 and 4 the other. The winners' ratings are Weng & Lin's update for two equal sides
    of two newcomers each (worked out by hand in test_ratings), on the chat's ladder and
    the global one."""
    room = Room(make_service(tmp_path / "t.db"))
    people = ["Ada", "Bob", "Cy", "Dee"]
    for name in people:
        room.ok(name, "/join")
    room.ok("Ada", "/option team")
    room.ok("Ada", "/start")
    assert [s.user for s in room.table().seats] == [f"id-{n.lower()}" for n in people]
    room.play_out(random.Random(5))
    (row,) = room.service.store.archived("chat-1")
    # Who won, from the engine: a team game has two sides, seats 0+2 and 1+3.
    game = replay(Record.from_dict(row["record"]))
    ranking = game.ranking()
    assert game.over and ranking is not None
    assert len(ranking) == 2, "this seed must not end in a tie"
    (winner,) = ranking[0]
    winners = [people[winner], people[winner + 2]]
    losers = [people[1 - winner], people[3 - winner]]
    lowest = {side: min(game.score(side).values()) for side in (0, 1)}
    win_mu, lose_mu, sigma = two_sides_equal(2)
    # By hand (test_ratings): 26.9643 for each winner, 23.0357 for each loser.
    assert (win_mu, lose_mu) == pytest.approx((26.9643, 23.0357), abs=1e-4)
    ladder = room.service.community.ladder
    for scope in ("chat-1", ratings.GLOBAL):
        for names, mu, won in ((winners, win_mu, 1), (losers, lose_mu, 0)):
            for name in names:
                s = ladder.standing(f"id-{name.lower()}", "genial", scope)
                assert s is not None, (scope, name)
                assert (s.mu, s.sigma) == pytest.approx((mu, sigma)), (scope, name)
                assert (s.games, s.wins) == (1, won)
                # Issue 44, item 27: a team game's tracks of 36 are no lowest colour to
                # compare with 18-point games: rated and counted, never averaged.
                assert lowest[0] > 0 and (s.scored, s.best) == (0, 0)
    # Up for the winners, down for the losers, from a newcomer's mu of 25.
    assert win_mu > 25 > lose_mu
    top = room.ok("Ada", "/top")[0].text.splitlines()
    shown_win = round(1000 + 25 * (win_mu - 3 * sigma))
    shown_lose = round(1000 + 25 * (lose_mu - 3 * sigma))
    assert top[1:] == [
        *(f"{i}. {n}: {shown_win} · 1 · 1" for i, n in enumerate(sorted(winners), 1)),
        *(f"{i}. {n}: {shown_lose} · 1 · 0" for i, n in enumerate(sorted(losers), 3)),
    ]


# --- issue 22: survivors of the mutation run --------------------------------------------


def one_game_against(ladder: ratings.Ladder, player: str, at: float) -> None:
    """``player`` beats the random computer at chat-1 in a made-up game."""
    seats = (ratings.SeatResult(player, 0, 1, 5), ratings.SeatResult(COMPUTER, 1, 2, 3))
    ladder.apply(ratings.RatedGame("chat-1", "genial", "standard", at, seats))


def test_top_with_exactly_ten_rows_has_no_more_page(tmp_path: Path) -> None:
    service = make_service(tmp_path / "t.db")
    for n in range(9):  # nine players and the computer: ten rows, one full page
        one_game_against(service.community.ladder, f"p{n}", float(n))
    room = Room(service)
    page = room.ok("Ada", "/top")[0].text.splitlines()
    assert len(page) == 1 + 10
    assert [line.split(".")[0] for line in page[1:]] == [str(k) for k in range(1, 11)]
    assert not any(line.startswith("More:") for line in page)
    assert room.ok("Ada", "/top 2")[0].text.splitlines()[1] == "No players on page 2."
    one_game_against(service.community.ladder, "p9", 9.0)  # the eleventh row
    page = room.ok("Ada", "/top")[0].text.splitlines()
    assert len(page) == 1 + 10 + 1 and page[-1] == "More: /top 2"


def test_a_person_known_only_from_a_seat_they_left_is_found_by_name(tmp_path: Path) -> None:
    """Bob leaves during the game, so the archived seat holds him only as the one who
    left it; he is rated (a loss, last), and /stats and /top know his name, also after a
    restart, which rebuilds the names from the archive."""
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    room.ok("Bob", "/leave")
    room.play_out(random.Random(1))
    (row,) = room.service.store.archived("chat-1")
    assert [s["user"] for s in row["seats"]] == ["id-ada", None]
    assert row["seats"][1]["left_user"] == "id-bob"
    _, lowest = outcome(row)
    assert lowest[1] > 0  # what the computer made of Bob's seat
    # Rated as two newcomers, Ada first and Bob last (test_ratings: 1086 and 954).
    for service in (room.service, make_service(tmp_path / "t.db")):
        again = Room(service)
        (stats,) = again.ok("Cy", "/stats Bob")
        lines = stats.text.splitlines()
        assert lines[0] == "Statistics of Bob:"
        # Issue 44, item 27: the computer finished Bob's seat, so its lowest colour is
        # no average or best game of his.
        assert lines[1] == "Genial: rating 954, games 1, wins 0 (0%)"
        assert again.ok("Cy", "/top")[0].text.splitlines()[1:] == [
            "1. Ada: 1086 · 1 · 1",
            "2. Bob: 954 · 1 · 0",
        ]


def test_the_stats_chart_follows_this_chats_ladder(tmp_path: Path) -> None:
    """Ann beats Bob at g1, then Cat at g2, then Bob at Genial Spezial at g1. Each chat's
    ladder starts everyone afresh, so on each her Genial game shows 1086 (two newcomers,
    worked by hand in test_ratings); on the global ladder her second game counts on top of
    her first. The chart of /stats follows the chat's ladder: one point at g1 and one at
    g2, not her two everywhere; at g2, where she never played Genial Spezial, that chart
    is her global one."""
    service = make_service(tmp_path / "t.db")
    ladder = service.community.ladder
    seat = ratings.SeatResult
    for chat, kind, other, at in (
        ("g1", "genial", "bob", 1.0),
        ("g2", "genial", "cat", 2.0),
        ("g1", "spezial", "bob", 3.0),
    ):
        game = (seat("ann", 0, 1, 5), seat(other, 1, 2, 3))
        ladder.apply(ratings.RatedGame(chat, kind, "standard", at, game))
    everywhere = ladder.history("ann", "genial", ratings.GLOBAL)
    assert len(everywhere) == 2 and everywhere[0] == 1086 and everywhere[1] > 1086
    texts = Texts("en")
    for chat in ("g1", "g2"):
        _, per_game = community.stats(service.community, chat, "ann", texts)
        assert [(g.game, g.history) for g in per_game] == [
            ("genial", [1086]),
            ("spezial", [1086]),  # at g1 its ladder's, at g2 the global one
        ], chat


def test_an_ambiguous_name_is_not_answered_with_one_of_them(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Anna", "/join")
    room.ok("Annabel", "/join")
    room.ok("Anna", "/start")
    room.play_out(random.Random(2))
    # "ann" starts both names and is neither: nobody is picked.
    assert room.error("Cy", "/stats ann") == "Nobody called ann has played here."
    # A whole name wins over the start of another; a longer start picks one.
    assert room.ok("Cy", "/stats anna")[0].text.splitlines()[0] == "Statistics of Anna:"
    assert room.ok("Cy", "/stats Annab")[0].text.splitlines()[0] == "Statistics of Annabel:"


def test_a_turn_that_begins_again_is_not_pinged_again(tmp_path: Path) -> None:
    """A turn ping goes once per turn, by the note the service keeps in the store, not by
    anything a process holds in memory: when the same turn begins a second time (here the
    table's row is put back to the position before Ada's move, as a store restored from a
    copy would be, and a restarted service on it sees Ada make that move again), Bob is
    not pinged twice for it."""
    db = tmp_path / "t.db"
    room = Room(make_service(db))
    room.ok("Bob", "/notify on")
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    store = room.service.store
    key = community.PING.format(user="id-bob")
    assert room.to_move() == "Ada"  # seats in joining order: Ada's turn first
    assert store.note("chat-1", key) is None  # Ada's own turn pings nobody
    before = room.table()
    game = room.game()

    def passes_to_bob(move: object) -> bool:
        trial = games.copy(game)
        events = trial.play(move, 0)  # type: ignore[arg-type]
        return trial.to_move == 1 and any(isinstance(e, TurnStarted) for e in events)

    move = next(m for m in game.legal_moves() if passes_to_bob(m))
    command = f"/play {games.format_move(game, move)}"
    pings = [o for o in room.ok("Ada", command) if o.kind == "ping"]
    assert [(p.user, p.text) for p in pings] == [("id-bob", "Your turn at Test room (Genial).")]
    noted = store.note("chat-1", key)
    assert noted is not None  # this turn's ping, noted beside the table
    # The row goes back to the position before Ada's move (a newer version, so it saves).
    now = store.load("chat-1")
    assert now is not None
    before.version = now.version + 1
    store.save(before, now.version)
    again = Room(make_service(db))  # a restart: nothing of the first process in memory
    for name in ("Ada", "Bob"):
        again.person(name)
    assert again.to_move() == "Ada" and again.game().moves == []
    out = again.ok("Ada", command)
    assert any(o.kind == "turn" for o in out)  # the move is told again ...
    assert [o for o in out if o.kind == "ping"] == []  # ... but Bob was pinged already
    assert len(again.game().moves) == 1
    assert store.note("chat-1", key) == noted
    # The turn after is a new one: when it passes back to Bob, he is pinged again.
    rng = random.Random(6)
    while again.playing() and again.to_move() == "Bob":
        again.play_turn(rng)
    while again.playing() and again.to_move() == "Ada":
        out = again.play_turn(rng)
    assert again.playing()
    assert [o.user for o in out if o.kind == "ping"] == ["id-bob"]
    assert store.note("chat-1", key) != noted
