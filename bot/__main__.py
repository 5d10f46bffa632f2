"""``genial-bot``: start the bot on a chat platform, or in the terminal.

``genial-bot`` with no platform configured (no token in the environment) opens the console
chat; ``genial-bot console|telegram|discord`` chooses. A store that cannot be reached yet is
waited for (one log line each try). The exit status: 0 after a stop (SIGTERM, Ctrl-C, the
end of the console's input); 2 for a setting to fix, explained in one line; 1 for any other
failure, which a service manager may retry (docs/operating.md: What restarts what).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import getpass
import importlib
import logging
import os
import random
import stat
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from bot.console import Console
from bot.core import metrics
from bot.core.config import ConfigError, Settings, Unreachable, WebSettings, load_settings
from bot.core.images import prepare_pieces
from bot.core.outbound import User
from bot.operator import logs, memory, ops, tools, waiting
from bot.service import Service
from bot.store import StoreDown, StoreError, open_store

WEB = "web"
PLATFORMS = tools.PLATFORMS


def build_parser() -> argparse.ArgumentParser:
    # The module's docstring without its reStructuredText markup: --help is read as text.
    about = (__doc__ or "").replace("``", "")
    parser = argparse.ArgumentParser(
        prog="genial-bot",
        description=about,
        epilog="The operator's commands: genial-bot backup|restore|check-config --help.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    parser.add_argument("--config", help="settings file (default: config.toml if present)")
    parser.add_argument(
        "platform",
        nargs="?",
        choices=PLATFORMS,
        help="where to play (default: the platform whose token is set, else the console)",
    )
    console = parser.add_argument_group("console")
    console.add_argument(
        "--db",
        help="SQLite file or postgresql:// URL of the tables (default: bot.storage)",
    )
    console.add_argument("--images", help="folder for images (default: console.images)")
    console.add_argument("--name", help="your name in the room (default: your login name)")
    console.add_argument("--seed", type=int, help="seed for seat order and tiles (replayable)")
    console.add_argument("--no-images", action="store_true", help="text only, no images")
    console.add_argument(
        "--metrics",
        metavar="HOST:PORT",
        help="serve /healthz and /metrics there, like 127.0.0.1:9464 (default: [metrics])",
    )
    console.add_argument(
        "--web",
        metavar="HOST:PORT",
        help="serve the web board there and print its links (docs/web.md)",
    )
    shards = parser.add_argument_group("discord")
    shards.add_argument("--shard-count", type=int, help="shards of the bot in all processes")
    shards.add_argument("--shard-ids", help="the shards this process runs, like 0,1")
    return parser


def _version() -> str:
    """The installed package's version (``unknown`` when run from a bare checkout)."""
    from importlib import metadata

    try:
        return metadata.version("genial-bot")
    except metadata.PackageNotFoundError:
        return "unknown"


def with_shards(args: argparse.Namespace, platform: str, settings: Settings) -> Settings:
    """The settings with the Discord shards named on the command line.

    Raises:
        ConfigError: shards for another platform, ids without a count, or an id that is
            not below the count.
    """
    if args.shard_count is None and args.shard_ids is None:
        return settings
    if platform != "discord":
        raise ConfigError("--shard-count and --shard-ids are for genial-bot discord")
    count = args.shard_count
    if count is None or count < 1:
        raise ConfigError("--shard-count must be a number of shards from 1 up")
    ids: tuple[int, ...] = ()
    if args.shard_ids is not None:
        try:
            ids = tuple(sorted({int(part) for part in args.shard_ids.split(",")}))
        except ValueError:
            raise ConfigError("--shard-ids must be shard numbers like 0,1") from None
        if not ids or ids[0] < 0 or ids[-1] >= count:
            raise ConfigError(f"--shard-ids must be numbers from 0 to {count - 1}")
    return dataclasses.replace(settings, discord_shard_count=count, discord_shard_ids=ids)


def choose_platform(requested: str | None, settings: Settings) -> str:
    return requested or tools.default_platform(settings)


def with_metrics(args: argparse.Namespace, settings: Settings) -> Settings:
    """The settings with the console's ``--metrics HOST:PORT`` and ``--db`` put in, so
    the operator's view serves the console's store.

    Raises:
        ConfigError: ``--metrics`` is not a host and a port.
    """
    settings = dataclasses.replace(settings, storage=args.db or settings.storage)
    if args.metrics is None:
        return settings
    host, sep, port = args.metrics.rpartition(":")
    if not sep or not host or not port.isascii() or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError("--metrics must be a host and a port, like 127.0.0.1:9464")
    return dataclasses.replace(
        settings, metrics_listen=host.strip("[]"), metrics_port=int(port), metrics_port_last=0
    )


