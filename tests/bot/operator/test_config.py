"""Settings: defaults, the documented example, and one-line errors."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.core.config import ConfigError, Settings, load_settings, parse_settings
from tests.patience import PATIENCE

ROOT = Path(__file__).resolve().parents[3]


def test_example_documents_the_defaults() -> None:
    # Its paths are taken from its folder, as every config file's are.
    defaults = dataclasses.replace(
        Settings(), storage=str(ROOT / "genial.sqlite3"), images=str(ROOT / "out")
    )
    assert load_settings(ROOT / "config.example.toml", environ={}) == defaults


def test_no_file_means_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert load_settings() == Settings()


def test_settings_are_read() -> None:
    s = parse_settings(
        {
            "bot": {"storage": "/var/lib/genial.db", "language": "FR", "timeout": "24h"},
            "computer": {"levels": ["greedy", "strong"], "default": "strong"},
            "console": {"images": "pics", "name": "ada"},
            "telegram": {"token_env": "TG"},
        }
    )
    assert (s.storage, s.language, s.timeout) == ("/var/lib/genial.db", "fr", 86400)
    assert Settings().outage_credit == 120
    for text, seconds in (("10m", 600), ("off", 0), ("1h", 3600)):
        assert parse_settings({"bot": {"outage_credit": text}}).outage_credit == seconds
    # A PostgreSQL store's wait for a pooled connection: the store's own default, 5 s.
    assert Settings().store_wait == 5.0
    for text, wait in (("5s", 5.0), ("1.5s", 1.5), ("500ms", 0.5), ("10ms", 0.01), ("60s", 60)):
        assert parse_settings({"bot": {"store_wait": text}}).store_wait == wait
    assert (s.levels, s.level, s.images, s.name) == (("greedy", "strong"), "strong", "pics", "ada")
    assert s.token("telegram", {"TG": "123:abc"}) == "123:abc"
    assert s.token("discord", {"TG": "123:abc"}) is None
    for host in ("0.0.0.0", "::1", "localhost", "bot-1.example.org"):
        assert parse_settings({"metrics": {"listen": host}}).metrics_listen == host


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"bot": {"langauge": "en"}}, "unknown setting bot.langauge (did you mean bot.language?)"),
        ({"server": {}}, "unknown section [server]"),
        ({"metrcis": {}}, "unknown section [metrcis] (did you mean [metrics]?)"),
        ({"metrics": {"adress": "x"}}, "unknown setting metrics.adress\n"),
        (
            {"log": {"level": "loud"}},
            "log.level must be one of debug, info, warning, error, not 'loud'",
        ),
        ({"log": {"format": "xml"}}, "log.format must be one of text, json, not 'xml'"),
        ({"log": {"format": 1}}, "log.format must be a non-empty text"),
        ({"metrics": {"port": 70000}}, "metrics.port must be a port number from 1 to 65535"),
        ({"telegram": {"port": "8443"}}, "telegram.port must be a port number"),
        ({"discord": {"dm": "yes"}}, "discord.dm must be true or false"),
        (
            {"metrics": {"listen": "127.0.0.1:9464"}},
            "metrics.listen must be an address like 127.0.0.1 (the port goes in metrics.port),"
            " not '127.0.0.1:9464'",
        ),
        ({"telegram": {"listen": "300.1.1.1"}}, "telegram.listen must be an address like"),
        ({"telegram": {"listen": "bot host"}}, "telegram.listen must be an address like"),
        ({"bot": {"language": "es"}}, "bot.language must be one of en, de, nl, fr"),
        ({"bot": {"timeout": "soon"}}, "bot.timeout 'soon' is not a duration"),
        ({"bot": {"away_days": 40}}, "bot.away_days must be a whole number of days from 0 to 31"),
        ({"bot": {"away_days": "3d"}}, "bot.away_days must be a whole number of days"),
        ({"bot": {"timeout": True}}, "bot.timeout must be a duration"),
        # A bare number was taken as hours, silently: the unit is asked for.
        (
            {"bot": {"timeout": 30}},
            'bot.timeout 30 has no unit: write "30m" or "30h" (a duration with its unit'
            ' from 1 minute to 14 days, like "30m", "24h", "2d", or "off")',
        ),
        ({"bot": {"timeout": "30"}}, "bot.timeout '30' has no unit"),
        # 30 s and 15 days are durations, outside the bounds of a turn.
        (
            {"bot": {"timeout": "30s"}},
            "bot.timeout '30s' is shorter than 1 minute: it must be a duration with its"
            ' unit from 1 minute to 14 days, like "30m", "24h", "2d", or "off"',
        ),
        ({"bot": {"timeout": "15d"}}, "bot.timeout '15d' is longer than 14 days: it must be"),
        (
            {"bot": {"outage_credit": "1m"}},
            "bot.outage_credit '1m' is shorter than 2 minutes: it must be a duration with its"
            ' unit from 2 minutes to 14 days, like "2m", "10m", or "off"',
        ),
        ({"bot": {"outage_credit": 5}}, "bot.outage_credit 5 has no unit"),
        ({"bot": {"outage_credit": "soon"}}, "bot.outage_credit 'soon' is not a duration"),
        (
            {"bot": {"store_wait": 5}},
            "bot.store_wait '5' is not seconds or milliseconds with the unit, from 10ms to 60s,"
            ' like "5s" or "500ms"',
        ),
        ({"bot": {"store_wait": "2m"}}, "bot.store_wait '2m' is not seconds or milliseconds"),
        ({"bot": {"store_wait": "5ms"}}, "bot.store_wait '5ms' is out of bounds: it must be"),
        ({"bot": {"store_wait": "61s"}}, "bot.store_wait '61s' is out of bounds: it must be"),
        ({"bot": {"storage": ""}}, "bot.storage must be a non-empty text"),
        ({"computer": {"levels": []}}, "computer.levels must be a list"),
        ({"computer": {"default": "strong", "levels": ["greedy"]}}, "computer.default 'strong'"),
        ({"bot": "x"}, "bot must be a section"),
    ],
)
def test_bad_settings_are_named(data: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_settings(data, "config.toml")
    text = str(info.value)
    assert message in text + "\n"
    assert text.startswith("config.toml: ")
    assert "\n" not in text


def test_not_toml(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[bot\nstorage = 1\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the config file"):
        load_settings(tmp_path / "nope.toml")


def run_bot(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m bot`` with ``args`` in an environment of the test's own (``None``: this
    process's). A coverage run's own variables pass through, so a measurement with
    subprocesses tracked counts what these processes run."""
    if env is not None:
        env = {**{k: v for k, v in os.environ.items() if k.startswith("COVERAGE_")}, **env}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=cwd,
        input="",
        capture_output=True,
        text=True,
        timeout=PATIENCE,
        env=env,
    )


