"""``/tournament``'s words: its actions, what ``/tournament new`` sets up
(:func:`parse_tournament_spec`: system, rounds, players, round time, clock, start) and the
text a :class:`~bot.core.commands.Tournament` command is written back as.
"""

from __future__ import annotations

import re

from bot.core.commands import GAMES, Command, CommandError, Tournament, TournamentSpec
from bot.core.durations import _DURATION, _UNITS, format_duration, parse_duration

#: What ``/tournament`` may be followed by (nothing: the standings or the list).
TOURNAMENT_ACTIONS = ("show", "new", "join", "leave", "start", "cancel", "invite", "team")
#: The most rounds a tournament may have, and the longest a round may last.
TOURNAMENT_ROUNDS = 30
TOURNAMENT_ROUND_TIME = 14 * 24 * 3600
#: The longest wait before a tournament starts by itself.
TOURNAMENT_START = 30 * 24 * 3600
_SYSTEMS = {"swiss": "swiss", "schweizer": "swiss", "zwitsers": "swiss", "suisse": "swiss"}
_ROBIN = {"roundrobin": "robin", "robin": "robin", "rr": "robin", "rundenturnier": "robin"}
_ROUND_WORDS = {"round", "rounds", "runde", "runden", "ronde", "rondes", "tour", "tours"}
_PLAYER_WORDS = {"player", "players", "spieler", "speler", "spelers", "joueur", "joueurs"}
_START_WORDS = {"start", "in", "starts", "beginn", "begin", "début", "debut"}
_CLOCK_WORDS = {"clock", "timeout", "uhr", "klok", "pendule"}


def _short(word: str) -> str:
    """A word of the user's shown back in an error: never at length."""
    return word if len(word) <= 16 else word[:15] + "…"


def parse_tournament_spec(args: list[str]) -> TournamentSpec:
    """The words after ``/tournament new`` (``swiss 5 rounds 2 players 3d``, ``round robin
    spezial 1d start 2h``).

    Raises:
        CommandError: ``tournament.bad_word`` naming the word not understood, or
            ``tournament.bad_number`` for a count out of range.
    """
    words = [w.lower() for w in args]
    spec: dict[str, object] = {}
    i = 0
    while i < len(words):
        w = words[i]
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if w in _SYSTEMS:
            spec["system"] = "swiss"
        elif w in _ROBIN or (w == "round" and nxt == "robin"):
            spec["system"] = "robin"
            i += 1 if w == "round" else 0
        elif w.isascii() and w.isdigit() and nxt in _ROUND_WORDS | _PLAYER_WORDS:
            n = int(w) if len(w) <= 3 else 0
            if nxt in _ROUND_WORDS:
                if not 1 <= n <= TOURNAMENT_ROUNDS:
                    raise CommandError("tournament.bad_rounds", most=str(TOURNAMENT_ROUNDS))
                spec["rounds"] = n
            else:
                if not 2 <= n <= 4:
                    raise CommandError("tournament.bad_size")
                spec["size"] = n
            i += 1
        elif w in GAMES:
            spec["game"] = w
        elif w in ("team", "teams"):
            spec["team"] = True
        elif w in _START_WORDS and nxt:
            seconds = _tournament_duration(nxt, TOURNAMENT_START)
            spec["start_in"] = seconds
            i += 1
        elif w in _CLOCK_WORDS and nxt:
            spec["clock"] = parse_duration(nxt)
            i += 1
        elif _DURATION.fullmatch(w) and not w.isdigit():
            spec["round_time"] = _tournament_duration(w, TOURNAMENT_ROUND_TIME)
        else:
            raise CommandError("tournament.bad_word", word=_short(args[i]))
        i += 1
    made = TournamentSpec(**spec)  # type: ignore[arg-type]
    if made.team and (made.size != 4 or made.game != "genial"):
        raise CommandError("tournament.bad_team")
    if made.system == "robin" and made.size != 2:
        raise CommandError("tournament.robin_pairs")
    return made


def _tournament_duration(text: str, most: int) -> int:
    m = _DURATION.fullmatch(text)
    if not m or not m.group(2):
        raise CommandError("tournament.bad_time", word=_short(text))
    seconds = int(m.group(1)) * _UNITS[m.group(2)]
    if not 600 <= seconds <= most:
        raise CommandError("tournament.bad_time", word=_short(text))
    return seconds


def _parse_tournament(args: list[str]) -> Command:
    if not args:
        return Tournament()
    action = args[0].lower()
    if action not in TOURNAMENT_ACTIONS:
        if len(args) == 1 and re.fullmatch(r"[a-z0-9]{1,12}", action):
            return Tournament(action="show", target=action)
        raise CommandError("usage.tournament")
    if action == "new":
        return Tournament(action="new", spec=parse_tournament_spec(args[1:]))
    if len(args) > 2:
        raise CommandError("usage.tournament")
    target = args[1] if len(args) == 2 else ""
    if action == "team" and not target:
        raise CommandError("usage.tournament_team")
    if target and not re.fullmatch(r"[A-Za-z0-9]{1,12}", target):
        raise CommandError("tournament.no_such", id=_short(target))
    return Tournament(action=action, target=target.lower())


def _format_tournament(cmd: Tournament) -> str:
    if cmd.action != "new" or cmd.spec is None:
        words = [] if cmd.action == "show" and not cmd.target else [cmd.action]
        return " ".join(["/tournament", *words, *([cmd.target] if cmd.target else [])])
    s = cmd.spec
    words = ["/tournament new", "swiss" if s.system == "swiss" else "roundrobin"]
    if s.rounds:
        words.append(f"{s.rounds} rounds")
    words += [f"{s.size} players", format_duration(s.round_time), s.game]
    if s.team:
        words.append("team")
    if s.clock:
        words.append(f"clock {format_duration(s.clock)}")
    if s.start_in:
        words.append(f"start {format_duration(s.start_in)}")
    return " ".join(words)
