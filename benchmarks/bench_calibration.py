"""How well the review's chances to win are calibrated (issue 47): expert self-play games in
2, 3 and 4 players and the team game; at sampled moves of each, every side's chance to win
after the move (:mod:`engine.ai.chances`, from the mover's view) against the game's real
result, in deciles of the predicted chance.

One temperature for every setup, the one that makes the games' results likeliest (fitted
per setup, on 93 to 150 games each, it came out anywhere from 0.63 to 1.24 on the two
halves of the same setup's games: noise, not a setup's nature). The tables are
cross-fitted: the games of even seeds are measured with the temperature fitted on the odd
seeds' games and the other way round, so no game is measured with a temperature it helped
fit (and, for comparison, with the raw play-out chances, T = 1); the temperature to ship
(:data:`engine.ai.chances.TEMPERATURE`) is the one fitted on all the games. The play-outs
are kept in ``--cache`` (JSON lines), so a second run only reprints and refits.

    nice -n 10 python benchmarks/bench_calibration.py [--games 180] [--every 4]
        [--setups 2,3,4,team] [--cache out/calibration.jsonl]

Goal (issue 47): over at least 500 games, predicted and actual differ by at most 5
percentage points in every decile with enough predictions (:data:`ENOUGH`).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from engine.ai import choose_move
from engine.ai.chances import SAMPLES, calibrated, finished, raw_wins
from engine.genial import GenialGame

SETUPS = {"2": (2, "standard"), "3": (3, "standard"), "4": (4, "standard"), "team": (4, "team")}
#: A decile is judged when it holds at least this many predictions: then the standard error
#: of its actual share is at most about 2.5 percentage points (sqrt(0.5 * 0.5 / 400)), so a
#: miss of 5 is no longer the luck of the games (with 100, a standard error of 5 points, a
#: table of 40 deciles misses 5 in a few by chance alone).
ENOUGH = 400


def play_and_predict(key: str, seed: int, every: int, samples: int) -> list[dict[str, Any]]:
    """One expert self-play game, and the raw play-out wins after every ``every``-th move
    (from the move ``seed % every`` on), each with the game's result."""
    players, mode = SETUPS[key]
    game = GenialGame(players, mode, seed=seed)
    asked: list[tuple[int, list[float]]] = []
    n = 0
    while not game.over:
        move = choose_move(game.view(game.to_move), "expert", seed * 10_000 + n)
        if n % every == seed % every:
            trial = game.copy()
            trial.play(move)
            if not trial.over:
                asked.append((n, raw_wins(game, [move], samples, seed=n)[0]))
        game.play(move)
        n += 1
    result = list(finished(game))
    return [
        {"setup": key, "seed": seed, "move": m, "moves": n, "wins": w, "result": result}
        for m, w in asked
    ]


def fit(rows: list[dict[str, Any]], samples: int) -> float:
    """The temperature that makes the results likeliest (a grid from 0.30 to 3.00)."""
    best, best_ll = 1.0, -math.inf
    for step in range(30, 301):
        t = step / 100
        ll = 0.0
        for row in rows:
            chances = calibrated(row["wins"], samples, t)
            ll += sum(r * math.log(c) for r, c in zip(row["result"], chances, strict=True) if r)
        if ll > best_ll:
            best, best_ll = t, ll
    return best


Prediction = tuple[float, float, tuple[str, int]]  # predicted, actual, (setup, seed)


def predictions(rows: Iterable[dict[str, Any]], samples: int, t: float) -> list[Prediction]:
    """Every side's calibrated chance at every row, with its result and its game."""
    out = []
    for row in rows:
        chances = calibrated(row["wins"], samples, t)
        game = (row["setup"], row["seed"])
        out += [(c, r, game) for c, r in zip(chances, row["result"], strict=True)]
    return out


