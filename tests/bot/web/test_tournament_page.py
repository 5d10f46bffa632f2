"""A tournament's page on the web board (issue 30): the standings and the round's tables,
each linked to its table's page; the link under ``/tournament``; nothing for a made-up id."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from pathlib import Path

import pytest

from bot.core.config import Settings, WebSettings
from tests.bot.helpers import Clock, make_service
from tests.bot.tournaments.test_tournaments import Cup, new_cup
from tests.bot.web.board import path_of, running

pytestmark = pytest.mark.usefixtures("backend")

FOUR = ["Ann", "Bob", "Cid", "Dee"]


def running_cup(tmp_path: Path, settings: Settings | None = None) -> tuple[Cup, str]:
    clock = Clock()
    cup = Cup(make_service(tmp_path / "t.db", clock=clock, settings=settings), clock)
    tid = new_cup(cup, "swiss 2 rounds 2 players 1d", FOUR)
    cup.ok("Ann", "/tournament start")
    return cup, tid


def test_the_page_shows_the_standings_and_links_each_table(tmp_path: Path) -> None:
    cup, tid = running_cup(tmp_path)
    first, second = cup.round(tid)["pairings"]
    # Ann's table ends: its winner has 1 point, the others 0 (one point per two-player game).
    cup.play_table(first["chat"], random.Random(4))
    with running(cup_room(cup)) as site:
        link = site.board.tournament_link(tid)
        assert tid not in link  # a keyed id, as a table's
        status, headers, page = site.request("GET", path_of(link))
        assert status == 200 and headers["content-type"].startswith("text/html")
        text = page.decode()
        assert "Round 1 of 2" in text
        cells = re.findall(r"<tr><td>(\d)</td><td>([^<]+)</td><td>([^<]+)</td>", text)
        points = {name: p for _, name, p in cells}
        assert sorted(points) == sorted(FOUR)
        winner = cup.data(tid)["played"][0]["pairings"][0]
        won = {
            u for u, place in zip(winner["players"], winner["places"], strict=True) if place == 1
        }
        assert [points[n] for n in FOUR if f"id-{n.lower()}" in won] == ["1"]
        assert sorted(points.values()) == ["0", "0", "0", "1"]
        # The finished table has no link; the running one links to its own page.
        links = re.findall(r'<a href="(/t/[^"]+)">', text)
        assert links == [path_of(site.board.table_link(second["chat"]))]
        assert site.request("GET", links[0])[0] == 200
        # A made-up id, or a table's id, is no tournament.
        assert site.request("GET", "/c/" + "A" * 20)[0] == 404
        table_id = path_of(site.board.table_link(second["chat"])).rsplit("/", 1)[1]
        assert site.request("GET", f"/c/{table_id}")[0] == 404


def test_names_are_escaped_on_the_page(tmp_path: Path) -> None:
    clock = Clock()
    cup = Cup(make_service(tmp_path / "t.db", clock=clock), clock)
    from bot.core.outbound import User

    evil = User("id-evil", "<script>x</script>")
    tid = new_cup(cup, "swiss 1 round 2 players 1d", ["Ann"])
    cup.service.handle(cup.chat, evil, f"/tournament join {tid}")
    with running(cup_room(cup)) as site:
        _, _, page = site.request("GET", path_of(site.board.tournament_link(tid)))
        assert b"<script>x" not in page and b"&lt;script&gt;x&lt;/script&gt;" in page


def test_tournament_answers_carry_a_link_to_the_page(tmp_path: Path) -> None:
    settings = replace(Settings(), web=WebSettings(public_url="https://board.example"))
    cup, tid = running_cup(tmp_path, settings)
    (answer,) = [o for o in cup.ok("Bob", "/tournament") if o.kind == "info"]
    linked = cup.service.web_links(answer)
    (button,) = [b for b in linked.buttons if b.url]
    assert button.label == "Standings on the web"
    cid = button.url.rsplit("/", 1)[1]
    assert button.url == f"https://board.example/c/{cid}"
    # The id leads to the tournament, in every process (noted in the store).
    assert cup.service.note("web:" + cid, "chat") == f"tournament:{tid}"


def cup_room(cup: Cup):  # type: ignore[no-untyped-def]
    """A Room on the cup's service, for the web board's test harness."""
    from tests.bot.helpers import Room

    return Room(cup.service, cup.chat.id, cup.chat.title)
