"""A challenge in any Telegram chat (issue 49): inline mode through the fake Bot API.

Friends type the bot's name in a chat the bot is no member of, choose a game, and play in
that one message, which the bot edits by its ``inline_message_id``: join, start, each turn
with its board (uploaded to the operator's media chat first: an inline message takes no
upload) and buttons. Racks go privately, or by the "My tiles" pop-up to a player who never
opened the private chat; moves come from the private chat and the message's buttons.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.community.ratings import rebuild_archive
from bot.core import games
from bot.core.config import WebSettings
from bot.core.table import LOBBY, PLAYING
from tests.bot.helpers import Clock
from tests.bot.telegram.fake_api import NO_CAPTION, NO_TEXT, NOT_MODIFIED, FakeBotAPI, buttons
from tests.bot.telegram.inline_world import (
    ADA,
    BOB,
    CAROL,
    DAN,
    MEDIA,
    NAMES,
    RACK_TEXT,
    TOKEN,
    TYPED,
    Chat,
    labels,
    make_api,
    start_bot,
    stop_bots,
)

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


@pytest.fixture
def api() -> Iterator[FakeBotAPI]:
    api = make_api()
    yield api
    stop_bots()
    api.close()


def test_inline_mode_offers_the_four_games_in_the_persons_language(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    api.users[DAN]["language_code"] = "de-AT"
    runner = start_bot(api, tmp_path / "t.db")
    english, german = api.inline_query(ADA), api.inline_query(DAN)
    runner.wait(english, german)
    offered = api.inline_results(english)
    assert [r["id"] for r in offered] == ["pair", "party", "spezial", "computer"]
    assert [r["title"] for r in offered] == [
        "Genial for 2",
        "Genial for 3–4",
        "Genial Spezial",
        "Genial against the computer",
    ]
    first = offered[0]
    assert first["type"] == "article"
    assert first["input_message_content"]["message_text"] == (
        "Ada invites you to Genial for 2. Press Join to take a seat."
    )
    # A button, or Telegram would not say which message was chosen.
    assert labels(first) == ["Join"]
    assert api.inline_results(german)[0]["title"] == "Einfach Genial zu zweit"
    assert api.of("answerInlineQuery")[0].params["is_personal"] is True
    # The table Dan opens speaks his language.
    chosen, inline_id = api.choose(DAN, german, "pair")
    assert chosen is not None
    runner.wait(chosen)
    lobby = api.inline_message(inline_id)["text"]
    assert "Tisch Spiel von Dan: Einfach Genial\n1. Dan\n" in lobby
    assert lobby.endswith("oder tippe Züge im privaten Chat mit mir.")
    # Genial Spezial is the lobby's game from the start.
    chosen, inline_id = api.choose(ADA, english, "spezial")
    assert chosen is not None
    runner.wait(chosen)
    assert "Table Ada's game: Genial Spezial\n1. Ada\n" in api.inline_message(inline_id)["text"]


def test_three_friends_play_in_one_inline_message(api: FakeBotAPI, tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    chat = Chat(api, start_bot(api, db))

    # Ada sends "Genial for 3-4" into a chat of friends: the message is the lobby now.
    chat.offer(ADA, "party")
    lobby = chat.message()
    assert "Table Ada's game: Genial\n1. Ada\n" in lobby["text"]
    assert "1. Ada" in lobby["text"]
    assert lobby["text"].count(TYPED) == 1  # said once, in the lobby
    assert {"Join", "Start", "Open my private chat"} <= set(labels(lobby))
    deep_link = next(b["url"] for b in buttons(lobby) if b["text"] == "Open my private chat")
    assert deep_link == f"https://t.me/GenialTestBot?start=i{chat.table_id.split('~')[1]}"
    # Nothing was posted anywhere: the bot is no member of that chat.
    assert api.sent() == []

    # Bob and Carol press Join; the same message is edited each time.
    chat.press(BOB, "Join")
    chat.press(CAROL, "Join")
    assert "1. Ada\n2. Bob\n3. Carol" in chat.shown()
    chat.press(ADA, "Start")
    assert chat.table().status == PLAYING

    # The turn with its board: the picture went up to the media chat, the message shows
    # it by its file id.
    (upload,) = api.sent(MEDIA, "sendPhoto")
    assert upload.files["photo"][1].startswith(b"\x89PNG")
    message = chat.message()
    assert message["photo"] in api.uploaded
    # Carol's private chat is closed: the message tells her so, above the turn, whose
    # buttons show her tiles and open the private chat.
    notice, _, turn = message["caption"].partition("\n\n")
    assert notice.startswith("Carol, I can't write to you privately yet")
    assert turn.startswith("The game begins: Genial. Seats: 1. Ada, 2. Bob, 3. Carol.")
    assert {"My tiles", "Open my private chat"} <= set(labels(message))
    assert TYPED not in message["caption"]

    # Racks: Ada and Bob privately, as the engine has them; Carol's private chat is closed.
    game = chat.game()
    for user in (ADA, BOB):
        seat = chat.table().seat_of(str(user))
        rack = games.rack_text(game.view(seat).rack)
        assert any(f"Your tiles at Ada's game: {rack}" in c.text for c in api.sent(user))
    assert api.sent(CAROL) == []

    rng = random.Random(5)
    turns = swaps = popups = mistakes = 0
    restarted = opened = False
    while turns < 9:
        game = chat.game()
        mover = chat.mover()
        seat = game.to_move
        before = len(game.moves)
        caption = chat.shown()
        assert not RACK_TEXT.search(caption), caption
        if game.awaiting == "swap":
            chat.press(mover, rng.choice(["Swap", "Keep"]))
            assert len(chat.game().moves) == before + 1
            swaps += 1
            continue
        # The player to act is mentioned in the caption, so Telegram notifies them.
        # (Carol is mentioned too while the notice to her shows above the turn.)
        entities = chat.message().get("caption_entities", [])
        assert entities[-1]["user"]["id"] == mover
        units = caption.encode("utf-16-le")
        for entity in entities:
            start, end = 2 * entity["offset"], 2 * (entity["offset"] + entity["length"])
            assert units[start:end].decode("utf-16-le") == NAMES[entity["user"]["id"]]
        move = rng.choice(game.legal_moves())
        text = f"/play {games.format_move(game, move)}"
        if mover == CAROL and not opened:
            # Carol's tiles: only for her, in a pop-up.
            answer = chat.press(CAROL, "My tiles")
            assert answer["show_alert"] is True
            assert games.rack_text(game.view(seat).rack) in answer["text"]
            popups += 1
            # Then she opens the private chat by the message's button and moves there.
            chat.say(CAROL, "/start " + deep_link.split("start=")[1])
            rack = games.rack_text(game.view(seat).rack)
            assert any(rack in c.text for c in api.sent(CAROL))
            opened = True
        if turns == 2 and not mistakes:
            # A mistake: a cell off the board (the board of three players has no K11:
            # RULES.md), answered privately, the game unchanged.
            chat.say(mover, "/play 1 A1 K11")
            said = api.sent(mover)[-1].text
            assert said == "K11 is not on this game's board: the picture shows the cell labels."
            assert len(chat.game().moves) == before
            mistakes += 1
        if turns == 4 and not restarted:
            # The bot goes down; the move is sent meanwhile; a new bot goes on.
            chat.runner.stop()
            pending = api.say(mover, mover, text)
            chat.runner = start_bot(api, db, seed=77)
            chat.runner.wait(pending)
            restarted = True
        else:
            chat.say(mover, text)
        assert len(chat.game().moves) == before + 1
        assert chat.shown() != caption  # the one message told the move
        turns += 1

    assert restarted and opened and popups == 1 and mistakes == 1 and swaps >= 0
    # Every board was uploaded to the media chat and shown in the same message.
    assert len(api.sent(MEDIA, "sendPhoto")) >= turns
    assert api.sent(None, "sendMessage", "sendPhoto") == [
        c for c in api.sent() if c.chat in (MEDIA, ADA, BOB, CAROL)
    ]
    # Racks never reached the message nor the media chat.
    assert not RACK_TEXT.search(chat.shown())
    assert not any(RACK_TEXT.search(c.text) for c in api.sent(MEDIA))


def test_options_show_above_the_lobby_and_keep_its_buttons(api: FakeBotAPI, tmp_path: Path) -> None:
    """The one message shows the options with their buttons above the lobby, whose Join
    and Start stay: a time bank is set from there, as in a group."""
    chat = Chat(api, start_bot(api, tmp_path / "t.db"))
    chat.offer(ADA, "party")
    chat.press(ADA, "Options")
    message = chat.message()
    assert {"Time bank: 3d+1d", "Join", "Start", "Open my private chat"} <= set(labels(message))
    assert "Table Ada's game: Genial" in message["text"]
    chat.press(ADA, "Time bank: 3d+1d")
    # 3 days and 1 day, in seconds.
    assert (chat.table().options.clock_bank, chat.table().options.clock_increment) == (
        259200,
        86400,
    )
    chat.press(BOB, "Join")
    lobby = chat.shown()
    assert "1. Ada\n2. Bob" in lobby and "Time bank: 3d+1d" not in labels(chat.message())


def test_a_watcher_sees_no_rack_and_cannot_join_a_running_game(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    chat = Chat(api, start_bot(api, tmp_path / "t.db"))
    chat.offer(ADA, "pair")
    chat.press(BOB, "Join")
    # Genial for 2 starts by itself with the second player.
    assert chat.table().status == PLAYING
    assert chat.shown().startswith("The game begins: Genial. Seats: 1. Ada, 2. Bob.")
    shown = chat.message()

    answer = chat.press(DAN, "My tiles")
    assert answer["text"] == "You are not seated at this table."
    assert not RACK_TEXT.search(answer["text"])
    assert api.sent(DAN) == []
    # Pressing the old Join (gone now) is impossible; the message is as it was.
    assert "Join" not in labels(chat.message())
    assert chat.message() == shown


def test_the_clock_reminds_in_the_message_above_the_turn(api: FakeBotAPI, tmp_path: Path) -> None:
    """A time per turn set by the options' button: at half time the reminder shows above
    the turn, whose buttons stay; the web board's Mini App is a button on the message."""
    clock = Clock()
    web = WebSettings(public_url="https://genial.example", telegram_app="board")
    chat = Chat(api, start_bot(api, tmp_path / "t.db", clock=clock, web=web))
    chat.offer(ADA, "pair")
    chat.press(ADA, "Options")
    chat.press(ADA, chat.label_for("/option timeout 24h"))
    assert chat.table().options.timeout == 86400
    chat.press(BOB, "Join")
    assert chat.table().status == PLAYING
    turn = chat.shown()
    mover = NAMES[chat.mover()]
    app = [b["url"] for b in buttons(chat.message()) if "url" in b and "startapp" in b["url"]]
    assert len(app) == 1 and app[0].startswith("https://t.me/GenialTestBot/board?startapp=")

    clock.advance(12 * 3600 + 1)  # half of the 24 hours
    chat.runner.tick()
    message = chat.message()
    reminder, _, below = message["caption"].partition("\n\n")
    assert reminder.startswith(f"{mover}, it is your turn at Ada's game: ")
    assert below == turn
    assert "My tiles" in labels(message)


