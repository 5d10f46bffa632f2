"""The operator's commands beside the bot: ``genial-bot backup FILE``, ``genial-bot restore
FILE --db ...``, ``genial-bot check-config [FILE]`` and ``genial-bot health`` (the
container's health check).

Each says what it did in one line on standard output, or what is wrong in one line on
standard error with exit status 2, never a traceback nor a password.
"""

from __future__ import annotations

import argparse
import re
import sys
import urllib.error
import urllib.request
from collections.abc import Sequence

from bot.core import players
from bot.core.config import ConfigError, Settings, load_settings
from bot.operator import backup
from bot.store import URL_SCHEMES, StoreError
from bot.store.base import safe_url

#: What looks like a URL of some scheme (as :func:`bot.store.open_store` tells them).
_URL_LIKE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+:/")

TOOLS = ("backup", "restore", "check-config", "health")
PLATFORMS = ("console", "telegram", "discord", "web")


def tool_of(argv: Sequence[str]) -> str | None:
    """The tool ``argv`` asks for (its first word that is no option nor the value of
    ``--config``), or ``None``: then it starts the bot."""
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word == "--config":
            skip = True
        elif not word.startswith("-"):
            return word if word in TOOLS else None
    return None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="genial-bot", description=__doc__)
    parser.add_argument("--config", help="settings file (default: config.toml if present)")
    tools = parser.add_subparsers(dest="tool", required=True)
    save = tools.add_parser(
        "backup", help="write every table of the store to FILE (JSON lines, one snapshot)"
    )
    save.add_argument("file", help="the backup file to write (- for standard output)")
    save.add_argument("--db", help="SQLite file or postgresql:// URL (default: bot.storage)")
    load = tools.add_parser("restore", help="load a backup FILE into an empty store")
    load.add_argument("file", help="a file written by genial-bot backup")
    load.add_argument("--db", required=True, help="the new store: SQLite file or postgresql:// URL")
    check = tools.add_parser("check-config", help="check a config file without starting")
    check.add_argument("file", nargs="?", help="the config file (default: config.toml)")
    check.add_argument(
        "--platform",
        choices=PLATFORMS,
        help="check it for this platform, its token too (default: the one the bot would"
        " start: the platform whose token is set, else the console)",
    )
    tools.add_parser(
        "health",
        help="exit 0 if the bot on this machine answers /healthz on [metrics] port, else 1",
    )
    return parser


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.tool == "check-config":
            return check_config(args.file or args.config, args.platform)
        if args.tool == "health":
            return health(load_settings(args.config))
        if args.tool == "backup":
            location = args.db or load_settings(args.config).storage
            counts = backup.backup_file(location, args.file)
            if args.file != "-":
                print(f"{args.file}: {_rows(counts)} from {backup.shown(location)}")
            return 0
        counts = backup.restore_file(args.file, args.db)
        print(f"{backup.shown(args.db)}: {_rows(counts)} restored from {args.file}")
        return 0
    except (ConfigError, StoreError) as exc:
        print(f"genial-bot: {exc}", file=sys.stderr)
        return 2


def _rows(counts: dict[str, int]) -> str:
    parts = ", ".join(f"{table} {n}" for table, n in counts.items())
    return f"{sum(counts.values())} rows ({parts})"


def check_levels(settings: Settings) -> None:
    """Every configured computer level must be one the engine offers.

    Raises:
        ConfigError: naming the first level that is not.
    """
    offered = players.levels()
    for level in settings.levels:
        if level not in offered:
            raise ConfigError(
                f"{settings.source}: computer.levels: {level!r} is not one of {', '.join(offered)}"
            )


def check_storage(settings: Settings) -> None:
    """``bot.storage`` names a store the bot can open: a ``postgresql://`` URL or a file
    path, never a URL of another scheme (the store refuses it at start too). Nothing is
    opened or made.

    Raises:
        ConfigError: naming what it is instead.
    """
    location = settings.storage
    scheme, sep, _ = location.partition("://")
    if _URL_LIKE.match(location) and not (sep and f"{scheme.lower()}://" in URL_SCHEMES):
        raise ConfigError(
            f"{settings.source}: bot.storage {safe_url(location)!r} is not a storage location;"
            " use a postgresql:// URL or a file path"
        )


def default_platform(settings: Settings) -> str:
    """The platform the bot starts when none is named: the one whose token is set, else
    the console."""
    for platform in ("telegram", "discord"):
        if settings.token(platform):
            return platform
    return "console"


def check_platform(settings: Settings, platform: str) -> None:
    """What a platform needs of the settings beyond their form.

    Raises:
        ConfigError: naming the setting and why the platform cannot use it.
    """
    url = settings.web.public_url
    if platform == "telegram" and url.lower().startswith("http://"):
        raise ConfigError(
            f"{settings.source}: web.public_url {url!r} must start with https:// for"
            " Telegram: it opens a player's own page from a button in the private chat"
            " only over HTTPS, and refuses the message with such a button (the player's"
            " rack) otherwise"
        )
    if platform == "discord" and settings.discord_activity:
        if not settings.web.port or not url.lower().startswith("https://"):
            raise ConfigError(
                f"{settings.source}: discord.activity = true needs the web board: web.port,"
                " and web.public_url starting with https:// (the Activity's URL mapping in"
                " Discord's Developer Portal points there)"
            )
        if not settings.discord_secret():
            raise ConfigError(
                f"{settings.source}: discord.activity = true needs the application's client"
                f" secret in the environment variable {settings.discord_secret_env}"
            )


def check_config(path: str | None, platform: str | None = None) -> int:
    """Check the settings at ``path`` as the bot does at start, without starting it, for
    ``platform`` (default: the one the bot would start), its token included: compose.yaml's
    ``check`` runs this before any worker starts, so a setting to fix stops ``docker
    compose up`` instead of a worker that Docker would start again and again.

    Raises:
        ConfigError: naming the first setting that is wrong.
    """
    settings = load_settings(path)
    check_levels(settings)
    check_storage(settings)
    chosen = platform or default_platform(settings)
    check_platform(settings, chosen)
    if chosen in ("telegram", "discord"):
        settings.required_token(chosen)
    print(f"{settings.source}: ok")
    return 0


def health(settings: Settings) -> int:
    """Whether the bot on this machine is healthy: its operator's view answers ``/healthz``
    with 200 on a port of ``[metrics] port`` (the first that does, for a range), read from
    the same settings the bot reads, so a health check follows the configured port. Status
    1 with the answer's reason otherwise (503 while the bot waits for its store).

    Raises:
        ConfigError: no ``[metrics] port`` is set: there is nothing to ask.
    """
    if not settings.metrics_port:
        raise ConfigError("health needs [metrics] port (GENIAL_METRICS__PORT)")
    host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(
        settings.metrics_listen, settings.metrics_listen
    )
    if ":" in host:
        host = f"[{host}]"
    last = max(settings.metrics_port, settings.metrics_port_last)
    why = "nothing answers"
    for port in range(settings.metrics_port, last + 1):
        try:
            with urllib.request.urlopen(f"http://{host}:{port}/healthz", timeout=4) as answer:
                if answer.status == 200:
                    return 0
        except urllib.error.HTTPError as exc:
            why = f"port {port}: {exc.code} {exc.reason}"
        except (OSError, ValueError):
            continue
    print(f"genial-bot: not healthy ({why})", file=sys.stderr)
    return 1
