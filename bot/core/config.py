"""Settings, read from a TOML file (``config.example.toml`` documents every one).

A missing or invalid setting is explained in one line (:class:`ConfigError`) and the bot
exits non-zero. Platform tokens are never written in the file: it names the environment
variables that hold them.
"""

from __future__ import annotations

import difflib
import ipaddress
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.core.commands import CommandError
from bot.core.durations import parse_duration
from bot.words.texts import LANGUAGES

DEFAULT_PATH = "config.toml"
_SECTIONS: dict[str, frozenset[str]] = {
    "bot": frozenset(
        {"storage", "language", "timeout", "away_days", "outage_credit", "store_wait"}
    ),
    "computer": frozenset({"levels", "default"}),
    "console": frozenset({"images", "name"}),
    "telegram": frozenset(
        {"token_env", "base_url", "mode", "webhook_url", "listen", "port", "media_chat"}
    ),
    "discord": frozenset(
        {"token_env", "threads", "dm", "members", "activity", "client_id", "secret_env", "api_url"}
    ),
    "metrics": frozenset({"port", "listen"}),
    "web": frozenset({"listen", "port", "public_url", "telegram_app"}),
    "log": frozenset({"level", "format"}),
}
#: ``[log] level``: the lowest level of the lines written.
LOG_LEVELS = ("debug", "info", "warning", "error")
#: ``[log] format``: ``text`` lines, or ``json`` lines (one object a line) for a collector.
LOG_FORMATS = ("text", "json")
#: A setting from the environment: ``GENIAL_BOT__STORAGE`` is ``[bot] storage``.
_ENVIRON = re.compile(r"GENIAL_([A-Z0-9]+)__([A-Z0-9_]+)")
#: What looks like a URL of some scheme (as :func:`bot.store.open_store` tells them): never
#: taken for a path relative to the config file.
_URL_LIKE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+:/")


class ConfigError(ValueError):
    """A setting is missing or invalid; the message is one line naming it."""


class Unreachable(Exception):
    """Something the bot needs at start did not answer (Discord, the Bot API server), after
    the platform's own retries: no setting to fix, so not a :class:`ConfigError`. The
    launcher says so in one line with exit status 1, which a service manager restarts."""


@dataclass(frozen=True)
class TelegramSettings:
    """How the Telegram adapter reaches the Bot API: ``base_url`` is the server's address
    (Telegram's, or a self-hosted Bot API server); ``mode`` is ``polling`` or ``webhook``
    (Telegram posts updates to ``webhook_url``, served on ``listen``:``port``)."""

    base_url: str = "https://api.telegram.org"
    mode: str = "polling"
    webhook_url: str = ""
    listen: str = "127.0.0.1"
    port: int = 8443
    #: The chat the bot uploads board pictures to for tables played in inline messages
    #: (an inline message takes no upload, only a file Telegram has: docs/operating.md);
    #: 0: none, and such tables show the board as text and by their web page.
    media_chat: int = 0


@dataclass(frozen=True)
class WebSettings:
    """The web board (docs/web.md): served on ``listen``:``port`` (0: off), its links made
    with ``public_url`` (default: ``http://listen:port``)."""

    listen: str = "127.0.0.1"
    port: int = 0
    public_url: str = ""
    #: The short name of the bot's Mini App (BotFather's /newapp): Telegram's buttons
    #: open the page as ``t.me/<bot>/<app>?startapp=<table id>``.
    telegram_app: str = ""

    @property
    def url(self) -> str:
        return self.public_url or f"http://{self.listen}:{self.port}"


