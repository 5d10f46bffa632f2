"""A finished game with its review in a store, for the platforms' /review tests."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from bot.store import Store
from engine.ai import choose_move
from engine.genial import GenialGame
from engine.record import Record
from engine.review import GameReview, find_puzzles, review_game
from engine.review import Puzzle as Found


def store_reviewed_game(
    store: Store, chat: str, users: tuple[str, str], shared: Path
) -> tuple[GameReview, list[str]]:
    """Example 01 (Ada against Bob, finished) archived at ``chat`` and reviewed by the
    greedy player (quick); the review and the seats' names."""
    record = json.loads((shared / "examples" / "01-genial-standard-2p.json").read_text())
    names = ["Ada", "Bob"]
    seats = [
        {"name": n, "user": u, "level": None, "left": False}
        for n, u in zip(names, users, strict=True)
    ]
    row = {"chat": chat, "seats": seats, "options": {"lang": "en"}, "record": record}
    store.archive(chat, 100.0, row)
    store.want_review(chat, 100.0)
    review = review_game(Record.from_dict(record), level="greedy", samples=8)
    assert store.save_review(chat, 100.0, review.to_dict())
    return review, names


def greedy_game(players: int = 3, seed: int = 11) -> Record:
    """A finished game of greedy players (quick, and it has a puzzle position)."""
    game = GenialGame(players, seed=seed)
    n = 0
    while not game.over:
        game.play(choose_move(game.view(game.to_move), "greedy", seed * 1000 + n))
        n += 1
    return Record.from_dict(game.record())


def store_puzzle_game(store: Store, chat: str, seed: int = 11) -> tuple[Found, GenialGame]:
    """A finished, reviewed game at ``chat`` with its puzzle positions; its first puzzle
    and the game at that puzzle's position."""
    record = greedy_game(seed=seed)
    puzzles = find_puzzles(record)
    assert puzzles, "the game has a puzzle position"
    seats = [{"name": f"P{n}", "user": f"u{n}", "level": None, "left": False} for n in range(3)]
    row = {"chat": chat, "seats": seats, "options": {"lang": "en"}, "record": record.to_dict()}
    store.archive(chat, 200.0, row)
    store.want_review(chat, 200.0)
    data = review_game(record, level="greedy", samples=8).to_dict()
    data["puzzles"] = [asdict(p) for p in puzzles]
    assert store.save_review(chat, 200.0, data)
    game = GenialGame(3, bag=record.bag)
    for text in record.moves[: puzzles[0].number]:
        game.play_text(text)
    return puzzles[0], game
