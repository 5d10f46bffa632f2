"""The puzzle in the service (bot/community/puzzles.py): chosen from reviewed finished games, shown
with the mover's own tiles only, answered privately, solved with /puzzle answer."""

from __future__ import annotations

import random
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

import render
from engine.genial import GenialGame
from engine.moves import Placement
from engine.notation import format_genial_move
from engine.review import find_puzzles
from tests.bot.helpers import Clock, Room, make_service, user
from tests.bot.review_fixtures import greedy_game, store_puzzle_game

#: The coloured squares the turn messages show for the colour letters (issue 44, item 32).
SQUARES = {"R": "🟥", "G": "🟩", "B": "🟦", "O": "🟧", "Y": "🟨", "P": "🟪"}


def told(move: str) -> str:
    """A placement as the chat is told it: ``RG A2 B3`` -> ``🟥🟩 A2 B3``."""
    tile, _, cells = move.partition(" ")
    return f"{''.join(SQUARES[c] for c in tile)} {cells}"


#: Every test here runs on SQLite and on PostgreSQL (tests/bot/conftest.py).
pytestmark = pytest.mark.usefixtures("backend")


def test_no_puzzle_before_a_reviewed_game(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    assert room.error("Ada", "/puzzle").startswith("No puzzle yet")
    assert room.error("Ada", "/puzzle answer") == "No puzzle is open here: /puzzle shows one."


def test_a_puzzle_shows_the_board_and_only_the_movers_tiles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    room = Room(make_service(tmp_path / "t.db", pictures=True))
    # The game was played in another chat: a chat without games of its own gets one.
    found, game = store_puzzle_game(room.service.store, "chat-9")
    # What the bot hands the renderer (render's own tests check the drawing).
    drawn: list[tuple[Any, dict[str, Any]]] = []
    real = render.board_png

    def board_png(view: Any, **kw: Any) -> bytes:
        drawn.append((view, kw))
        return real(view, **kw)

    monkeypatch.setattr(render, "board_png", board_png)
    (out,) = room.ok("Ada", "/puzzle")
    mover = game.racks[found.seat]
    # Each tile after its slot, in coloured squares.
    shown = "  ".join(f"{n} {told(t.name + ' ')[:-1]}" for n, t in enumerate(mover, 1))
    assert f"Their tiles: {shown}." in out.text
    # The points of the mover's lowest colour on the score track at that position.
    lowest = min(game.scores[game.side_of(found.seat)])
    assert out.text.startswith(f"Puzzle 1: the player to move has {lowest} in their lowest colour")
    # The picture is the board as a spectator sees it: no rack on it.
    names = ["Seat 1", "Seat 2", "Seat 3"]
    assert out.attachment is not None
    assert out.attachment.data == real(game.view(None), names=names)
    # Worked from the record: the position before the puzzle's move, as a spectator sees
    # it (no seat, no rack), each placement two cells beside the six start symbols, and
    # the seats unnamed.
    record = greedy_game()  # store_puzzle_game's own seed
    played = record.moves[: found.number]
    placements = [m for m in played if m not in ("swap", "keep")]
    ((view, kw),) = drawn
    assert (view.seat, view.rack) == (None, None)
    assert view.moves == tuple(played)
    assert len(view.board) == 6 + 2 * len(placements)
    assert kw == {"names": ["Seat 1", "Seat 2", "Seat 3"]}
    # No name of the other chat's players, no answer.
    assert "P0" not in out.text and found.answer not in out.text
    # Asked again, the same puzzle (it stays open until solved).
    assert room.ok("Bob", "/puzzle")[0].text == out.text


def test_answers_are_private_and_the_solution_names_who_found_it(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    found, game = store_puzzle_game(room.service.store, "chat-1")
    room.ok("Ada", "/puzzle")
    wrong = next(
        p for p in game.legal_placements() if set(p.cells) != set(game.parse(found.answer).cells)
    )
    from engine.notation import format_genial_move

    out = room.ok("Bob", f"/puzzle {format_genial_move(wrong, game.area)}")
    assert [(o.user, o.text) for o in out] == [
        (user("Bob").id, "Not the best placement of puzzle 1: try again.")
    ]
    # In a private chat, with the puzzle's number.
    dm = Room(room.service, chat="dm-ada", title="Ada")
    out = dm.ok("Ada", f"/puzzle 1 {found.answer}")
    assert [(o.user, o.text) for o in out] == [
        (user("Ada").id, "Right: that is the best placement of puzzle 1.")
    ]
    out = room.ok("Ada", "/puzzle 1 RG")
    assert out[0].user == user("Ada").id and out[0].text.startswith("That is not a placement")
    (solved,) = room.ok("Carol", "/puzzle answer")
    assert solved.user is None
    assert solved.text.startswith(f"Puzzle 1: {told(found.answer)} scores {found.points} in ")
    assert solved.text.endswith("\nFound by: Ada.")
    assert f"other placement at most {found.points - found.gap}." in solved.text
    # Solved: answers now only hear so, and the game's only puzzle was posted here.
    assert room.ok("Bob", f"/puzzle 1 {found.answer}")[0].text.startswith("Puzzle 1 is solved")
    assert room.error("Ada", "/puzzle") == (
        "Every puzzle from the games reviewed so far has been shown here: the next finished"
        " game may bring a new one."
    )
    stats = room.ok("Ada", "/stats")[0].text
    assert "Puzzles solved: 1" in stats
    assert "Puzzles solved" not in room.ok("Bob", "/stats")[0].text


def test_forgetting_a_person_forgets_their_puzzle_answers(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    found, _ = store_puzzle_game(room.service.store, "chat-1")
    room.ok("Ada", "/puzzle")
    room.ok("Ada", f"/puzzle {found.answer}")
    room.ok("Ada", "/forget me")
    room.ok("Ada", "/forget me")
    assert room.service.store.puzzles_solved(user("Ada").id) == 0
    [(_, name, solved)] = room.service.store.puzzle_answers(1)
    assert solved and name != "Ada"


def test_the_daily_puzzle_comes_at_its_hour_and_the_next_tells_the_solution(
    tmp_path: Path,
) -> None:
    clock = Clock()  # 1_700_000_000: 14 November 2023, 22:13:20 UTC
    room = Room(make_service(tmp_path / "t.db", clock=clock))
    room.ok("Ada", "/join")
    out = room.ok("Ada", "/option puzzle daily 18:00")
    assert out[-1].text.startswith("A puzzle comes here every day at 18:00 (UTC)")
    # The next 18:00 UTC: 15 November 2023, 1_699_920_000 being that day's midnight.
    first = 1_699_920_000 + 86_400 + 18 * 3600
    assert room.table().due_at == first
    found, _ = store_puzzle_game(room.service.store, "chat-1")
    clock.now = first - 1
    assert room.due(clock.now) == []
    clock.now = first
    (shown,) = room.due(clock.now)
    assert shown.text.startswith("Puzzle 1: the player to move has ")
    assert room.table().due_at == first + 86_400
    # Asked again at the same time (the due work runs again after a restart, say): that
    # day's puzzle is out, posted at its very time, and nothing more comes.
    from bot.community.puzzles import due

    assert due(room.service, "chat-1", first) == []
    room.ok("Bob", f"/puzzle {found.answer}")
    clock.now = first + 86_400
    out = room.due(clock.now)
    # The game had one puzzle: the solution comes, no new puzzle.
    assert [o.text.split("\n")[-1] for o in out] == ["Found by: Bob."]
    assert room.table().due_at == first + 2 * 86_400


def test_the_daily_puzzle_keeps_the_chats_time_zone(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Ada", "/join")
    room.ok("Ada", "/option puzzle daily 18:00 Europe/Berlin")
    # Berlin is an hour ahead of UTC in November: 17:00 UTC on 15 November 2023.
    assert room.table().due_at == 1_699_920_000 + 86_400 + 17 * 3600
    assert room.error("Ada", "/option puzzle daily 18:00 Mars/Olympus").startswith("Say when")
    assert room.error("Ada", "/option puzzle daily noon").startswith("Say when")
    room.ok("Ada", "/option puzzle off")
    assert room.table().options.puzzle == ""


def played_points(game: GenialGame, placement: Placement) -> int:
    """What ``placement`` scores in the mover's lowest colours, by playing it on a copy (the
    rules' own scoring, not the puzzle search's shortcut)."""
    side = game.side_of(game.to_move)
    track = game.scores[side]
    lowest = [i for i, v in enumerate(track) if v == min(track)]
    trial = game.copy()
    trial.play(placement)
    return sum(trial.scores[side][i] - track[i] for i in lowest)


def test_the_solution_compares_every_other_placement_those_sharing_a_cell_too(
    tmp_path: Path,
) -> None:
    """Issue 44, item 18: a puzzle kept from before (greedy game 1's move 40: GG F6 G7 scores
    9 in green, its margin of 4 counted only over placements sharing no cell with it). The
    solution says what the other placements really score, those sharing G7 included."""
    room = Room(make_service(tmp_path / "t.db"))
    record = greedy_game(seed=1)
    game = GenialGame(3, bag=record.bag)
    for text in record.moves[:39]:
        game.play_text(text)
    data = {"number": 39, "seat": game.to_move, "lowest": ["G"], "answer": "GG F6 G7"}
    data |= {"points": 9, "gap": 4, "from": "old", "finished_at": 1.0}
    room.service.store.post_puzzle("chat-1", 1.0, data | {"record": record.to_dict()})
    scores = {
        format_genial_move(p.canonical(), game.area): played_points(game, p)
        for p in game.legal_placements()
    }
    # Both share G7 with the answer: one scores as much, the other 3 less.
    assert scores["GG F6 G7"] == scores["GG G7 G8"] == 9
    assert scores["GY G7 H7"] == 6
    assert sorted(scores.values())[-3:] == [6, 9, 9]
    assert room.ok("Ada", "/puzzle 1 GG G7 G8")[0].text.startswith("Right")
    (solved,) = room.ok("Ada", "/puzzle answer")
    assert solved.text.startswith(
        "Puzzle 1: 🟩🟩 F6 G7 scores 9 in green, and 1 other placement as much; every other"
        " placement at most 6."
    )


def test_placements_scoring_as_much_as_the_answer_are_right_and_named(tmp_path: Path) -> None:
    """Greedy game 4's puzzle: GO with green on B5 scores 6 in green wherever the orange half
    goes (each half scores on its own): three placements, all right."""
    room = Room(make_service(tmp_path / "t.db"))
    found, game = store_puzzle_game(room.service.store, "chat-1", seed=4)
    assert found.answer == "GO B5 A4" and found.points == 6
    scores = {
        format_genial_move(p.canonical(), game.area): played_points(game, p)
        for p in game.legal_placements()
    }
    assert sorted(k for k, v in scores.items() if v == 6) == ["GO B5 A4", "GO B5 A5", "GO B5 B4"]
    best_other = max(v for v in scores.values() if v < 6)
    room.ok("Ada", "/puzzle")
    assert room.ok("Bob", "/puzzle 1 GO B5 A5")[0].text.startswith("Right")
    (solved,) = room.ok("Ada", "/puzzle answer")
    assert solved.text.startswith(
        "Puzzle 1: 🟩🟧 B5 A4 scores 6 in green, and 2 other placements as much; every other"
        f" placement at most {best_other}."
    )


def test_an_answer_no_other_placement_equals_and_everyone_who_found_it(tmp_path: Path) -> None:
    """Greedy game 3's puzzle: OO on G8 H8 scores 9 in orange, the mover's lowest colour
    (7 on the track); no other placement scores as much, the next best 5. Both who
    answered right are named, in the order they answered (a minute apart), one of them by
    the tile's slot. A puzzle not posted is none."""
    clock = Clock()
    room = Room(make_service(tmp_path / "t.db", clock=clock))
    found, game = store_puzzle_game(room.service.store, "chat-1", seed=3)
    assert (found.answer, found.points, found.lowest) == ("OO G8 H8", 9, ("O",))
    scores = {
        format_genial_move(p.canonical(), game.area): played_points(game, p)
        for p in game.legal_placements()
    }
    assert sorted(scores.values())[-2:] == [5, 9]
    assert room.error("Ada", "/puzzle 2 OO G8 H8") == (
        "There is no such puzzle: /puzzle shows the current one."
    )
    room.ok("Ada", "/puzzle")
    # Bob names the tile by its slot among the mover's tiles, as the puzzle shows them.
    slot = 1 + [t.name for t in game.racks[found.seat]].index("OO")
    (right,) = room.ok("Bob", f"/puzzle 1 {slot} G8 H8")
    # Told privately, in the chat it was asked in.
    assert (right.chat, right.user) == ("chat-1", user("Bob").id)
    assert right.text.startswith("Right")
    clock.now += 60
    assert room.ok("Ada", "/puzzle 1 OO H8 G8")[0].text.startswith("Right")
    (solved,) = room.ok("Carol", "/puzzle answer")
    assert solved.text == (
        "Puzzle 1: 🟧🟧 G8 H8 scores 9 in orange; any other placement at most 5."
        "\nFound by: Bob, Ada."
    )


def test_a_puzzle_in_two_lowest_colours_names_both(tmp_path: Path) -> None:
    """Greedy game 13's second puzzle: the mover (seat 3) has 7 in yellow and in purple,
    the lowest of their track [18, 18, 18, 12, 7, 7]; both colours are named, in the
    puzzle and in its solution, and the picture is named after the puzzle."""
    room = Room(make_service(tmp_path / "t.db", pictures=True))
    record = greedy_game(seed=13)
    data = asdict(find_puzzles(record)[1])
    assert data["lowest"] == ("Y", "P") and data["seat"] == 2
    data |= {"lowest": list(data["lowest"]), "from": "chat-1", "finished_at": 1.0}
    room.service.store.post_puzzle("chat-1", 1.0, data | {"record": record.to_dict()})
    (out,) = room.ok("Ada", "/puzzle")
    assert out.text.startswith(
        "Puzzle 1: the player to move has 7 in their lowest colour (yellow, purple)."
    )
    assert out.attachment is not None and out.attachment.filename == "puzzle-1.png"
    (solved,) = room.ok("Ada", "/puzzle answer")
    assert solved.text.startswith(f"Puzzle 1: {told(data['answer'])} scores 7 in yellow, purple")


def test_a_chats_own_older_game_comes_before_another_chats_and_a_review_not_done(
    tmp_path: Path,
) -> None:
    """Chat 1's game (greedy game 4, finished at 200) is reviewed; its later game (at 300)
    waits for its review; chat 2's game (greedy game 3) is reviewed too. Chat 1's puzzle
    is its own game's, past the review not done yet, not chat 2's."""
    room = Room(make_service(tmp_path / "t.db"))
    store = room.service.store
    store_puzzle_game(store, "chat-1", seed=4)
    later = {"chat": "chat-1", "seats": [], "record": greedy_game(seed=5).to_dict()}
    store.archive("chat-1", 300.0, later)
    store.want_review("chat-1", 300.0)
    store_puzzle_game(store, "chat-2", seed=3)
    room.ok("Ada", "/puzzle")
    (solved,) = room.ok("Ada", "/puzzle answer")
    assert solved.text.startswith(f"Puzzle 1: {told('GO B5 A4')} scores 6 in green")


def test_no_daily_puzzle_where_the_table_is_gone(tmp_path: Path) -> None:
    """The due work after a table's steps asks for its daily puzzle even when the table
    was not found (gone since it was claimed, or damaged, so the clock never read its
    option): nothing is due there, and nothing fails."""
    from bot.community.puzzles import due

    service = make_service(tmp_path / "t.db")
    assert due(service, "chat-9", 1_700_000_000.0) == []


def test_puzzle_after_a_reviewed_game_without_a_puzzle_position(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db", seed=3))
    room.ok("Ada", "/join")
    room.ok("Ada", "/addbot")
    room.ok("Ada", "/start")
    room.play_out(random.Random(2))
    [(_, data)] = room.service.store.reviews("chat-1")
    assert data is not None and data["puzzles"] == []  # the game had no puzzle position
    assert room.ok("Ada", "/review")[0].text.startswith("The expert's review (")
    assert room.error("Ada", "/puzzle") == (
        "The games reviewed so far hold no puzzle position (a placement scoring at least 4"
        " more in the lowest colour than every other): the next finished game may bring one."
    )


def test_only_the_host_or_an_admin_sets_the_daily_puzzle(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    room.ok("Ada", "/join")  # Ada opened the table: she is its host
    room.ok("Bob", "/join")
    before = room.table().due_at
    refused = "Only the host (Ada) or a chat admin may do that."
    assert room.error("Bob", "/option puzzle daily 18:00") == refused
    room.ok("Ada", "/option puzzle daily 18:00")
    assert room.table().options.puzzle != "" and room.table().due_at != before
    assert room.error("Bob", "/option puzzle off") == refused
    assert room.table().options.puzzle != ""
    room.ok("Bob", "/option puzzle off", admin=True)
    assert room.table().options.puzzle == ""


def test_the_daily_puzzles_times_across_the_change_to_summer_time() -> None:
    """09:00 in Berlin: CET (UTC+1) until 2026-03-29 01:00 UTC, then CEST (UTC+2); so the
    puzzle of 2026-03-28 comes at 08:00 UTC and the next day's at 07:00 UTC."""
    import datetime

    from bot.community.puzzles import last_time, next_time

    def utc(*when: int) -> float:
        return datetime.datetime(*when, tzinfo=datetime.UTC).timestamp()

    at = "9:00 Europe/Berlin"
    assert last_time(at, utc(2026, 3, 28, 12, 0, 30)) == utc(2026, 3, 28, 8, 0)
    assert next_time(at, utc(2026, 3, 28, 12, 0, 30)) == utc(2026, 3, 29, 7, 0)
    # At the very time: that one is the last, the next is a day on.
    assert last_time(at, utc(2026, 3, 28, 8, 0)) == utc(2026, 3, 28, 8, 0)
    assert next_time(at, utc(2026, 3, 28, 8, 0)) == utc(2026, 3, 29, 7, 0)
    # A second before it: the day before's.
    assert last_time(at, utc(2026, 3, 28, 7, 59, 59)) == utc(2026, 3, 27, 8, 0)
    assert next_time(at, utc(2026, 3, 28, 7, 59, 59)) == utc(2026, 3, 28, 8, 0)
    # The hour and minute of the option, not of the time asked at; whole minutes.
    assert last_time("18:30", utc(2026, 12, 5, 19, 5)) == utc(2026, 12, 5, 18, 30)
    assert last_time(at, utc(2026, 3, 28, 12, 0, 30) + 0.5) == utc(2026, 3, 28, 8, 0)
    assert last_time(at, utc(2026, 3, 28, 7, 59, 59) + 0.5) == utc(2026, 3, 27, 8, 0)
    # Without a zone: UTC.
    assert last_time("18:30", utc(2026, 12, 5, 14, 40)) == utc(2026, 12, 4, 18, 30)
    assert next_time("18:30", utc(2026, 12, 5, 14, 40)) == utc(2026, 12, 5, 18, 30)
    for bad in ("25:00", "9:00 Mars/Olympus", "9", "nine:00"):
        with pytest.raises(ValueError):
            next_time(bad, utc(2026, 12, 5))


def test_a_daily_puzzle_set_during_a_game_leaves_the_games_clock_alone(tmp_path: Path) -> None:
    """A game without a time limit has nothing due: setting the daily puzzle then gives
    it no due time (the clock looks at a game for its turns, not for puzzles)."""
    room = Room(make_service(tmp_path / "t.db", clock=Clock()))
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    assert room.table().due_at is None
    room.ok("Ada", "/option puzzle daily 18:00")
    assert room.table().options.puzzle == "18:00 UTC"
    assert room.table().due_at is None


def test_a_solution_nobody_found_says_so(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db"))
    store_puzzle_game(room.service.store, "chat-1")
    room.ok("Ada", "/puzzle")
    (solved,) = room.ok("Ada", "/puzzle answer")
    assert solved.text.startswith("Puzzle 1: ")
    assert solved.text.endswith("\nNobody found it.")


def test_a_daily_puzzle_in_the_hour_summer_time_skips_keeps_its_hour_the_next_day() -> None:
    """02:30 in Berlin does not exist on 2026-03-29 (the clocks go from 02:00 CET to 03:00
    CEST at 01:00 UTC): that day's puzzle comes at 01:30 UTC (02:30 CET, as the hour
    before the change reads it), and the next day's at 02:30 CEST again, 00:30 UTC."""
    import datetime

    from bot.community.puzzles import last_time, next_time

    def utc(*when: int) -> float:
        return datetime.datetime(*when, tzinfo=datetime.UTC).timestamp()

    at = "2:30 Europe/Berlin"
    assert last_time(at, utc(2026, 3, 29, 12)) == utc(2026, 3, 29, 1, 30)
    assert next_time(at, utc(2026, 3, 29, 12)) == utc(2026, 3, 30, 0, 30)


def test_a_daily_puzzle_in_the_half_hour_summer_time_skips_keeps_its_minute_the_next_day() -> None:
    """Lord Howe Island's clocks go from 02:00 (UTC+10:30) to 02:30 (UTC+11) on
    2026-10-04, at 15:30 UTC the day before: 02:15 does not exist that day, so its puzzle
    comes at 15:45 UTC (02:15 as the half hour before the change reads it, 02:45 on the
    new clock), and the next day's at 02:15 again, 15:15 UTC, not at 02:45."""
    import datetime

    from bot.community.puzzles import last_time, next_time

    def utc(*when: int) -> float:
        return datetime.datetime(*when, tzinfo=datetime.UTC).timestamp()

    at = "2:15 Australia/Lord_Howe"
    assert last_time(at, utc(2026, 10, 4)) == utc(2026, 10, 3, 15, 45)
    assert next_time(at, utc(2026, 10, 4)) == utc(2026, 10, 4, 15, 15)


def test_a_games_puzzles_come_widest_margin_first_then_earliest(tmp_path: Path) -> None:
    """Of one game's puzzle positions the one whose answer leads by most comes first; of
    equal margins, the earlier move."""
    from types import SimpleNamespace

    from bot.community.puzzles import candidates

    store = make_service(tmp_path / "t.db").store
    seats = [{"name": f"P{n}", "user": f"u{n}", "level": None, "left": False} for n in range(3)]
    row = {"chat": "chat-1", "seats": seats, "record": greedy_game().to_dict()}
    store.archive("chat-1", 200.0, row)
    store.want_review("chat-1", 200.0)
    found = [{"number": 5, "gap": 4}, {"number": 9, "gap": 6}, {"number": 3, "gap": 6}]
    assert store.save_review("chat-1", 200.0, {"puzzles": found})
    ranked = candidates(SimpleNamespace(store=store), "chat-1")  # type: ignore[arg-type]
    assert [(p["number"], p["gap"]) for p in ranked] == [(3, 6), (9, 6), (5, 4)]


def test_a_daily_puzzle_time_with_no_puzzle_to_post_moves_on_to_the_next_day(
    tmp_path: Path,
) -> None:
    """No game reviewed yet: at the puzzle's time nothing is said, and the table waits for
    the next day's time (kept in the store, not only in the clock's copy)."""
    clock = Clock()  # 1_700_000_000: 14 November 2023, 22:13:20 UTC
    room = Room(make_service(tmp_path / "t.db", clock=clock))
    room.ok("Ada", "/join")
    room.ok("Ada", "/option puzzle daily 18:00")
    first = 1_699_920_000 + 86_400 + 18 * 3600  # 15 November 2023, 18:00 UTC
    assert room.table().due_at == first
    clock.now = first
    assert room.due(clock.now) == []
    assert room.table().due_at == first + 86_400