def test_bad_config_exits_2_with_one_line(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text('[bot]\nlanguage = "klingon"\n')
    result = run_bot(cwd=tmp_path, env={"PYTHONPATH": str(ROOT)})
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines == ["genial-bot: config.toml: bot.language must be one of en, de, nl, fr"]


def test_platform_without_token_exits_2(tmp_path: Path) -> None:
    result = run_bot("telegram", cwd=tmp_path, env={"PYTHONPATH": str(ROOT)})
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "genial-bot: set the environment variable GENIAL_TELEGRAM_TOKEN to the telegram bot's token"
    ]


def test_paths_are_taken_from_the_config_files_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "etc"
    folder.mkdir()
    (folder / "bot.toml").write_text('[bot]\nstorage = "data/genial.sqlite3"\n')
    monkeypatch.chdir(tmp_path)
    s = load_settings("etc/bot.toml", environ={})
    # The default of a setting left out stays in the current folder.
    assert (s.storage, s.images) == ("etc/data/genial.sqlite3", "out")
    (folder / "bot.toml").write_text(
        '[bot]\nstorage = "postgresql://genial@127.0.0.1/genial"\n[console]\nimages = "/srv/out"\n'
    )
    s = load_settings(folder / "bot.toml", environ={})
    assert (s.storage, s.images) == ("postgresql://genial@127.0.0.1/genial", "/srv/out")
    # A mistyped URL stays as written, so the store refuses it rather than make a file.
    (folder / "bot.toml").write_text('[bot]\nstorage = "pgsql://db/genial"\n')
    assert load_settings(folder / "bot.toml", environ={}).storage == "pgsql://db/genial"


