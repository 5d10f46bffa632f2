"""Whole games on Discord: slash commands and buttons in a channel, racks only ever private."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from engine.moves import Placement
from render.genial_board import WIDTH as BOARD_WIDTH
from tests.bot.discord.support import (
    RACK_MARK,
    World,
    answers,
    labels,
    make_move,
    move_options,
    only_answer,
    play_turn,
    text,
    world,
)

pytestmark = pytest.mark.asyncio
PLACED = re.compile(r"^(Ada|Bob|Computer 1) (placed|made a bonus placement) ", re.MULTILINE)


def assert_racks_private(w: World) -> None:
    """No public message shows a rack (as text or image); each person sees only racks
    addressed to them."""
    for message in w.public():
        assert RACK_MARK not in text(message)
        assert not any(a.filename.startswith("rack-") for a in message.attachments)
    for person in w.people.values():
        seat = w.table().seat_of(str(person.id))
        for message in w.messages(viewer=person):
            if RACK_MARK in text(message) or any(
                a.filename.startswith("rack-") for a in message.attachments
            ):
                assert message.flags.ephemeral, text(message)
                assert seat is not None


async def test_a_person_plays_a_computer_to_the_end(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        ada = w.person("Ada")
        await ada.slash(w.channel, "join")
        lobby = w.last_public()
        # Buttons on the lobby change it in place: still one lobby message.
        await ada.click(lobby, label="Add computer")
        await ada.click(w.last_public(), label="Start")
        assert len(w.public()) == 2
        assert "Computer 1 (computer, random)" in text(w.public()[0])

        rng = random.Random(3)
        first = True
        turns = racks_checked = 0
        while w.playing():
            game = w.game()
            assert game.to_move == 0, "the computer player moves by itself"
            person = w.to_move()
            assert person is ada
            seen = len(w.public())
            move = rng.choice(game.legal_moves())
            result = await make_move(w, move)
            turns += 1
            said = answers(result, clicked=not isinstance(move, Placement))
            # Only private answers to Ada; everything for the channel is in the channel.
            assert all(m.ephemeral for m in said)
            new = w.public()[seen:]
            assert new, "every move is shown in the channel"
            if first and isinstance(move, Placement):
                # What the move scored, in the turn message: worked out from the rules'
                # scoring on the position before the move.
                scored = game.points_of(move)
                words = [f"+{p} {c.name.lower()}" for c, p in scored.items()] or ["no points"]
                assert all(word in text(new[0]) for word in words), text(new[0])
                first = False
            if w.playing() and w.game().to_move == 0 and w.game().awaiting == "place":
                # Back to Ada: her rack came privately with the answer to her command.
                assert w.rack_line(0) in [text(m).split("\n")[0] for m in said]
                racks_checked += 1
                # ... and the turn message pings her.
                assert new[-1].raw_mentions == [ada.id]
                assert "Ada, " in text(new[-1])
            assert turns < 200

        assert not first and racks_checked > 10
        public = w.public()
        assert "Game over" in text(public[-1])
        record = w.table().record
        assert record is not None
        placements = [m for m in record["moves"] if m not in ("swap", "keep")]
        said_placed = sum(len(PLACED.findall(text(m))) for m in public)
        assert said_placed == len(placements)
        assert_racks_private(w)


async def test_two_people_take_turns(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        ada, bob = w.person("Ada"), w.person("Bob")
        await ada.slash(w.channel, "join")
        await bob.slash(w.channel, "join")
        started = await ada.slash(w.channel, "start")
        # Ada (who started) gets her rack; Bob's is not sent anywhere (no DMs configured).
        assert [text(m).split("\n")[0] for m in answers(started)] == [w.rack_line(0)]
        assert not [m for m in w.messages(viewer=bob) if m.flags.ephemeral]
        turn = w.last_public()
        assert turn.raw_mentions == [ada.id]
        assert labels(turn) == ["My tiles"]

        # "My tiles" shows each person their own rack, privately.
        mine = await bob.click(turn, label="My tiles")
        assert only_answer(mine, clicked=True).startswith(w.rack_line(1))
        mine = await ada.click(turn, label="My tiles")
        assert only_answer(mine, clicked=True).startswith(w.rack_line(0))

        # Bob may not move for Ada.
        seen = len(w.public())
        game = w.game()
        move = next(m for m in game.legal_moves() if isinstance(m, Placement))
        refused = await bob.slash(w.channel, "play", **move_options(game, move))
        assert only_answer(refused) == "It is not your turn: Ada is to move."
        assert len(w.public()) == seen

        # A seed whose random game is offered a swap and takes it (few random 2-player
        # games are; the moves depend on the order legal_moves lists them in).
        rng = random.Random(8)
        for _ in range(12):
            await play_turn(w, rng)
            # The player to move is pinged on the last turn message.
            assert w.last_public().raw_mentions == [w.to_move().id]
        for person, seat in ((ada, 0), (bob, 1)):
            mine = await person.slash(w.channel, "hand")
            assert only_answer(mine).startswith(w.rack_line(seat))
        while w.playing():
            await play_turn(w, rng)
        assert "Game over" in text(w.last_public())
        assert_racks_private(w)
        # Swap decisions were made with the buttons on the turn messages.
        record = w.table().record
        assert record is not None and "swap" in record["moves"]


async def test_board_and_rack_images(tmp_path: Path) -> None:
    async with world(tmp_path, pictures=True) as w:
        ada, bob = w.person("Ada"), w.person("Bob")
        await ada.slash(w.channel, "join")
        await bob.slash(w.channel, "join")
        started = await ada.slash(w.channel, "start")
        turn = w.last_public()
        # The board is a plain attachment, not an embed's image (Discord shows attachments
        # larger), at the renderer's full width; the mention and the text are the content.
        assert turn.embeds == []
        [board] = turn.attachments
        assert board.filename.endswith(".png") and board.filename.startswith("board-")
        png = await board.read()
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        assert int.from_bytes(png[16:20], "big") == BOARD_WIDTH
        assert turn.content.startswith(f"{ada.mention}\nThe game begins: ")
        # The rack: text and image, privately.
        [rack] = answers(started)
        assert rack.ephemeral
        assert [a.filename.startswith("rack-") for a in rack.attachments] == [True]
        assert text(rack).startswith(w.rack_line(0))
        assert_racks_private(w)
