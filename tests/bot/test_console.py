"""The console chat, run as ``genial-bot`` in a subprocess reading standard input."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def console(tmp_path: Path, lines: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "bot", "console", "--name", "ada", "--seed", "3", *args],
        cwd=tmp_path,
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def test_people_play_in_the_console(tmp_path: Path) -> None:
    result = console(
        tmp_path,
        ["/join", "bob: /join", "/start", "/play 1 A2 B2", "bob: /hand", "hello"],
        "--no-images",
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    out = result.stdout
    assert out.startswith("Genial in the terminal. You are ada.\n")
    assert "[genial] ada sits down.\n" in out
    assert "[genial] bob sits down.\n" in out
    assert "[genial] The game begins: Genial. Seats: 1. ada, 2. bob.\n" in out
    assert "[genial -> ada, privately] Your tiles at console: 1 " in out
    assert "[genial -> bob, privately] Your tiles at console: 1 " in out
    assert "\n[genial] ada placed " in out
    assert " A2 B2: " in out
    assert "[genial] Commands start with a slash, like /help.\n" in out
    # The store is the file the command line named; the game is in it.
    assert (tmp_path / "genial.sqlite3").exists()


def test_a_newcomer_plays_a_computer_with_images(tmp_path: Path) -> None:
    result = console(tmp_path, ["/join", "/addbot", "/start", "/play 1 A2 B2", "/board"])
    assert result.returncode == 0, result.stderr
    out = result.stdout
    # ada's move and the computer's answer are told in one message.
    assert "\n[genial] ada placed A2 B2" not in out or "\n    Computer 1 placed " in out
    assert "\n    Computer 1 placed " in out
    images = [line.split("image: ", 1)[1] for line in out.splitlines() if "image: " in line]
    assert len(images) >= 5
    for name in images:
        path = tmp_path / name
        assert path.read_bytes().startswith(b"\x89PNG")
        assert path.parent == tmp_path / "out"
    # Racks are written as files for their owner only: ada's.
    assert any("-ada-rack-" in name for name in images)


def test_computer_players_finish_a_game(tmp_path: Path) -> None:
    result = console(tmp_path, ["/addbot", "/addbot random", "/start"], "--db", "x.db")
    assert result.returncode == 0, result.stderr
    assert "[genial] Game over: Genial.\n" in result.stdout
    assert (tmp_path / "x.db").exists()


def test_empty_input_ends_cleanly(tmp_path: Path) -> None:
    result = console(tmp_path, [], "--no-images")
    assert result.returncode == 0
    assert result.stdout.startswith("Genial in the terminal.")
    assert result.stderr == ""


def test_a_second_session_resumes_the_game(tmp_path: Path) -> None:
    first = console(tmp_path, ["/join", "bob: /join", "/start"], "--no-images")
    assert first.returncode == 0, first.stderr
    second = console(tmp_path, [], "--no-images")
    assert second.returncode == 0, second.stderr
    lines = second.stdout.splitlines()
    # The board of the running game, then ada's own tiles.
    assert "[genial] Genial after 0 moves." in lines
    assert any(
        line.startswith("[genial -> ada, privately] Your tiles at console: 1 ") for line in lines
    )
