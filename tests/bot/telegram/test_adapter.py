"""End to end on Telegram: the real python-telegram-bot Application, our adapter and the
table service, talking HTTP to a fake Bot API server on 127.0.0.1 (``fake_api``).
No network, no real token.

People act by the updates the fake hands out (typed commands, button presses); what the
bot did is read from the requests the fake recorded. Moves are chosen from the engine's
legal moves on the game rebuilt from the stored record, and the racks people see are
checked against the engine's racks.
"""

from __future__ import annotations

import io
import json
import logging
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.core import games
from bot.core.config import ConfigError, Settings, TelegramSettings, Unreachable
from bot.core.parsing import COMMAND_WORDS
from bot.core.table import CLOSED, LOBBY, PLAYING, Table
from bot.service import Service
from bot.store.sqlite import SQLiteStore
from bot.words.texts import LANGUAGES, squared
from tests.bot.helpers import Clock
from tests.bot.pgserver import free_port
from tests.bot.telegram.fake_api import BotRunner, FakeBotAPI, buttons
from tests.patience import PATIENCE, wait_until

TOKEN = "424242:AAHtestTOKENnever-shown_0123456789"
GROUP = -1001234567890
TITLE = "Genial night"
ADA, BOB, CAROL, DAN = 101, 202, 303, 404
NAMES = {ADA: "Ada", BOB: "Bob", CAROL: "Carol", DAN: "Dan"}
#: A rack as the bot writes it ("1 🟥🟩  2 🟦🟦 ..."): must never reach the group.
RACK_TEXT = re.compile("\\b1 [\U0001f7e5-\U0001f7eb]{2}  2 [\U0001f7e5-\U0001f7eb]{2}")
STALE = "This button is from an earlier turn; nothing changed."
# python-telegram-bot warns about its own RetryAfter when a 429 is answered.
pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


@pytest.fixture
def api() -> Iterator[FakeBotAPI]:
    api = FakeBotAPI(TOKEN).start()
    api.group(GROUP, TITLE)
    for user, name in NAMES.items():
        # Bob never opens the private chat with the bot.
        api.user(user, name, opened=user != BOB)
    yield api
    api.close()


_RUNNING: list[BotRunner] = []


@pytest.fixture(autouse=True)
def stop_bots(api: FakeBotAPI) -> Iterator[None]:
    """Every bot a test started is stopped at its end, passed or failed (before the fake
    server goes)."""
    yield
    while _RUNNING:
        _RUNNING.pop().stop()


def start_bot(
    api: FakeBotAPI,
    db: Path,
    seed: int = 3,
    clock: Clock | None = None,
    pictures: bool = True,
    **kw: Any,
) -> BotRunner:
    def make_service(path: Path) -> Service:
        return Service(
            SQLiteStore(path),
            Settings(),
            rng=random.Random(seed),
            clock=clock or time.time,
            pictures=pictures,
        )

    runner = BotRunner(api, db, make_service=make_service, **kw)
    _RUNNING.append(runner)
    return runner.start()


class Room:
    """The group as its people use it: each action waits until the bot has answered."""

    def __init__(self, api: FakeBotAPI, runner: BotRunner) -> None:
        self.api = api
        self.runner = runner

    def say(self, user: int, text: str, chat: int = GROUP, thread: int | None = None) -> int:
        update = self.api.say(chat, user, text, thread=thread)
        self.runner.wait(update)
        return update

    def press(self, user: int, message: dict[str, Any], label: str) -> int:
        update = self.api.press(user, message, label)
        self.runner.wait(update)
        return update

    def table(self) -> Table:
        table = self.runner.service.table(str(GROUP))
        assert table is not None
        return table

    def game(self) -> Any:
        record = self.table().record
        assert record is not None
        return games.rebuild(record)

    def mover(self) -> int:
        seat = self.table().seats[self.game().to_move]
        assert seat.user is not None
        return int(seat.user)


def reply_texts(api: FakeBotAPI, chat: int, message_id: int) -> list[str]:
    """The bot's messages in ``chat`` that reply to message ``message_id``."""
    return [
        c.text
        for c in api.sent(chat)
        if (c.params.get("reply_parameters") or {}).get("message_id") == message_id
    ]


def typed(api: FakeBotAPI, chat: int) -> int:
    """The id of the last message a person typed in ``chat``."""
    return max(i for (c, i), m in api.messages.items() if c == chat and not m["from"].get("is_bot"))


def slot_command(rack: tuple[Any, ...], move: Any, area: Any) -> str:
    """``/play <slot> <cell> <cell>`` for a placement: the slot's tile puts its first
    colour on the first cell named (RULES.md), so the cells are ordered to match."""
    slot = rack.index(move.tile) + 1
    first, second = area.label(move.cell1), area.label(move.cell2)
    if rack[slot - 1].first != move.first:
        first, second = second, first
    return f"/play {slot} {first} {second}"


def test_commands_are_registered_in_every_language(api: FakeBotAPI, tmp_path: Path) -> None:
    runner = start_bot(api, tmp_path / "t.db")
    runner.stop()
    scopes = ("default", "all_group_chats", "all_private_chats")
    assert set(api.commands) == {(scope, lang) for scope in scopes for lang in (None, *LANGUAGES)}
    for commands in api.commands.values():
        assert [c["command"] for c in commands] == list(COMMAND_WORDS)
        assert all(0 < len(c["description"]) <= 256 for c in commands)
    for scope in scopes:
        described = {
            lang: {c["command"]: c["description"] for c in api.commands[scope, lang]}
            for lang in LANGUAGES
        }
        assert described["en"]["join"] == "take a seat at this chat's table"
        assert described["de"]["join"] == "an den Tisch dieses Chats setzen"
        assert described["fr"]["play"] == "jouer un coup, comme /play RG A2 B3"
        assert described["nl"]["join"] != described["en"]["join"]
    # Polling starts without dropping what people sent while the bot was away.
    (delete,) = api.of("deleteWebhook")
    assert delete.params.get("drop_pending_updates") in (None, False)


def test_menus_are_set_only_when_they_differ(api: FakeBotAPI, tmp_path: Path) -> None:
    """The first start sets all 15 menus (3 scopes, 4 languages and the fallback); a second
    start with nothing changed reads them and sets none; a menu someone changed meanwhile
    (here: the German one of groups) is the only one set again."""
    start_bot(api, tmp_path / "t.db").stop()
    assert len(api.of("setMyCommands")) == 15
    start_bot(api, tmp_path / "t.db").stop()
    assert len(api.of("setMyCommands")) == 15
    assert len(api.of("getMyCommands")) == 30
    api.commands["all_group_chats", "de"] = [{"command": "join", "description": "alt"}]
    start_bot(api, tmp_path / "t.db").stop()
    (again,) = api.of("setMyCommands")[15:]
    assert again.params["language_code"] == "de"
    assert again.params["scope"] == {"type": "all_group_chats"}
    assert [c["command"] for c in api.commands["all_group_chats", "de"]] == list(COMMAND_WORDS)


