"""The [telegram] settings, and keeping the token out of logs and errors."""

from __future__ import annotations

import asyncio
import io
import logging
import ssl
import sys
from pathlib import Path

import pytest
from telegram.request import HTTPXRequest

from bot.core.config import (
    ConfigError,
    Settings,
    TelegramSettings,
    load_settings,
    parse_settings,
)
from bot.telegram.app import (
    REDACTED,
    RedactingFormatter,
    Redactor,
    build_application,
    install_logging,
    tls_context,
)

ROOT = Path(__file__).resolve().parents[3]
TOKEN = "5555555:AAFsecretPARTofTHEtoken-xyz"


def test_defaults() -> None:
    settings = Settings()
    assert settings.telegram == TelegramSettings()
    assert settings.telegram.base_url == "https://api.telegram.org"
    assert settings.telegram.mode == "polling"


def test_the_example_config_documents_every_telegram_setting() -> None:
    text = (ROOT / "config.example.toml").read_text()
    section = text.split("[telegram]")[1].split("\n[")[0]
    for name in ("token_env", "base_url", "mode", "webhook_url", "listen", "port"):
        assert f"{name} = " in section, name


def test_a_self_hosted_server_and_a_webhook() -> None:
    settings = parse_settings(
        {
            "telegram": {
                "token_env": "TG_TOKEN",
                "base_url": "http://localhost:8081/",
                "mode": "webhook",
                "webhook_url": "https://bot.example.org/genial",
                "listen": "0.0.0.0",
                "port": 8080,
            }
        }
    )
    assert settings.telegram_token_env == "TG_TOKEN"
    assert settings.telegram == TelegramSettings(
        base_url="http://localhost:8081",
        mode="webhook",
        webhook_url="https://bot.example.org/genial",
        listen="0.0.0.0",
        port=8080,
    )


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"mode": "push"}, "telegram.mode must be polling or webhook, not 'push'"),
        ({"mode": "webhook"}, 'telegram.mode = "webhook" needs telegram.webhook_url'),
        ({"base_url": "api.telegram.org"}, "telegram.base_url must be an address like"),
        ({"webhook_url": "bot.example.org"}, "telegram.webhook_url must be an address like"),
        ({"port": 70000}, "telegram.port must be a port number from 1 to 65535"),
        ({"port": "8443"}, "telegram.port must be a port number from 1 to 65535"),
        ({"token": "123:abc"}, "unknown setting telegram.token"),
    ],
)
def test_bad_telegram_settings(section: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError) as error:
        parse_settings({"telegram": section}, "config.toml")
    assert str(error.value).startswith(f"config.toml: {message}")
    assert "\n" not in str(error.value)


def test_a_token_in_the_config_file_is_refused(tmp_path: Path) -> None:
    # The token belongs in the environment; a config file that holds one is an error that
    # does not repeat it.
    path = tmp_path / "config.toml"
    path.write_text(f'[telegram]\ntoken = "{TOKEN}"\n')
    with pytest.raises(ConfigError) as error:
        load_settings(path)
    assert str(error.value) == f"{path}: unknown setting telegram.token"


def test_the_token_comes_from_the_named_environment_variable() -> None:
    settings = parse_settings({"telegram": {"token_env": "TG_TOKEN"}})
    assert settings.token("telegram", {"TG_TOKEN": TOKEN}) == TOKEN
    assert settings.token("telegram", {"GENIAL_TELEGRAM_TOKEN": TOKEN}) is None
    assert TOKEN not in repr(settings)


def test_redactor() -> None:
    redact = Redactor(TOKEN)
    url = f"https://api.telegram.org/bot{TOKEN}/getMe"
    assert redact(url) == f"https://api.telegram.org/bot{REDACTED}/getMe"
    # The secret half alone is caught too; the bot's id (public) is left.
    assert redact("key AAFsecretPARTofTHEtoken-xyz") == f"key {REDACTED}"
    assert redact("bot 5555555") == "bot 5555555"


def test_log_lines_and_tracebacks_are_redacted() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(RedactingFormatter(Redactor(TOKEN), "%(message)s"))
    logger = logging.getLogger("test.telegram.redaction")
    logger.addHandler(handler)
    try:
        try:
            raise RuntimeError(f"The token `{TOKEN}` was rejected by the server.")
        except RuntimeError:
            logger.exception("calling %s failed", f"/bot{TOKEN}/getMe")
    finally:
        logger.removeHandler(handler)
    out = stream.getvalue()
    assert f"calling /bot{REDACTED}/getMe failed" in out
    assert f"The token `{REDACTED}` was rejected" in out
    assert "AAFsecret" not in out


def test_install_logging_quietens_httpx() -> None:
    stream = io.StringIO()
    handler = install_logging(TOKEN, stream)
    try:
        assert logging.getLogger("httpx").level == logging.WARNING
        logging.getLogger("bot.telegram.app").info("started with %s", TOKEN)
    finally:
        logging.getLogger().removeHandler(handler)
        logging.getLogger("httpx").setLevel(logging.NOTSET)
        logging.getLogger().setLevel(logging.WARNING)
    assert stream.getvalue().rstrip().endswith(f"started with {REDACTED}")


def test_every_bot_api_client_of_a_process_verifies_with_one_tls_context() -> None:
    """httpx builds a TLS context for each client unless given one (20 ms of CPU each): the
    Application's two clients, and every Application the process builds, share one that
    still checks the server's certificate and name."""
    context = tls_context()
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    first = build_application(TOKEN, TelegramSettings(), timeout=7)
    second = build_application(TOKEN, TelegramSettings())
    for app in (first, second):
        get_updates, calls = app.bot._request  # python-telegram-bot's (getUpdates, others)
        for request in (get_updates, calls):
            assert isinstance(request, HTTPXRequest)
            assert request._client_kwargs["verify"] is context
    # The rest as python-telegram-bot's builder makes them: the timeout given for the
    # bot's calls, its default of 5 s elsewhere; 256 connections for the calls, one for
    # getUpdates.
    assert first.bot.request.read_timeout == 7
    assert second.bot.request.read_timeout == 5
    assert first.bot._request[0].read_timeout == 5
    pools = [r._client_kwargs["limits"].max_connections for r in first.bot._request]
    assert pools == [1, 256]


class _Lookups:
    """A finder first on ``sys.meta_path`` that finds nothing and notes each module name the
    import system was asked to look for (a module already imported is never looked for)."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        self.names.append(name)


def test_a_bot_api_request_looks_for_no_module_once_the_bot_has_started() -> None:
    """Every Bot API request goes through httpcore, which asks for ``sniffio`` each time;
    without it installed, each request searched the whole import path (60 µs) before
    falling back. Once the first requests have imported what they need, a request looks for
    no module at all."""
    from tests.bot.telegram.fake_api import FakeBotAPI

    api = FakeBotAPI(TOKEN).start()
    lookups = _Lookups()

    async def requests() -> list[str]:
        app = build_application(TOKEN, TelegramSettings(base_url=api.base_url))
        async with app:
            for _ in range(3):
                await app.bot.get_me()
            sys.meta_path.insert(0, lookups)
            try:
                for _ in range(5):
                    await app.bot.get_me()
            finally:
                sys.meta_path.remove(lookups)
        return lookups.names

    try:
        assert asyncio.run(requests()) == []
    finally:
        api.close()
