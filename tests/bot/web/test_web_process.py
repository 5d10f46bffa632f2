"""``genial-bot web`` end to end, as docs/web.md runs it: the board in a process of its own
and ``genial-bot telegram`` (against a fake Bot API) in another, on one store. A move made
on a seat's page is told in the Telegram group by the bot's process. Both store backends.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.core.table import PLAYING
from bot.pages.links import SECRET_ENV, Signer
from bot.store import open_store
from bot.words.texts import squares
from tests.bot.backends import location
from tests.bot.pgserver import free_port
from tests.bot.telegram.fake_api import FakeBotAPI
from tests.patience import PATIENCE, wait_until

pytestmark = pytest.mark.usefixtures("backend")

ROOT = Path(__file__).resolve().parents[3]
TOKEN = "424242:AAHtestTOKENnever-shown_0123456789"
SECRET = "web process test secret"
PUBLIC = "https://genial.example"
GROUP = -1001234567890
ADA, BOB = 101, 202


@pytest.fixture
def api() -> Iterator[FakeBotAPI]:
    api = FakeBotAPI(TOKEN).start()
    api.group(GROUP, "Genial night")
    api.user(ADA, "Ada")
    api.user(BOB, "Bob")
    yield api
    api.close()


def _config(folder: Path, storage: str, sections: dict[str, dict[str, Any]]) -> Path:
    folder.mkdir()
    text = f"[bot]\nstorage = {json.dumps(storage)}\n"
    for name, values in sections.items():
        text += f"\n[{name}]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in values.items())
    (folder / "config.toml").write_text(text)
    return folder


def _get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=PATIENCE) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())
    except OSError:
        return 0, None  # not listening yet


def test_a_move_on_the_boards_own_process_is_told_by_the_bots_process(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    storage = location(tmp_path / "t.db")
    port = free_port()
    bot_dir = _config(
        tmp_path / "bot",
        storage,
        {"telegram": {"base_url": api.base_url}, "web": {"public_url": PUBLIC}},
    )
    web_dir = _config(
        tmp_path / "web",
        storage,
        {"web": {"listen": "127.0.0.1", "port": port, "public_url": PUBLIC}},
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT), GENIAL_TELEGRAM_TOKEN=TOKEN)
    env[SECRET_ENV] = SECRET
    procs = {
        name: subprocess.Popen(
            [sys.executable, "-m", "bot", name],
            cwd=folder,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, folder in (("telegram", bot_dir), ("web", web_dir))
    }

    def alive() -> str | None:
        for name, proc in procs.items():
            if proc.poll() is not None:
                out, err = proc.communicate()
                return f"genial-bot {name} exited with {proc.returncode}: {out}{err}"
        return None

    chat = str(GROUP)
    signer = Signer(SECRET.encode())
    tid = signer.table_id(chat)
    base = f"http://127.0.0.1:{port}/api/t/{tid}"
    try:
        # The Telegram bot takes the group's commands: Ada and Bob sit down, Ada starts.
        for user, text in ((ADA, "/join"), (BOB, "/join"), (ADA, "/start")):
            api.say(GROUP, user, text)
        store = open_store(storage)
        try:

            def started() -> bool:
                t = store.load(chat)
                return t is not None and t.status == PLAYING

            wait_until(started, "the game started by the bot's process", alive=alive)
            table = store.load(chat)
        finally:
            store.close()
        assert table is not None and table.record is not None
        # The board's own process serves the table's page (the table found by its id,
        # which the bot's process noted with its first link).
        wait_until(lambda: _get(f"{base}/state")[0] == 200, "the board's page", alive=alive)
        movers = [s.user for s in table.seats]
        looks = {u: _get(f"{base}/state?seat={signer.seat_token(tid, u)}")[1] for u in movers}
        (mover,) = [u for u in movers if u is not None and looks[u]["my_turn"]]
        look = looks[mover]
        first, seconds = next(iter(look["cells"].items()))
        tile = look["rack"][0]["name"]
        body = {
            "seat": signer.seat_token(tid, mover),
            "command": "play",
            "move": f"1 {first} {seconds[0]}",
            "version": look["version"],
        }
        req = urllib.request.Request(
            f"{base}/command", json.dumps(body).encode(), {"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=PATIENCE) as r:
            assert json.loads(r.read()) == {"ok": True, "said": []}
        # The move is told in the group by the Telegram bot's process (the board's process
        # has no chat platform: it left the move in the stored outbox).
        name = "Ada" if mover == str(ADA) else "Bob"
        told = f"{name} placed {squares(tile)} {first} {seconds[0]}"
        wait_until(
            lambda: any(
                told in (c.text or "")
                for c in api.sent(GROUP, "sendPhoto") + api.sent(GROUP, "sendMessage")
            ),
            "the page's move told in the group",
            alive=alive,
        )
        # The page sees the move too: the other person is to move now.
        other = next(u for u in movers if u != mover)
        assert other is not None
        status, after = _get(f"{base}/state?seat={signer.seat_token(tid, other)}")
        assert status == 200 and after["my_turn"] and after["version"] > look["version"]
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        outputs = {name: proc.communicate(timeout=PATIENCE) for name, proc in procs.items()}
    assert {name: p.returncode for name, p in procs.items()} == {"telegram": 0, "web": 0}, outputs
    assert all(TOKEN not in out + err for out, err in outputs.values())