def test_complete_game_in_a_group_with_a_restart(api: FakeBotAPI, tmp_path: Path) -> None:
    db = tmp_path / "tables.db"
    room = Room(api, start_bot(api, db))

    # The lobby: Ada types /join, Bob presses Join; the one lobby message is edited.
    room.say(ADA, "/join")
    lobby = api.last_message(GROUP, "Join")
    links = [b["url"] for b in buttons(lobby) if "url" in b]
    assert links == [f"https://t.me/GenialTestBot?start=t{GROUP}"]
    room.press(BOB, lobby, "Join")
    edit = api.of("editMessageText")[-1]
    assert edit.params["message_id"] == lobby["message_id"]
    assert "1. Ada\n2. Bob" in edit.text
    assert sum(f"Table {TITLE}" in c.text for c in api.sent(GROUP)) == 1

    # Ada opens the private chat by the deep link; Bob never does.
    room.say(ADA, "/start " + links[0].split("start=")[1], chat=ADA)
    assert api.sent(ADA)[-1].text == f"Your tiles for {TITLE} will arrive in this chat."

    room.press(ADA, api.last_message(GROUP, "Start"), "Start")
    (start,) = api.sent(GROUP, "sendPhoto")
    assert start.text.startswith("The game begins: Genial. Seats: 1. Ada, 2. Bob.")
    assert "reply_markup" not in api.message(GROUP, lobby["message_id"])  # buttons gone
    notice = [c for c in api.sent(GROUP) if "can't write to you privately" in c.text]
    assert len(notice) == 1 and notice[0].text.startswith("Bob, ")

    rng = random.Random(11)
    turns = popups = 0
    restarted = full_size = False
    while room.table().status == PLAYING:
        game = room.game()
        mover = room.mover()
        seat = game.to_move
        before = len(game.moves)
        if game.awaiting == "swap":
            label = rng.choice(["Swap", "Keep"])
            room.press(mover, api.last_message(GROUP, "Swap"), label)
            assert len(room.game().moves) == before + 1
            continue
        move = rng.choice(game.legal_moves())
        rack = game.view(seat).rack
        if turns == 14 and not restarted:
            # The bot goes down; the player to move sends the move meanwhile; a new bot
            # (a new service on the same store) picks the update up and goes on.
            room.runner.stop()
            pending = api.say(GROUP, mover, f"/play {games.format_move(game, move)}")
            room.runner = start_bot(api, db, seed=999)
            room.runner.wait(pending)
            assert len(room.game().moves) == before + 1
            restarted = True
            turns += 1
            continue
        if mover == ADA:
            # Her rack came privately, the same as the engine's.
            last_rack = [c for c in api.sent(ADA) if c.text.startswith("Your tiles at")][-1]
            assert f"Your tiles at {TITLE}: {games.rack_text(rack)}" in last_rack.text
            text = f"/play {games.format_move(game, move)}"
            if turns % 3 == 1:
                text = text.replace("/play", "/play@GenialTestBot")
            # Every other move she sends from the private chat.
            room.say(ADA, text, chat=ADA if turns % 2 else GROUP)
        else:
            # Bob's private chat is closed: "My tiles" shows his rack in a pop-up.
            update = room.press(BOB, api.last_message(GROUP, "My tiles"), "My tiles")
            answer = api.answer(update)
            assert answer["show_alert"] is True
            assert games.rack_text(rack) in answer["text"]
            popups += 1
            room.say(BOB, slot_command(rack, move, game.area))
        assert len(room.game().moves) == before + 1, api.sent()[-1].text
        if turns == 6 and not full_size:
            room.press(BOB, api.last_message(GROUP, "Full size"), "Full size")
            document = api.sent(GROUP, "sendDocument")[-1]
            ((name, data),) = document.files.values()
            assert name.startswith("board-") and data.startswith(b"\x89PNG")
            full_size = True
        turns += 1

    assert restarted and full_size and popups >= 10
    results = [c for c in api.sent(GROUP, "sendPhoto") if c.text.startswith("Game over")]
    assert len(results) == 1
    assert room.table().status == LOBBY

    # Every turn was one photo in the group, within Telegram's caption limit, mentioning
    # the person to act.
    photos = api.sent(GROUP, "sendPhoto")
    assert all(len(p.text) <= 1024 for p in photos)
    for photo in photos:
        for entity in photo.params.get("caption_entities", []):
            assert entity["type"] == "text_mention"
            # Offsets count UTF-16 units (a coloured square in the text is two).
            units = photo.text.encode("utf-16-le")
            start, end = 2 * entity["offset"], 2 * (entity["offset"] + entity["length"])
            name = units[start:end].decode("utf-16-le")
            assert name == NAMES[entity["user"]["id"]]

    # Racks only ever in private: none in the group, none to Bob (whose chat is closed;
    # the bot tried once, remembered it across the restart, then used the pop-up).
    for call in api.sent(GROUP):
        assert not RACK_TEXT.search(call.text), call.text
        assert not any(name.startswith("rack-") for name, _ in call.files.values())
    assert api.sent(BOB) == []
    refused = [c for c in api.calls if c.chat == BOB]
    assert len(refused) == 1 and refused[0].status == 403
    assert all(RACK_TEXT.search(c.text) for c in api.sent(ADA) if "Your tiles at" in c.text)
    ada_racks = [c for c in api.sent(ADA, "sendPhoto") if c.text.startswith("Your tiles at")]
    assert len(ada_racks) >= 10


def test_bad_commands_get_clear_answers(api: FakeBotAPI, tmp_path: Path) -> None:
    room = Room(api, start_bot(api, tmp_path / "t.db"))

    def answers(user: int, text: str, chat: int = GROUP) -> list[str]:
        room.say(user, text, chat)
        return reply_texts(api, chat, typed(api, chat))

    assert answers(ADA, "/start") == ["There is no table in this chat yet: /join opens one."]
    # A bare unknown command may be another bot's: no answer. Addressed to us, it gets one.
    count = len(api.sent())
    room.say(ADA, "/frobnicate")
    room.say(ADA, "/join@SomeOtherBot")
    assert len(api.sent()) == count
    assert answers(ADA, "/frobnicate@GenialTestBot") == [
        "I don't know /frobnicate@GenialTestBot. /help lists the commands."
    ]
    room.say(ADA, "/join@GenialTestBot")
    assert answers(ADA, "/option timeout 99x") == [
        "99x is not a time per turn: use 30m, 24h, 2d (at least a minute, at most 14 days) or off."
    ]
    room.say(CAROL, "/join")
    assert answers(CAROL, "/option team") == ["Only the host (Ada) or a chat admin may do that."]
    # A chat admin may, though not seated: Telegram is asked who administers the chat.
    api.admins.add((GROUP, DAN))
    room.say(DAN, "/option hints on")
    assert room.table().options.hints is True
    assert api.of("getChatMember")[-1].params == {"chat_id": GROUP, "user_id": DAN}

    room.say(ADA, "/start")
    version = room.table().version
    mover = room.mover()
    other = ADA if mover == CAROL else CAROL
    assert answers(DAN, "/play RG A2 A3") == ["You are not seated at this table."]
    assert answers(other, "/play RG A2 A3") == [f"It is not your turn: {NAMES[mover]} is to move."]
    assert answers(mover, "/play hello") == [
        "I can't read hello as a move. Type a tile and two cells, like /play RG A2 B3,"
        " or a rack slot: /play 1 A2 B3."
    ]
    assert answers(mover, "/swap") == [
        "No swap is offered now: /swap and /keep answer the offer after a turn."
    ]
    assert answers(mover, "/play") == [
        "Say which move: /play <tile> <cell> <cell>, like /play RG A2 B3 or /play 1 A2 B3."
    ]
    # From the private chat, a move goes to the group's table; its error comes back there.
    assert answers(mover, "/play 9 A2 A3", chat=mover) == [
        "There is no tile in slot 9 of your rack: /hand shows your tiles."
    ]
    assert room.table().version == version  # nothing changed


def test_stale_and_double_presses_are_answered_politely(api: FakeBotAPI, tmp_path: Path) -> None:
    room = Room(api, start_bot(api, tmp_path / "t.db"))
    room.say(ADA, "/join")
    room.say(ADA, "/option")
    options = api.last_message(GROUP, "Team game")
    # A press on a current options message changes the option and edits the message.
    room.press(ADA, options, "Hints on")
    edit = api.of("editMessageText")[-1]
    assert edit.params["message_id"] == options["message_id"] and "Hints: on" in edit.text
    # The same, older message again: its buttons carry the old version.
    update = room.press(ADA, options, "Team game")
    assert api.answer(update)["text"] == STALE
    assert api.answer(update)["show_alert"] is False
    assert room.table().options.team is False

    # Two presses of Start on the same lobby message: one game starts, one press is stale.
    room.say(CAROL, "/join")
    lobby = api.last_message(GROUP, "Start")
    first = api.press(ADA, lobby, "Start")
    second = api.press(CAROL, lobby, "Start")
    room.runner.wait(first, second)
    starts = [c for c in api.sent(GROUP) if c.text.startswith("The game begins")]
    assert len(starts) == 1
    texts = sorted(api.answer(u).get("text", "") for u in (first, second))
    assert texts == ["", "The game has already started; that button was for the lobby."]


