"""How long ``genial-bot telegram`` and ``genial-bot discord`` take to stop on SIGTERM, at the
moments issue 23 found the signal ignored or fatal. Goal: within 2 s.

- Telegram, still starting: it retries a Bot API server it cannot reach (a closed port on
  this machine); before, the signal waited for the retries, about 30 s.
- Discord, still starting: it retries a gateway it cannot reach (a Discord of its own on
  127.0.0.1 whose gateway port is closed, ``tests/bot/discord/local_discord.py``).
- Discord, running: connected to that local Discord's gateway.
- Discord, running with a worker thread busy (a call that would last an hour, as a long
  computer game): given up after the grace.
- Telegram, running with a worker thread busy, the same way
  (``tests/bot/telegram/busy_launch.py``).

    .venv/bin/python benchmarks/bench_stop.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.bot.discord.local_discord import LocalDiscord, closed_port  # noqa: E402
from tests.bot.telegram.fake_api import FakeBotAPI  # noqa: E402
from tests.bot.telegram.post_kills import TOKEN  # noqa: E402

#: The longest a round may take before it counts as stuck.
CEILING = 300


def stop_time(command: list[str], env: dict[str, str], folder: Path, marker: str) -> float:
    """Start ``command``, wait for ``marker`` on its standard error, send SIGTERM; the
    seconds until it ended (with status 0)."""
    process = subprocess.Popen(
        command,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env={**os.environ, **env, "PYTHONPATH": str(ROOT)},
        cwd=folder,
    )
    assert process.stderr is not None
    seen = []
    for line in process.stderr:
        seen.append(line)
        if marker in line:
            break
    else:
        raise AssertionError(f"never said {marker!r}:\n{''.join(seen)}")
    start = time.perf_counter()
    process.send_signal(signal.SIGTERM)
    rest = process.communicate(timeout=CEILING)[1]
    took = time.perf_counter() - start
    assert process.returncode == 0, (process.returncode, "".join(seen) + rest)
    assert "Traceback" not in rest, rest
    return took


def telegram_starting(folder: Path) -> float:
    config = folder / "config.toml"
    config.write_text(
        f'[bot]\nstorage = "{folder / "t.db"}"\n'
        f'[telegram]\nbase_url = "http://127.0.0.1:{closed_port()}/bot"\n'
    )
    command = [sys.executable, "-m", "bot", "--config", str(config), "telegram"]
    # "trying again": it is retrying the server it cannot reach.
    return stop_time(command, {"GENIAL_TELEGRAM_TOKEN": "123:bench"}, folder, "trying again")


def discord_round(
    marker: str, *, gateway: bool = True, busy: bool = False
) -> Callable[[Path], float]:
    def one(folder: Path) -> float:
        (folder / "config.toml").write_text(f'[bot]\nstorage = "{folder / "d.db"}"\n')
        local = LocalDiscord(gateway=gateway)
        env = {**local.env, "GENIAL_DISCORD_TOKEN": "MTIz.bench.x"}
        if busy:
            env["GENIAL_TEST_BUSY_WORKER"] = "1"
        command = [sys.executable, "-m", "tests.bot.discord.local_discord", "discord"]
        try:
            return stop_time(command, env, folder, marker)
        finally:
            local.close()

    return one


def telegram_busy(folder: Path) -> float:
    api = FakeBotAPI(TOKEN).start()
    try:
        (folder / "config.toml").write_text(
            f'[bot]\nstorage = "{folder / "t.db"}"\n[telegram]\nbase_url = "{api.base_url}"\n'
        )
        command = [sys.executable, "-m", "tests.bot.telegram.busy_launch", "telegram"]
        return stop_time(
            command, {"GENIAL_TELEGRAM_TOKEN": TOKEN}, folder, "a worker thread is busy now"
        )
    finally:
        api.close()


CASES: dict[str, Callable[[Path], float]] = {
    "telegram, while starting (retrying the Bot API server)": telegram_starting,
    "telegram, running with a worker thread busy": telegram_busy,
    "discord, while starting (retrying the gateway)": discord_round(
        "cannot reach Discord's gateway yet", gateway=False
    ),
    "discord, running": discord_round("has connected to Gateway"),
    "discord, running with a worker thread busy": discord_round(
        "a worker thread is busy now", busy=True
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    for name, one_round in CASES.items():
        times = []
        for _ in range(args.rounds):
            with tempfile.TemporaryDirectory() as tmp:
                times.append(one_round(Path(tmp)))
        print(
            f"SIGTERM {name}, {args.rounds} rounds: min {min(times):.2f} s, "
            f"median {statistics.median(times):.2f} s, max {max(times):.2f} s (goal: 2 s)"
        )


if __name__ == "__main__":
    main()
