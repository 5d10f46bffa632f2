"""How well the review's chances to win are calibrated (issue 47): expert self-play games in
2, 3 and 4 players and the team game; at sampled moves of each, every side's chance to win
after the move (:mod:`engine.ai.chances`, from the mover's view) against the game's real
result, in deciles of the predicted chance.

The games of every fourth seed (seed % 4 == 0) fit the temperature of each setup (the one
that makes the results likeliest); the table is measured on the other games only, with the
temperature fitted (and, for comparison, with the raw play-out chances, T = 1). The play-outs
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
#: A decile is judged when it holds at least this many predictions.
ENOUGH = 100


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


def deciles(
    rows: Iterable[dict[str, Any]], samples: int, t: float
) -> list[tuple[int, int, float, float]]:
    """Per decile of the predicted chance: predictions, games, mean predicted and actual (%)."""
    bins: list[list[tuple[float, float, tuple[str, int]]]] = [[] for _ in range(10)]
    for row in rows:
        chances = calibrated(row["wins"], samples, t)
        for c, r in zip(chances, row["result"], strict=True):
            bins[min(9, int(c * 10))].append((c, r, (row["setup"], row["seed"])))
    out = []
    for b in bins:
        if not b:
            out.append((0, 0, math.nan, math.nan))
            continue
        out.append(
            (
                len(b),
                len({g for _, _, g in b}),
                100 * sum(c for c, _, _ in b) / len(b),
                100 * sum(r for _, r, _ in b) / len(b),
            )
        )
    return out


def table(title: str, rows: list[dict[str, Any]], samples: int, t: float) -> bool:
    """Prints the decile table; whether every decile with enough predictions is within 5."""
    print(
        f"\n{title} (T = {t:.2f}; {len(rows)} positions, {len({(r['setup'], r['seed']) for r in rows})} games)"
    )
    print("| decile | predictions | games | predicted % | actual % | off |")
    print("|---|---|---|---|---|---|")
    ok = True
    for d, (n, games, pred, act) in enumerate(deciles(rows, samples, t)):
        if not n:
            print(f"| {d * 10}-{d * 10 + 10} % | 0 | 0 | | | |")
            continue
        off = act - pred
        judged = n >= ENOUGH
        ok = ok and (not judged or abs(off) <= 5)
        mark = "" if judged else " (few)"
        print(
            f"| {d * 10}-{d * 10 + 10} % | {n} | {games} | {pred:.1f} | {act:.1f} | {off:+.1f}{mark} |"
        )
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=180, help="games per setup")
    parser.add_argument("--every", type=int, default=4, help="predict after every n-th move")
    parser.add_argument("--samples", type=int, default=SAMPLES)
    parser.add_argument("--setups", default=",".join(SETUPS))
    parser.add_argument("--cache", default="out/calibration.jsonl")
    parser.add_argument("--play-only", action="store_true", help="play and cache, no tables")
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
        for seed in range(1, args.games + 1):
            for key in setups:
                if (key, seed) in done:
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
    fitting = [r for r in rows if r["seed"] % 4 == 0]
    measured = [r for r in rows if r["seed"] % 4 != 0]
    temperatures = {}
    for key in setups:
        t = fit([r for r in fitting if r["setup"] == key], args.samples)
        temperatures[key] = t
        print(
            f"setup {key}: temperature {t:.2f} fitted on {len({r['seed'] for r in fitting if r['setup'] == key})} games"
        )
    ok = True
    for key in setups:
        mine = [r for r in measured if r["setup"] == key]
        table(f"setup {key}, raw", mine, args.samples, 1.0)
        ok = table(f"setup {key}, calibrated", mine, args.samples, temperatures[key]) and ok
    # All setups together, each with its own temperature.
    merged: list[tuple[float, float, tuple[str, int]]] = []
    for row in measured:
        chances = calibrated(row["wins"], args.samples, temperatures[row["setup"]])
        merged += [
            (c, r, (row["setup"], row["seed"])) for c, r in zip(chances, row["result"], strict=True)
        ]
    print(
        f"\nall setups, calibrated ({len(measured)} positions, {len({(r['setup'], r['seed']) for r in measured})} games)"
    )
    print("| decile | predictions | games | predicted % | actual % | off |")
    print("|---|---|---|---|---|---|")
    for d in range(10):
        b = [x for x in merged if min(9, int(x[0] * 10)) == d]
        if not b:
            continue
        pred = 100 * sum(c for c, _, _ in b) / len(b)
        act = 100 * sum(r for _, r, _ in b) / len(b)
        judged = len(b) >= ENOUGH
        ok = ok and (not judged or abs(act - pred) <= 5)
        print(
            f"| {d * 10}-{d * 10 + 10} % | {len(b)} | {len({g for _, _, g in b})} | {pred:.1f} | {act:.1f} | {act - pred:+.1f}{'' if judged else ' (few)'} |"
        )
    print("\ngoal met" if ok else "\ngoal NOT met", flush=True)


if __name__ == "__main__":
    main()
