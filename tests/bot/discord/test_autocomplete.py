"""Autocomplete: the player's own tiles, free cells, then the free neighbours of the first."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.spezial import board_layout
from tests.bot.discord.support import World, only_answer, world

pytestmark = pytest.mark.asyncio

# A fresh 2-player board (radius 5, RULES.md 2.2): rows A-K of 6, 7, 8, 9, ... cells; the
# start symbols are A1, A6, F1, F11, K1, K6. In the first round a tile must touch a start
# symbol no tile touches (RULES.md), so a legal placement covers a free neighbour of a start
# symbol (A2 B1 B2 | A5 B6 B7 | E1 F2 G1 | E10 F10 G10 | ...) and any free cell beside it.
# The first cells in reading order: row A all four free cells (A3 beside A2, A4 beside A5);
# row B all but B4 (its neighbours A3 A4 B3 B5 C4 C5 touch no start symbol); row C all but
# C4 and C5; row D only D1 (beside E1) and D9 (beside E10); then E1 E2 E9 E10 and F2 F3 F9
# (F1 and F11 are start symbols). Autocomplete offers 25 at most.
FIRST_25 = [
    *(f"A{i}" for i in range(2, 6)),
    *("B1", "B2", "B3", "B5", "B6", "B7"),
    *("C1", "C2", "C3", "C6", "C7", "C8"),
    *("D1", "D9"),
    *("E1", "E2", "E9", "E10"),
    *("F2", "F3", "F9"),
]
#: Cells the old autocomplete offered though no first tile may go there (issue 16).
NEVER_FIRST = ["B4", "C4", "C5", "D2", "D3", "D4", "D5", "D6"]


def values(choices: list[dict[str, str]]) -> list[str]:
    return [c["value"] for c in choices]


async def _game(w: World, *names: str) -> None:
    for name in names:
        await w.person(name).slash(w.channel, "join")
    await w.person(names[0]).slash(w.channel, "start")


async def test_tiles_come_from_the_typing_players_own_rack(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        await _game(w, "Ada", "Bob")
        for seat, name in enumerate(("Ada", "Bob")):
            rack = w.game().racks[seat]
            expected = []
            for slot, tile in enumerate(rack, 1):
                if tile.name not in [v for _, v in expected]:
                    colours = f"{tile.first.name.lower()} and {tile.second.name.lower()}"
                    expected.append((f"{slot}. {tile.name}: {colours}", tile.name))
            got = await w.person(name).autocomplete(w.channel, "play", "tile", "")
            assert [(c["name"], c["value"]) for c in got] == expected
            # Typing narrows the choice to tiles (or slots) starting with what was typed.
            first = rack[0].name[0].lower()
            typed = await w.person(name).autocomplete(w.channel, "play", "tile", first)
            assert values(typed) == [v for _, v in expected if v.lower().startswith(first)]
        # Someone without a seat is offered nothing.
        assert await w.person("Cy").autocomplete(w.channel, "play", "tile", "") == []


async def test_cells_of_legal_placements_only(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        await _game(w, "Ada", "Bob")
        ada = w.person("Ada")
        first = values(await ada.autocomplete(w.channel, "play", "cell1", ""))
        assert first == FIRST_25
        assert not set(first) & set(NEVER_FIRST)
        for typed in ("b", "c", "d"):
            offered = values(await ada.autocomplete(w.channel, "play", "cell1", typed))
            assert not set(offered) & set(NEVER_FIRST)
        assert values(await ada.autocomplete(w.channel, "play", "cell1", "a")) == [
            "A2",
            "A3",
            "A4",
            "A5",
        ]
        # A2 = (1,-5) touches start symbol A1: each free neighbour completes a placement.
        second = await ada.autocomplete(w.channel, "play", "cell2", "", cell1="A2")
        assert values(second) == ["A3", "B2", "B3"]
        # b1 = (-1,-4): A1 is taken, two neighbours are off the board: B2, C1, C2 remain.
        second = await ada.autocomplete(w.channel, "play", "cell2", "", cell1="b1")
        assert values(second) == ["B2", "C1", "C2"]
        # H1's free neighbours are G1, G2, H2 and I1, but only G1 touches a start symbol
        # (F1): the one partner that makes a legal first placement.
        second = await ada.autocomplete(w.channel, "play", "cell2", "", cell1="H1")
        assert values(second) == ["G1"]
        # No legal first cell yet: the cells a placement may start on.
        second = await ada.autocomplete(w.channel, "play", "cell2", "a", cell1="A1")
        assert values(second) == ["A2", "A3", "A4", "A5"]
        # Once A1 is touched, Bob's first tile must touch another start symbol: in row A
        # only A4 and A5 (beside A6) remain.
        await ada.slash(w.channel, "play", tile="1", cell1="B2", cell2="A2")
        assert w.game().to_move == 1
        bob = w.person("Bob")
        left = await bob.autocomplete(w.channel, "play", "cell1", "a")
        assert values(left) == ["A4", "A5"]
        # A5 touches A6: its free neighbours A4, B5 and B6 all complete a placement.
        assert values(await bob.autocomplete(w.channel, "play", "cell2", "", cell1="A5")) == [
            "A4",
            "B5",
            "B6",
        ]


async def test_genial_spezial_offers_one_tile_and_no_tower_cells(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        ada = w.person("Ada")
        await ada.slash(w.channel, "join")
        await ada.slash(w.channel, "option", setting="spezial")
        await w.person("Bob").slash(w.channel, "join")
        await ada.slash(w.channel, "start")
        got = await ada.autocomplete(w.channel, "play", "tile", "")
        assert got == [
            {"name": "Your tile (Genial Spezial: just choose the two cells)", "value": "-"}
        ]
        layout = board_layout()
        towers = {layout.area.label(t.cell) for t in layout.towers_for(2)}
        assert len(towers) >= 2
        for label in sorted(towers):
            offered = values(await ada.autocomplete(w.channel, "play", "cell1", label))
            assert label not in offered
        # The tile is left out of the move: the cells make the move.
        game = w.game()
        cell1, cell2 = game.legal_moves()[0].cell1, game.legal_moves()[0].cell2
        area = game.area
        played = await ada.slash(
            w.channel, "play", tile="-", cell1=area.label(cell1), cell2=area.label(cell2)
        )
        assert not [m for m in [played.response, *played.followups] if m is not None]
        assert len(w.game().moves) == 1


async def test_option_values_seats_and_levels(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        ada = w.person("Ada")
        await ada.slash(w.channel, "join")
        await w.person("Bob").slash(w.channel, "join")

        langs = await ada.autocomplete(w.channel, "option", "value", "", setting="lang")
        assert [(c["name"], c["value"]) for c in langs] == [
            ("English", "en"),
            ("Deutsch", "de"),
            ("Nederlands", "nl"),
            ("Français", "fr"),
        ]
        times = await ada.autocomplete(w.channel, "option", "value", "", setting="timeout")
        assert values(times) == ["off", "30m", "1h", "12h", "24h", "2d", "7d"]
        typed = await ada.autocomplete(w.channel, "option", "value", "36h", setting="timeout")
        assert values(typed) == ["36h"]
        assert await ada.autocomplete(w.channel, "option", "value", "", setting="genial") == []

        # In the table's language.
        await ada.slash(w.channel, "option", setting="lang", value="de")
        switch = await ada.autocomplete(w.channel, "option", "value", "", setting="hints")
        assert [(c["name"], c["value"]) for c in switch] == [("an", "on"), ("aus", "off")]

        seats = await ada.autocomplete(w.channel, "kick", "player", "")
        assert [(c["name"], c["value"]) for c in seats] == [("1. Ada", "1"), ("2. Bob", "2")]
        levels = await ada.autocomplete(w.channel, "addbot", "level", "")
        assert values(levels) == ["random", "greedy", "strong", "expert", "master"]
        assert values(await ada.autocomplete(w.channel, "addbot", "level", "g")) == ["greedy"]
        # Named in the table's language (German here), sent as the word a player types.
        assert [c["name"] for c in levels] == [
            "zufällig (random)",
            "gierig (greedy)",
            "stark (strong)",
            "Experte (expert)",
            "Meister (master)",
        ]
        assert values(await ada.autocomplete(w.channel, "addbot", "level", "Zu")) == ["random"]


async def test_a_typed_option_value_is_checked(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        ada = w.person("Ada")
        await ada.slash(w.channel, "join")
        said = await ada.slash(w.channel, "option", setting="timeout", value="36h")
        assert said.response is None  # the options went to the channel
        assert w.table().options.timeout == 36 * 3600
        bad = await ada.slash(w.channel, "option", setting="timeout", value="forever")
        assert only_answer(bad) == (
            "forever is not a time per turn: use 30m, 24h, 2d (at least a minute, at most 14"
            " days) or off."
        )
