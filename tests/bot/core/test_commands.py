"""Chat commands: text -> command objects, errors for bad text, and the round trip."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bot.core.commands import (
    Abort,
    AddBot,
    Board,
    Command,
    CommandError,
    Export,
    Forget,
    Hand,
    Help,
    Hint,
    Join,
    Keep,
    Kick,
    Leave,
    MyData,
    Play,
    Rules,
    Score,
    SetOption,
    ShowOptions,
    Start,
    Swap,
    Top,
)
from bot.core.durations import format_duration, parse_duration
from bot.core.parsing import format_command, parse_command


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/join", Join()),
        ("/JOIN", Join()),
        ("/join@GenialBot", Join()),
        ("/join bot", AddBot()),
        ("/join bot strong", AddBot(level="strong")),
        ("/join computer Greedy", AddBot(level="greedy")),
        ("/addbot", AddBot()),
        ("/addbot random", AddBot(level="random")),
        ("/leave", Leave()),
        ("/option", ShowOptions()),
        ("/options", ShowOptions()),
        ("/option Team", SetOption(name="team", value="on")),
        ("/option team off", SetOption(name="team", value="off")),
        ("/option standard", SetOption(name="team", value="off")),
        ("/option Spezial", SetOption(name="game", value="spezial")),
        ("/option Genial", SetOption(name="game", value="genial")),
        ("/option game spezial", SetOption(name="game", value="spezial")),
        ("/option timeout 24h", SetOption(name="timeout", value="86400")),
        ("/option timeout 30m", SetOption(name="timeout", value="1800")),
        ("/option timeout 2d", SetOption(name="timeout", value="172800")),
        ("/option timeout 6", SetOption(name="timeout", value="21600")),
        ("/option timeout off", SetOption(name="timeout", value="0")),
        ("/option hints on", SetOption(name="hints", value="on")),
        ("/option hints", SetOption(name="hints", value="on")),
        ("/option hints aus", SetOption(name="hints", value="off")),
        ("/option order random", SetOption(name="order", value="random")),
        ("/option order join", SetOption(name="order", value="join")),
        ("/option lang de", SetOption(name="lang", value="de")),
        ("/option language FR", SetOption(name="lang", value="fr")),
        ("/start", Start()),
        ("/play RG F7 F8", Play(move="RG F7 F8")),
        ("/p 1   f7-f8", Play(move="1 f7-f8")),
        ("/swap", Swap()),
        ("/keep", Keep()),
        ("/hand", Hand()),
        ("/tiles", Hand()),
        ("/board", Board()),
        ("/score", Score()),
        ("/hint", Hint()),
        ("/export", Export()),
        ("/kick Bob", Kick(target="Bob")),
        ("/kick 2", Kick(target="2")),
        ("/mydata", MyData()),
        ("/forget me", Forget()),
        ("/forget ME", Forget()),
        ("/forget moi", Forget()),
        ("/abort", Abort()),
        ("/help", Help()),
        ("/rules", Rules()),
        ("/top", Top()),
        ("/top 3", Top(page=3)),
        ("/top global", Top(everyone=True)),
        ("/top Global 2", Top(page=2, everyone=True)),
        ("/ladder all", Top(everyone=True)),
        # A button's version rides at the end.
        ("/swap #12", Swap(version=12)),
        ("/option hints off #3", SetOption(name="hints", value="off", version=3)),
        ("/play RG F7 F8 #40", Play(move="RG F7 F8", version=40)),
        # A tournament's id first names the table (issue 44); no move begins with four
        # letters or digits, so every form above reads as before.
        ("/play K7XQ RG F7 F8", Play(table="k7xq", move="RG F7 F8")),
        ("/play k7xq 1 f7-f8", Play(table="k7xq", move="1 f7-f8")),
        ("/play k7xq F7 F8 #3", Play(table="k7xq", move="F7 F8", version=3)),
        ("/play R G F7 F8", Play(move="R G F7 F8")),
        ("/play F10 F11", Play(move="F10 F11")),
        ("/play abcd", Play(move="abcd")),
        ("/swap k7xq #5", Swap(table="k7xq", version=5)),
        ("/hand k7xq", Hand(table="k7xq")),
        ("/keep k7x0", Keep()),
    ],
)
def test_parse(text: str, expected: Command) -> None:
    assert parse_command(text) == expected


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("", "command.not_a_command"),
        ("hello", "command.not_a_command"),
        ("RG F7 F8", "command.not_a_command"),
        ("/", "command.not_a_command"),
        ("/dance", "command.unknown"),
        ("/play", "usage.play"),
        ("/p #3", "usage.play"),
        ("/kick", "usage.kick"),
        ("/option colour red", "option.unknown"),
        ("/option team maybe", "option.bad_switch"),
        ("/option timeout", "option.missing"),
        ("/option clock", "option.missing"),
        ("/option grace", "option.missing"),
        ("/option game", "option.missing"),
        ("/option timeout soon", "option.bad_timeout"),
        ("/option timeout 15d", "option.bad_timeout"),
        ("/option timeout 30s", "option.bad_timeout"),
        ("/option order alphabetical", "option.bad_order"),
        ("/option lang es", "option.bad_lang"),
        ("/option game chess", "option.bad_game"),
        ("/top global x", "usage.top"),
        ("/top 2 global", "usage.top"),
        ("/forget", "usage.forget"),
        ("/forget Bob", "usage.forget"),
        ("/forget me now", "usage.forget"),
    ],
)
def test_parse_errors_name_their_message(text: str, key: str) -> None:
    with pytest.raises(CommandError) as info:
        parse_command(text)
    assert info.value.key == key


def test_unknown_command_error_names_the_word() -> None:
    with pytest.raises(CommandError) as info:
        parse_command("/dance now")
    assert info.value.params == {"command": "/dance"}


@pytest.mark.parametrize(
    "command",
    [
        Join(),
        AddBot(),
        AddBot(level="strong", version=4),
        Leave(version=2),
        ShowOptions(),
        SetOption(name="team", value="on", version=7),
        SetOption(name="game", value="spezial"),
        SetOption(name="timeout", value="86400", version=1),
        SetOption(name="timeout", value="5400"),
        SetOption(name="timeout", value="0"),
        SetOption(name="lang", value="nl"),
        Start(version=9),
        Play(move="RG F7 F8"),
        Play(table="k7xq", move="RG F7 F8"),
        Swap(table="k7xq", version=5),
        Board(table="k7xq"),
        Swap(version=33),
        Keep(version=33),
        Hand(),
        Board(),
        Score(),
        Hint(),
        Export(),
        Kick(target="Bob", version=5),
        Abort(),
        Help(),
        Rules(),
        Top(page=4),
        Top(page=2, everyone=True),
        MyData(),
        Forget(),
    ],
)
def test_format_round_trips(command: Command) -> None:
    assert parse_command(format_command(command)) == command


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "off"),
        (60, "1m"),
        (5400, "90m"),
        (3600, "1h"),
        (86400, "24h"),
        (90000, "25h"),
        (172800, "2d"),
    ],
)
def test_durations(seconds: int, text: str) -> None:
    assert format_duration(seconds) == text
    assert parse_duration(text) == seconds


def test_read_only_commands_do_not_change_the_table() -> None:
    read_only = {ShowOptions, Hand, Board, Score, Hint, Export, Help, Rules}
    changing = {Join, AddBot, Leave, SetOption, Start, Play, Swap, Keep, Kick, Abort}
    assert all(not c.changes for c in read_only)
    assert all(c.changes for c in changing)


def test_every_command_has_exactly_one_handler(tmp_path: Path) -> None:
    """Each command the parser can make is handled by exactly one concern: a command left
    out would answer "unknown command", and one claimed by two concerns would make the
    service refuse to start (the core checks it)."""
    from bot.core.commands import Command
    from bot.service import CONCERNS, Service
    from tests.bot.helpers import store_at

    kinds = set(Command.__subclasses__())
    claimed = [kind for concern in CONCERNS for kind in concern.handlers]
    assert len(claimed) == len(set(claimed))
    assert set(claimed) == kinds
    # The 27 command classes of bot/core/commands.py, counted by hand, and Vote, Undo, Away,
    # Back (issue 26), Tournament (issue 30), Review, Puzzle and PuzzleDaily (issue 29),
    # Look (issue 48), Link and Unlink (issue 49).
    assert len(kinds) == 38
    # Two concerns that claim one command: the service refuses them, naming it.
    twice = CONCERNS[0].handlers
    doubled = (
        *CONCERNS,
        replace(CONCERNS[0], name="again", handlers=dict(list(twice.items())[:1])),
    )
    with pytest.raises(ValueError, match="two concerns handle"):
        Service(store_at(tmp_path / "t.db"), concerns=doubled)
