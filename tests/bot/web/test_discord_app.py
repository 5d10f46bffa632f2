"""Which Discord application the board speaks for (``DiscordApp.of``): the settings of
``[discord] activity`` and the secrets from the environment, as docs/operating.md ("The
board inside Discord") gives them. The Activity itself is tested in ``test_activity.py``."""

from __future__ import annotations

import logging

import pytest

from bot.core.config import Settings
from bot.web.tokens import DISCORD_TIMEOUT, DiscordApp

ON = Settings(
    discord_activity=True, discord_client_id="4242", discord_api_url="http://127.0.0.1:9/"
)


def test_the_app_of_the_settings_has_their_id_the_secret_and_the_bots_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GENIAL_DISCORD_CLIENT_SECRET", "secret of the test")
    monkeypatch.setenv("GENIAL_DISCORD_TOKEN", "token of the test")
    app = DiscordApp.of(ON)
    assert app is not None
    assert (app.client_id, app.client_secret, app.bot_token, app.api_url, app.timeout) == (
        "4242",
        "secret of the test",
        "token of the test",
        "http://127.0.0.1:9/",
        DISCORD_TIMEOUT,
    )


def test_a_board_without_the_bots_token_has_an_app_with_an_empty_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``genial-bot web`` in a process of its own may run without the bot's token: the
    Activity then knows the table of the person's last press only."""
    monkeypatch.setenv("GENIAL_DISCORD_CLIENT_SECRET", "secret of the test")
    monkeypatch.delenv("GENIAL_DISCORD_TOKEN", raising=False)
    app = DiscordApp.of(ON)
    assert app is not None and app.bot_token == ""


def test_no_app_when_the_activity_is_off_or_has_no_id(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GENIAL_DISCORD_CLIENT_SECRET", "secret of the test")
    assert DiscordApp.of(Settings(discord_client_id="4242")) is None
    assert DiscordApp.of(Settings(discord_activity=True)) is None


def test_an_activity_without_its_secret_is_off_and_the_log_names_the_variable(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv("GENIAL_DISCORD_CLIENT_SECRET", raising=False)
    monkeypatch.setenv("GENIAL_DISCORD_TOKEN", "token of the test")
    with caplog.at_level(logging.WARNING, logger="bot.web.tokens"):
        assert DiscordApp.of(ON) is None
    [record] = caplog.records
    assert record.levelno == logging.WARNING
    assert record.getMessage().startswith(
        "[discord] activity is on, but GENIAL_DISCORD_CLIENT_SECRET is not set"
    )
    assert "the Activity cannot tell who its player is" in record.getMessage()
    assert record.getMessage().endswith("so it is off")
