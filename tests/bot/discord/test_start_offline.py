"""Started without a network (or with Discord away), the bot stops with one line, not
discord.py's 80-line traceback (issue 23), and exit status 1: not a setting to fix, so a
service manager starts it again (issue 43)."""

from __future__ import annotations

import logging
from pathlib import Path

import discord.http
import pytest

from bot.__main__ import main
from tests.bot.pgserver import free_port


def test_discord_unreachable_at_start_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Discord's API at a closed port of this machine: the connection is refused at once.
    monkeypatch.setattr(discord.http.Route, "BASE", f"http://127.0.0.1:{free_port()}/api/v10")
    monkeypatch.setenv("GENIAL_DISCORD_TOKEN", "MTIz.not-a-real-token.x")
    monkeypatch.chdir(tmp_path)
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        assert main(["discord"]) == 1
    finally:  # the bot's log handler goes with it
        root.handlers[:] = handlers
        root.setLevel(level)
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == "genial-bot: cannot reach Discord (ClientConnectorError)"
    assert not any("Traceback" in line for line in err)
