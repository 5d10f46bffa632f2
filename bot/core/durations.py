"""Durations and time controls as players type and read them: ``24h``, ``3d+1d``, ``10m+5s``
(:func:`parse_duration`, :func:`parse_clock` and the texts that read back), time left as a
reminder tells it (:func:`format_left`), and the limits of timeouts, time banks and
vacations.
"""

from __future__ import annotations

import re

from bot.core.commands import CommandError

#: Longest timeout a table may set (play by message over weeks is not a game any more).
MAX_TIMEOUT = 14 * 24 * 3600
_DURATION = re.compile(r"([0-9]{1,6})\s*([smhd]?)")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "": 3600}
_OFF = {"off", "no", "false", "0", "aus", "nein", "uit", "nee", "non"}
#: Longest time bank a clock may hold, and the longest vacation at once.
MAX_BANK = 30 * 24 * 3600
MAX_AWAY = 30 * 24 * 3600
#: A clock is live (minutes, a game in one sitting) up to this bank, else by message.
LIVE_BANK = 3 * 3600
_CLOCK = re.compile(r"([0-9]{1,6}[smhd]?)\s*\+\s*([0-9]{1,6}[smhd]?)")


def _seconds(text: str, default_unit: str) -> int | None:
    m = _DURATION.fullmatch(text)
    if not m:
        return None
    return int(m.group(1)) * _UNITS[m.group(2) or default_unit]


def parse_clock(text: str) -> tuple[int, int]:
    """A time control ``BANK+INCREMENT``: ``3d+1d`` (by message), ``10m+5s`` (live);
    a bare number is minutes in the bank and seconds in the increment (``10+5``). ``off``
    is ``(0, 0)``.

    Raises:
        CommandError: ``option.bad_clock`` for anything else, a bank under a minute or
            over 30 days, or an increment larger than the bank.
    """
    t = text.strip().lower()
    if t in _OFF or t == "none":
        return 0, 0
    m = _CLOCK.fullmatch(t)
    bank = _seconds(m.group(1), "m") if m else None
    increment = _seconds(m.group(2), "s") if m else None
    if bank is None or increment is None or not 60 <= bank <= MAX_BANK or increment > bank:
        raise CommandError("option.bad_clock", value=text)
    return bank, increment


def format_clock(bank: int, increment: int) -> str:
    """The text :func:`parse_clock` reads back: ``3d+1d``, ``10m+5s``; ``off``."""
    if not bank:
        return "off"
    return f"{_short_time(bank)}+{_short_time(increment)}"


def _short_time(seconds: int) -> str:
    if seconds == 0:
        return "0s"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def parse_duration(text: str) -> int:
    """Seconds of a duration like ``24h``, ``30m``, ``2d``, ``90s`` (a bare number is hours);
    ``off`` or ``0`` is 0 (no timeout).

    Raises:
        CommandError: ``option.bad_timeout`` for anything else or more than 14 days.
    """
    t = text.strip().lower()
    if t in _OFF or t == "none":
        return 0
    m = _DURATION.fullmatch(t)
    if not m:
        raise CommandError("option.bad_timeout", value=text)
    seconds = int(m.group(1)) * _UNITS[m.group(2)]
    if seconds > MAX_TIMEOUT or 0 < seconds < 60:
        raise CommandError("option.bad_timeout", value=text)
    return seconds


def format_duration(seconds: int) -> str:
    """The shortest exact spelling, in days from two days on: ``24h``, ``90m``, ``2d``;
    ``off`` for 0."""
    if seconds == 0:
        return "off"
    if seconds % 86400 == 0 and seconds >= 2 * 86400:
        return f"{seconds // 86400}d"
    for unit, size in (("h", 3600), ("m", 60)):
        if seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def format_left(seconds: float) -> str:
    """Time left as it is, rounded down to the second, in its two largest units:
    ``1h 59m``, ``29m 30s``, ``1s`` (a reminder that says ``1m`` with 1 s left misleads)."""
    left = max(0, int(seconds))
    parts: list[str] = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if left >= size or (size == 1 and not parts):
            parts.append(f"{left // size}{unit}")
            left %= size
        elif parts:
            parts.append("")  # a zero unit between two others ends the spelling
        if len(parts) == 2:
            break
    return " ".join(p for p in parts if p)
