"""The launcher's own decisions (bot/__main__.py), in this process: the console's
``--metrics`` and ``--db``, whether standard input is something the console can read, the
name it plays under, and the version it reports. Starting the platforms end to end is
tested with them (tests/bot/operator, tests/bot/discord, tests/bot/telegram)."""

from __future__ import annotations

import getpass
import io
import os
import sys
from importlib import metadata
from pathlib import Path

import pytest

from bot import __main__ as launcher
from bot.core.config import ConfigError, Settings


def parsed(*argv: str) -> object:
    return launcher.build_parser().parse_args(list(argv))


def test_the_consoles_metrics_and_store_go_into_the_settings() -> None:
    settings = launcher.with_metrics(parsed("--db", "t.db", "--metrics", "[::1]:9464"), Settings())
    assert (settings.storage, settings.metrics_listen, settings.metrics_port) == (
        "t.db",
        "::1",
        9464,
    )
    assert settings.metrics_port_last == 0  # one port: the one named
    plain = launcher.with_metrics(parsed(), Settings())
    assert (plain.storage, plain.metrics_port) == (Settings().storage, Settings().metrics_port)


@pytest.mark.parametrize("given", ["9464", ":9464", "localhost:", "localhost:0", "h:65536", "h:x1"])
def test_a_metrics_address_without_a_host_and_a_port_is_refused(given: str) -> None:
    with pytest.raises(ConfigError, match=r"^--metrics must be a host and a port, like"):
        launcher.with_metrics(parsed("--metrics", given), Settings())


def test_the_console_reads_a_pipe_or_a_file_and_refuses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read, write = os.pipe()
    try:
        with os.fdopen(read) as pipe:
            monkeypatch.setattr(sys, "stdin", pipe)
            assert launcher.console_input_refusal() is None
    finally:
        os.close(write)
    (tmp_path / "lines.txt").write_text("/join\n")
    with (tmp_path / "lines.txt").open() as lines:
        monkeypatch.setattr(sys, "stdin", lines)
        assert launcher.console_input_refusal() is None
    # A stream handed in within the process (a test's) is read as it is.
    monkeypatch.setattr(sys, "stdin", io.StringIO("/join\n"))
    assert launcher.console_input_refusal() is None
    # /dev/null (a service started with nothing on standard input), or no stdin at all.
    with open(os.devnull) as null:
        monkeypatch.setattr(sys, "stdin", null)
        assert (launcher.console_input_refusal() or "").startswith("the console needs")
    monkeypatch.setattr(sys, "stdin", None)
    assert (launcher.console_input_refusal() or "").startswith("the console needs")


def test_a_descriptor_that_cannot_be_looked_at_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Standard input whose descriptor the system cannot describe (closed under the
    process): nothing the console could read from."""

    def gone(fd: int) -> os.stat_result:
        raise OSError(9, "Bad file descriptor")

    (tmp_path / "lines.txt").write_text("/join\n")
    with (tmp_path / "lines.txt").open() as lines:
        monkeypatch.setattr(sys, "stdin", lines)
        with monkeypatch.context() as only_here:  # os.fstat is everyone's: patched briefly
            only_here.setattr(launcher.os, "fstat", gone)
            refusal = launcher.console_input_refusal()
    assert (refusal or "").startswith("the console needs")


@pytest.mark.parametrize(
    ("login", "name"),
    [
        ("ada", "ada"),
        ("ada lovelace<script>", "adalovelacescript"),
        ("x" * 40, "x" * 32),
        ("***", "you"),
    ],
)
def test_the_console_plays_under_the_login_name_cleaned(
    monkeypatch: pytest.MonkeyPatch, login: str, name: str
) -> None:
    monkeypatch.setattr(getpass, "getuser", lambda: login)
    assert launcher._login_name() == name


def test_without_a_login_name_the_console_says_you(monkeypatch: pytest.MonkeyPatch) -> None:
    def nobody() -> str:
        raise KeyError("uid 4242 has no name")  # a container's user without a passwd entry

    monkeypatch.setattr(getpass, "getuser", nobody)
    assert launcher._login_name() == "you"


def test_the_version_of_a_bare_checkout_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    assert launcher._version() == metadata.version("genial-bot")

    def not_installed(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", not_installed)
    assert launcher._version() == "unknown"


@pytest.mark.parametrize(("argv", "calls"), [((), 1), (("--no-images",), 0)])
def test_the_console_has_the_boards_pieces_built_as_it_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: tuple[str, ...], calls: int
) -> None:
    """The bot's start looks for the file of the boards' pieces and has it built when there
    is none (bot/core/images.py, tested there); text only, no image is drawn: nothing."""
    asked: list[None] = []
    monkeypatch.setattr(launcher, "prepare_pieces", lambda: asked.append(None))
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    args = parsed("--db", str(tmp_path / "t.db"), "--images", str(tmp_path), *argv)
    settings = launcher.with_metrics(args, Settings())
    assert launcher._console(args, settings, "ada") == 0
    assert len(asked) == calls


def test_the_console_settles_its_start_up_before_the_first_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unsettled: list[None]
) -> None:
    """What the console's start built is frozen out of the garbage collector's way once
    (bot/operator/memory.py), images or not."""
    monkeypatch.setattr(launcher, "prepare_pieces", lambda: None)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    args = parsed("--db", str(tmp_path / "t.db"), "--no-images")
    assert launcher._console(args, launcher.with_metrics(args, Settings()), "ada") == 0
    assert len(unsettled) == 1