def test_the_environment_wins_over_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[bot]\nstorage = "a.db"\nlanguage = "de"\n[metrics]\nport = 1\n')
    env = {
        "GENIAL_BOT__STORAGE": "postgresql://genial@db:5432/genial",
        "GENIAL_METRICS__PORT": "9464",
        "GENIAL_DISCORD__DM": "true",
        "GENIAL_COMPUTER__LEVELS": '["greedy", "strong"]',
        "GENIAL_COMPUTER__DEFAULT": "strong",
        "GENIAL_LOG__FORMAT": "json",
        "GENIAL_BOT__STORE_WAIT": "250ms",  # no TOML value: read as the text it is
        "GENIAL_TELEGRAM_TOKEN": "not a setting: one underscore",
    }
    s = load_settings(path, environ=env)
    assert s.storage == "postgresql://genial@db:5432/genial"
    assert (s.metrics_port, s.discord_dm, s.language) == (9464, True, "de")
    assert (s.levels, s.level, s.log_format) == (("greedy", "strong"), "strong", "json")
    assert s.store_wait == 0.25
    # Without the environment: the file's own, its path from its folder.
    assert load_settings(tmp_path / "config.toml", environ={}).storage == str(tmp_path / "a.db")
    # A setting that needs another: one from the file, one from the environment.
    path.write_text('[telegram]\nwebhook_url = "https://bot.example.org/genial"\n')
    s = load_settings(path, environ={"GENIAL_TELEGRAM__MODE": "webhook"})
    assert (s.telegram.mode, s.telegram.webhook_url) == (
        "webhook",
        "https://bot.example.org/genial",
    )
    # Without a file: the environment alone.
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(tmp_path / "empty")
    s = load_settings(None, environ=env)
    assert (s.storage, s.metrics_port) == ("postgresql://genial@db:5432/genial", 9464)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"GENIAL_BOT__STORGE": "x.db"},
            "environment (GENIAL_BOT__STORGE): unknown setting bot.storge"
            " (did you mean bot.storage?)",
        ),
        (
            {"GENIAL_METRICS__PORT": "lots"},
            "environment (GENIAL_METRICS__PORT): metrics.port must be a port number",
        ),
        (
            {"GENIAL_SERVER__PORT": "1"},
            "environment (GENIAL_SERVER__PORT): unknown section [server]",
        ),
        (
            {"GENIAL_COMPUTER__DEFAULT": "wizard"},
            "environment (GENIAL_COMPUTER__DEFAULT): computer.default 'wizard' is not one of",
        ),
    ],
)
def test_a_bad_environment_variable_is_named(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(ROOT / "config.example.toml", environ=env)
    assert str(info.value).startswith(message)


def test_check_config_says_ok_or_what_is_wrong(tmp_path: Path) -> None:
    env = {"PYTHONPATH": str(ROOT)}
    good = run_bot("check-config", str(ROOT / "config.example.toml"), cwd=tmp_path, env=env)
    assert (good.returncode, good.stdout, good.stderr) == (
        0,
        f"{ROOT / 'config.example.toml'}: ok\n",
        "",
    )
    (tmp_path / "config.toml").write_text('[bot]\ntimeout = "5 parsecs"\n[computr]\n')
    bad = run_bot("check-config", cwd=tmp_path, env=env)
    assert (bad.returncode, bad.stdout) == (2, "")
    assert bad.stderr.splitlines() == [
        "genial-bot: config.toml: unknown section [computr] (did you mean [computer]?)"
    ]
    (tmp_path / "config.toml").write_text('[computer]\nlevels = ["greedy", "wizard"]\n')
    bad = run_bot("--config", "config.toml", "check-config", cwd=tmp_path, env=env)
    assert bad.returncode == 2
    assert bad.stderr.startswith("genial-bot: config.toml: computer.levels: 'wizard' is not one")
    (tmp_path / "config.toml").write_text('[bot]\nstorage = "pgsql://genial:pw@db/genial"\n')
    bad = run_bot("check-config", cwd=tmp_path, env=env)
    assert (bad.returncode, bad.stderr) == (
        2,
        "genial-bot: config.toml: bot.storage 'pgsql://genial@db/genial' is not a storage"
        " location; use a postgresql:// URL or a file path\n",
    )
    assert not (tmp_path / "pgsql:").exists()
    (tmp_path / "config.toml").write_text('[computer]\nlevels = ["greedy", "wizard"]\n')
    bad = run_bot("--config", "config.toml", "check-config", cwd=tmp_path, env=env)
    # The same check at start: the bot does not start either.
    start = run_bot("console", cwd=tmp_path, env=env)
    assert (start.returncode, start.stderr) == (2, bad.stderr)


def test_the_console_refuses_to_start_with_nothing_to_read(tmp_path: Path) -> None:
    """A service or container started with no platform and no token (``/dev/null`` on
    standard input) would open the console, read end of input and exit 0, which nothing
    restarts: it refuses instead, status 2, saying what to do."""
    env = {"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "")}
    env |= {k: v for k, v in os.environ.items() if k.startswith("COVERAGE_")}
    result = subprocess.run(
        [sys.executable, "-m", "bot", "--db", "t.db"],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=PATIENCE,
        env=env,
    )
    assert result.returncode == 2
    assert result.stderr == (
        "genial-bot: the console needs a terminal or a pipe on standard input, and there is"
        " none here; to run a chat platform, name it (genial-bot telegram or genial-bot"
        " discord) and set its token\n"
    )
    assert not (tmp_path / "t.db").exists()  # refused before anything was opened
    # A file of lines is read like a pipe (a game scripted in advance).
    (tmp_path / "lines.txt").write_text("/join\n")
    with (tmp_path / "lines.txt").open() as lines:
        read = subprocess.run(
            [sys.executable, "-m", "bot", "--db", "t.db", "--no-images", "--name", "ada"],
            cwd=tmp_path,
            stdin=lines,
            capture_output=True,
            text=True,
            timeout=PATIENCE,
            env=env,
        )
    assert read.returncode == 0, read.stderr
    assert "ada" in read.stdout and (tmp_path / "t.db").is_file()


def test_health_asks_healthz_on_the_configured_port(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``genial-bot health`` (the image's HEALTHCHECK): 0 once the bot serves, 1 with the
    reason while it waits for its store, and 1 when nothing answers on the range."""
    import dataclasses
    import socket

    from bot.operator import ops, tools
    from bot.store import open_store

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = int(s.getsockname()[1])
    settings = dataclasses.replace(
        load_settings(None, environ={}), metrics_listen="0.0.0.0", metrics_port=free
    )
    assert tools.health(settings) == 1
    assert "nothing answers" in capsys.readouterr().err
    operator = ops.Operator(None, "127.0.0.1", 0)
    store = open_store(tmp_path / "t.db")
    try:
        waiting = dataclasses.replace(settings, metrics_port=operator.port)
        assert tools.health(waiting) == 1
        assert f"port {operator.port}: 503" in capsys.readouterr().err
        operator.ready(store)
        assert tools.health(waiting) == 0
    finally:
        operator.close()
        store.close()
    with pytest.raises(ConfigError, match=r"health needs \[metrics\] port"):
        tools.health(dataclasses.replace(settings, metrics_port=0))


def test_check_config_refuses_a_plain_http_page_address_for_telegram(tmp_path: Path) -> None:
    """Issue 44, item 25: Telegram opens a player's page from a button only over HTTPS, and
    refuses the private message with an http:// one (the rack with it)."""
    env = {"PYTHONPATH": str(ROOT)}
    (tmp_path / "config.toml").write_text('[web]\npublic_url = "http://genial.example.org"\n')
    refused = (
        "genial-bot: config.toml: web.public_url 'http://genial.example.org' must start with"
        " https:// for Telegram: it opens a player's own page from a button in the private"
        " chat only over HTTPS, and refuses the message with such a button (the player's"
        " rack) otherwise\n"
    )
    bad = run_bot("check-config", "--platform", "telegram", cwd=tmp_path, env=env)
    assert (bad.returncode, bad.stdout, bad.stderr) == (2, "", refused)
    # Without --platform: the one the bot would start, Telegram when its token is set.
    with_token = {**env, "GENIAL_TELEGRAM_TOKEN": "1:x"}
    bad = run_bot("check-config", cwd=tmp_path, env=with_token)
    assert (bad.returncode, bad.stderr) == (2, refused)
    # The same check at start: the bot does not start either.
    start = run_bot("telegram", cwd=tmp_path, env=with_token)
    assert (start.returncode, start.stderr) == (2, refused)
    # Other platforms take a plain http:// address (a local board), and Telegram https://.
    # (A platform named is checked for its token too.)
    for platform in ("console", "discord", "web"):
        tokens = {**env, "GENIAL_DISCORD_TOKEN": "x"}
        ok = run_bot("check-config", "--platform", platform, cwd=tmp_path, env=tokens)
        assert (ok.returncode, ok.stdout) == (0, "config.toml: ok\n")
    (tmp_path / "config.toml").write_text('[web]\npublic_url = "https://genial.example.org"\n')
    ok = run_bot("check-config", "--platform", "telegram", cwd=tmp_path, env=with_token)
    assert (ok.returncode, ok.stdout) == (0, "config.toml: ok\n")


def test_the_discord_activity_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """``[discord] activity``: the application's id (digits), the variable of its client
    secret, Discord's API; the Activity needs the web board at a public HTTPS address and
    the secret, which check-config asks for like a token."""
    data = {
        "discord": {"activity": True, "client_id": "1234567890", "api_url": "http://127.0.0.1:9/"},
        "web": {"port": 8080, "public_url": "https://genial.example.org"},
    }
    settings = parse_settings(data)
    assert (settings.discord_activity, settings.discord_client_id) == (True, "1234567890")
    assert settings.discord_api_url == "http://127.0.0.1:9"
    assert settings.discord_secret_env == "GENIAL_DISCORD_CLIENT_SECRET"
    assert settings.discord_secret({"GENIAL_DISCORD_CLIENT_SECRET": "s"}) == "s"
    assert Settings().discord_activity is False
    for discord, why in (
        ({"activity": True}, "discord.activity = true needs discord.client_id"),
        ({"client_id": "my app"}, "discord.client_id must be the application's id"),
        ({"api_url": "discord.com"}, "discord.api_url must be an address like https://"),
        ({"client_secret": "s3cret"}, "unknown setting discord.client_secret$"),
    ):
        with pytest.raises(ConfigError, match=why):
            parse_settings({"discord": discord})
    from bot.operator import tools

    monkeypatch.delenv("GENIAL_DISCORD_CLIENT_SECRET", raising=False)
    with pytest.raises(ConfigError, match="needs the application's client secret"):
        tools.check_platform(settings, "discord")
    plain = parse_settings({**data, "web": {"port": 8080, "public_url": "http://genial.example"}})
    with pytest.raises(ConfigError, match="needs the web board"):
        tools.check_platform(plain, "discord")
    tools.check_platform(settings, "telegram")  # the Activity is Discord's only
    monkeypatch.setenv("GENIAL_DISCORD_CLIENT_SECRET", "s")
    tools.check_platform(settings, "discord")
