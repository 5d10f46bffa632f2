"""The console chat, run as ``genial-bot`` in a subprocess reading standard input (with the
service tests' quick reviews of finished games: ``tests/bot/quick_bot.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.patience import PATIENCE

ROOT = Path(__file__).resolve().parents[2]


def console(tmp_path: Path, lines: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.bot.quick_bot",
            "console",
            "--name",
            "ada",
            "--seed",
            "3",
            *args,
        ],
        cwd=tmp_path,
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=PATIENCE,
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
        assert path.parent.parent == tmp_path / "out"  # a folder per game
        assert path.parent.name.startswith("game-")
    # Racks are written as files for their owner only: ada's.
    assert any("-ada-rack-" in name for name in images)


def test_computer_players_finish_a_game(tmp_path: Path) -> None:
    """Computers alone do not start a game (it would hold the console until its end);
    once the person who started one leaves, the computers finish it."""
    lines = ["/addbot", "/addbot random", "/start", "/join", "/start", "/leave"]
    result = console(tmp_path, lines, "--db", "x.db")
    assert result.returncode == 0, result.stderr
    assert "Only computer players are seated: /join first, then /start." in result.stdout
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


def test_two_games_then_top_stats_history_and_replay(tmp_path: Path) -> None:
    """Issue 13's done-check: in the console a person plays two games against a computer
    player, then finds themselves in /top, their two games in /stats, the moves in
    /history and a GIF from /replay."""
    import io
    import random

    from bot.console import Console
    from bot.core import games
    from bot.core.config import Settings
    from bot.core.outbound import User
    from bot.service import Service
    from bot.store.sqlite import SQLiteStore
    from engine.record import Record, replay

    service = Service(SQLiteStore(tmp_path / "c.db"), Settings(), rng=random.Random(2))
    out = io.StringIO()
    room = Console(service, User("ada", "ada"), tmp_path / "out", out=out)
    rng = random.Random(5)
    room.say("/join")
    room.say("/addbot random")
    wins = 0
    for _ in range(2):
        room.say("/start")
        while (t := service.table("console")) is not None and t.status == "playing":
            assert t.record is not None
            game = replay(Record.from_dict(t.record))
            text = games.format_move(game, rng.choice(game.legal_moves()))
            room.say(f"/{text}" if text in ("swap", "keep") else f"/play {text}")
        t = service.table("console")
        assert t is not None and t.record is not None
        ranking = replay(Record.from_dict(t.record)).ranking()
        assert ranking is not None
        wins += 0 in ranking[0]
    out.seek(0)
    out.truncate()
    room.say("/top")
    room.say("/stats")
    room.say("/history 3")
    room.say("/replay")
    said = out.getvalue()
    assert "\n    1. ada: " in said or "\n    2. ada: " in said
    assert f" · 2 · {wins}\n" in said  # ada's row: two games, her wins
    assert "Genial: rating " in said and f", games 2, wins {wins} (" in said
    assert "[genial] Genial: the last 3 moves\n" in said
    gif = next(
        line.split("animation: ", 1)[1] for line in said.splitlines() if "animation: " in line
    )
    assert Path(gif).read_bytes().startswith(b"GIF89a")


def test_games_in_the_console_names_the_table_without_a_link(tmp_path: Path) -> None:
    """The console has no messages to jump to: /games names each table, no link."""
    import io
    import random

    from bot.console import Console
    from bot.core.config import Settings
    from bot.core.outbound import User
    from bot.service import Service
    from bot.store.sqlite import SQLiteStore

    service = Service(SQLiteStore(tmp_path / "c.db"), Settings(), rng=random.Random(2))
    out = io.StringIO()
    room = Console(service, User("ada", "ada"), tmp_path / "out", out=out)
    for command in ("/join", "/addbot random", "/start"):
        room.say(command)
    out.seek(0)
    out.truncate()
    room.say("/games")
    assert out.getvalue() == (
        "[genial -> ada, privately] Your running tables (1):\n    console: Genial, your turn\n"
    )


def test_images_of_each_game_have_a_folder_and_are_never_overwritten(tmp_path: Path) -> None:
    """Image numbers began at 0001 on every start, so a second run overwrote the first's
    images in one out/. Each game now writes into a folder of its own, and a later run
    into the same folder numbers on after what is there."""
    lines = ["/join", "/addbot", "/start"]
    first = console(tmp_path, lines, "--db", "a.db")
    assert first.returncode == 0, first.stderr
    written = sorted((tmp_path / "out").rglob("*.png"))
    before = {p: p.read_bytes() for p in written}
    assert written and all(p.parent.name.startswith("game-") for p in written)
    # The same seed deals the same game into the same folder: numbered on, none replaced.
    again = console(tmp_path, lines, "--db", "b.db")
    assert again.returncode == 0, again.stderr
    assert all(p.read_bytes() == data for p, data in before.items())
    assert len(list((tmp_path / "out").rglob("*.png"))) == 2 * len(written)
    # Another seed, another game, another folder.
    other = console(tmp_path, lines, "--db", "c.db", "--seed", "4")
    assert other.returncode == 0, other.stderr
    folders = {p.parent for p in (tmp_path / "out").rglob("*.png")}
    assert len(folders) == 2


def test_help_is_plain_text_and_version_is_told(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = [sys.executable, "-m", "bot"]
    shown = subprocess.run(
        [*run, "--help"], capture_output=True, text=True, env=env, timeout=PATIENCE
    )
    assert shown.returncode == 0 and "``" not in shown.stdout
    assert "--version" in shown.stdout
    told = subprocess.run(
        [*run, "--version"], capture_output=True, text=True, env=env, timeout=PATIENCE
    )
    assert told.returncode == 0
    assert told.stdout.startswith("genial-bot ") and told.stdout.strip() != "genial-bot"
