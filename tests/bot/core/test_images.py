"""Pictures in the outbounds: the board with every turn, racks only privately; the boards'
pieces built as the bot starts on a machine that has none (render/prebuilt.py)."""

from __future__ import annotations

import logging
import random
import threading
from pathlib import Path

import pytest

from bot.core import images
from render import prebuilt
from tests.bot.helpers import Room, make_service
from tests.patience import PATIENCE

PNG = b"\x89PNG\r\n\x1a\n"


def test_turns_racks_and_result_carry_images(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db", pictures=True))
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/start")
    room.play_out(random.Random(1))
    kinds: dict[str, int] = {}
    for out in room.log:
        if out.kind in ("turn", "rack", "result"):
            assert out.attachment is not None and out.attachment.data.startswith(PNG), out
            assert out.attachment.filename.endswith(".png")
            kinds[out.kind] = kinds.get(out.kind, 0) + 1
        if out.attachment is not None and out.attachment.filename.startswith("rack"):
            assert out.user is not None and out.kind == "rack"
    assert kinds["result"] == 1 and kinds["turn"] > 20 and kinds["rack"] > 20


def test_spezial_hand_has_an_image(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db", pictures=True))
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    room.ok("Ada", "/option spezial")
    (turn,) = room.ok("Ada", "/start")
    assert turn.attachment is not None and turn.attachment.data.startswith(PNG)
    (rack,) = room.ok("Bob", "/hand")
    assert rack.user == "id-bob" and rack.attachment.data.startswith(PNG)
    assert rack.text.splitlines()[0] == (
        "Genial Spezial at Test room: 20 tiles left to place. Play with /play <cell> <cell>,"
        " for example /play J8 J9."
    )


@pytest.fixture
def no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A machine with no file of the boards' pieces: none beside the package, none named,
    the per-user cache in ``tmp_path/cache``. Returns the cache."""
    monkeypatch.delenv(prebuilt.ENV, raising=False)
    monkeypatch.setattr(prebuilt, "PACKAGED", tmp_path / "package" / "pieces.bin")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_the_bots_start_builds_the_pieces_into_the_cache_once(
    no_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bot.core.images")
    thread = images.prepare_pieces()
    assert thread is not None and thread.daemon
    thread.join(PATIENCE)
    assert not thread.is_alive()
    path = prebuilt.cache_path()
    assert path is not None and path.parent == no_file / "genial-bot"
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary left
    assert prebuilt._open(path) is not None  # a file this code and this Pillow use
    assert prebuilt.find() == path
    lines = ours(caplog, no_file)
    assert len(lines) == 1 and lines[0].levelno == logging.INFO
    assert str(path) in lines[0].getMessage()
    # The next start finds it: nothing to build.
    assert images.prepare_pieces() is None


def test_the_pieces_of_an_earlier_version_are_removed_from_the_cache(no_file: Path) -> None:
    """An upgrade leaves the old version's file (another digest) in the cache: the new file
    replaces it there; other files of the folder stay."""
    folder = no_file / "genial-bot"
    folder.mkdir(parents=True)
    (folder / "pieces-0123456789abcdef.bin").write_bytes(b"genial-bot render pieces, old")
    (folder / "notes.txt").write_text("not ours to remove")
    thread = images.prepare_pieces()
    assert thread is not None
    thread.join(PATIENCE)
    assert not thread.is_alive()
    path = prebuilt.cache_path()
    assert path is not None
    assert sorted(p.name for p in folder.iterdir()) == sorted([path.name, "notes.txt"])


def test_a_named_files_folder_is_left_as_it_is(
    no_file: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    named = tmp_path / "named"
    named.mkdir()
    (named / "pieces-0123456789abcdef.bin").write_bytes(b"someone else's")
    monkeypatch.setenv(prebuilt.ENV, str(named / "pieces-mine.bin"))
    thread = images.prepare_pieces()
    assert thread is not None
    thread.join(PATIENCE)
    assert sorted(p.name for p in named.iterdir()) == [
        "pieces-0123456789abcdef.bin",
        "pieces-mine.bin",
    ]


def test_pieces_that_cannot_be_written_are_logged_not_raised(
    no_file: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache's folder cannot be made (a file is in its place: as root, a read-only
    folder would still be written): one warning, no exception in the thread, no file."""
    no_file.mkdir()
    (no_file / "genial-bot").write_text("a file, not a folder")
    raised: list[object] = []
    monkeypatch.setattr(threading, "excepthook", raised.append)
    caplog.set_level(logging.INFO, logger="bot.core.images")
    thread = images.prepare_pieces()
    assert thread is not None
    thread.join(PATIENCE)
    assert not thread.is_alive()
    assert raised == []
    lines = ours(caplog, no_file)
    assert [r.levelno for r in lines] == [logging.WARNING]
    assert "not written" in lines[0].getMessage()
    assert prebuilt.find() is None


def ours(caplog: pytest.LogCaptureFixture, cache: Path) -> list[logging.LogRecord]:
    """The lines about this test's cache (a bot started by an earlier test in this process
    may still be drawing into the run's own)."""
    return [
        r for r in caplog.records if r.name == "bot.core.images" and str(cache) in r.getMessage()
    ]
