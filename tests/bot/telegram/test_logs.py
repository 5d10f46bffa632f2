"""``[log]`` on a running Telegram bot: ``format = "json"`` makes every line of standard
error one JSON object, the token still taken out, a table's line naming its table."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

from tests.bot.telegram.fake_api import FakeBotAPI
from tests.patience import PATIENCE, wait_until

TOKEN = "424242:AAHtestTOKENnever-shown_0123456789"
GROUP = -1001234567890
ADA = 101


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_json_lines_from_the_bot_process(tmp_path: Path) -> None:
    metrics_port, web_port = free_port(), free_port()
    api = FakeBotAPI(TOKEN).start()
    try:
        api.group(GROUP, "Genial night")
        api.user(ADA, "Ada")
        config = tmp_path / "config.toml"
        config.write_text(
            '[bot]\nstorage = "t.db"\n'
            f'[telegram]\ntoken_env = "MY_TELEGRAM_TOKEN"\nbase_url = "{api.base_url}"\n'
            '[log]\nformat = "json"\nlevel = "debug"\n'
            f'[metrics]\nport = "{metrics_port}-{metrics_port}"\n'
            f'[web]\nport = {web_port}\npublic_url = "https://genial.example.org"\n'
        )
        root = Path(__file__).resolve().parents[3]
        env = {**os.environ, "MY_TELEGRAM_TOKEN": TOKEN, "PYTHONPATH": str(root)}
        # From another folder: the store is found beside the config file.
        # Standard error to a file, not a pipe: the debug lines of a start (each command
        # menu with its parameters) fill a pipe's buffer long before the bot answers, and a
        # bot blocked on a full pipe never would.
        with (tmp_path / "err.txt").open("w") as errors:
            process = subprocess.Popen(
                [sys.executable, "-m", "bot", "--config", str(config), "telegram"],
                stdout=subprocess.PIPE,
                stderr=errors,
                text=True,
                env=env,
                cwd=root,
            )
            try:
                api.say(GROUP, ADA, "/join")

                def alive() -> str | None:
                    return None if process.poll() is None else str(process.communicate())

                wait_until(lambda: api.sent(GROUP), "the bot's answer", alive=alive)
                process.send_signal(signal.SIGTERM)
                out, _ = process.communicate(timeout=PATIENCE)
            finally:
                if process.poll() is None:
                    process.kill()
        err = (tmp_path / "err.txt").read_text()
    finally:
        api.close()
    assert process.returncode == 0, err
    assert (tmp_path / "t.db").is_file()
    lines = [json.loads(line) for line in err.splitlines()]
    assert lines and all(
        set(line) == {"time", "level", "logger", "table", "message"} for line in lines
    )
    assert any(line["level"] == "debug" for line in lines)  # level = "debug" is applied
    assert TOKEN not in out + err and TOKEN.split(":")[1] not in out + err
    assert all(line["time"].endswith("Z") for line in lines)
    # The ports the process took, at info level: only it knows which of a range it took.
    infos = [line["message"] for line in lines if line["level"] == "info"]
    assert f"health and metrics on http://127.0.0.1:{metrics_port}/healthz" in infos
    assert any(m.startswith(f"web board on 127.0.0.1:{web_port}, links ") for m in infos)


def run_bot(
    tmp_path: Path, config: str, *args: str, **env: str
) -> subprocess.CompletedProcess[str]:
    (tmp_path / "config.toml").write_text(config)
    root = Path(__file__).resolve().parents[3]
    environ = {k: v for k, v in os.environ.items() if not k.startswith("GENIAL_")}
    return subprocess.run(
        [sys.executable, "-m", "bot", "--config", str(tmp_path / "config.toml"), *args],
        capture_output=True,
        text=True,
        env={**environ, "PYTHONPATH": str(root), **env},
        cwd=tmp_path,
        timeout=PATIENCE,
        stdin=subprocess.DEVNULL,
    )


def test_the_ports_taken_are_logged_in_text_lines_too(tmp_path: Path) -> None:
    """In the text format too, at info level (the default), before the bot waits for its
    store: a store that will never answer (a closed local port) shows the line at once."""
    metrics_port = free_port()
    config = (
        f'[bot]\nstorage = "postgresql://genial@127.0.0.1:{free_port()}/genial"\n'
        f'[metrics]\nport = "{metrics_port}-{metrics_port + 1}"\n'
        f'[telegram]\nbase_url = "http://127.0.0.1:{free_port()}"\n'
    )
    (tmp_path / "config.toml").write_text(config)
    root = Path(__file__).resolve().parents[3]
    environ = {k: v for k, v in os.environ.items() if not k.startswith("GENIAL_")}
    with (tmp_path / "err.txt").open("w") as errors:
        process = subprocess.Popen(
            [sys.executable, "-m", "bot", "--config", "config.toml", "telegram"],
            stderr=errors,
            stdout=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            env={**environ, "PYTHONPATH": str(root), "GENIAL_TELEGRAM_TOKEN": TOKEN},
            cwd=tmp_path,
        )
        try:
            wanted = f"INFO genial-bot: health and metrics on http://127.0.0.1:{metrics_port}"

            def alive() -> str | None:
                return None if process.poll() is None else (tmp_path / "err.txt").read_text()

            wait_until(
                lambda: wanted in (tmp_path / "err.txt").read_text(), "the port's line", alive=alive
            )
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=PATIENCE)
        finally:
            if process.poll() is None:
                process.kill()
    assert process.returncode == 0
    assert TOKEN.split(":")[1] not in (tmp_path / "err.txt").read_text()


def test_the_last_line_of_a_refused_start_is_json_in_json_format(tmp_path: Path) -> None:
    """A setting to fix ends the process with one JSON line like every other line; in the
    text format it is the plain ``genial-bot: ...`` line."""
    refused = run_bot(tmp_path, '[log]\nformat = "json"\n', "telegram")
    assert refused.returncode == 2
    (line,) = refused.stderr.splitlines()
    assert json.loads(line) == {
        "time": json.loads(line)["time"],
        "level": "error",
        "logger": "genial-bot",
        "table": None,
        "message": "set the environment variable GENIAL_TELEGRAM_TOKEN to the telegram bot's token",
    }
    plain = run_bot(tmp_path, '[log]\nformat = "text"\n', "telegram")
    assert (plain.returncode, plain.stderr) == (
        2,
        "genial-bot: set the environment variable GENIAL_TELEGRAM_TOKEN to the telegram"
        " bot's token\n",
    )
