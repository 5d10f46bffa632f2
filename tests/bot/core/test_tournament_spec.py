"""``/tournament`` as typed (bot/core/tournament_spec.py): each spec read as the docs
(docs/tournaments.md) write it, written back so it reads the same, and each wrong word
answered with the key that says what was wrong."""

from __future__ import annotations

import pytest

from bot.core.commands import CommandError, Tournament, TournamentSpec
from bot.core.parsing import format_command, parse_command

DAY, HOUR = 86400, 3600


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("/tournament new", TournamentSpec()),
        (
            "/tournament new swiss 5 rounds 3 players 2d",
            TournamentSpec(rounds=5, size=3, round_time=2 * DAY),
        ),
        (
            "/tournament new round robin spezial 1d",
            TournamentSpec("robin", game="spezial", round_time=DAY),
        ),
        ("/tournament new 4 players team", TournamentSpec(size=4, team=True)),
        (
            "/tournament new schweizer 2 runden 1d uhr 2h beginn 30m",
            TournamentSpec(rounds=2, round_time=DAY, clock=2 * HOUR, start_in=1800),
        ),
        (
            "/tournament new rr clock 1d start 2d 12h",
            TournamentSpec("robin", round_time=12 * HOUR, clock=DAY, start_in=2 * DAY),
        ),
    ],
)
def test_a_spec_reads_and_writes_back(text: str, spec: TournamentSpec) -> None:
    cmd = parse_command(text)
    assert cmd == Tournament(action="new", spec=spec)
    again = format_command(cmd)
    assert parse_command(again) == cmd


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("/tournament", "/tournament"),
        ("/tournament ab12", "/tournament show ab12"),
        ("/tournament JOIN Ab12", "/tournament join ab12"),
        ("/tournament leave", "/tournament leave"),
        ("/tournament team XYZ123", "/tournament team xyz123"),
    ],
)
def test_an_action_reads_and_writes_back(text: str, written: str) -> None:
    cmd = parse_command(text)
    assert format_command(cmd) == written
    assert parse_command(written) == cmd


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("/tournament new 31 rounds", "tournament.bad_rounds"),
        ("/tournament new 0 rounds", "tournament.bad_rounds"),
        ("/tournament new 5 players", "tournament.bad_size"),
        ("/tournament new 1234 players", "tournament.bad_size"),
        ("/tournament new 5m", "tournament.bad_time"),  # under ten minutes
        ("/tournament new 15d", "tournament.bad_time"),  # over two weeks
        ("/tournament new start 31d", "tournament.bad_time"),
        ("/tournament new start soon", "tournament.bad_time"),
        ("/tournament new team", "tournament.bad_team"),  # teams of two at tables of four
        ("/tournament new 4 players spezial team", "tournament.bad_team"),
        ("/tournament new round robin 3 players", "tournament.robin_pairs"),
        ("/tournament new blitz", "tournament.bad_word"),
        ("/tournament frobnicate now", "usage.tournament"),
        ("/tournament join ab12 please", "usage.tournament"),
        ("/tournament team", "usage.tournament_team"),
        ("/tournament join ab-12", "tournament.no_such"),
    ],
)
def test_a_wrong_spec_says_what_is_wrong(text: str, key: str) -> None:
    with pytest.raises(CommandError) as caught:
        parse_command(text)
    assert caught.value.key == key


def test_a_long_word_is_named_briefly() -> None:
    with pytest.raises(CommandError) as caught:
        parse_command("/tournament new " + "x" * 500)
    (word,) = caught.value.params.values()
    assert word == "x" * 15 + "…"