@dataclass(frozen=True)
class Settings:
    storage: str = "genial.sqlite3"
    language: str = "en"
    timeout: int = 0
    #: ``[bot] away_days``: the days of vacation (``/away``) a person may take a month.
    away_days: int = 14
    #: ``[bot] outage_credit``: seconds the bot may be away (its processes down, its store
    #: not answering) before every running clock gets the time back (bot.core.outage);
    #: 0: never.
    outage_credit: int = 120
    #: ``[bot] store_wait``: seconds a command waits for a pooled connection of a
    #: PostgreSQL store before it connects on its own, and, that failing, is answered that
    #: the store is not answering (bot.store.postgres.connection).
    store_wait: float = 5.0
    levels: tuple[str, ...] = ("random", "greedy", "strong", "expert", "master")
    level: str = "greedy"
    images: str = "out"
    name: str = ""
    telegram_token_env: str = "GENIAL_TELEGRAM_TOKEN"
    discord_token_env: str = "GENIAL_DISCORD_TOKEN"
    telegram: TelegramSettings = field(default_factory=TelegramSettings)
    #: Discord: open a thread for each new table instead of playing in the channel itself.
    discord_threads: bool = False
    #: Discord: also send racks by direct message to players who did not ask (ephemeral
    #: answers reach only the person who clicked or typed).
    discord_dm: bool = False
    #: Discord: hear of members leaving a server (the privileged Server Members intent,
    #: switched on for the bot in the Developer Portal): they leave the tournaments they
    #: joined there, their remaining games lost.
    discord_members: bool = False
    #: Discord: shards in all (``genial-bot discord --shard-count``; None: one connection)
    #: and the ones this process runs (``--shard-ids``; empty: all of them).
    discord_shard_count: int | None = None
    discord_shard_ids: tuple[int, ...] = ()
    #: Discord: the board as an Activity inside Discord (docs/operating.md): its buttons
    #: launch it, the page learns who the player is through the app's OAuth2 (the
    #: application's id, its client secret from the environment variable named, and
    #: Discord's API, which tests point at a fake).
    discord_activity: bool = False
    discord_client_id: str = ""
    discord_secret_env: str = "GENIAL_DISCORD_CLIENT_SECRET"
    discord_api_url: str = "https://discord.com/api/v10"
    #: The operator's view (``/healthz`` and Prometheus ``/metrics``) on
    #: ``metrics_listen``:``metrics_port``; 0: off.
    metrics_port: int = 0
    #: The last port of a range (``port = "9464-9471"``): several processes with one
    #: config each serve on the first free port of it. 0: the one port only.
    metrics_port_last: int = 0
    metrics_listen: str = "127.0.0.1"
    web: WebSettings = field(default_factory=WebSettings)
    #: ``[log]``: the lowest level written, and ``text`` or ``json`` lines.
    log_level: str = "info"
    log_format: str = "text"
    source: str = field(default="(defaults)", compare=False)

    def token(self, platform: str, environ: Mapping[str, str] | None = None) -> str | None:
        """The platform's token from its environment variable, or ``None`` if unset."""
        env = os.environ if environ is None else environ
        name = self.telegram_token_env if platform == "telegram" else self.discord_token_env
        return env.get(name) or None

    def required_token(self, platform: str, environ: Mapping[str, str] | None = None) -> str:
        """The platform's token, which it cannot start without.

        Raises:
            ConfigError: naming the environment variable to set.
        """
        token = self.token(platform, environ)
        if token is None:
            name = self.telegram_token_env if platform == "telegram" else self.discord_token_env
            raise ConfigError(f"set the environment variable {name} to the {platform} bot's token")
        return token

    def discord_secret(self, environ: Mapping[str, str] | None = None) -> str | None:
        """The Discord application's client secret (for the Activity's OAuth2), or ``None``."""
        env = os.environ if environ is None else environ
        return env.get(self.discord_secret_env) or None


