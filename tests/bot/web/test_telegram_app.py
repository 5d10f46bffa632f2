"""The Telegram Mini App: ``initData`` signed as Telegram's Web App documentation says
(HMAC-SHA256 under HMAC-SHA256("WebAppData", bot token)) names the player; forged, stale
or unsigned data is refused; in Chromium the page opened with the data plays that seat."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest

from bot.web.tokens import INIT_DATA_LIFE, BadToken, telegram_user
from tests.bot.helpers import START
from tests.bot.web.board import running, started_room
from tests.bot.web.browser import PHONE, tap_cell, until

BOT_TOKEN = "123456:TEST-token-of-this-test"


def signed(fields: dict[str, str], token: str = BOT_TOKEN) -> str:
    """``initData`` as Telegram makes it, worked out here from the documentation's recipe."""
    check = "\n".join(f"{k}={fields[k]}" for k in sorted(fields))
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    digest = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    return urlencode({**fields, "hash": digest})


def test_init_data_names_the_user() -> None:
    data = signed(
        {
            "auth_date": str(int(START)),
            "user": json.dumps({"id": 42, "first_name": "Ann", "last_name": "B"}),
        }
    )
    assert telegram_user(data, BOT_TOKEN, START + 60) == ("42", "Ann B")


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ("token", "forged"),  # signed with another bot's token
        ("field", "forged"),  # a field changed after signing
        ("unsigned", "forged"),
        ("old", "expired"),
    ],
)
def test_bad_init_data_is_refused(change: str, why: str) -> None:
    base = {"auth_date": str(int(START)), "user": json.dumps({"id": 42, "first_name": "Ann"})}
    now = START + 60
    if change == "token":
        data = signed(base, "654321:another-bot")
    elif change == "field":
        data = signed(base).replace("42", "43")
    elif change == "unsigned":
        data = urlencode(base)
    else:
        data = signed(base)
        now = START + INIT_DATA_LIFE + 1
    with pytest.raises(BadToken, match=why):
        telegram_user(data, BOT_TOKEN, now)


def test_the_mini_app_opens_the_players_seat_and_refuses_a_forgery(
    tmp_path: Path, browser: Any
) -> None:
    room = started_room(tmp_path, ids=("42", "43"))  # Telegram's ids are numbers
    with running(room, telegram_token=BOT_TOKEN) as site:
        # The session endpoint: a seat token for the signed user at the start_param's table.
        user = json.dumps({"id": 42, "first_name": "Ann"})
        good = signed({"auth_date": str(int(START)), "user": user, "start_param": site.tid})
        status, answer = site.post("/api/tg/session", {"init_data": good})
        assert status == 200 and answer["table"] == site.tid
        assert site.board.signer.check(answer["seat"]).user == "42"
        forged = good.replace("Ann", "Eve")
        status, answer = site.post("/api/tg/session", {"init_data": forged})
        assert status == 403 and answer["error"] == "initData forged"

        # As Telegram opens a Mini App: the signed data in the URL's fragment.
        context = browser.new_context(viewport=PHONE)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        theme = json.dumps({"bg_color": "#102030", "text_color": "#f0f0f0"})
        fragment = f"tgWebAppData={quote(good)}&tgWebAppThemeParams={quote(theme)}"
        page.goto(f"http://127.0.0.1:{site.port}/tg#{fragment}")
        until(page, "() => document.body.dataset.version", "the Mini App's look")
        assert page.evaluate("() => document.body.dataset.table") == site.tid
        # Ann's seat: her six tiles, her turn (she joined first).
        assert page.evaluate("() => document.querySelectorAll('.rack button').length") == 6
        assert page.evaluate("() => document.body.dataset.myTurn") == "true"
        bg = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
        assert bg == "rgb(16, 32, 48)"  # Telegram's theme
        bad = context.new_page()
        bad.goto(f"http://127.0.0.1:{site.port}/tg#tgWebAppData={quote(forged)}")
        said = until(bad, "() => document.getElementById('status').textContent", "the refusal")
        assert said == "initData forged"
        assert errors == []


#: Telegram's mobile apps take a Mini App's events through this object (web events docs).
PROXY = """
window.__posted = [];
window.TelegramWebviewProxy = {
  postEvent: (type, data) => window.__posted.push([type, data ? JSON.parse(data) : null]),
};
"""


def test_the_mini_app_speaks_telegrams_events_back_button_and_theme(
    tmp_path: Path, browser: Any
) -> None:
    room = started_room(tmp_path, ids=("42", "43"))
    with running(room, telegram_token=BOT_TOKEN) as site:
        user = json.dumps({"id": 42, "first_name": "Ann"})
        good = signed({"auth_date": str(int(START)), "user": user, "start_param": site.tid})
        context = browser.new_context(viewport=PHONE)
        context.add_init_script(PROXY)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"http://127.0.0.1:{site.port}/tg#tgWebAppData={quote(good)}")
        until(page, "() => document.body.dataset.version", "the Mini App's look")

        def posted() -> list[list[Any]]:
            return list(page.evaluate("() => window.__posted"))

        assert [e[0] for e in posted()[:2]] == ["web_app_ready", "web_app_expand"]
        # A tile tapped: something to step back from, so Telegram shows its back button.
        page.click(".rack button >> nth=0")
        until(page, "() => document.querySelector('.rack button.chosen')", "the tile chosen")
        assert ["web_app_setup_back_button", {"is_visible": True}] in posted()
        first = until(page, "() => document.querySelector('.cell.legal')?.dataset.cell", "cells")
        tap_cell(page, first)  # on a phone: the board zoomed in, then the cell
        until(page, "() => document.querySelector('.cell.first')", "the first cell chosen")
        # Telegram's back button, pressed three times: the cell, the tile, the zoom.
        press = "() => window.Telegram.WebView.receiveEvent('back_button_pressed', null)"
        page.evaluate(press)
        assert page.evaluate("() => document.querySelector('.cell.first')") is None
        assert page.evaluate("() => Boolean(document.querySelector('.rack button.chosen'))")
        page.evaluate(press)
        assert page.evaluate("() => document.querySelector('.rack button.chosen')") is None
        assert page.evaluate("() => document.body.dataset.zoom") == "in"
        assert posted()[-1] != ["web_app_setup_back_button", {"is_visible": False}]
        page.evaluate(press)
        assert page.evaluate("() => document.body.dataset.zoom") == "out"
        assert posted()[-1] == ["web_app_setup_back_button", {"is_visible": False}]
        assert ["web_app_trigger_haptic_feedback", {"type": "selection_change"}] in posted()
        # The theme changed in Telegram (night mode): the page follows it.
        page.evaluate(
            "() => window.Telegram.WebView.receiveEvent('theme_changed',"
            " {theme_params: {bg_color: '#000000'}})"
        )
        bg = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
        assert bg == "rgb(0, 0, 0)"
        assert errors == []
