"""Settings: defaults, the documented example, and one-line errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import ConfigError, Settings, load_settings, parse_settings
from tests.patience import PATIENCE

ROOT = Path(__file__).resolve().parents[2]


def test_example_documents_the_defaults() -> None:
    assert load_settings(ROOT / "config.example.toml") == Settings()


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
    assert (s.levels, s.level, s.images, s.name) == (("greedy", "strong"), "strong", "pics", "ada")
    assert s.token("telegram", {"TG": "123:abc"}) == "123:abc"
    assert s.token("discord", {"TG": "123:abc"}) is None


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"bot": {"langauge": "en"}}, "unknown setting bot.langauge"),
        ({"server": {}}, "unknown section [server]"),
        ({"bot": {"language": "es"}}, "bot.language must be one of en, de, nl, fr"),
        ({"bot": {"timeout": "soon"}}, "bot.timeout 'soon' is not a duration"),
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
    assert message in text
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
