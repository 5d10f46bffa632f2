"""Issue 44, items 28 to 30: what a newcomer types and meets first, in every language,
each answer written here by hand: the nearest command for a typo, the English command for
a word in the table's language, a short /help, the rules of the game played, the whole
list of computer levels in an error, and a rack prompt whose example is legal now."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from bot.core.commands import Play, Puzzle
from bot.core.outbound import Outbound
from bot.core.parsing import parse_command
from bot.words.texts import LANGUAGES
from engine.genial import GenialGame
from engine.moves import Placement
from tests.bot.helpers import Room, make_service

NB = "\u00a0"
NNB = "\u202f"


def _room(tmp_path: Path, lang: str) -> Room:
    room = Room(make_service(tmp_path / f"{lang}.db", seed=1))
    room.ok("Ada", "/join")
    room.ok("Ada", f"/option lang {lang}")
    return room


TYPO = {
    "en": "I don't know /plya. Did you mean /play? /help lists the commands.",
    "de": "/plya kenne ich nicht. Meintest du /play? /help zeigt die Befehle.",
    "nl": "/plya ken ik niet. Bedoel je /play? /help toont de commando's.",
    "fr": (
        f"Je ne connais pas /plya. Tu voulais dire /play{NNB}? /help donne la liste des commandes."
    ),
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_typo_gets_the_nearest_command(tmp_path: Path, lang: str) -> None:
    room = _room(tmp_path, lang)
    assert room.error("Ada", "/plya 1 A2 B3") == TYPO[lang]


def test_a_word_near_no_command_is_just_unknown(tmp_path: Path) -> None:
    room = _room(tmp_path, "en")
    assert room.error("Ada", "/dance") == "I don't know /dance. /help lists the commands."


FOREIGN = [
    ("de", "/hilfe", "Befehle werden auf Englisch getippt: Statt /hilfe tippe /help."),
    ("de", "/spielen", "Befehle werden auf Englisch getippt: Statt /spielen tippe /play."),
    ("de", "/regeln", "Befehle werden auf Englisch getippt: Statt /regeln tippe /rules."),
    ("fr", "/aide", f"Les commandes se tapent en anglais{NB}: au lieu de /aide, tape /help."),
    ("fr", "/regles", f"Les commandes se tapent en anglais{NB}: au lieu de /regles, tape /rules."),
    ("fr", "/jouer", f"Les commandes se tapent en anglais{NB}: au lieu de /jouer, tape /play."),
    ("nl", "/hulp", "Commando's typ je in het Engels: typ /help in plaats van /hulp."),
    ("en", "/aide", "Commands are typed in English: for /aide, type /help."),
]


@pytest.mark.parametrize(("lang", "typed", "answer"), FOREIGN)
def test_a_command_word_in_the_table_language_gets_the_english_one(
    tmp_path: Path, lang: str, typed: str, answer: str
) -> None:
    room = _room(tmp_path, lang)
    assert room.error("Ada", typed) == answer


#: The first line of the short /help and of /help all, by hand.
HELP_HEAD = {
    "en": ("Genial bot: the first commands.", "Genial bot commands:"),
    "de": ("Einfach Genial: die ersten Befehle.", "Befehle:"),
    "nl": ("Genius: de eerste commando's.", "Commando's:"),
    "fr": (f"Génial{NB}: les premières commandes.", f"Commandes{NB}:"),
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_help_is_short_and_points_to_the_rest(tmp_path: Path, lang: str) -> None:
    room = _room(tmp_path, lang)
    (short,) = room.ok("Ada", "/help")
    lines = short.text.splitlines()
    assert lines[0] == HELP_HEAD[lang][0]
    assert len(lines) <= 8
    assert lines[-1].endswith("/help all.")
    for command in ("/join", "/addbot", "/start", "/play", "/hand", "/rules"):
        assert command in short.text
    (everything,) = room.ok("Ada", "/help all")
    assert everything.text.splitlines()[0] == HELP_HEAD[lang][1]
    assert len(everything.text.splitlines()) > 20
    for command in ("/tournament", "/review", "/puzzle", "/away", "/notify", "/undo"):
        assert command in everything.text


#: What Genial Spezial lacks: the swap and the bag, as each language names them.
NO_SWAP_NO_BAG = {
    "en": ("swap", "bag"),
    "de": ("Tausch", "Beutel"),
    "nl": ("ruil", "buidel"),
    "fr": ("échange", "pioche"),
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_spezial_rules_speak_of_no_swap_and_no_bag(tmp_path: Path, lang: str) -> None:
    room = _room(tmp_path, lang)
    swap, bag = NO_SWAP_NO_BAG[lang]
    (genial,) = room.ok("Ada", "/rules")
    assert swap in genial.text and bag in genial.text
    room.ok("Ada", "/option spezial")
    (spezial,) = room.ok("Ada", "/rules")
    assert swap not in spezial.text and bag not in spezial.text
    assert "/undo" in spezial.text and "/away" in spezial.text


REPLAY_NONE = {
    "en": "There is no game to replay yet: /replay shows a game once it has ended.",
    "de": "Es gibt noch keine Partie zum Wiederholen: /replay zeigt eine Partie nach ihrem Ende.",
    "nl": "Er is nog geen partij om te herhalen: /replay toont een partij na het einde.",
    "fr": (
        f"Il n'y a pas encore de partie à revoir{NB}: /replay montre une partie une fois terminée."
    ),
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_replay_without_a_game_speaks_of_the_replay(tmp_path: Path, lang: str) -> None:
    room = _room(tmp_path, lang)
    assert room.error("Ada", "/replay") == REPLAY_NONE[lang]


#: The whole list of levels, each typed in English and named in the table's language.
LEVELS = {
    "en": "random, greedy, strong, expert, master",
    "de": "random (zufällig), greedy (gierig), strong (stark), expert (Experte), master (Meister)",
    "nl": "random (willekeurig), greedy (gulzig), strong (sterk), expert, master (meester)",
    "fr": "random (aléatoire), greedy (glouton), strong (fort), expert, master (maître)",
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_an_unknown_level_lists_every_level_uncut(tmp_path: Path, lang: str) -> None:
    room = _room(tmp_path, lang)
    answer = room.error("Ada", "/addbot zzz")
    assert answer.endswith(f"{LEVELS[lang]}.")
    assert "…" not in answer
    # What the player typed is still quoted short.
    long = room.error("Ada", "/addbot " + "z" * 100)
    assert "z" * 40 not in long and "…" in long


# --- the rack prompt's example (item 28) --------------------------------------------------

EXAMPLE = re.compile(r", for example /play ([1-6] [A-Z][0-9]+ [A-Z][0-9]+)\.$")


def _example_is_legal(room: Room, out: list[Outbound]) -> str:
    """The example in the rack prompt of the person to move, checked by the engine's
    rules for that seat at this position."""
    game = room.game()
    assert isinstance(game, GenialGame)
    seat = game.to_move
    user = room.table().seats[seat].user
    (rack,) = [o for o in out if o.kind == "rack" and o.user == user]
    found = EXAMPLE.search(rack.text.splitlines()[-1])
    assert found is not None, rack.text
    move = game.parse(found.group(1), seat)
    assert isinstance(move, Placement)
    game.check(move)  # raises IllegalMove for an example that is not legal now
    return found.group(1)


def test_the_example_is_legal_on_the_four_player_board(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db", seed=3))
    for name in ("Ada", "Bob", "Cy", "Dee"):
        room.ok(name, "/join")
    _example_is_legal(room, room.ok("Ada", "/start"))
    rng = random.Random(3)
    examples = [_example_is_legal(room, room.play_turn(rng)) for _ in range(8)]
    # Each legal where it was given, and not one fixed text for every position.
    assert len(set(examples)) > 1


def test_the_example_is_legal_after_the_first_moves(tmp_path: Path) -> None:
    room = Room(make_service(tmp_path / "t.db", seed=4))
    room.ok("Ada", "/join")
    room.ok("Bob", "/join")
    _example_is_legal(room, room.ok("Ada", "/start"))
    rng = random.Random(4)
    for _ in range(6):
        _example_is_legal(room, room.play_turn(rng))


def test_a_tile_copied_as_squares_types_as_its_letters() -> None:
    # Item 32: the bot writes tiles as squares; a player who copies one types its letters.
    assert parse_command("/play 🟥🟩 A2 B3") == Play(move="RG A2 B3")
    assert parse_command("/puzzle 3 🟧🟪 H11 I10") == Puzzle(number=3, move="OP H11 I10")


# --- the seats a finished game leaves (item 26) -------------------------------------------

STILL_SEATED = {
    "en": "Still seated from the last game: 1. Ada, 2. Computer 1. /kick <number> frees a seat",
    "de": "Von der letzten Partie sitzen noch: 1. Ada, 2. Computer 1. /kick <Nummer> macht",
    "nl": "Van de vorige partij zitten nog aan tafel: 1. Ada, 2. Computer 1. /kick <nummer>",
    "fr": f"Encore assis depuis la dernière partie{NB}: 1. Ada, 2. Ordinateur 1. /kick <numéro>",
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_lobby_after_a_game_says_who_is_still_seated(tmp_path: Path, lang: str) -> None:
    room = _room(tmp_path, lang)
    room.ok("Ada", "/addbot random")
    (lobby,) = room.ok("Ada", "/option")[:1]
    assert STILL_SEATED[lang][:12] not in lobby.text  # before any game: nothing carried
    room.ok("Ada", "/start")
    room.play_out(random.Random(5))
    # The README's first steps again: /addbot would make it three; the lobby says so.
    (lobby,) = room.ok("Ada", "/addbot random")
    assert STILL_SEATED[lang] in lobby.text
    assert "3. " in lobby.text