def test_a_deleted_message_leaves_the_game_playable(api: FakeBotAPI, tmp_path: Path) -> None:
    """Someone deleted the table's message: the bot cannot show it any more (Telegram:
    MESSAGE_ID_INVALID), and the game goes on by moves typed privately."""
    chat = Chat(api, start_bot(api, tmp_path / "t.db"))
    chat.offer(ADA, "pair")
    chat.press(BOB, "Join")
    with api._cond:
        del api.inline_messages[chat.inline_id]
    game = chat.game()
    move = random.Random(1).choice(game.legal_moves())
    chat.say(chat.mover(), f"/play {games.format_move(game, move)}")
    assert len(chat.game().moves) == 1
    assert chat.table().status == PLAYING
    refused = [c for c in api.of("editMessageMedia") if c.status == 400]
    assert refused


def test_a_lost_note_of_what_the_message_shows_is_made_good(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    """The bot's note of what the message shows is gone (a store restored from an older
    backup): a text edit of the photo is refused by Telegram ("no text in the message"),
    and the bot edits its caption instead."""
    clock = Clock()
    chat = Chat(api, start_bot(api, tmp_path / "t.db", clock=clock))
    chat.offer(ADA, "pair")
    chat.press(ADA, "Options")
    chat.press(ADA, chat.label_for("/option timeout 24h"))
    chat.press(BOB, "Join")
    assert "photo" in chat.message()
    chat.runner.service.set_note(chat.table_id, "telegram.inline.shown", None)
    clock.advance(12 * 3600 + 1)
    chat.runner.tick()  # the reminder: a text-only change
    refused = [c for c in api.of("editMessageText") if c.status == 400]
    assert len(refused) == 1
    mover = NAMES[chat.mover()]
    assert chat.message()["caption"].startswith(f"{mover}, it is your turn at Ada's game: ")


def test_against_the_computer_without_feedback_opens_with_the_first_press(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    """Without /setinlinefeedback the bot hears nothing of the choice: the first press on
    the message opens the table, the presser its host, and the game begins at once."""
    api.feedback = False
    chat = Chat(api, start_bot(api, tmp_path / "t.db"))
    chat.offer(ADA, "computer")
    assert chat.runner.service.table(chat.table_id) is None
    chat.press(ADA, "Join")
    table = chat.table()
    assert table.status in (PLAYING, LOBBY)
    assert [s.computer for s in table.seats] == [False, True]
    assert table.host == str(ADA)
    assert "photo" in chat.message()


def test_a_game_against_the_computer_to_its_end_on_the_inline_ladder(
    api: FakeBotAPI, tmp_path: Path
) -> None:
    """Ada plays the computer to the end from her private chat (the swaps by the
    message's buttons): the result shows in the message, and the game is rated on the
    ladder of inline games, not on one of its own."""
    chat = Chat(api, start_bot(api, tmp_path / "t.db"))
    chat.offer(ADA, "computer")
    rng = random.Random(8)
    while chat.table().status == PLAYING:
        game = chat.game()
        assert chat.mover() == ADA  # the computer moved at once after her
        if game.awaiting == "swap":
            chat.press(ADA, rng.choice(["Swap", "Keep"]))
            continue
        move = rng.choice(game.legal_moves())
        chat.say(ADA, f"/play {games.format_move(game, move)}")
    message = chat.message()
    assert "Game over" in message["caption"] and message["photo"] in api.uploaded
    (row,) = chat.runner.service.store.archived()
    assert row["chat"] == chat.table_id
    ladder = rebuild_archive([row])
    assert ladder.standing("101", "genial", "inline") is not None
    assert ladder.top("genial", chat.table_id) == []


def test_without_a_media_chat_the_turns_are_told_in_words(api: FakeBotAPI, tmp_path: Path) -> None:
    chat = Chat(api, start_bot(api, tmp_path / "t.db", media=0))
    chat.offer(ADA, "pair")
    chat.press(BOB, "Join")
    message = chat.message()
    assert "photo" not in message
    assert message["text"].startswith("The game begins: Genial.")
    # Nothing uploaded: the only pictures are the racks in the players' private chats.
    assert {c.chat for c in api.sent(None, "sendPhoto")} == {ADA, BOB}


def test_fake_refuses_inline_edits_as_telegram_does(api: FakeBotAPI, tmp_path: Path) -> None:
    """The fake's inline message: a text has no caption, a photo no text, an edit that
    changes nothing is "not modified", and only a file Telegram has may be shown."""
    import json
    import urllib.error
    import urllib.parse
    import urllib.request

    runner = start_bot(api, tmp_path / "t.db")
    query = api.inline_query(ADA)
    runner.wait(query)
    runner.stop()
    _chosen, inline_id = api.choose(ADA, query, "party")
    sent = api.inline_message(inline_id)

    def call(method: str, **params: Any) -> str:
        # As python-telegram-bot sends them: a form, objects as JSON.
        form = {k: v if isinstance(v, str) else json.dumps(v) for k, v in params.items()}
        request = urllib.request.Request(
            f"{api.base_url}/bot{TOKEN}/{method}",
            data=urllib.parse.urlencode(form).encode(),
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        try:
            with urllib.request.urlopen(request) as answer:
                return str(json.load(answer)["ok"])
        except urllib.error.HTTPError as exc:
            return str(json.load(exc)["description"])

    same = {"text": sent["text"], "reply_markup": sent["reply_markup"]}
    assert call("editMessageText", inline_message_id=inline_id, **same) == NOT_MODIFIED
    assert call("editMessageCaption", inline_message_id=inline_id, caption="x") == NO_CAPTION
    api.uploaded.add("photo-1")
    media = {"type": "photo", "media": "photo-1", "caption": "board"}
    assert call("editMessageMedia", inline_message_id=inline_id, media=media) == "True"
    assert call("editMessageText", inline_message_id=inline_id, text="t") == NO_TEXT
    assert call("editMessageMedia", inline_message_id=inline_id, media=media) == NOT_MODIFIED
    unknown = {**media, "media": "photo-2"}
    assert "wrong file" in call("editMessageMedia", inline_message_id=inline_id, media=unknown)
    assert call("editMessageCaption", inline_message_id="nope", caption="x") == (
        "Bad Request: MESSAGE_ID_INVALID"
    )
    # The buttons alone (the media edit above, without buttons, took them off): put on,
    # taken off, then "not modified" when there are none to take.
    keyboard = {"inline_keyboard": [[{"text": "Join", "callback_data": "/join"}]]}
    assert call("editMessageReplyMarkup", inline_message_id=inline_id, reply_markup=keyboard) == (
        "True"
    )
    assert api.inline_message(inline_id)["reply_markup"] == keyboard
    assert call("editMessageReplyMarkup", inline_message_id=inline_id) == "True"
    assert "reply_markup" not in api.inline_message(inline_id)
    assert call("editMessageReplyMarkup", inline_message_id=inline_id) == NOT_MODIFIED
    # An inline message is named by its id alone, never with a chat's.
    both = {"inline_message_id": inline_id, "chat_id": ADA, "message_id": 1}
    assert call("editMessageCaption", caption="y", **both) == (
        "Bad Request: message identifier is not specified"
    )