def table(title: str, made: list[Prediction]) -> bool:
    """Prints the decile table of ``made``; whether every decile with :data:`ENOUGH`
    predictions is within 5 percentage points."""
    print(f"\n{title} ({len(made)} predictions, {len({g for _, _, g in made})} games)")
    print("| decile | predictions | games | predicted % | actual % | off |")
    print("|---|---|---|---|---|---|")
    ok = True
    for d in range(10):
        b = [x for x in made if min(9, int(x[0] * 10)) == d]
        if not b:
            print(f"| {d * 10}-{d * 10 + 10} % | 0 | 0 | | | |")
            continue
        pred = 100 * sum(c for c, _, _ in b) / len(b)
        act = 100 * sum(r for _, r, _ in b) / len(b)
        judged = len(b) >= ENOUGH
        ok = ok and (not judged or abs(act - pred) <= 5)
        few = "" if judged else " (few)"
        games = len({g for _, _, g in b})
        print(f"| {d * 10}-{d * 10 + 10} % | {len(b)} | {games} | {pred:.1f} | {act:.1f} |"
              f" {act - pred:+.1f}{few} |")  # fmt: skip
    return ok


def cross_fitted(rows: list[dict[str, Any]], samples: int) -> tuple[list[Prediction], str]:
    """The rows' predictions, each game's with the temperature fitted on the games of the
    other parity of seed (two-fold: no game is measured with a temperature it helped fit),
    and the two temperatures."""
    made: list[Prediction] = []
    fitted = []
    for parity in (0, 1):
        fit_on = [r for r in rows if r["seed"] % 2 != parity]
        t = fit(fit_on, samples)
        fitted.append(f"{t:.2f}")
        made += predictions([r for r in rows if r["seed"] % 2 == parity], samples, t)
    return made, " and ".join(fitted)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=150, help="games per setup")
    parser.add_argument("--first", type=int, default=1, help="the first game's seed")
    parser.add_argument("--every", type=int, default=4, help="predict after every n-th move")
    parser.add_argument("--samples", type=int, default=SAMPLES)
    parser.add_argument("--setups", default=",".join(SETUPS))
    parser.add_argument("--cache", default="out/calibration.jsonl")
    parser.add_argument("--play-only", action="store_true", help="play and cache, no tables")
    parser.add_argument("--tables-only", action="store_true", help="the cache's games only")
    args = parser.parse_args()
    cache = Path(args.cache)
    cache.parent.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    done: set[tuple[str, int]] = set()
    if cache.exists():
        for line in cache.read_text("utf-8").splitlines():
            row = json.loads(line)
            if len(row["wins"]) and sum(row["wins"]) == args.samples:
                rows.append(row)
                done.add((row["setup"], row["seed"]))
    setups = args.setups.split(",")
    start = time.process_time()
    played = 0
    with cache.open("a", encoding="utf-8") as out:
        for seed in range(args.first, args.games + 1):
            for key in setups:
                if (key, seed) in done or args.tables_only:
                    continue
                new = play_and_predict(key, seed, args.every, args.samples)
                for row in new:
                    out.write(json.dumps(row) + "\n")
                out.flush()
                rows += new
                played += 1
    if played:
        print(f"played {played} games, {time.process_time() - start:.0f} s CPU", flush=True)
    if args.play_only:
        return
    rows = [r for r in rows if r["setup"] in setups and r["seed"] <= args.games]
    games = len({(r["setup"], r["seed"]) for r in rows})
    t = fit(rows, args.samples)
    print(f"{games} games, {len(rows)} positions; one temperature for every setup, fitted"
          f" on all of them: {t:.2f} (engine.ai.chances.TEMPERATURE)")  # fmt: skip
    made, temperatures = cross_fitted(rows, args.samples)
    ok = table(f"all setups, calibrated (T = {temperatures}, cross-fitted)", made)
    ok = table("all setups, raw (T = 1)", predictions(rows, args.samples, 1.0)) and ok
    for key in setups:
        mine = [m for m in made if m[2][0] == key]
        ok = table(f"setup {key}, calibrated (cross-fitted)", mine) and ok
    print("\ngoal met" if ok else "\ngoal NOT met", flush=True)


if __name__ == "__main__":
    main()
