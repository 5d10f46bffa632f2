"""Genial Spezial records (RECORD.md): tokens, the packaged board, and the replay command,
checked against the shared example records (the Genial ones too)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from engine.errors import IllegalMove, InvalidRecord
from engine.record import Record, replay, summary
from engine.spezial import SpezialGame, board_layout
from tests.patience import PATIENCE

ROOT = Path(__file__).resolve().parents[2]
SPEZIAL_EXAMPLES = ["07-spezial-2p", "08-spezial-3p", "09-spezial-4p"]
GENIAL_EXAMPLES = [
    "01-genial-standard-2p",
    "02-genial-standard-2p",
    "03-genial-standard-3p",
    "04-genial-standard-4p",
    "05-genial-team-4p",
    "06-genial-solo-1p",
]


def example_names(shared: Path) -> list[str]:
    return sorted(p.name.removesuffix(".json") for p in (shared / "examples").glob("0*p.json"))


def test_packaged_board_is_the_shared_board(shared: Path) -> None:
    packaged = (ROOT / "engine" / "data" / "spezial_board.json").read_text("utf-8")
    assert json.loads(packaged) == json.loads((shared / "spezial_board.json").read_text("utf-8"))


def test_board_counts() -> None:
    # RULES 3.1: 247 cells, 24 tower spaces, 23 golden spaces; tall 6/8/10 and short
    # 10/12/14 towers for 2/3/4 players.
    layout = board_layout()
    assert (len(layout.area), len(layout.tower_spaces), len(layout.golden)) == (247, 24, 23)
    for players, tall, short in ((2, 6, 10), (3, 8, 12), (4, 10, 14)):
        heights = Counter(t.height for t in layout.towers_for(players))
        assert heights == {"tall": tall, "short": short}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_shuffled_tokens_follow_the_removal_rule(players: int) -> None:
    game = SpezialGame(players, seed=7)
    counts = Counter(t.name for t in game.tokens)
    ones, twos = {2: (2, 2), 3: (3, 2), 4: (3, 3)}[players]
    assert counts == {f"{c}{v}": n for c in "BGOP" for v, n in ((1, ones), (2, twos))}
    assert SpezialGame(players, seed=7).tokens == game.tokens
    assert all(not t.dark for t in game.towers().values())


def test_record_round_trip() -> None:
    game = SpezialGame(3, seed=11)
    game.play_text("m1-m2")
    game.play_text("b4, b3 o")
    rec = game.record()
    assert rec["game"] == "spezial" and rec["players"] == 3
    assert rec["moves"] == ["M1 M2", "B4 B3 O"]
    assert len(rec["tokens"]) == 20  # type: ignore[arg-type]
    again = replay(Record.from_dict(rec))
    assert summary(again) == summary(game)
    assert Record.from_dict(rec).to_dict() == rec


@pytest.mark.parametrize(
    ("players", "tokens", "detail"),
    [
        (2, ["B1"] * 16, "per colour 2 showing 1 and 2 showing 2"),
        (2, [f"{c}{v}" for c in "BGOP" for v in (1, 1, 2, 2)][:-1], "must be 16 tokens"),
        # Three players remove one 2 of each colour, not one 1.
        (3, [f"{c}{v}" for c in "BGOP" for v in (1, 1, 2, 2, 2)], "per colour 3"),
        (4, ["R1", *["B1"] * 23], '"tokens" entry 1'),
        (4, [1] * 24, "must be a list"),
        (2, "B1", "must be a list"),
    ],
)
def test_bad_tokens_are_invalid_records(players: int, tokens: object, detail: str) -> None:
    data = {"game": "spezial", "players": players, "tokens": tokens, "moves": []}
    with pytest.raises(InvalidRecord) as err:
        Record.from_dict(data)
    assert err.value.reason == "invalid_record"
    assert detail in err.value.detail


def test_spezial_records_reject_genial_keys_and_player_counts() -> None:
    for data in (
        {"game": "spezial", "players": 1, "moves": []},
        {"game": "spezial", "players": 2, "mode": "standard", "moves": []},
    ):
        with pytest.raises(InvalidRecord):
            Record.from_dict(data)


def test_replay_names_the_bad_move() -> None:
    data = {"game": "spezial", "players": 2, "seed": 1, "moves": ["M1 M2", "M2 M3"]}
    with pytest.raises(IllegalMove) as err:
        replay(Record.from_dict(data))
    assert (err.value.reason, err.value.move_number) == ("occupied", 1)


def test_every_example_replays_to_its_expected_summary(shared: Path) -> None:
    names = example_names(shared)
    assert len(names) == 9
    for name in names:
        record = Record.from_json((shared / "examples" / f"{name}.json").read_text("utf-8"))
        expected = json.loads((shared / "examples" / f"{name}.expected.json").read_text("utf-8"))
        assert json.loads(json.dumps(summary(replay(record)))) == expected, name


def run_replay(record: str | Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", "replay", str(record)],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        timeout=PATIENCE,
    )


@pytest.mark.parametrize("name", GENIAL_EXAMPLES + SPEZIAL_EXAMPLES)
def test_cli_prints_the_expected_text(shared: Path, name: str) -> None:
    result = run_replay(shared / "examples" / f"{name}.json")
    assert result.returncode == 0, result.stderr
    expected = (shared / "examples" / f"{name}.expected.json").read_text("utf-8")
    assert result.stdout.rstrip("\n") == expected.rstrip("\n")


def test_cli_illegal_move(shared: Path) -> None:
    data = json.loads((shared / "examples" / "07-spezial-2p.json").read_text("utf-8"))
    data["moves"][4] = data["moves"][0]  # move 5 covers the cells of move 1 again
    result = run_replay("-", stdin=json.dumps(data))
    assert (result.returncode, result.stdout) == (2, "")
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("move 5: occupied")


def test_cli_move_after_the_end(shared: Path) -> None:
    data = json.loads((shared / "examples" / "07-spezial-2p.json").read_text("utf-8"))
    data["moves"].append("M1 M2")
    result = run_replay("-", stdin=json.dumps(data))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith(f"move {len(data['moves'])}: game_over")


def test_cli_invalid_record(shared: Path) -> None:
    data = json.loads((shared / "examples" / "07-spezial-2p.json").read_text("utf-8"))
    data["tokens"] = data["tokens"][:-1]
    result = run_replay("-", stdin=json.dumps(data))
    assert (result.returncode, result.stdout) == (2, "")
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("record: invalid_record")
    assert "tokens" in lines[0]
