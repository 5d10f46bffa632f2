"""Ratings at their edges, each the gap a surviving mutant showed (docs/mutation.md): the
errors of a bad game, the ladder's counters, bests over several games and seats, tables of
three players and of Genial Spezial, damaged archive rows, and the ``python -m
bot.community.ratings`` script's options.

Expected results come from the shared examples' expected files (places and lowest
colours) and from the two-newcomer update worked out by hand in test_ratings (1086 for the
winner, 954 for the loser).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from bot.community import ratings
from bot.community.ratings import (
    Ladder,
    RatedGame,
    SeatResult,
    computer_key,
    from_archive,
    from_table,
)
from bot.core.table import Options, Seat, Table
from bot.store import SQLiteStore
from engine.record import Record, replay


def _record(shared: Path, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((shared / "examples" / f"{name}.json").read_text())
    return data


def _table(record: dict[str, Any], seats: list[Seat], chat: str = "g1") -> dict[str, Any]:
    return Table(chat, status="playing", seats=seats, options=Options(), record=record).to_dict()


def _row(record: dict[str, Any], seats: list[Seat], chat: str, at: float) -> dict[str, Any]:
    """An archived game as ``Store.archived`` gives it back."""
    return {"chat": chat, "finished_at": at, "seats": [asdict(s) for s in seats], "record": record}


def test_a_bad_game_says_what_is_wrong() -> None:
    one = (SeatResult("ann", 0, 1, 5),)
    with pytest.raises(ValueError, match=r"^unknown game 'chess'$"):
        RatedGame("g1", "chess", "standard", 1.0, one)
    with pytest.raises(ValueError, match=r"^unknown mode 'duo'$"):
        RatedGame("g1", "genial", "duo", 1.0, one)
    with pytest.raises(ValueError, match=r"^a game has seats$"):
        RatedGame("g1", "genial", "standard", 1.0, ())


def test_the_ladder_counts_every_game_it_was_given() -> None:
    ladder = Ladder()
    rated = (SeatResult("ann", 0, 1, 5), SeatResult("bob", 1, 2, 3))
    solo = (SeatResult("ann", 0, 1, 9),)
    computers = (
        SeatResult(computer_key("easy"), 0, 1, 5),
        SeatResult(computer_key("hard"), 1, 2, 3),
    )
    for n, (mode, seats) in enumerate(
        (("standard", rated), ("solo", solo), ("standard", computers))
    ):
        ladder.apply(RatedGame("g1", "genial", mode, float(n), seats))
    assert ladder.games == 3  # a rated game, a solo game and one of computers alone


def test_no_history_before_a_first_game() -> None:
    assert Ladder().history("ann", "genial") == []
    assert Ladder().history("ann", "genial", "g1") == []


def test_the_best_game_is_the_best_of_all_not_the_last() -> None:
    ladder = Ladder()
    for at, ann_lowest in ((1.0, 12), (2.0, 7)):
        seats = (SeatResult("ann", 0, 1, ann_lowest), SeatResult("bob", 1, 2, 3))
        ladder.apply(RatedGame("g1", "genial", "standard", at, seats))
    ann = ladder.standing("ann", "genial", "g1")
    assert ann is not None
    assert (ann.games, ann.best, ann.lowest_sum) == (2, 12, 19)


def test_a_level_at_two_seats_keeps_the_better_seats_lowest_colour() -> None:
    easy = computer_key("easy")
    seats = (SeatResult("ann", 0, 1, 10), SeatResult(easy, 1, 2, 9), SeatResult(easy, 2, 3, 4))
    ladder = Ladder()
    ladder.apply(RatedGame("g1", "genial", "standard", 1.0, seats))
    s = ladder.standing(easy, "genial", "g1")
    assert s is not None
    assert (s.games, s.best, s.lowest_sum) == (1, 9, 9)


def test_from_a_finished_three_player_table(shared: Path) -> None:
    # Example 03's expected result: seat 2 first (lowest 10), seat 3 second (9), seat 1
    # last (7); every seat is a side of its own.
    seats = [Seat("Ann", user="u1"), Seat("Bob", user="u2"), Seat("Easy", level="easy")]
    rated = from_table(_table(_record(shared, "03-genial-standard-3p"), seats), 7.0)
    assert rated == RatedGame(
        "g1", "genial", "standard", 7.0,
        (SeatResult("u1", 0, 3, 7), SeatResult("u2", 1, 1, 10),
         SeatResult("computer:easy", 2, 2, 9)),
    )  # fmt: skip


def test_a_seat_left_by_nobody_known_does_not_stop_the_seats_after_it(shared: Path) -> None:
    seats = [Seat("Ann", level="easy", left=True), Seat("Bob", user="u2"), Seat("Cy", user="u3")]
    rated = from_table(_table(_record(shared, "03-genial-standard-3p"), seats), 7.0)
    assert rated is not None
    assert rated.seats == (SeatResult("u2", 1, 1, 10), SeatResult("u3", 2, 2, 9))


def test_a_genial_spezial_table_is_rated_as_a_standard_game(shared: Path) -> None:
    # Example 07 (its record names no mode): seat 2 wins, lowest 4 against 2.
    seats = [Seat("Ann", user="u1"), Seat("Bob", user="u2")]
    rated = from_table(_table(_record(shared, "07-spezial-2p"), seats), 3.0)
    assert rated == RatedGame(
        "g1", "spezial", "standard", 3.0, (SeatResult("u1", 0, 2, 2), SeatResult("u2", 1, 1, 4))
    )


def test_a_bad_record_is_named_with_its_table(shared: Path) -> None:
    record = _record(shared, "01-genial-standard-2p")
    record["moves"] = [*record["moves"][:3], "nonsense"]
    seats = [Seat("Ann", user="u1"), Seat("Bob", user="u2")]
    with pytest.raises(ValueError, match=r"^table 'g1': bad record: "):
        from_table(_table(record, seats), 1.0)


def test_a_table_without_seats_is_refused_for_its_seats(shared: Path) -> None:
    table = {"chat": "g1", "record": _record(shared, "01-genial-standard-2p")}
    with pytest.raises(ValueError, match=r"^0 seats for a game of 2 players$"):
        from_table(table, 1.0)


def test_an_archived_game_keeps_its_time(shared: Path) -> None:
    seats = [Seat("Ann", user="u1"), Seat("Bob", user="u2")]
    row = _row(_record(shared, "01-genial-standard-2p"), seats, "g1", 20.5)
    rated = from_archive(row)
    assert rated is not None and rated.finished_at == 20.5
    # A row without its time (none this bot writes) is still a game, at time 0.
    del row["finished_at"]
    rated = from_archive(row)
    assert rated is not None and rated.finished_at == 0.0
    assert [s.player for s in rated.seats] == ["u1", "u2"]


def test_an_archived_game_handed_over_is_not_replayed(
    shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # At the end of a game the service holds the game played: the record is not replayed
    # (a long game's replay is the cost saved). Example 01: Ann first with 5, Bob 4.
    record = _record(shared, "01-genial-standard-2p")
    played = replay(Record.from_dict(record))

    def refuse(_: Record) -> None:
        raise RuntimeError("replayed although the game was handed over")

    monkeypatch.setattr(ratings, "replay", refuse)
    seats = [Seat("Ann", user="u1"), Seat("Bob", user="u2")]
    rated = from_archive(_row(record, seats, "g1", 7.0), played)
    assert rated is not None
    assert rated.seats == (SeatResult("u1", 0, 1, 5), SeatResult("u2", 1, 2, 4))


def test_damaged_and_older_archive_rows(shared: Path) -> None:
    record = _record(shared, "01-genial-standard-2p")
    # Seats that are not seats: the row is skipped, not fatal.
    assert from_archive({"chat": "g1", "finished_at": 1.0, "seats": ["Ann", "Bob"],
                         "record": record}) is None  # fmt: skip
    # Seats written before they kept ``left_user``: rated as they are.
    older = [{"name": "Ann", "user": "u1", "level": None, "left": False},
             {"name": "Bob", "user": "u2", "level": None, "left": False}]  # fmt: skip
    rated = from_archive({"chat": "g1", "finished_at": 1.0, "seats": older, "record": record})
    assert rated is not None
    assert rated.seats == (SeatResult("u1", 0, 1, 5), SeatResult("u2", 1, 2, 4))


# --- python -m bot.community.ratings ------------------------------------------------------------


def test_the_script_explains_itself(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        ratings.main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m bot.community.ratings ")
    flat = " ".join(out.split())
    assert (
        "rebuild the ratings from the stored finished games and print the top of a ladder" in flat
    )
    assert "--db DB the bot's store (an SQLite file)" in flat
    assert "--chat CHAT a chat's ladder (default: everyone)" in flat


@pytest.mark.parametrize("argv", [[], ["--db", "x.db", "--game", "chess"]])
def test_the_script_refuses_what_it_cannot_do(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as info:
        ratings.main(argv)
    assert info.value.code == 2
    assert list(tmp_path.iterdir()) == []  # no store was made


def test_the_script_prints_one_chats_ladder(
    shared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """At chat A, Ann beats Bob, who left (example 01: seat 1 wins): two newcomers, 1086
    and 954 (test_ratings). Chat B has six more games of twelve other people."""
    record = _record(shared, "01-genial-standard-2p")
    db = tmp_path / "t.db"
    store = SQLiteStore(db)
    bob = Seat("Bob", level="easy", left=True, left_user="u-bob")
    store.archive("A", 1.0, _row(record, [Seat("Ann", user="u-ann"), bob], "A", 1.0))
    for n in range(6):
        pair = [Seat(f"P{2 * n}", user=f"p{2 * n}"), Seat(f"P{2 * n + 1}", user=f"p{2 * n + 1}")]
        store.archive("B", 2.0 + n, _row(record, pair, "B", 2.0 + n))
    store.close()
    assert ratings.main(["--db", str(db), "--chat", "A"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "1 finished games, genial, ladder A",
        "  1. Ann: 1086 (1 games, 1 wins)",
        "  2. Bob: 954 (1 games, 0 wins)",
    ]
    assert ratings.main(["--db", str(db), "--chat", "A", "--rows", "1"]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == ["  1. Ann: 1086 (1 games, 1 wins)"]
    # Twelve people at B: the ten best by default. The six winners (1086) come first, by
    # their keys, then the losers (954).
    assert ratings.main(["--db", str(db), "--chat", "B"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "6 finished games, genial, ladder B"
    assert len(lines) == 1 + 10
    assert lines[1] == "  1. P0: 1086 (1 games, 1 wins)"
    assert lines[2] == "  2. P10: 1086 (1 games, 1 wins)"
    assert lines[6] == "  6. P8: 1086 (1 games, 1 wins)"
    assert lines[7] == "  7. P1: 954 (1 games, 0 wins)"


def test_the_script_prints_the_ladder_of_inline_games(
    shared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two Telegram inline messages are two tables, one ladder (issue 49): Ann beats Bob
    at one, Cat beats Dan at the other, all newcomers (test_ratings: 1086 and 954); a
    group's game (Eve beats Fay at A) stays off it."""
    record = _record(shared, "01-genial-standard-2p")
    db = tmp_path / "t.db"
    store = SQLiteStore(db)
    games = [
        ("Ann", "Bob", "inline~0123456789abcdef"),
        ("Cat", "Dan", "inline~fedcba9876543210"),
        ("Eve", "Fay", "A"),
    ]
    for n, (winner, loser, chat) in enumerate(games):
        at = 1.0 + n
        seats = [Seat(winner, user=f"u-{winner.lower()}"), Seat(loser, user=f"u-{loser.lower()}")]
        store.archive(chat, at, _row(record, seats, chat, at))
    store.close()
    assert ratings.main(["--db", str(db), "--chat", "inline"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "2 finished games, genial, ladder inline",
        "  1. Ann: 1086 (1 games, 1 wins)",
        "  2. Cat: 1086 (1 games, 1 wins)",
        "  3. Bob: 954 (1 games, 0 wins)",
        "  4. Dan: 954 (1 games, 0 wins)",
    ]


# --- issue 44, item 27: what the lowest colour is compared with ----------------------------


def test_a_team_games_tracks_of_36_stay_out_of_the_lowest_colour() -> None:
    ladder = Ladder()
    team = (
        SeatResult("ann", 0, 1, 30),
        SeatResult("bob", 1, 2, 20),
        SeatResult("cy", 0, 1, 30),
        SeatResult("dee", 1, 2, 20),
    )
    ladder.apply(RatedGame("g1", "genial", "team", 1.0, team))
    standard = (SeatResult("ann", 0, 1, 12), SeatResult("bob", 1, 2, 7))
    ladder.apply(RatedGame("g1", "genial", "standard", 2.0, standard))
    ann = ladder.standing("ann", "genial", "g1")
    assert ann is not None
    # Two games rated and won, but only the 18-point game's 12 is a lowest colour: not
    # a best of 30, nor an average of (30 + 12) / 2 = 21.
    assert (ann.games, ann.wins, ann.scored, ann.best, ann.average_lowest) == (2, 2, 1, 12, 12.0)


def test_a_game_a_computer_finished_is_no_lowest_colour_of_the_leaver() -> None:
    ladder = Ladder()
    left = (SeatResult("ann", 0, 1, 15, left=True), SeatResult("bob", 1, 2, 10))
    ladder.apply(RatedGame("g1", "genial", "standard", 1.0, left))
    ann = ladder.standing("ann", "genial", "g1")
    assert ann is not None
    # A game and a loss for leaving, but the computer's 15 is not Ann's.
    assert (ann.games, ann.wins, ann.scored, ann.best, ann.average_lowest) == (1, 0, 0, 0, 0.0)
    ladder.apply(
        RatedGame(
            "g1",
            "genial",
            "standard",
            2.0,
            (SeatResult("ann", 0, 2, 8), SeatResult("bob", 1, 1, 9)),
        )
    )
    ann = ladder.standing("ann", "genial", "g1")
    assert ann is not None
    assert (ann.games, ann.scored, ann.best, ann.average_lowest) == (2, 1, 8, 8.0)
