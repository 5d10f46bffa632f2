"""What becomes of a note and a letter of the outbox when a person is forgotten
(bot/store/forgetting.py), worked out by hand: their id is matched as a whole JSON string
and their name as a whole word, never inside another."""

from __future__ import annotations

import json

import pytest

from bot.store import forgetting

FORMER = "a former player"


def body(text: str, **more: object) -> str:
    return json.dumps(
        {
            "text": text,
            "kind": "info",
            "user": None,
            "buttons": [],
            "mentions": [],
            "tables": [],
            "key": 81012345101,
            **more,
        }
    )


@pytest.mark.parametrize(
    ("chat", "text", "more", "said"),
    [
        # A Telegram id (a number) inside the letter's key is no mention of them.
        ("g", "Ada plays.", {}, "Ada plays."),
        (
            "g",
            "Al moves. Also Alma. Al's turn.",
            {},
            "a former player moves. Also Alma. a former player's turn.",
        ),
        ("g", "Your turn, Al", {"mentions": ["101", "7"]}, "Your turn, a former player"),
        ("g", "Your rack", {"user": "101"}, None),  # to them alone
        ("101", "Ada joined.", {}, None),  # their private chat
        ("g", "Kick?", {"buttons": [["Al", "/kick"]]}, "Kick?"),
    ],
)
def test_a_letter(chat: str, text: str, more: dict[str, object], said: str | None) -> None:
    new = forgetting.letter(chat, body(text, **more), "101", ["Al"], FORMER)
    if said is None:
        assert new is None
        return
    assert new is not None
    data = json.loads(new)
    assert data["text"] == said
    assert "101" not in data["mentions"]
    assert data["key"] == 81012345101
    assert [b[0] for b in data["buttons"]] == [FORMER] * len(data["buttons"])


@pytest.mark.parametrize(
    ("chat", "key", "value", "kept"),
    [
        ("101", "notify", "on", None),  # under their id
        ("g", "discord.ping.101", "5", None),  # keyed by their id
        ("web.id:x", "chat", "101", None),  # their id alone (their private chat's)
        (
            "g",
            "telegram.told",
            '{"game":"3","users":["7","101"]}',
            '{"game":"3","users":["7","F"]}',
        ),
        ("g", "telegram.lobby", "91012", "91012"),  # a message id holding the digits
        ("g", "discord.ping.1010", "5", "5"),  # another person's
    ],
)
def test_a_note(chat: str, key: str, value: str, kept: str | None) -> None:
    assert forgetting.note(chat, key, value, "101", "F") == kept
