"""``[log]`` on a running Telegram bot: ``format = "json"`` makes every line of standard
error one JSON object, the token still taken out, a table's line naming its table."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.bot.telegram.fake_api import FakeBotAPI
from tests.patience import PATIENCE, wait_until

TOKEN = "424242:AAHtestTOKENnever-shown_0123456789"
GROUP = -1001234567890
ADA = 101


def test_json_lines_from_the_bot_process(tmp_path: Path) -> None:
    api = FakeBotAPI(TOKEN).start()
    try:
        api.group(GROUP, "Genial night")
        api.user(ADA, "Ada")
        config = tmp_path / "config.toml"
        config.write_text(
            '[bot]\nstorage = "t.db"\n'
            f'[telegram]\ntoken_env = "MY_TELEGRAM_TOKEN"\nbase_url = "{api.base_url}"\n'
            '[log]\nformat = "json"\nlevel = "debug"\n'
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