def _text(section: str, key: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{section}.{key} must be a non-empty text")
    return value.strip()


#: A host name (RFC 1123 labels) for ``listen``.
_HOSTNAME = re.compile(
    r"(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*"
)


def _host(section: str, value: object) -> str:
    """``listen``: an IP address or a host name to serve on, without a port."""
    text = _text(section, "listen", value)
    try:
        ipaddress.ip_address(text)
        return text
    except ValueError:
        pass
    if _HOSTNAME.fullmatch(text) and not text.replace(".", "").isdigit():
        return text
    raise ConfigError(
        f"{section}.listen must be an address like 127.0.0.1 (the port goes in {section}.port),"
        f" not {text!r}"
    )


def _switch(section: str, key: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{section}.{key} must be true or false")
    return value


def parse_settings(data: Mapping[str, Any], source: str = "(settings)") -> Settings:
    """Settings from decoded TOML.

    Raises:
        ConfigError: naming the first unknown or invalid setting.
    """
    where = f"{source}: "
    _check_names(data, where)
    bot = data.get("bot", {})
    computer = data.get("computer", {})
    console = data.get("console", {})
    out: dict[str, Any] = {"source": source}
    try:
        if "storage" in bot:
            out["storage"] = _text("bot", "storage", bot["storage"])
        if "language" in bot:
            lang = _text("bot", "language", bot["language"]).lower()
            if lang not in LANGUAGES:
                raise ConfigError(f"bot.language must be one of {', '.join(LANGUAGES)}")
            out["language"] = lang
        if "timeout" in bot:
            out["timeout"] = _timeout(bot["timeout"])
        if "away_days" in bot:
            days = bot["away_days"]
            if not isinstance(days, int) or isinstance(days, bool) or not 0 <= days <= 31:
                raise ConfigError("bot.away_days must be a whole number of days from 0 to 31")
            out["away_days"] = days
        if "outage_credit" in bot:
            out["outage_credit"] = _duration(
                "bot.outage_credit", bot["outage_credit"], MIN_OUTAGE, _OUTAGE_HOW
            )
        if "store_wait" in bot:
            out["store_wait"] = _store_wait(bot["store_wait"])
        if "levels" in computer:
            levels = computer["levels"]
            if not isinstance(levels, list) or not levels:
                raise ConfigError('computer.levels must be a list like ["greedy", "strong"]')
            out["levels"] = tuple(_text("computer", "levels", v).lower() for v in levels)
        if "default" in computer:
            out["level"] = _text("computer", "default", computer["default"]).lower()
        if "images" in console:
            out["images"] = _text("console", "images", console["images"])
        if "name" in console:
            out["name"] = _text("console", "name", console["name"])
        for platform in ("telegram", "discord"):
            section = data.get(platform, {})
            if "token_env" in section:
                out[f"{platform}_token_env"] = _text(platform, "token_env", section["token_env"])
        if "telegram" in data:
            out["telegram"] = _parse_telegram(data["telegram"])
        for key in ("threads", "dm", "members", "activity"):
            if key in data.get("discord", {}):
                out[f"discord_{key}"] = _switch("discord", key, data["discord"][key])
        out.update(_parse_activity(data.get("discord", {})))
        metrics = data.get("metrics", {})
        if "port" in metrics:
            out["metrics_port"], out["metrics_port_last"] = _ports(metrics["port"])
        if "listen" in metrics:
            out["metrics_listen"] = _host("metrics", metrics["listen"])
        log = data.get("log", {})
        for key, choices in (("level", LOG_LEVELS), ("format", LOG_FORMATS)):
            if key in log:
                value = _text("log", key, log[key]).lower()
                if value not in choices:
                    raise ConfigError(
                        f"log.{key} must be one of {', '.join(choices)}, not {value!r}"
                    )
                out[f"log_{key}"] = value
        if "web" in data:
            out["web"] = _parse_web(data["web"])
    except ConfigError as exc:
        raise ConfigError(f"{where}{exc}") from None
    settings = Settings(**out)
    if settings.level not in settings.levels:
        raise ConfigError(
            f"{where}computer.default {settings.level!r} is not one of computer.levels"
            f" ({', '.join(settings.levels)})"
        )
    return settings


def _check_names(data: Mapping[str, Any], where: str) -> None:
    """Every section and key of ``data`` is one of ours.

    Raises:
        ConfigError: naming the first that is not, with a near miss it may have meant.
    """
    for section, values in data.items():
        allowed = _SECTIONS.get(section)
        if allowed is None:
            hint = _did_you_mean(section, _SECTIONS, "[{}]")
            raise ConfigError(f"{where}unknown section [{section}]{hint}")
        if not isinstance(values, Mapping):
            raise ConfigError(f"{where}{section} must be a section like [{section}]")
        for key in values:
            if key not in allowed:
                # A token (or secret) written in the file is no near miss of token_env:
                # that names the variable that holds it, and must not get it itself.
                secret = key in ("token", "client_secret")
                hint = "" if secret else _did_you_mean(key, allowed, section + ".{}")
                raise ConfigError(f"{where}unknown setting {section}.{key}{hint}")


def _parse_telegram(section: Mapping[str, Any]) -> TelegramSettings:
    out: dict[str, Any] = {}
    if "base_url" in section:
        url = _text("telegram", "base_url", section["base_url"]).rstrip("/")
        if not url.startswith(("https://", "http://")):
            raise ConfigError("telegram.base_url must be an address like https://api.telegram.org")
        out["base_url"] = url
    if "mode" in section:
        mode = _text("telegram", "mode", section["mode"]).lower()
        if mode not in ("polling", "webhook"):
            raise ConfigError(f"telegram.mode must be polling or webhook, not {mode!r}")
        out["mode"] = mode
    if "webhook_url" in section:
        url = _text("telegram", "webhook_url", section["webhook_url"])
        if not url.startswith(("https://", "http://")):
            raise ConfigError(
                "telegram.webhook_url must be an address like https://bot.example.org/genial"
            )
        out["webhook_url"] = url
    if "listen" in section:
        out["listen"] = _host("telegram", section["listen"])
    if "port" in section:
        port = section["port"]
        if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
            raise ConfigError("telegram.port must be a port number from 1 to 65535")
        out["port"] = port
    if "media_chat" in section:
        chat = section["media_chat"]
        if isinstance(chat, bool) or not isinstance(chat, int):
            raise ConfigError("telegram.media_chat must be a chat id, like -1001234567890")
        out["media_chat"] = chat
    settings = TelegramSettings(**out)
    if settings.mode == "webhook" and not settings.webhook_url:
        raise ConfigError('telegram.mode = "webhook" needs telegram.webhook_url')
    return settings


def _parse_activity(section: Mapping[str, Any]) -> dict[str, Any]:
    """``[discord]``'s Activity settings: the application id, the secret's variable, the API."""
    out: dict[str, Any] = {}
    if "client_id" in section:
        cid = _text("discord", "client_id", section["client_id"])
        if not (cid.isascii() and cid.isdigit() and len(cid) <= 20):
            raise ConfigError('discord.client_id must be the application\'s id, like "1234567890"')
        out["discord_client_id"] = cid
    if "secret_env" in section:
        out["discord_secret_env"] = _text("discord", "secret_env", section["secret_env"])
    if "api_url" in section:
        url = _text("discord", "api_url", section["api_url"]).rstrip("/")
        if not url.startswith(("https://", "http://")):
            raise ConfigError("discord.api_url must be an address like https://discord.com/api/v10")
        out["discord_api_url"] = url
    if section.get("activity") is True and "discord_client_id" not in out:
        raise ConfigError("discord.activity = true needs discord.client_id (the application's id)")
    return out


def _parse_web(section: Mapping[str, Any]) -> WebSettings:
    out: dict[str, Any] = {}
    if "listen" in section:
        out["listen"] = _text("web", "listen", section["listen"])
    if "port" in section:
        port = section["port"]
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port < 65536:
            raise ConfigError("web.port must be a port number from 1 to 65535, or 0 (off)")
        out["port"] = port
    if "public_url" in section:
        url = _text("web", "public_url", section["public_url"]).rstrip("/")
        if not url.startswith(("https://", "http://")):
            raise ConfigError("web.public_url must be an address like https://genial.example.org")
        out["public_url"] = url
    if "telegram_app" in section:
        out["telegram_app"] = _text("web", "telegram_app", section["telegram_app"])
    return WebSettings(**out)


def _ports(value: object) -> tuple[int, int]:
    """``metrics.port``: a port (0: off) or a range ``"9464-9471"``, as (first, last)."""
    why = 'metrics.port must be a port number from 1 to 65535, 0 (off) or a range "9464-9471"'
    if isinstance(value, bool):
        raise ConfigError(why)
    if isinstance(value, int):
        if not 0 <= value < 65536:
            raise ConfigError(why)
        return value, 0
    if isinstance(value, str):
        first, sep, last = value.partition("-")
        if sep and first.isascii() and first.isdigit() and last.isascii() and last.isdigit():
            a, b = int(first[:6]), int(last[:6])
            if 1 <= a <= b < 65536:
                return a, b
    raise ConfigError(why)


def _did_you_mean(word: str, known: Iterable[str], shape: str) -> str:
    """`` (did you mean [bot]?)`` for a near miss of a known name, else nothing."""
    close = difflib.get_close_matches(word, sorted(known), n=1, cutoff=0.6)
    return f" (did you mean {shape.format(close[0])}?)" if close else ""


def from_environment(environ: Mapping[str, str] | None = None) -> dict[str, dict[str, Any]]:
    """The settings given by environment variables, as decoded TOML: ``GENIAL_BOT__STORAGE``
    is ``[bot] storage``, ``GENIAL_METRICS__PORT=9464`` ``[metrics] port = 9464``. A value
    is read as a TOML value if it is one (``9464``, ``true``, ``["greedy"]``), else as text.
    """
    return _environment(environ)[0]


def _environment(
    environ: Mapping[str, str] | None,
) -> tuple[dict[str, dict[str, Any]], dict[tuple[str, str], str]]:
    """:func:`from_environment`, and the variable of each (section, key) it gives."""
    env = os.environ if environ is None else environ
    out: dict[str, dict[str, Any]] = {}
    names: dict[tuple[str, str], str] = {}
    for name in sorted(env):
        m = _ENVIRON.fullmatch(name)
        if m is None:
            continue
        raw = env[name]
        try:
            value = tomllib.loads(f"value = {raw}")["value"]
        except tomllib.TOMLDecodeError:
            value = raw
        section, key = m.group(1).lower(), m.group(2).lower()
        out.setdefault(section, {})[key] = value
        names[section, key] = name
    return out, names


def _parse_with(
    data: dict[str, Any],
    source: str,
    overrides: Mapping[str, Mapping[str, Any]],
    names: Mapping[tuple[str, str], str],
) -> Settings:
    """Settings of ``data`` (from ``source``) with the environment's ``overrides`` put in;
    an error about a setting the environment gave names its variable, not the file."""
    for section, values in overrides.items():
        data.setdefault(section, {}).update(values)
    try:
        return parse_settings(data, source)
    except ConfigError as exc:
        text = str(exc)
        for (section, key), name in names.items():
            if text.startswith(f"{source}: {section}.{key} "):
                raise ConfigError(f"environment ({name}): {text[len(source) + 2 :]}") from None
        raise


def _relative_to(folder: Path, data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` with the relative paths it writes (the store, the console's images)
    taken from ``folder``. The defaults stay in the current folder."""
    out = {section: dict(values) for section, values in data.items()}
    for section, key in (("bot", "storage"), ("console", "images")):
        values = out.get(section, {})
        value = values.get(key)
        if not isinstance(value, str) or not value.strip():
            continue  # parse_settings names it
        if _URL_LIKE.match(value) or value == ":memory:" or Path(value).is_absolute():
            continue
        values[key] = str(folder / value)
    return out


def load_settings(
    path: str | Path | None = None, environ: Mapping[str, str] | None = None
) -> Settings:
    """Settings from ``path``, or from ``config.toml`` if it exists, else the defaults;
    then those of the environment (``GENIAL_BOT__STORAGE``: :func:`from_environment`),
    which win. Relative paths in a file are taken from the file's folder.

    Raises:
        ConfigError: the file named cannot be read, is not TOML, or has a bad setting;
            or an environment variable names an unknown or invalid one.
    """
    overrides, names = _environment(environ)
    for (section, key), name in names.items():
        # A name the bot does not know is named by its variable, not by the file.
        _check_names({section: {key: None}}, f"environment ({name}): ")
    if path is None:
        if not Path(DEFAULT_PATH).exists():
            if not overrides:
                return Settings()
            return _parse_with({}, "(defaults)", overrides, names)
        path = DEFAULT_PATH
    try:
        text = Path(path).read_text("utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the config file ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text (save it as UTF-8)") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    if not all(isinstance(v, Mapping) for v in data.values()):
        return parse_settings(data, str(path))  # it names the value that is no section
    return _parse_with(_relative_to(Path(path).parent, data), str(path), overrides, names)


#: What every bot.timeout message ends with: the unit is part of the value, and its bounds.
_TIMEOUT_HOW = (
    'a duration with its unit from 1 minute to 14 days, like "30m", "24h", "2d", or "off"'
)
#: The shortest ``bot.outage_credit``: the platforms' clocks look at least once a minute,
#: so a shorter gap is no outage.
MIN_OUTAGE = 120
_OUTAGE_HOW = 'a duration with its unit from 2 minutes to 14 days, like "2m", "10m", or "off"'


def _timeout(raw: object) -> int:
    """Seconds of ``bot.timeout``: a duration with its unit (a bare number is refused, not
    taken silently as hours), 1 minute to 14 days, or off.

    Raises:
        ConfigError: saying what was wrong, the unit and the bounds.
    """
    return _duration("bot.timeout", raw, 60, _TIMEOUT_HOW)


def _duration(name: str, raw: object, least: int, how: str) -> int:
    """Seconds of setting ``name``: a duration with its unit (a bare number is refused, not
    taken silently as hours), ``least`` seconds to 14 days, or off (0).

    Raises:
        ConfigError: saying what was wrong, the unit and the bounds (``how``).
    """
    if isinstance(raw, bool) or not isinstance(raw, str | int):
        raise ConfigError(f"{name} must be {how}")
    text = str(raw).strip().lower()
    if isinstance(raw, int) or re.fullmatch(r"[0-9]{1,9}", text):
        if int(text) == 0:
            return 0
        raise ConfigError(
            f'{name} {raw!r} has no unit: write "{int(text)}m" or "{int(text)}h" ({how})'
        )
    try:
        seconds = parse_duration(text)
    except CommandError:
        seconds = -1
    if seconds == 0 or seconds >= least:
        return seconds
    size = re.fullmatch(r"([0-9]{1,6})\s*([smhd])", text)
    if size is not None:
        seconds = int(size.group(1)) * {"s": 1, "m": 60, "h": 3600, "d": 86400}[size.group(2)]
        least_text = "1 minute" if least == 60 else f"{least // 60} minutes"
        bound = f"shorter than {least_text}" if seconds < least else "longer than 14 days"
        raise ConfigError(f"{name} {raw!r} is {bound}: it must be {how}")
    quoted = str(raw) if len(str(raw)) <= 20 else str(raw)[:20] + "…"
    raise ConfigError(f"{name} {quoted!r} is not {how}")


#: The bounds of ``bot.store_wait`` in seconds, and what its message says of them.
STORE_WAIT = (0.01, 60.0)
_STORE_WAIT_HOW = 'seconds or milliseconds with the unit, from 10ms to 60s, like "5s" or "500ms"'


def _store_wait(raw: object) -> float:
    """Seconds of ``bot.store_wait``: ``"5s"``, ``"1.5s"`` or ``"500ms"``, 10 ms to 60 s
    (a bare number is refused, as for every duration: its unit is part of the value).

    Raises:
        ConfigError: saying what was wrong, the unit and the bounds.
    """
    m = (
        re.fullmatch(r"([0-9]{1,6}(?:\.[0-9]{1,3})?)\s*(ms|s)", raw.strip().lower())
        if isinstance(raw, str)
        else None
    )
    if m is None:
        shown = str(raw) if len(str(raw)) <= 20 else str(raw)[:20] + "…"
        raise ConfigError(f"bot.store_wait {shown!r} is not {_STORE_WAIT_HOW}")
    seconds = float(m.group(1)) / (1000 if m.group(2) == "ms" else 1)
    if not STORE_WAIT[0] <= seconds <= STORE_WAIT[1]:
        raise ConfigError(f"bot.store_wait {raw!r} is out of bounds: it must be {_STORE_WAIT_HOW}")
    return seconds
