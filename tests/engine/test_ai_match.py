"""Matches between computer players, and the ``ai`` / ``match`` commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.ai import View, choose_move
from engine.ai.match import Player, match, percentile, run_match
from engine.cli import main
from engine.genial import GenialGame
from engine.moves import Placement
from engine.record import Record, replay


def spy(label: str, log: list[tuple[str, int | None]]) -> Player:
    """A random player that notes which seat it played."""

    def play(view: View, seed: int) -> Placement | object:
        log.append((label, view.seat))
        return choose_move(view, "random", seed)

    return play  # type: ignore[return-value]


def test_seats_alternate_between_games() -> None:
    log: list[tuple[str, int | None]] = []
    result = run_match("x", "y", {"x": spy("x", log), "y": spy("y", log)}, games=2, seed=3)
    assert result["games"] == 2
    seats = {(label, seat) for label, seat in log}
    # Game 1: x in seat 0, y in seat 1; game 2 the other way round.
    assert seats == {("x", 0), ("y", 1), ("x", 1), ("y", 0)}


def test_lone_seat_rotates_one_level_against_the_rest() -> None:
    log: list[tuple[str, int | None]] = []
    result = run_match(
        "x", "y", {"x": spy("x", log), "y": spy("y", log)}, seats=4, games=4, seed=2, lone=True
    )
    # Game n: x in seat n alone, y in the three others.
    assert {seat for label, seat in log if label == "x"} == {0, 1, 2, 3}
    assert result["seconds_per_move"]["y"]["moves"] > 2 * result["seconds_per_move"]["x"]["moves"]
    assert result["wins"]["x"] + result["wins"]["y"] + result["draws"] == 4
    with pytest.raises(ValueError, match="3 or 4 seats"):
        run_match("x", "y", {"x": spy("x", log), "y": spy("y", log)}, games=1, lone=True)


def test_team_game_gives_each_level_a_team() -> None:
    log: list[tuple[str, int | None]] = []
    run_match(
        "x", "y", {"x": spy("x", log), "y": spy("y", log)}, seats=4, mode="team", games=1, seed=1
    )
    assert {seat for label, seat in log if label == "x"} == {0, 2}
    assert {seat for label, seat in log if label == "y"} == {1, 3}


@pytest.mark.parametrize(("players", "mode"), [(2, None), (3, None), (4, "team"), (1, "solo")])
def test_match_sums_up_every_game(players: int, mode: str | None) -> None:
    result = match("greedy", "random", players=players, mode=mode, games=2, seed=5)
    assert result["games"] == 2
    assert sum(result["wins"].values()) + result["draws"] == 2
    assert set(result["wins"]) == set(result["mean_score"]) == {"greedy", "random"}
    # Timings are reported, never judged here (a loaded machine makes any bound flaky);
    # how they are worked out is checked on a fake clock below.
    for timing in result["seconds_per_move"].values():
        assert timing["moves"] > 0


class FakeClock:
    """``perf_counter`` for the match: time moves only when a player says so."""

    def __init__(self) -> None:
        self.now = 100.0

    def perf_counter(self) -> float:
        return self.now


def test_move_times_are_the_players_own(monkeypatch: pytest.MonkeyPatch) -> None:
    # Player x thinks 4 ms on every move; y thinks 1 ms, and 50 ms on every 10th move of
    # its own. Worked out by hand: x's mean and p95 are 4 ms; of y's n moves, n // 10 take
    # 50 ms, so its mean is (n - k) * 1 ms + k * 50 ms over n, and its p95 (nearest rank)
    # is 50 ms once more than 5 % of its moves are slow, else 1 ms.
    clock = FakeClock()
    monkeypatch.setattr("engine.ai.match.time", clock)
    counts = {"x": 0, "y": 0}

    def thinking(label: str) -> Player:
        def play(view: View, seed: int) -> Placement | object:
            counts[label] += 1
            slow = label == "y" and counts[label] % 10 == 0
            clock.now += 0.004 if label == "x" else 0.050 if slow else 0.001
            return choose_move(view, "random", seed)

        return play  # type: ignore[return-value]

    result = run_match("x", "y", {"x": thinking("x"), "y": thinking("y")}, games=2, seed=4)
    times = result["seconds_per_move"]
    assert times["x"] == {"mean": 0.004, "p95": 0.004, "moves": counts["x"]}
    n = counts["y"]
    k = n // 10
    assert times["y"]["moves"] == n
    assert times["y"]["mean"] == round(((n - k) * 0.001 + k * 0.050) / n, 5)
    rank = -(-95 * n // 100)  # nearest rank: the ceil(0.95 n)-th smallest
    assert times["y"]["p95"] == (0.050 if rank > n - k else 0.001)


def test_match_is_reproducible_and_labels_one_level_twice() -> None:
    a = match("random", "random", games=2, seed=9)
    b = match("random", "random", games=2, seed=9)
    assert set(a["wins"]) == {"random/a", "random/b"}
    assert (a["wins"], a["mean_score"]) == (b["wins"], b["mean_score"])


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 21)]  # 1..20: the 95th percentile is the 19th
    assert percentile(values, 0.95) == 19.0
    assert percentile([], 0.95) == 0.0


def test_match_refuses_bad_setups() -> None:
    with pytest.raises(ValueError):
        match("greedy", "random", players=5, games=1)
    with pytest.raises(ValueError, match="unknown level"):
        match("greedy", "genius", games=1)
    with pytest.raises(ValueError, match="at least one game"):
        match("greedy", "random", games=0)


# --- the command line -----------------------------------------------------------------------


def test_match_command_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["match", "--a", "greedy", "--b", "random", "--games", "2", "--seed", "1"]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["games"] == 2 and result["players"] == 2
    assert set(result) >= {"wins", "draws", "mean_score", "seconds_per_move"}


def test_match_command_rejects_an_impossible_mode(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["match", "--a", "greedy", "--b", "random", "--games", "1", "--seed", "1"]
    assert main([*argv, "--mode", "team", "--players", "3"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "team" in captured.err


def test_ai_command_prints_a_legal_move(shared: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = shared / "examples" / "02-genial-standard-2p.json"
    game = replay(Record.from_json(path.read_text(encoding="utf-8")))
    assert isinstance(game, GenialGame) and not game.over
    for level in ("random", "greedy", "strong"):
        assert main(["ai", str(path), "--level", level, "--seed", "3"]) == 0
        text = capsys.readouterr().out.strip()
        game.copy().play_text(text)  # raises if illegal


def test_ai_command_on_a_finished_game(shared: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = shared / "examples" / "01-genial-standard-2p.json"
    assert main(["ai", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "over" in captured.err


def test_ai_command_on_a_bad_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"game": "genial", "players": 2, "moves": ["RG Z9 Z10"]}', encoding="utf-8")
    assert main(["ai", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("move 1:")


def test_workers_play_the_same_games_side_by_side() -> None:
    # Each game's seeds are drawn before it is played, so two processes playing the games
    # give what one does, game for game: the same wins, draws and every side's results.
    one = match("greedy", "random", games=4, seed=11)
    two = match("greedy", "random", games=4, seed=11, workers=2)
    for key in ("wins", "draws", "mean_score"):
        assert two[key] == one[key]
    assert two["seconds_per_move"]["greedy"]["moves"] == one["seconds_per_move"]["greedy"]["moves"]
    with pytest.raises(ValueError, match="at least one worker"):
        match("greedy", "random", games=1, seed=1, workers=0)


def test_match_command_takes_workers(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["match", "--a", "greedy", "--b", "random", "--games", "2", "--seed", "3"]
    assert main([*args, "--workers", "2"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 2
    assert main([*args, "--workers", "0"]) == 2
    assert "at least one worker" in capsys.readouterr().err
