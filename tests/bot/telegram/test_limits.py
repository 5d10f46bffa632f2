"""Telegram's limits and encodings (bot/telegram_format.py): texts cut to fit, deep-link
payloads, button data, mention offsets in UTF-16 units, button rows."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.telegram.limits import (
    ALERT_LIMIT,
    CALLBACK_DATA_LIMIT,
    CAPTION_LIMIT,
    ELLIPSIS,
    callback_data,
    deep_link,
    fit,
    inline_table,
    is_inline,
    is_telegram_chat,
    mention_spans,
    message_link,
    parse_callback_data,
    parse_start_payload,
    rows,
    split_table,
    start_payload,
    table_id,
    utf16_len,
)

# Telegram's rule for deep-link payloads.
PAYLOAD = re.compile(r"[A-Za-z0-9_-]{1,64}")


@pytest.mark.parametrize(
    ("text", "units"),
    [("", 0), ("abc", 3), ("é", 1), ("😀", 2), ("a😀b", 4), ("Zoë 🎲🎲", 8)],
)
def test_utf16_length(text: str, units: int) -> None:
    assert utf16_len(text) == units


def test_a_text_that_fits_is_unchanged() -> None:
    text = "Ada placed RG F7 F8: +3 red.\nBob, your turn.\nTiles in the bag: 80."
    assert fit(text, CAPTION_LIMIT) == text


def test_a_long_caption_keeps_whose_turn_it_is() -> None:
    narration = [f"Line {i:02d} of what happened this turn, told at length." for i in range(40)]
    text = "\n".join([*narration, "Bob, your turn.", "Tiles in the bag: 12."])
    cut = fit(text, CAPTION_LIMIT)
    assert utf16_len(cut) <= CAPTION_LIMIT
    lines = cut.split("\n")
    assert lines[-2:] == ["Bob, your turn.", "Tiles in the bag: 12."]
    assert lines[-3] == ELLIPSIS
    # Whole lines from the start, in order, as many as fit: each line is 51 characters
    # and a newline, and 1024 - len("…\nBob, your turn.\nTiles in the bag: 12.") = 985,
    # room for 18 of them.
    assert lines[:-3] == narration[:18]


def test_one_very_long_line_is_cut_with_an_ellipsis() -> None:
    cut = fit("x" * 300, ALERT_LIMIT, keep_last=0)
    assert cut == "x" * 199 + ELLIPSIS


def test_emoji_are_never_cut_in_half() -> None:
    cut = fit("🎲" * 10, 7, keep_last=0)
    assert cut == "🎲🎲🎲" + ELLIPSIS  # 3 emoji (6 units) and the ellipsis


@given(st.text(alphabet=st.sampled_from(["a", "é", "😀", "\n", " "]), max_size=300), st.data())
def test_fit_always_fits(text: str, data: st.DataObject) -> None:
    limit = data.draw(st.integers(min_value=1, max_value=320))
    keep = data.draw(st.integers(min_value=0, max_value=3))
    cut = fit(text, limit, keep)
    assert utf16_len(cut) <= limit
    if utf16_len(text) <= limit:
        assert cut == text


@pytest.mark.parametrize(
    "chat", ["-1001234567890", "-42", "123456789", "-1001234567890/42", "-1009999999999/2147483647"]
)
def test_deep_link_payload_round_trip(chat: str) -> None:
    payload = start_payload(chat)
    assert PAYLOAD.fullmatch(payload)
    assert parse_start_payload(payload) == chat


def test_deep_link() -> None:
    assert deep_link("GenialBot", "-100123") == "https://t.me/GenialBot?start=t-100123"
    # A topic's table: the payload may not hold a slash, so the thread follows a "_".
    assert deep_link("GenialBot", "-100123/7") == "https://t.me/GenialBot?start=t-100123_7"


def test_a_topics_table_id_names_the_chat_and_the_thread() -> None:
    assert table_id(-100123) == "-100123"
    assert table_id(-100123, None) == "-100123"
    assert table_id(-100123, 42) == "-100123/42"
    assert split_table("-100123/42") == (-100123, 42)
    assert split_table("-100123") == (-100123, None)
    assert split_table("101") == (101, None)
    for bad in ("", "-100/", "/42", "-100/42/1", "-100/x", "console"):
        with pytest.raises(ValueError, match="not a Telegram table id"):
            split_table(bad)


@pytest.mark.parametrize(
    "payload", ["", "t", "x-100", "t-10a", "t" + "9" * 30, "-100", "t-100_", "t-100_x", "t_5"]
)
def test_payloads_we_never_made(payload: str) -> None:
    assert parse_start_payload(payload) is None


def test_a_payload_needs_a_chat_id() -> None:
    with pytest.raises(ValueError, match="not a Telegram table id"):
        start_payload("console")


def test_button_data_in_the_tables_chat_is_the_command() -> None:
    assert callback_data("-100", "-100", "/swap #12") == "/swap #12"
    assert parse_callback_data("/swap #12", "-100") == ("-100", "/swap #12")


def test_button_data_elsewhere_names_the_table() -> None:
    # A Swap button under a rack in Ada's private chat (id 101) is for the group's table.
    data = callback_data("-100123", "101", "/swap #12")
    assert data == "-100123 /swap #12"
    assert parse_callback_data(data, "101") == ("-100123", "/swap #12")


def test_button_data_of_a_topics_table() -> None:
    # In the topic itself the data is the command; under a private rack it names the topic.
    assert callback_data("-100123/42", "-100123/42", "/keep #3") == "/keep #3"
    assert parse_callback_data("/keep #3", "-100123/42") == ("-100123/42", "/keep #3")
    data = callback_data("-100123/42", "101", "/keep #3")
    assert data == "-100123/42 /keep #3"
    assert parse_callback_data(data, "101") == ("-100123/42", "/keep #3")


def test_button_data_has_a_size_limit() -> None:
    command = "/option timeout " + "9" * 60
    with pytest.raises(ValueError, match=f"longer than {CALLBACK_DATA_LIMIT} bytes"):
        callback_data("-100", "-100", command)


@pytest.mark.parametrize(
    "data", ["", "hello", "abc /join", "-100 join", "-100", "-100/ /join", "-100/x /join"]
)
def test_button_data_we_never_made(data: str) -> None:
    assert parse_callback_data(data, "-100") is None


def test_mentions_count_utf16_units() -> None:
    text = "🎲 Zoë placed RG F7 F8: +1 red.\nBob, your turn."
    spans = mention_spans(text, [("202", "Bob"), ("303", "Carol")])
    # "🎲" is 2 units; "🎲 Zoë placed RG F7 F8: +1 red.\n" is 31 characters, 32 units.
    assert spans == [(32, 3, "202")]


def test_a_mention_goes_on_the_last_place_the_name_occurs() -> None:
    text = "Ada placed RG F7 F8.\nAda, place again: bonus placement."
    assert mention_spans(text, [("101", "Ada")]) == [(21, 3, "101")]


def test_button_rows() -> None:
    assert rows(["Join", "Add computer", "Start", "Options"]) == [[0, 1, 2], [3]]
    # Long labels get a row of their own rather than being cut on a phone.
    long = ["Seats in join order", "Time per turn: no limit", "Hints on"]
    assert rows(long) == [[0], [1, 2]]
    assert rows([]) == []


@pytest.mark.parametrize(
    ("table", "message_id", "username", "link"),
    [
        # A private supergroup: its id without the -100.
        ("-1001234567890", 77, None, "https://t.me/c/1234567890/77"),
        # A forum topic: the topic's thread id, then the message id.
        ("-1001234567890/12", 77, None, "https://t.me/c/1234567890/12/77"),
        # A public supergroup by its username, with or without a topic.
        ("-1005555555555", 9, "genialclub", "https://t.me/genialclub/9"),
        ("-1005555555555/3", 9, "genialclub", "https://t.me/genialclub/3/9"),
        # A basic group and a private chat have no message links.
        ("-4242", 5, None, None),
        ("101", 5, None, None),
        ("101", 5, "ada", None),
    ],
)
def test_message_links(table: str, message_id: int, username: str | None, link: str | None) -> None:
    assert message_link(table, message_id, username) == link


@given(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
               min_size=1, max_size=64))  # fmt: skip
def test_an_inline_messages_table_id_round_trips_through_links_and_buttons(
    inline_message_id: str,
) -> None:
    """Any inline_message_id gives one table id, the same every time, that a deep link
    and a private rack's button (Swap, at most 64 bytes) carry and give back."""
    table = inline_table(inline_message_id)
    assert table == inline_table(inline_message_id)
    assert is_inline(table) and is_telegram_chat(table)
    assert re.fullmatch(r"inline~[0-9a-f]{16}", table)
    payload = start_payload(table)
    assert PAYLOAD.fullmatch(payload) and parse_start_payload(payload) == table
    data = callback_data(table, "101", "/swap #123")
    assert len(data.encode()) <= CALLBACK_DATA_LIMIT
    assert parse_callback_data(data, "101") == (table, "/swap #123")
    assert message_link(table, 5) is None


def test_inline_table_ids_are_told_apart() -> None:
    assert inline_table("AgAAAF00000001") != inline_table("AgAAAF00000002")
    assert not is_inline("inline~0123")  # not 16 digits
    assert not is_inline("-1001234567890")
    assert parse_start_payload("i0123456789abcdeg") is None  # not hex