def test_pressing_my_tiles_when_not_seated(api: FakeBotAPI, tmp_path: Path) -> None:
    room = Room(api, start_bot(api, tmp_path / "t.db"))
    room.say(ADA, "/join")
    room.say(CAROL, "/join")
    room.say(ADA, "/start")
    update = room.press(DAN, api.last_message(GROUP, "My tiles"), "My tiles")
    assert api.answer(update)["text"] == "You are not seated at this table."
    # And a typed /hand sends the rack to the private chat, not to the group.
    count = len(api.sent(GROUP))
    room.say(CAROL, "/hand")
    assert len(api.sent(GROUP)) == count
    assert api.sent(CAROL)[-1].text.startswith(f"Your tiles at {TITLE}: 1 ")


def test_private_start_without_a_table_says_hello(api: FakeBotAPI, tmp_path: Path) -> None:
    room = Room(api, start_bot(api, tmp_path / "t.db"))
    room.say(CAROL, "/start", chat=CAROL)
    assert api.sent(CAROL)[-1].text.startswith("Hello Carol! I host games of Genial in groups")


def test_flood_waits_and_network_errors_are_retried(api: FakeBotAPI, tmp_path: Path) -> None:
    room = Room(api, start_bot(api, tmp_path / "t.db"))
    api.fail("sendMessage", 429, "Too Many Requests: retry after 1", retry_after=1)
    api.fail("sendMessage", 502, "Bad Gateway")
    room.say(ADA, "/join")
    assert [c.status for c in api.of("sendMessage")] == [429, 502, 200]
    assert api.sent(GROUP)[-1].text.startswith("Ada sits down.")


