"""Hostile record files on the command lines: ``python -m engine replay|ai`` and
``python -m render`` exit 2 with one short line on standard error (RECORD.md: an invalid
record), never a traceback, and never echo a huge input."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from engine.cli import main as engine_main
from engine.errors import ERROR_LINE_LIMIT
from render.cli import main as render_main

MB = 1_000_000


def non_utf8(path: Path) -> str:
    path.write_bytes(b'{"game": "genial", "players": 2, "moves": ["RG \xff\xfe A3"]}')
    # 19 + 14 + 10 characters of keys, then '"RG ': the bad byte is at offset 47.
    return "record: invalid_record: not UTF-8 text (byte 47)"


def huge_number(path: Path) -> str:
    # Python refuses to read integers of more than 4,300 digits.
    path.write_text('{"game": "genial", "players": ' + "9" * 5000 + "}")
    return "record: invalid_record: not a record: a number is too long"


def deep_nesting(path: Path) -> str:
    path.write_text("[" * 50_000 + "]" * 50_000)
    return "record: invalid_record: not a record: JSON nested too deep"


def huge_move(path: Path, size: int) -> str:
    path.write_text('{"game": "genial", "players": 2, "moves": ["' + "Z" * size + '"]}')
    # The move is named by its first 57 characters, then cut.
    return f"move 1: cannot_parse: '{'Z' * 57}...': expected a tile and two cells, like 'RG F7 F8'"


HOSTILE: dict[str, Callable[[Path], str]] = {
    "non-utf8": non_utf8,
    "huge-number": huge_number,
    "deep-nesting": deep_nesting,
    "1mb-move": lambda p: huge_move(p, MB),
}


def run(tool: str, path: Path, tmp_path: Path) -> int:
    if tool == "render":
        return render_main([str(path), "--out", str(tmp_path / "board.png")])
    return engine_main([tool, str(path)])


@pytest.mark.parametrize("tool", ["replay", "ai", "render"])
@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_file_gives_one_short_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tool: str, kind: str
) -> None:
    path = tmp_path / "record.json"
    expected = HOSTILE[kind](path)
    assert run(tool, path, tmp_path) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == expected + "\n"
    assert not (tmp_path / "board.png").exists()


def test_a_100_mb_move_is_not_echoed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "record.json"
    expected = huge_move(path, 100 * MB)
    assert engine_main(["replay", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == expected + "\n"
    assert len(err) <= ERROR_LINE_LIMIT + 1