def console_input_refusal() -> str | None:
    """Why the console cannot read its players from standard input, or ``None``: it reads
    a terminal, a pipe, a file or a socket. A service or container started with no platform
    has none of these (``/dev/null``, or nothing): the console would read end of input at
    once and stop with status 0, which no service manager restarts, though what was meant
    is a chat platform whose token is missing or misspelt."""
    mode: int | None = None  # none at all: Python found descriptor 0 closed
    if sys.stdin is not None:
        try:
            fd = sys.stdin.fileno()
        except (OSError, ValueError):
            return None  # a stream handed in within the process (a test's): it reads that
        try:
            mode = os.fstat(fd).st_mode
        except OSError:
            mode = None
    if mode is not None and (
        sys.stdin.isatty() or stat.S_ISFIFO(mode) or stat.S_ISREG(mode) or stat.S_ISSOCK(mode)
    ):
        return None
    return (
        "the console needs a terminal or a pipe on standard input, and there is none here;"
        " to run a chat platform, name it (genial-bot telegram or genial-bot discord) and set"
        " its token"
    )


def run_console(args: argparse.Namespace, settings: Settings) -> int:
    """Raises:
    ConfigError: standard input is no terminal, pipe or file (:func:`console_input_refusal`).
    """
    refusal = console_input_refusal()
    if refusal is not None:
        raise ConfigError(refusal)
    name = args.name or settings.name or _login_name()
    settings = with_metrics(args, settings)
    operator = serve_operator(settings)
    try:
        if operator is not None:
            where = f"http://{settings.metrics_listen}:{operator.port}"
            print(f"health and metrics: {where}/healthz {where}/metrics", file=sys.stderr)
        wait_for_store(settings, operator, announce=False)  # printed above
        return _console(args, settings, name)
    finally:
        close_operator(operator)


def _console(args: argparse.Namespace, settings: Settings, name: str) -> int:
    store = open_store(settings.storage, wait=settings.store_wait)
    rng = random.Random(args.seed)
    service = Service(store, settings, rng=rng, pictures=not args.no_images)
    if not args.no_images:
        prepare_pieces()
    memory.settle()  # as run_platform does, before the first line is read
    images = None if args.no_images else Path(args.images or settings.images)
    web = _console_web(args.web, settings)
    board = None
    if web is not None:
        from bot.web.server import WebBoard  # only with --web or [web] port

        board = WebBoard(service, web.url)
    console = Console(service, User(name, name), images)
    try:
        if board is not None and web is not None:
            from bot.web import links

            board.deliver = console.told_elsewhere
            console.links = links(board)
            port = board.start_in_thread(web.listen, web.port)
            print(f"web board: {web.url} (port {port})")
        console.welcome()
        console.resume()
        return console.run(_lines())
    except KeyboardInterrupt:
        print()
        return 0
    except BrokenPipeError:  # the reader went away (``genial-bot | head``)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    finally:
        if board is not None:
            board.stop_thread()
        store.close()


def _console_web(given: str | None, settings: Settings) -> WebSettings | None:
    """The console's web board: ``--web HOST:PORT``, else ``[web]`` if its port is set.

    Raises:
        ConfigError: for a ``--web`` that is not ``HOST:PORT``.
    """
    if given is None:
        return settings.web if settings.web.port else None
    host, _, port = given.rpartition(":")
    if not host or not port.isascii() or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError("--web must be HOST:PORT, like 127.0.0.1:8080")
    public = settings.web.public_url
    return WebSettings(listen=host, port=int(port), public_url=public)


def _lines() -> Iterator[str]:
    """Standard input line by line; with a prompt (and line editing) in a terminal."""
    if not sys.stdin.isatty():
        yield from sys.stdin
        return
    while True:
        try:
            yield input("> ")
        except EOFError:
            print()
            return


def _login_name() -> str:
    try:
        name = getpass.getuser()
    except (OSError, KeyError):
        name = ""
    cleaned = "".join(ch for ch in name if ch.isalnum() or ch in "._-")[:32]
    return cleaned or "you"