def test_webhook_mode(api: FakeBotAPI, tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/genial-hook"
    settings = TelegramSettings(
        base_url=api.base_url, mode="webhook", webhook_url=url, listen="127.0.0.1", port=port
    )
    runner = start_bot(api, tmp_path / "t.db", telegram=settings)
    try:
        assert api.webhook is not None and api.webhook["url"] == url
        secret = api.webhook["secret_token"]
        assert len(secret) >= 32
        update = {"update_id": 1, "message": api.new_message(GROUP, ADA, "/join")}

        def post(headers: dict[str, str]) -> int:
            request = urllib.request.Request(
                url,
                data=json.dumps(update).encode(),
                headers={"Content-Type": "application/json", **headers},
            )
            try:
                with urllib.request.urlopen(request, timeout=PATIENCE) as response:
                    return int(response.status)
            except urllib.error.HTTPError as exc:
                return exc.code

        # A post without Telegram's secret is refused.
        assert post({}) == 403
        assert post({"X-Telegram-Bot-Api-Secret-Token": secret}) == 200
        runner.wait(1)
        assert api.sent(GROUP)[-1].text.startswith("Ada sits down.")
    finally:
        runner.stop()


def test_token_never_appears_in_logs(api: FakeBotAPI, tmp_path: Path) -> None:
    from bot.telegram.app import install_logging

    stream = io.StringIO()
    handler = install_logging(TOKEN, stream, level=logging.DEBUG)
    # httpx logs every request's address, token included: let it, to see it redacted.
    logging.getLogger("httpx").setLevel(logging.INFO)
    try:
        room = Room(api, start_bot(api, tmp_path / "t.db"))
        api.fail("sendMessage", 502, "Bad Gateway")
        room.say(ADA, "/join")
        room.say(BOB, "/join")
        room.say(ADA, "/start")  # Bob's rack: a 403
        room.runner.stop()
    finally:
        logging.getLogger().removeHandler(handler)
        logging.getLogger().setLevel(logging.WARNING)
        logging.getLogger("httpx").setLevel(logging.NOTSET)
    logs = stream.getvalue()
    assert "/bot[token]/sendPhoto" in logs  # the addresses were logged, redacted
    assert "Bad Gateway" in logs and "Forbidden" in logs
    assert TOKEN not in logs
    assert TOKEN.split(":")[1] not in logs


def test_rejected_token_is_reported_without_it(
    api: FakeBotAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    from bot import telegram

    wrong = "999999:WRONGtokenWRONGtoken-abc"
    monkeypatch.setenv("GENIAL_TELEGRAM_TOKEN", wrong)
    settings = Settings(
        storage=str(tmp_path / "t.db"), telegram=TelegramSettings(base_url=api.base_url)
    )
    with pytest.raises(ConfigError) as error:
        telegram.main(settings)
    assert str(error.value) == (
        f"the Bot API server at {api.base_url} rejected the token in GENIAL_TELEGRAM_TOKEN"
    )
    captured = capsys.readouterr()
    assert "WRONGtoken" not in captured.out + captured.err
    assert api.of("getMe")[0].status == 401  # the server was asked, and said no


def test_a_bot_api_server_not_there_is_no_setting_to_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """A server still unreachable after the retries ends the start as :class:`Unreachable`
    (exit status 1, which a service manager restarts), not as a setting to fix (status 2:
    the unit would never restart it). Issue 43."""
    from bot import telegram
    from bot.__main__ import main
    from bot.telegram import app

    monkeypatch.setattr(app, "START_RETRIES", 0)  # the retries are tested above
    closed = f"http://127.0.0.1:{free_port()}/bot"
    monkeypatch.setenv("GENIAL_TELEGRAM_TOKEN", "999999:NOTaTOKENnotAtoken-abc")
    settings = Settings(storage=str(tmp_path / "t.db"), telegram=TelegramSettings(base_url=closed))
    with pytest.raises(Unreachable, match=rf"^cannot reach the Bot API server at {closed}: "):
        telegram.main(settings)
    config = tmp_path / "config.toml"
    config.write_text(
        f'[bot]\nstorage = "{tmp_path / "t.db"}"\n[telegram]\nbase_url = "{closed}"\n'
    )
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        assert main(["--config", str(config), "telegram"]) == 1
    finally:  # the bot's log handler goes with it
        root.handlers[:] = handlers
        root.setLevel(level)
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith("genial-bot: cannot reach the Bot API server at ")
    assert "NOTaTOKEN" not in err


def test_game_against_a_computer_player_in_the_private_chat(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    pytest.importorskip("engine.ai")
    room = Room(api, start_bot(api, tmp_path / "t.db"))
    room.say(ADA, "/join", chat=ADA)
    room.say(ADA, "/addbot", chat=ADA)
    room.say(ADA, "/start", chat=ADA)  # the game's /start: a table waits in this chat
    rng = random.Random(2)
    table = lambda: room.runner.service.table(str(ADA))  # noqa: E731
    for _ in range(200):
        t = table()
        if t.status != PLAYING:
            break
        game = games.rebuild(t.record)
        assert t.seats[game.to_move].user == str(ADA)  # the computer moved by itself
        move = rng.choice(game.legal_moves())
        text = games.format_move(game, move)
        room.say(ADA, f"/{text}" if text in ("swap", "keep") else f"/play {text}", chat=ADA)
    assert table().status == LOBBY
    photos = api.sent(ADA, "sendPhoto")
    # The computer's moves are told in the message of Ada's turn, after her own move.
    assert any("\nComputer 1 placed" in p.text for p in photos)
    assert sum(p.text.startswith("Game over") for p in photos) == 1


def test_opening_the_private_chat_later_brings_the_rack(api: FakeBotAPI, tmp_path: Path) -> None:
    room = Room(api, start_bot(api, tmp_path / "t.db"))
    room.say(ADA, "/join")
    room.say(BOB, "/join")
    room.say(ADA, "/start")
    assert api.sent(BOB) == []
    # Bob follows the lobby's link at last: his rack comes privately, as the engine has it.
    room.say(BOB, f"/start t{GROUP}", chat=BOB)
    game = room.game()
    (rack,) = api.sent(BOB)
    assert rack.method == "sendPhoto"
    bob_rack = games.rack_text(game.view(1).rack)
    assert rack.text.startswith(f"Your tiles at {TITLE}: {bob_rack}")
    # Now he can play from there, too, once it is his turn.
    if room.mover() == ADA:
        room.say(ADA, f"/play {games.format_move(game, game.legal_moves()[0])}")
    game = room.game()
    room.say(BOB, f"/play {games.format_move(game, game.legal_moves()[0])}", chat=BOB)
    assert len(room.game().moves) == 2
    assert api.sent(GROUP, "sendPhoto")[-1].text.startswith("Bob placed ")


def test_the_periodic_check_reminds_and_takes_over(api: FakeBotAPI, tmp_path: Path) -> None:
    clock = Clock()
    runner = start_bot(api, tmp_path / "t.db", clock=clock, due_interval=0.05)
    room = Room(api, runner)
    room.say(ADA, "/join")
    room.say(CAROL, "/join")
    room.say(ADA, "/option timeout 1h")
    room.say(ADA, "/start")
    mover = room.mover()
    clock.advance(31 * 60)
    # The bot's own periodic check (every 0.05 s here) finds the reminder due.
    expected = f"{NAMES[mover]}, it is your turn at {TITLE}: 29m left, then a computer"
    wait_until(lambda: any(c.text.startswith(expected) for c in api.sent(GROUP)), "a reminder")
    (reminder,) = [c for c in api.sent(GROUP) if c.text.startswith(expected)]
    assert reminder.params["entities"][0]["user"]["id"] == mover
    try:
        import engine.ai  # noqa: F401
    except ImportError:
        return  # taking over needs the computer players
    clock.advance(30 * 60)
    runner.tick()
    # The periodic check may have claimed the turn first and still be playing it when this
    # look returns (seen beside busy neighbours): wait for the move itself.
    wait_until(lambda: len(room.game().moves) == 1, "the computer's move")
    wait_until(
        lambda: any(
            c.text.startswith(f"Time is up for {NAMES[mover]}")
            for c in api.sent(GROUP, "sendPhoto")
        ),
        "the board of the computer's move",
    )
    assert len(room.game().moves) == 1


def test_genial_bot_telegram_exits_2_on_a_rejected_token(api: FakeBotAPI, tmp_path: Path) -> None:
    pytest.importorskip("engine.ai")  # the entry point checks the computer levels first
    wrong = "31337:WRONGtokenWRONGtoken-abc"
    config = tmp_path / "config.toml"
    config.write_text(
        f'[bot]\nstorage = "{tmp_path / "t.db"}"\n'
        f'[telegram]\ntoken_env = "MY_TELEGRAM_TOKEN"\nbase_url = "{api.base_url}"\n'
    )
    root = Path(__file__).resolve().parents[3]
    env = {**os.environ, "MY_TELEGRAM_TOKEN": wrong, "PYTHONPATH": str(root)}
    result = subprocess.run(
        [sys.executable, "-m", "bot", "--config", str(config), "telegram"],
        capture_output=True,
        text=True,
        timeout=PATIENCE,
        env=env,
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == (
        f"genial-bot: the Bot API server at {api.base_url} rejected the token in MY_TELEGRAM_TOKEN"
    )
    assert "WRONGtoken" not in result.stderr + result.stdout


def test_the_bot_process_runs_and_stops_on_sigterm(api: FakeBotAPI, tmp_path: Path) -> None:
    """``bot.telegram.main`` as ``genial-bot telegram`` runs it: logging to standard error
    (redacted), polling, answering, a clean stop on SIGTERM with exit status 0."""
    config = tmp_path / "config.toml"
    config.write_text(
        f'[bot]\nstorage = "{tmp_path / "t.db"}"\n'
        f'[telegram]\ntoken_env = "MY_TELEGRAM_TOKEN"\nbase_url = "{api.base_url}"\n'
    )
    root = Path(__file__).resolve().parents[3]
    env = {**os.environ, "MY_TELEGRAM_TOKEN": TOKEN, "PYTHONPATH": str(root)}
    code = (
        "from bot.core.config import load_settings; from bot.telegram import main; "
        f"raise SystemExit(main(load_settings({str(config)!r})))"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    try:
        api.say(GROUP, ADA, "/join")

        def alive() -> str | None:
            return None if process.poll() is None else str(process.communicate())

        wait_until(lambda: api.sent(GROUP), "the bot's answer", alive=alive)
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=PATIENCE)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert api.sent(GROUP)[0].text.startswith("Ada sits down.")
    assert "running" in err
    assert TOKEN not in out + err and TOKEN.split(":")[1] not in out + err


def test_a_busy_worker_thread_does_not_hold_the_stop(api: FakeBotAPI, tmp_path: Path) -> None:
    """SIGTERM while a call into a worker thread runs on (a long computer game): the bot
    stops, status 0, without waiting for it (it waited as long as the call before)."""
    config = tmp_path / "config.toml"
    config.write_text(
        f'[bot]\nstorage = "{tmp_path / "t.db"}"\n[telegram]\nbase_url = "{api.base_url}"\n'
    )
    root = Path(__file__).resolve().parents[3]
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.bot.telegram.busy_launch",
            "--config",
            str(config),
            "telegram",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "GENIAL_TELEGRAM_TOKEN": TOKEN, "PYTHONPATH": str(root)},
        cwd=tmp_path,
    )
    try:
        assert process.stderr is not None
        seen = []
        for line in process.stderr:
            seen.append(line)
            if "a worker thread is busy now" in line:
                break
        else:
            raise AssertionError("".join(seen))
        process.send_signal(signal.SIGTERM)
        err = process.communicate(timeout=PATIENCE)[1]
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert "stopped with work under way in a worker thread, given up" in err
    assert "Traceback" not in err


def test_the_lobby_is_one_message_edited_as_people_come_and_go(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    room = Room(api, start_bot(api, tmp_path / "t.db"))
    room.say(ADA, "/join")
    lobby = api.last_message(GROUP, "Join")
    room.say(CAROL, "/join")
    # Dan sees the message as edited (its buttons carry the new version).
    room.press(DAN, api.message(GROUP, lobby["message_id"]), "Join")
    room.say(CAROL, "/leave")
    room.press(ADA, api.message(GROUP, lobby["message_id"]), "Add computer")
    assert len([c for c in api.sent(GROUP) if f"Table {TITLE}" in c.text]) == 1
    edits = api.of("editMessageText")
    assert {e.params["message_id"] for e in edits} == {lobby["message_id"]}
    assert [e.text.split("\n")[0] for e in edits] == [
        "Carol sits down.",
        "Dan sits down.",
        "Carol leaves the table.",
        "Computer 1 joins as a computer player (greedy).",
    ]
    final = api.message(GROUP, lobby["message_id"])["text"]
    assert "1. Ada\n2. Dan\n3. Computer 1 (computer, greedy)" in final
    # Closing the table takes the buttons off; the next /join posts a new lobby.
    room.say(ADA, "/abort")
    assert "reply_markup" not in api.message(GROUP, lobby["message_id"])
    room.say(CAROL, "/join")
    assert api.last_message(GROUP, "Join")["message_id"] > lobby["message_id"]


# --- forum topics, supergroup migration, restarts, live buttons, deadlines ---------------

FORUM = -1009876543210
CLUB = "Game club"
NOTICE = "can't write to you privately"
SWAP_SEED = 7  # a swap is offered after 21 moves


def test_a_forum_group_has_a_table_per_topic(api: FakeBotAPI, tmp_path: Path) -> None:
    api.group(FORUM, CLUB, forum=True)
    first = api.topic(FORUM, ADA, "Monday")
    second = api.topic(FORUM, CAROL, "Friday")
    room = Room(api, start_bot(api, tmp_path / "t.db"))
    service = room.runner.service

    room.say(ADA, "/join", chat=FORUM, thread=first)
    room.say(CAROL, "/join", chat=FORUM, thread=second)
    room.say(DAN, "/join", chat=FORUM)  # in the General topic
    tables = {
        key: service.table(key) for key in (f"{FORUM}/{first}", f"{FORUM}/{second}", str(FORUM))
    }
    assert {k: [s.name for s in t.seats] for k, t in tables.items()} == {
        f"{FORUM}/{first}": ["Ada"],
        f"{FORUM}/{second}": ["Carol"],
        str(FORUM): ["Dan"],
    }
    assert [t.title for t in tables.values()] == [
        f"{CLUB} › Monday",
        f"{CLUB} › Friday",
        CLUB,
    ]
    # Each lobby went to its own topic; the General topic's without a thread id.
    lobbies = [c for c in api.sent(FORUM) if c.text.startswith(("Ada sits", "Carol sits", "Dan"))]
    assert [(c.text.split()[0], c.thread) for c in lobbies] == [
        ("Ada", first),
        ("Carol", second),
        ("Dan", None),
    ]
    assert all("message_thread_id" not in c.params for c in lobbies[2:])

    # Bob joins Monday's table by typing in its topic: Monday's lobby is edited, no other.
    monday_lobby = api.last_message(FORUM, "Join", thread=first)
    room.say(BOB, "/join", chat=FORUM, thread=first)
    edit = api.of("editMessageText")[-1]
    assert edit.params["message_id"] == monday_lobby["message_id"]
    assert "1. Ada\n2. Bob" in edit.text
    # The deep link names the topic's table, and the private chat says which one.
    (link,) = [b["url"] for b in buttons(monday_lobby) if "url" in b]
    assert link == f"https://t.me/GenialTestBot?start=t{FORUM}_{first}"
    room.say(ADA, "/start " + link.split("start=")[1], chat=ADA)
    assert api.sent(ADA)[-1].text == f"Your tiles for {CLUB} › Monday will arrive in this chat."

    # Both topics play; Friday's lobby gets Dan by a button press in that topic.
    room.press(DAN, api.last_message(FORUM, "Join", thread=second), "Join")
    room.say(ADA, "/start", chat=FORUM, thread=first)
    room.press(CAROL, api.last_message(FORUM, "Start", thread=second), "Start")
    starts = [c for c in api.sent(FORUM, "sendPhoto") if c.text.startswith("The game begins")]
    assert [c.thread for c in starts] == [first, second]
    # Private racks name the table they are for.
    assert api.sent(ADA)[-1].text.startswith(f"Your tiles at {CLUB} › Monday: ")
    assert api.sent(CAROL)[-1].text.startswith(f"Your tiles at {CLUB} › Friday: ")
    assert api.sent(DAN)[-1].text.startswith(f"Your tiles at {CLUB} › Friday: ")
    # Bob's private chat is closed: he is told so in Monday's topic.
    (notice,) = [c for c in api.sent(FORUM) if NOTICE in c.text]
    assert notice.thread == first and notice.text.startswith("Bob, ")

    def game(table: str) -> Any:
        t = service.table(table)
        return games.rebuild(t.record)

    def mover(table: str) -> int:
        t = service.table(table)
        return int(t.seats[game(table).to_move].user)

    # A move typed in Friday's topic changes Friday's game only and is told there.
    friday = f"{FORUM}/{second}"
    monday = f"{FORUM}/{first}"
    g = game(friday)
    room.say(mover(friday), f"/play {games.format_move(g, g.legal_moves()[0])}", FORUM, second)
    assert len(game(friday).moves) == 1 and len(game(monday).moves) == 0
    last = api.sent(FORUM, "sendPhoto")[-1]
    assert last.thread == second and " placed " in last.text
    # "My tiles" pressed in Monday's topic shows Bob his Monday rack.
    update = room.press(BOB, api.last_message(FORUM, "My tiles", thread=first), "My tiles")
    bob_seat = service.table(monday).seat_of(str(BOB))
    assert games.rack_text(game(monday).view(bob_seat).rack) in api.answer(update)["text"]
    # A move Ada sends privately goes to the one table she plays at: Monday's topic.
    if mover(monday) != ADA:
        g = game(monday)
        room.say(BOB, f"/play {games.format_move(g, g.legal_moves()[0])}", FORUM, first)
    g = game(monday)
    before = len(g.moves)
    room.say(ADA, f"/play {games.format_move(g, g.legal_moves()[0])}", chat=ADA)
    assert len(game(monday).moves) == before + 1
    last = api.sent(FORUM, "sendPhoto")[-1]
    assert last.thread == first and last.text.startswith("Ada placed ")
    # Nothing ever named a topic that is not one (the fake refuses those).
    assert all(c.status == 200 for c in api.calls if c.chat == FORUM)
    assert service.table(str(FORUM)).status == LOBBY  # the General topic's table waits


def test_a_renamed_topic_renames_its_table(api: FakeBotAPI, tmp_path: Path) -> None:
    api.group(FORUM, CLUB, forum=True)
    topic = api.topic(FORUM, ADA, "Monday")
    room = Room(api, start_bot(api, tmp_path / "t.db"))
    table = f"{FORUM}/{topic}"
    room.say(ADA, "/join", chat=FORUM, thread=topic)
    assert room.runner.service.table(table).title == f"{CLUB} › Monday"
    room.runner.wait(api.rename_topic(FORUM, topic, ADA, "Tuesday"))
    # Later messages still reply to the topic's first message, which says "Monday".
    room.say(CAROL, "/join", chat=FORUM, thread=topic)
    assert room.runner.service.table(table).title == f"{CLUB} › Tuesday"
    room.say(ADA, "/start", chat=FORUM, thread=topic)
    assert api.sent(ADA)[-1].text.startswith(f"Your tiles at {CLUB} › Tuesday: ")


def _topic_game(room: Room, api: FakeBotAPI, thread: int, first: int, second: int) -> str:
    """``first`` and ``second`` sit down in a forum topic and ``first`` starts: the table's
    id; ``first`` is to move."""
    for who in (first, second):
        room.say(who, "/join", chat=FORUM, thread=thread)
    room.say(first, "/start", chat=FORUM, thread=thread)
    return f"{FORUM}/{thread}"


def _move_privately(room: Room, table: str, who: int) -> str:
    """``who`` makes a legal move at ``table`` from their private chat with the bot: what
    they typed."""
    t = room.runner.service.table(table)
    assert t is not None and t.record is not None
    game = games.rebuild(t.record)
    text = "/" + _typed_move(game, game.legal_moves()[0])
    room.say(who, text, chat=who)
    return text.split(" ", 1)[1]


def test_a_deleted_topic_closes_its_table(api: FakeBotAPI, tmp_path: Path) -> None:
    api.group(FORUM, CLUB, forum=True)
    monday = api.topic(FORUM, CAROL, "Monday")
    friday = api.topic(FORUM, ADA, "Friday")
    room = Room(api, start_bot(api, tmp_path / "t.db", pictures=False))
    service = room.runner.service
    gone = _topic_game(room, api, monday, CAROL, ADA)
    kept = _topic_game(room, api, friday, ADA, DAN)
    assert sorted(service.playing_tables(str(ADA))) == sorted([gone, kept])
    api.delete_topic(FORUM, monday)
    # Carol moves from her private chat: the move is kept, its board finds no topic.
    _move_privately(room, gone, CAROL)
    assert service.table(gone).status == CLOSED
    # Ada's private commands no longer point at Monday's table: /hand answers for Friday.
    assert service.playing_tables(str(ADA)) == [kept]
    room.say(ADA, "/hand", chat=ADA)
    assert api.sent(ADA)[-1].text.startswith(f"Your tiles at {CLUB} › Friday: ")
    assert not service.anything_waiting()


def test_a_closed_topic_keeps_its_board_until_it_is_reopened(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    api.group(FORUM, CLUB, forum=True)
    monday = api.topic(FORUM, CAROL, "Monday")
    room = Room(api, start_bot(api, tmp_path / "t.db", pictures=False))
    service = room.runner.service
    table = _topic_game(room, api, monday, CAROL, ADA)
    boards = len(api.sent(FORUM, "sendMessage"))
    # Closed without the bot hearing of it: Telegram refuses the board ("TOPIC_CLOSED").
    api.closed_topics.add((FORUM, monday))
    move = squared(_move_privately(room, table, CAROL))  # told in squares
    assert service.table(table).status == PLAYING
    assert len(api.sent(FORUM, "sendMessage")) == boards  # nothing reached the topic
    # Her rack came all the same, beside the word that the topic is closed.
    assert any(c.text.startswith("Your tiles at") for c in api.sent(CAROL)[-2:])
    assert service.anything_waiting()
    room.runner.tick()  # the clock leaves a closed topic alone
    assert len(api.sent(FORUM, "sendMessage")) == boards
    # Reopened: the board that waited goes out, once.
    room.runner.wait(api.reopen_topic(FORUM, monday, CAROL))
    told = [c for c in api.sent(FORUM, "sendMessage")[boards:] if move in c.text]
    assert [c.thread for c in told] == [monday]
    room.runner.tick()
    assert [c for c in api.sent(FORUM, "sendMessage")[boards:] if move in c.text] == told
    assert not service.anything_waiting()


def test_a_closed_topic_that_reopens_silently_delivers_at_the_next_command_there(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    api.group(FORUM, CLUB, forum=True)
    monday = api.topic(FORUM, CAROL, "Monday")
    room = Room(api, start_bot(api, tmp_path / "t.db", pictures=False))
    table = _topic_game(room, api, monday, CAROL, ADA)
    room.runner.wait(api.close_topic(FORUM, monday, CAROL))
    boards = len(api.sent(FORUM, "sendMessage"))
    move = squared(_move_privately(room, table, CAROL))  # told in squares
    assert len(api.sent(FORUM, "sendMessage")) == boards
    api.reopen_topic(FORUM, monday, CAROL, announce=False)
    room.runner.tick()  # no sign of the reopening: still waiting
    assert len(api.sent(FORUM, "sendMessage")) == boards
    # Someone writes in the topic (only an open topic allows it): what waited goes first.
    room.say(ADA, "/score", chat=FORUM, thread=monday)
    later = api.sent(FORUM, "sendMessage")[boards:]
    assert move in later[0].text and later[0].thread == monday
    assert len([c for c in later if move in c.text]) == 1
    assert not room.runner.service.anything_waiting()


def test_a_reply_in_a_plain_group_is_no_topic(api: FakeBotAPI, tmp_path: Path) -> None:
    room = Room(api, start_bot(api, tmp_path / "t.db"))
    room.say(ADA, "/join")
    lobby = api.last_message(GROUP, "Join")
    # A reply carries a thread id outside forums too; it is still the group's table.
    update = api.say(GROUP, CAROL, "/join", reply_to=lobby["message_id"])
    room.runner.wait(update)
    assert [s.name for s in room.table().seats] == ["Ada", "Carol"]
    assert room.runner.service.store.chats() == [str(GROUP)]
    assert all(c.thread is None for c in api.calls if c.chat == GROUP)


def test_a_group_that_becomes_a_supergroup_keeps_its_game(api: FakeBotAPI, tmp_path: Path) -> None:
    old, new = -4242, -1004242000000
    api.group(old, "Family", kind="group")
    room = Room(api, start_bot(api, tmp_path / "t.db"))
    service = room.runner.service
    room.say(ADA, "/join", chat=old)
    room.say(CAROL, "/join", chat=old)
    room.say(ADA, "/start", chat=old)

    def game(chat: int) -> Any:
        t = service.table(str(chat))
        assert t is not None and t.status == PLAYING
        return games.rebuild(t.record)

    def play(chat: int, where: int | None = None) -> None:
        g = game(chat)
        user = ADA if g.to_move == 0 else CAROL
        room.say(user, f"/play {games.format_move(g, g.legal_moves()[0])}", chat=where or chat)

    play(old)
    record = service.table(str(old)).record
    # The group is upgraded: Telegram tells the bot in both chats.
    updates = api.migrate(old, new, ADA)
    room.runner.wait(*updates)
    assert service.table(str(old)) is None
    moved = service.table(str(new))
    assert moved is not None and moved.record == record and moved.title == "Family"
    # The game goes on in the new chat.
    play(new)
    assert len(game(new).moves) == 2
    last = api.sent(new, "sendPhoto")[-1]
    assert " placed " in last.text
    assert [s.name for s in moved.seats] == ["Ada", "Carol"]
    # Nothing was sent to the old chat after the upgrade.
    assert all(c.status == 200 for c in api.calls if c.chat == old)


def test_after_an_upgrade_links_and_old_buttons_lead_to_the_new_chat(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    """After an announced upgrade /games linked nowhere until the next board, and a button
    left in the old group answered "There is no table in this chat yet". The bot now says
    in the new chat that the table plays on there (and /games links to that message), and
    an old button says where the table went."""
    old, new = -4343, -1004343000000
    api.group(old, "Family", kind="group")
    room = Room(api, start_bot(api, tmp_path / "t.db"))
    room.say(ADA, "/join", chat=old)
    room.say(CAROL, "/join", chat=old)
    room.say(ADA, "/start", chat=old)
    button = api.last_message(old, "My tiles")
    room.runner.wait(*api.migrate(old, new, ADA))
    (notice,) = api.sent(new)
    assert notice.text == "This group became a supergroup: its table plays on here."
    here = api.last_message(new)["message_id"]
    room.say(ADA, "/games", chat=ADA)
    # A private supergroup's link: its id without the -100, then the message id.
    assert api.sent(ADA)[-1].text.splitlines()[1] == (
        f"Family: Genial, your turn (latest message: https://t.me/c/4343000000/{here})"
    )
    update = room.press(ADA, button, "My tiles")
    answer = api.answers[api.queries[update]]
    assert answer["text"] == (
        "This group became a supergroup, and its table went with it: play on in Family."
    )
    assert answer.get("show_alert") is True


def test_a_message_refused_for_an_upgraded_group_moves_the_table(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    old, new = -5151, -1005151000000
    api.group(old, "Family", kind="group")
    room = Room(api, start_bot(api, tmp_path / "t.db"))
    service = room.runner.service
    room.say(ADA, "/join", chat=old)
    room.say(CAROL, "/join", chat=old)
    room.say(ADA, "/start", chat=old)
    # Upgraded, but the bot has not heard of it yet when the next move comes (privately).
    api.migrate(old, new, ADA, announce=False)
    t = service.table(str(old))
    g = games.rebuild(t.record)
    mover = int(t.seats[g.to_move].user)
    room.say(mover, f"/play {games.format_move(g, g.legal_moves()[0])}", chat=mover)
    # Telegram refused the turn message with the new id: the table moved, the turn was
    # told there, and the game goes on.
    refused = [c for c in api.calls if c.chat == old and c.status == 400]
    assert refused and refused[0].method == "sendPhoto"
    assert service.table(str(old)) is None
    moved = service.table(str(new))
    assert moved is not None and len(moved.record["moves"]) == 1
    (photo,) = api.sent(new, "sendPhoto")
    assert " placed " in photo.text and photo.text == refused[0].text


def test_a_lobby_edit_refused_for_an_upgraded_group_posts_it_there(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    old, new = -6161, -1006161000000
    api.group(old, "Family", kind="group")
    room = Room(api, start_bot(api, tmp_path / "t.db"))
    room.say(ADA, "/join", chat=old)
    api.migrate(old, new, ADA, announce=False)
    # Carol presses Join on the lobby left in the old group: its edit is refused, the
    # table moves, and the lobby is posted in the new chat with both seated.
    room.press(CAROL, api.last_message(old, "Join"), "Join")
    assert [s.name for s in room.runner.service.table(str(new)).seats] == ["Ada", "Carol"]
    (edit,) = api.of("editMessageText")
    assert edit.status == 400 and edit.chat == old
    (lobby,) = api.sent(new)
    assert "1. Ada\n2. Carol" in lobby.text
    # The next change edits that message in place.
    room.say(DAN, "/join", chat=new)
    assert api.of("editMessageText")[-1].chat == new
    assert api.of("editMessageText")[-1].params["message_id"] == api.last_message(new)["message_id"]


def test_a_restart_keeps_the_lobby_message_and_the_notice_is_not_repeated(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    db = tmp_path / "t.db"
    room = Room(api, start_bot(api, db))
    room.say(ADA, "/join")
    room.say(BOB, "/join")
    lobby = api.last_message(GROUP, "Join")
    # The bot restarts between the lobby and the start.
    room.runner.stop()
    room.runner = start_bot(api, db, seed=5)
    room.say(CAROL, "/join")
    # The lobby is edited in place, not posted anew.
    edit = api.of("editMessageText")[-1]
    assert edit.params["message_id"] == lobby["message_id"]
    assert "1. Ada\n2. Bob\n3. Carol" in edit.text
    assert sum(c.text.startswith(("Ada sits", "Bob sits", "Carol sits")) for c in api.sent()) == 1

    room.say(ADA, "/start")
    assert "reply_markup" not in api.message(GROUP, lobby["message_id"])  # buttons gone

    def notices() -> list[Any]:
        return [c for c in api.sent(GROUP) if NOTICE in c.text]

    assert len(notices()) == 1
    # Another restart in the game; a whole round goes by (Bob gets his rack each time his
    # turn comes): neither the notice nor a try at his private chat again.
    room.runner.stop()
    room.runner = start_bot(api, db, seed=6)
    for _ in range(6):
        g = room.game()
        room.say(room.mover(), f"/play {games.format_move(g, g.legal_moves()[0])}")
    assert len(room.game().moves) >= 6
    assert len(notices()) == 1
    assert len([c for c in api.calls if c.chat == BOB]) == 1  # the one 403
    # When Bob asks for his tiles, he is told again, in reply to him.
    room.say(BOB, "/hand")
    assert len(notices()) == 2
    assert notices()[-1].params["reply_parameters"]["message_id"] == typed(api, GROUP)
    # A new game: once more, once.
    room.say(ADA, "/abort")
    for user in (ADA, BOB):
        room.say(user, "/join")
    room.say(ADA, "/start")
    g = room.game()
    room.say(room.mover(), f"/play {games.format_move(g, g.legal_moves()[0])}")
    assert len(notices()) == 3


def test_old_turn_messages_lose_their_buttons(api: FakeBotAPI, tmp_path: Path) -> None:
    """At a person's pace (a move a minute), each turn message takes the buttons off the
    one before it."""
    clock = Clock()
    room = Room(api, start_bot(api, tmp_path / "t.db", clock=clock))
    room.say(ADA, "/join")
    room.say(CAROL, "/join")
    room.say(ADA, "/start")
    previous = api.last_message(GROUP, "My tiles")
    assert [b["text"] for b in buttons(previous)] == ["My tiles", "Full size"]
    for _ in range(4):
        clock.advance(60)
        edits = len(api.of("editMessageReplyMarkup"))
        g = room.game()
        room.say(room.mover(), f"/play {games.format_move(g, g.legal_moves()[0])}")
        # One edit: the old turn message's buttons are gone; the new one has them.
        (edit,) = api.of("editMessageReplyMarkup")[edits:]
        assert edit.params["message_id"] == previous["message_id"]
        assert "reply_markup" not in edit.params
        assert "reply_markup" not in api.message(GROUP, previous["message_id"])
        newest = api.last_message(GROUP)
        assert newest["message_id"] > previous["message_id"]
        assert [b["text"] for b in buttons(newest)] == ["My tiles", "Full size"]
        previous = newest
    # Only the newest message of the game can be pressed.
    pressable = [m for (c, _), m in api.messages.items() if c == GROUP and buttons(m)]
    assert [m["message_id"] for m in pressable] == [previous["message_id"]]


class VirtualSleep:
    """The bot's clock sleeping in the test's time: a sleep ends by moving the clock on,
    as far as the test allows (``limit``); one that would go past waits (until a command
    wakes the bot's clock, or the test allows more). ``asked`` lists the sleeps asked for."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.limit = clock.now
        self.asked: list[float] = []
        #: The sleeps that ran their whole length (not cut short by a wake).
        self.slept: list[float] = []

    async def __call__(self, seconds: float) -> None:
        import asyncio

        self.asked.append(seconds)
        target = self.clock.now + seconds
        while target > self.limit:
            await asyncio.sleep(0.01)
        self.clock.now = max(self.clock.now, target)
        self.slept.append(seconds)


def test_a_one_minute_timeout_fires_at_one_minute(api: FakeBotAPI, tmp_path: Path) -> None:
    clock = Clock()
    start = clock.now
    sleep = VirtualSleep(clock)
    room = Room(api, start_bot(api, tmp_path / "t.db", clock=clock, sleep=sleep))

    def until(check: Any, what: str) -> None:
        wait_until(check, what)

    # Nothing is due: the clock sleeps its longest (the runner's due_interval).
    until(lambda: sleep.asked, "the clock never slept")
    assert sleep.asked[0] == 3600
    room.say(ADA, "/join")
    room.say(CAROL, "/join")
    room.say(ADA, "/option timeout 1m")
    room.say(ADA, "/start")
    mover = room.mover()
    # The /start woke the clock, which now sleeps until the half-time reminder.
    until(lambda: sleep.asked[-1] == 30, "the clock did not wake for the new deadline")
    slept = len(sleep.slept)
    assert clock.now == start
    sleep.limit = start + 65  # let 65 seconds pass
    until(
        lambda: any(c.text.startswith("Time is up") for c in api.sent(GROUP, "sendPhoto")),
        "the turn never timed out",
    )
    # The reminder came at 30 s, the timeout at 60 s: the clock slept until each due time
    # (and no longer: sleeps a step's end cut short moved no time on).
    until(lambda: len(sleep.slept) >= slept + 2, "the clock did not sleep again")
    assert sleep.slept[slept : slept + 2] == [30, 30]
    assert clock.now == start + 60
    reminders = [c for c in api.sent(GROUP) if c.text.startswith(f"{NAMES[mover]}, it is your")]
    assert len(reminders) == 1
    (timed_out,) = [c for c in api.sent(GROUP, "sendPhoto") if c.text.startswith("Time is up")]
    assert timed_out.text.startswith(f"Time is up for {NAMES[mover]}")
    # The next player's turn began at the timeout, 60 s after the start (not 90 s).
    assert room.table().turn_started == start + 60
    assert len(room.game().moves) >= 1


def test_a_private_swap_offer_loses_its_buttons_once_decided(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    # At a person's pace (a move a minute): the group has requests to spare for edits.
    clock = Clock()
    room = Room(api, start_bot(api, tmp_path / "t.db", seed=SWAP_SEED, pictures=False, clock=clock))
    room.say(ADA, "/join")
    room.say(CAROL, "/join")
    room.say(ADA, "/start")
    rng = random.Random(SWAP_SEED)
    while room.game().awaiting != "swap":
        clock.advance(60)
        assert room.table().status == PLAYING, "no swap was offered"
        g = room.game()
        # Sorted: the engine's order of legal moves may differ from run to run.
        moves = sorted(games.format_move(g, m) for m in g.legal_moves())
        room.say(room.mover(), f"/play {rng.choice(moves)}")
    mover = room.mover()
    # The offer is in the group and under the rack in the private chat, both with buttons.
    offer = api.last_message(mover, "Swap")
    assert [b["text"] for b in buttons(offer)] == ["Swap", "Keep"]
    group_offer = api.last_message(GROUP)
    assert [b["text"] for b in buttons(group_offer)][:2] == ["Swap", "Keep"]
    edits = len(api.of("editMessageReplyMarkup"))
    clock.advance(60)
    room.press(mover, group_offer, "Keep")
    # Decided: both offers lost their buttons, one edit each.
    retired = [(e.chat, e.params["message_id"]) for e in api.of("editMessageReplyMarkup")[edits:]]
    assert sorted(retired) == sorted(
        [(GROUP, group_offer["message_id"]), (mover, offer["message_id"])]
    )
    assert "reply_markup" not in api.message(mover, offer["message_id"])
    assert "reply_markup" not in api.message(GROUP, group_offer["message_id"])


def test_turn_pings_reach_only_an_open_private_chat(api: FakeBotAPI, tmp_path: Path) -> None:
    room = Room(api, start_bot(api, tmp_path / "t.db"))
    room.say(ADA, "/join")
    room.say(BOB, "/join")
    room.say(BOB, "/notify on")
    room.say(ADA, "/start")
    rng = random.Random(4)

    def to_bob() -> None:
        """People move until the turn passes to Bob."""
        while room.mover() != BOB:
            game = room.game()
            room.say(ADA, f"/{_typed_move(game, rng.choice(game.legal_moves()))}")
        while room.mover() == BOB and room.game().awaiting != "place":
            room.say(BOB, "/keep")

    to_bob()
    # Bob never opened his private chat: the ping is dropped, nothing goes to the group.
    assert api.sent(BOB) == []
    assert not any(c.text.startswith("Your turn at") for c in api.sent(GROUP))
    room.say(BOB, f"/start t{GROUP}", chat=BOB)  # he opens it
    before = len(api.sent(BOB))
    game = room.game()
    room.say(BOB, f"/{_typed_move(game, rng.choice(game.legal_moves()))}")
    to_bob()
    pings = [c for c in api.sent(BOB)[before:] if c.text.startswith(f"Your turn at {TITLE}")]
    assert [c.method for c in pings] == ["sendPhoto"]  # once, with the board


def _typed_move(game: Any, move: Any) -> str:
    text = games.format_move(game, move)
    return text if text in ("swap", "keep") else f"play {text}"


def test_the_replay_is_sent_as_an_animation(api: FakeBotAPI, tmp_path: Path, shared: Path) -> None:
    runner = start_bot(api, tmp_path / "t.db")
    record = json.loads((shared / "examples" / "01-genial-standard-2p.json").read_text())
    table = Table(str(GROUP), TITLE, status=LOBBY, record=record)
    runner.service.store.save(table, None)
    room = Room(api, runner)
    room.say(ADA, "/replay")
    (gif,) = api.sent(GROUP, "sendAnimation")
    assert gif.text.startswith("Genial, replayed: 45 moves.")


def latest_board(api: FakeBotAPI, chat: int, thread: int | None = None) -> int:
    """The id of the bot's newest board photo in ``chat`` (in topic ``thread``), from
    the fake server's own messages."""
    with api._cond:
        found = [
            i
            for (c, i), m in api.messages.items()
            if c == chat
            and m["from"].get("id") != ADA
            and m["from"].get("is_bot")
            and "photo" in m
            and m.get("message_thread_id") == thread
        ]
    assert found, f"no board in {chat}"
    return max(found)


def test_games_links_each_table_to_its_latest_message(api: FakeBotAPI, tmp_path: Path) -> None:
    """Ada plays a computer player at four tables: a private supergroup, a forum topic, a
    public supergroup and a basic group. /games (typed privately, or in a group) links
    each to its latest board; a basic group has no message links, and says so."""
    forum, public, basic = -1009876543210, -1005555555555, -4242
    api.group(forum, "Forum", forum=True)
    api.group(public, "Club", username="genialclub")
    api.group(basic, "Basic", kind="group")
    monday = api.topic(forum, ADA, "Monday")
    room = Room(api, start_bot(api, tmp_path / "t.db"))
    for chat, thread in ((GROUP, None), (forum, monday), (public, None), (basic, None)):
        for command in ("/join", "/addbot random", "/start"):
            room.say(ADA, command, chat=chat, thread=thread)
    # Worked out by hand: a supergroup's id without its -100, a topic's thread before the
    # message id, a public group by its username.
    expected = [
        "Your running tables (4):",
        f"{TITLE}: Genial, your turn (latest message: "
        f"https://t.me/c/1234567890/{latest_board(api, GROUP)})",
        f"Forum › Monday: Genial, your turn (latest message: "
        f"https://t.me/c/9876543210/{monday}/{latest_board(api, forum, monday)})",
        f"Club: Genial, your turn (latest message: "
        f"https://t.me/genialclub/{latest_board(api, public)})",
        "Basic: Genial, your turn (no link: a basic group has no message links)",
    ]

    def shown() -> list[str]:
        """The last /games answer in Ada's private chat, its tables in a fixed order."""
        head, *lines = api.sent(ADA)[-1].text.splitlines()
        return [head, *sorted(lines)]

    expected = [expected[0], *sorted(expected[1:])]
    room.say(ADA, "/games", chat=ADA)
    assert shown() == expected
    room.say(ADA, "/games")  # in the group: answered privately, the same
    assert shown() == expected
    assert not any(c.text.startswith("Your running tables") for c in api.sent(GROUP))
    # The next board at the first table is the latest message now.
    before = latest_board(api, GROUP)
    game = room.game()
    room.say(ADA, f"/{_typed_move(game, game.legal_moves()[0])}")
    after = latest_board(api, GROUP)
    assert after > before
    room.say(ADA, "/games", chat=ADA)
    assert shown()[-1] == (  # the last in title order
        f"{TITLE}: Genial, your turn (latest message: https://t.me/c/1234567890/{after})"
    )


def test_a_turn_ping_links_back_to_the_new_board(api: FakeBotAPI, tmp_path: Path) -> None:
    room = Room(api, start_bot(api, tmp_path / "t.db"))
    room.say(ADA, "/join")
    room.say(CAROL, "/join")
    room.say(CAROL, "/notify on")
    room.say(ADA, "/start")
    rng = random.Random(2)
    pinged = 0
    while room.table().status == PLAYING and pinged < 2:
        mover = room.mover()
        sent = len(api.sent(CAROL))
        game = room.game()
        room.say(mover, f"/{_typed_move(game, rng.choice(game.legal_moves()))}")
        private = api.sent(CAROL)[sent:]
        pings = [c for c in private if c.text.startswith("Your turn at")]
        if mover == ADA and room.mover() == CAROL:
            # One private message, one image: the ping said first, then Carol's rack.
            assert [c.method for c in private] == ["sendPhoto"], [c.method for c in private]
            (ping,) = pings
            ((filename, _png),) = ping.files.values()
            assert filename.startswith("rack-")
            # The board just posted in the group, linked by hand from the group's id.
            link = f"https://t.me/c/1234567890/{latest_board(api, GROUP)}"
            rack = games.rack_text(
                room.game().racks[
                    room.table().seats.index(
                        next(s for s in room.table().seats if s.user == str(CAROL))
                    )
                ]
            )
            assert ping.text.splitlines()[:3] == [
                f"Your turn at {TITLE} (Genial).",
                f"To the table: {link}",
                f"Your tiles at {TITLE}: {rack}",
            ]
            pinged += 1
        else:
            assert pings == []
    assert pinged == 2


def test_sigterm_while_the_bot_retries_an_unreachable_server_stops_it(tmp_path: Path) -> None:
    """At start the bot retries a Bot API server it cannot reach for about half a minute;
    SIGTERM then stops it cleanly (status 0) instead of being ignored until the retries
    run out (which would end in "cannot reach the Bot API server", status 1)."""
    closed = f"http://127.0.0.1:{free_port()}/bot"  # nothing listens: refused at once
    config = tmp_path / "config.toml"
    config.write_text(
        f'[bot]\nstorage = "{tmp_path / "t.db"}"\n[telegram]\nbase_url = "{closed}"\n'
    )
    root = Path(__file__).resolve().parents[3]
    env = {**os.environ, "GENIAL_TELEGRAM_TOKEN": TOKEN, "PYTHONPATH": str(root)}
    process = subprocess.Popen(
        [sys.executable, "-m", "bot", "--config", str(config), "telegram"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    try:
        assert process.stderr is not None
        seen = []
        for line in process.stderr:  # until it says it is starting
            seen.append(line)
            if "starting on Telegram" in line:
                break
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=PATIENCE)
    finally:
        if process.poll() is None:
            process.kill()
    err = "".join(seen) + err
    assert process.returncode == 0, err
    assert "genial-bot: cannot reach" not in err and "Traceback" not in err


def test_a_turn_ping_is_deleted_once_the_turn_has_passed(api: FakeBotAPI, tmp_path: Path) -> None:
    # Genial Spezial has no racks, so the ping is a message of its own (in Genial it is
    # said with the player's rack, which stays).
    room = Room(api, start_bot(api, tmp_path / "t.db"))
    room.say(ADA, "/join")
    room.say(BOB, "/join")
    room.say(BOB, f"/start t{GROUP}", chat=BOB)  # Bob's private chat is open
    room.say(BOB, "/notify on")
    room.say(ADA, "/option game spezial")
    room.say(ADA, "/start")
    rng = random.Random(5)
    while room.mover() != ADA:
        game = room.game()
        room.say(BOB, f"/{_typed_move(game, rng.choice(game.legal_moves()))}")
    game = room.game()
    before = len(api.sent(BOB))
    room.say(ADA, f"/{_typed_move(game, rng.choice(game.legal_moves()))}")
    assert room.mover() == BOB
    (ping,) = [c for c in api.sent(BOB)[before:] if c.text.startswith("Your turn at")]
    assert ping.method == "sendPhoto"  # with the board, as a message of its own
    with api._cond:
        (message_id,) = [
            k[1]
            for k, m in api.messages.items()
            if k[0] == BOB and str(m.get("caption", m.get("text", ""))).startswith("Your turn at")
        ]
    # Bob plays: his ping is no longer true, and goes.
    game = room.game()
    room.say(BOB, f"/{_typed_move(game, rng.choice(game.legal_moves()))}")
    assert (BOB, message_id) in api.deleted
    (delete,) = api.of("deleteMessage")
    assert delete.params == {"chat_id": BOB, "message_id": message_id}
