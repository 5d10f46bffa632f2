"""Hostile text at the edges, with hypothesis: the command parser, the move notation and
the record loader answer every input with a result or a documented rejection that says
why (see ``tests/edges.py``); never another exception. ``benchmarks/fuzz_edges.py`` runs
the same checks over 10^6 inputs.
"""

from __future__ import annotations

import json
import string

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bot.core.parsing import COMMAND_WORDS
from engine.genial import GenialGame
from tests.edges import check_command, check_notation, check_record, check_record_file

EDGE = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: Pieces that parsers look for, and some they should not trip on.
HOSTILE = [
    "²", "٣", "\u202e", "\u200f", "\x00", "\n", "\t", "\u2028", "#", "@", "<@1>", "-", ",",
    ";", "9" * 5000, "1" * 20, "-0", "0", "1e999", "NaN", "\U0001f600", "ß", "İ", "ﬀ",
]  # fmt: skip
numbers = st.integers(min_value=-(10**30), max_value=10**30).map(str)
# Runs of digits round the lengths that matter: a slot (1-2), int()'s limit (4,300).
huge = st.one_of(
    st.sampled_from([3, 9, 10, 4300, 4301, 6000]), st.integers(min_value=0, max_value=6000)
).map(lambda n: "9" * n)
cells = st.builds(
    lambda row, col: f"{row}{col}",
    st.sampled_from(string.ascii_letters + "ÄØ"),
    st.one_of(st.integers(-3, 30).map(str), numbers, huge),
)
colours = st.text(alphabet="RGBOYPrgboypXZ", min_size=0, max_size=4)
piece = st.one_of(st.sampled_from(HOSTILE), cells, colours, numbers, st.text(max_size=12), huge)
separators = st.sampled_from([" ", "  ", ",", "-", ";", "\t", "\n", "\u3000", ""])


def joined(first: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.builds(
        lambda head, parts, seps: head + "".join(s + p for s, p in zip(seps, parts, strict=False)),
        first,
        st.lists(piece, max_size=6),
        st.lists(separators, min_size=6, max_size=6),
    )


words = st.sampled_from([*COMMAND_WORDS, "p", "option", "tiles", "bot", "join@Bot", "JOIN", ""])
command_texts = st.one_of(
    st.text(),
    joined(words.map(lambda w: "/" + w)),
    joined(st.sampled_from(["/option", "/option timeout", "/option lang", "/join bot"])),
    st.builds(
        lambda t, v: f"{t} #{v}", joined(words.map(lambda w: "/" + w)), st.one_of(numbers, huge)
    ),
)
move_texts = st.one_of(
    st.text(),
    joined(colours),
    joined(cells),
    joined(st.sampled_from(["swap", "keep", "SWAP", " keep ", "1", "6", "7", "0", "²"])),
    joined(st.one_of(numbers, huge)),
    # The shape of a move (a tile or slot, two cells): what reaches the deeper checks.
    st.builds(
        lambda tile, a, b, sep: sep.join((tile, a, b)),
        st.one_of(colours, numbers, huge, st.sampled_from(HOSTILE)),
        cells,
        cells,
        separators.filter(bool),
    ),
)


@EDGE
@given(command_texts)
# Known edges, always tried: a version, a seat and a timeout past int()'s 4,300 digits.
@example("/join #" + "9" * 5000)
@example("/kick " + "9" * 5000)
@example("/option timeout " + "9" * 5000)
def test_command_parser_answers_every_text(text: str) -> None:
    check_command(text)


@EDGE
@given(move_texts)
@example("9" * 5000 + " F7 F8")
@example("F7 " + "9" * 5000 + " F8")
def test_move_notation_answers_every_text(text: str) -> None:
    check_notation(text)


# --- records -----------------------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=False)
    | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)
_BAG = [t.name for t in GenialGame(2, seed=3).initial_bag]
record_fields = st.fixed_dictionaries(
    {},
    optional={
        "game": st.sampled_from(["genial", "spezial", "Genial", "", 1]),
        "mode": st.sampled_from(["standard", "team", "solo", "duo", None]),
        "players": st.one_of(st.integers(-2, 6), st.just(True), st.just(10**400), st.just("2")),
        "seed": st.one_of(st.integers(), st.just(10**200), st.text(max_size=3)),
        "bag": st.one_of(
            st.just(_BAG),
            st.permutations(_BAG),
            st.lists(st.sampled_from(["RG", "rg", "XX", "R", "", "GR"]), max_size=130),
        ),
        "tokens": st.lists(st.sampled_from(["B1", "G2", "O1", "P2", "X9", "b1", ""]), max_size=9),
        "moves": st.lists(move_texts, max_size=5),
        "extra": json_values,
    },
)
nested = st.integers(min_value=1, max_value=200_000).map(lambda n: "[" * n + "]" * n)
record_texts = st.one_of(
    st.text(),
    json_values.map(json.dumps),
    record_fields.map(json.dumps),
    nested,
    nested.map(lambda s: s[: len(s) // 2]),
    huge.map(lambda digits: '{"game": "genial", "players": ' + (digits or "0") + "}"),
)


@EDGE
@given(record_texts)
@example("[" * 100_000)
@example('{"game": "genial", "players": 2, "seed": ' + "9" * 5000 + "}")
def test_record_loader_answers_every_text(text: str) -> None:
    check_record(text)


@settings(max_examples=60, deadline=None)
@given(
    st.one_of(
        st.binary(max_size=200), record_texts.map(lambda t: t.encode("utf-8", "surrogatepass"))
    )
)
def test_record_files_of_any_bytes_are_read_or_refused(data: bytes) -> None:
    check_record_file(data)


def test_the_checks_can_fail() -> None:
    # The checkers themselves: a real command formats back, a known rejection is named.
    assert check_command("/play RG F7 F8") == "ok"
    assert check_command("hello") == "command.not_a_command"
    assert check_command("/option timeout 99d") == "option.bad_timeout"
    # F7 and F8 are cells of every Genial board; "RG" is no label at all.
    assert check_notation("RG F7 F8") == "genial:ok spezial:cannot_parse"
    assert check_notation("QQ F7 F8") == "genial:unknown_colour spezial:cannot_parse"
    assert check_notation("J4 J5") == "genial:cannot_parse spezial:ok"
    assert check_record("[" * 100_000) == "invalid_record"
    assert check_record('{"game": "genial", "players": 2, "moves": ["RG Z99 Z98"]}') == (
        "replay:outside_area"
    )
    assert check_record_file(b"\xff\xfe{") == "invalid_record"