def run_platform(platform: str, settings: Settings) -> int:
    """A chat platform's adapter: the module ``bot.<platform>`` with ``main(settings)``."""
    if platform == WEB:
        wait_for_store(settings, None)
        web: int = importlib.import_module(f"bot.{platform}").main(settings)
        return web
    settings.required_token(platform)
    try:
        adapter = importlib.import_module(f"bot.{platform}")
    except ModuleNotFoundError as exc:
        if exc.name != f"bot.{platform}":
            raise
        raise ConfigError(f"the {platform} adapter is not part of this version yet") from None
    if settings.web.port:  # the web board beside the platform, on its service (docs/web.md)
        board = importlib.import_module(f"bot.{WEB}")
        token = settings.token("telegram") if platform == "telegram" else None
        Service.on_start.append(lambda service: board.start_beside(service, settings, token))
    operator = start_operator(settings)
    # A bot that runs for weeks: give the memory it frees back now and then
    # (bot/operator/memory.py).
    memory.keep_giving_back()
    # The boards' pieces drawn ahead of time, on a machine that has none yet.
    prepare_pieces()
    # What the start built, out of the garbage collector's way (bot/operator/memory.py).
    memory.settle()
    try:
        status: int = adapter.main(settings)
    finally:
        close_operator(operator)
    return status


def start_operator(settings: Settings) -> ops.Operator | None:
    """The operator's view (``/healthz``, ``/metrics``) if ``[metrics] port`` is set, with a
    store connection of its own, once the store can be reached (:func:`wait_for_store`);
    log lines name their table either way.

    Raises:
        ConfigError: the port cannot be bound.
        StoreError: the store cannot be opened, and waiting would not help.
        waiting.Stopped: SIGTERM or Ctrl-C while waiting for the store.
    """
    operator = serve_operator(settings)
    try:
        wait_for_store(settings, operator)
    except BaseException:
        close_operator(operator)
        raise
    return operator


def close_operator(operator: ops.Operator | None) -> None:
    if operator is not None:
        operator.close()
        if operator.store is not None:
            operator.store.close()


def wait_for_store(
    settings: Settings, operator: ops.Operator | None, *, announce: bool = True
) -> None:
    """Wait until the store can be opened (bot/operator/waiting.py), the operator's view
    meanwhile answering that it is not reachable yet; then hand the store to the operator
    (or close it: each platform opens its own). The log lines of the wait go to standard
    error as ``[log]`` says, before a platform has set up its own log; the first of them
    (with ``announce``) names the port the operator's view took, which with a range of
    ports only the process knows.

    Raises:
        StoreError: the store cannot be opened, and waiting would not help.
        waiting.Stopped: SIGTERM or Ctrl-C meanwhile.
    """
    root = logging.getLogger()
    level = root.level
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(logs.apply(handler, settings))
    if operator is not None and announce:
        where = f"http://{settings.metrics_listen}:{operator.port}"
        # The process's own logger, named alike however it was started (``python -m bot``
        # makes this module ``__main__``).
        logging.getLogger("genial-bot").info("health and metrics on %s/healthz", where)
    try:
        with waiting.stop_on_signals():
            store = waiting.wait_for_store(
                settings.storage,
                opener=functools.partial(open_store, wait=settings.store_wait),
                told=operator.waiting if operator is not None else None,
            )
    except waiting.Stopped:
        logging.getLogger(__name__).info("stopped while waiting for the store")
        raise
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    if operator is None:
        store.close()
    else:
        operator.ready(store)


def serve_operator(settings: Settings) -> ops.Operator | None:
    """The operator's view if ``[metrics] port`` is set, with no store yet: it answers 503
    until :func:`wait_for_store` hands it one. Log lines name their table either way.

    Raises:
        ConfigError: the port cannot be bound.
    """
    metrics.install_table_ids()
    if not settings.metrics_port:
        return None
    first = settings.metrics_port
    last = max(first, settings.metrics_port_last)
    failure: OSError | None = None
    for port in range(first, last + 1):
        # Several processes with one config: each takes the first port still free.
        try:
            operator = ops.Operator(None, settings.metrics_listen, port)
        except OSError as exc:
            failure = exc
            continue
        return operator
    ports = str(first) if last == first else f"{first}-{last}"
    where = f"{settings.metrics_listen}:{ports}"
    why = failure.strerror if failure is not None else "no port"
    raise ConfigError(f"metrics.port: cannot serve on {where} ({why})")


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if tools.tool_of(argv) is not None:
        return tools.main(argv)
    args = build_parser().parse_args(argv)
    settings: Settings | None = None
    try:
        settings = load_settings(args.config)
        tools.check_levels(settings)
        platform = choose_platform(args.platform, settings)
        tools.check_platform(settings, platform)
        settings = with_shards(args, platform, settings)
        if platform == "console":
            return run_console(args, settings)
        return run_platform(platform, settings)
    except waiting.Stopped:
        return 0
    except (StoreDown, Unreachable) as exc:
        # The store went away again while the platform started, or the platform is not
        # reachable: not a setting to fix; a service manager's restart tries again.
        print(logs.last_line(str(exc), settings), file=sys.stderr)
        return 1
    except (ConfigError, StoreError) as exc:
        print(logs.last_line(str(exc), settings), file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
