"""``python -m tests.bot.quick_bot ARGS``: the bot's own command line (``python -m bot``)
with the quick reviews of the service's tests, for tests that run the bot in a process of
its own and finish games in it.

Every finished game is reviewed as due work (bot/community/reviews.py): with the expert's
full budget a four-player game's review is 5-7 s of CPU, which the kill tests' bots paid
for each game they finished, on each store. The tests run in this process review with the
greedy player and a small judge instead (``tests/bot/conftest.py``'s ``quick_reviewer``
does the same in the tests' own process); the review itself is tested in
tests/engine/test_review.py and test_review_judge.py, its time measured by
benchmarks/bench_review.py.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Sequence

from engine.ai.genial_strong import StrongConfig

#: The judge's budget for the reviews of the service's tests: a few of greedy's best and one
#: blocking placement, one reply each (its full budget is most of a review's time).
QUICK_JUDGE = StrongConfig(candidates=4, blocks=1, replies=1)
#: The computer player that reviews Genial Spezial, and the play-outs per position.
QUICK_LEVEL = "greedy"
QUICK_SAMPLES = 8


def main(argv: Sequence[str] | None = None) -> int:
    import engine.review
    from bot.__main__ import main as bot_main
    from bot.community import reviews
    from engine.ai.judge import judge

    reviews.LEVEL = QUICK_LEVEL
    reviews.SAMPLES = QUICK_SAMPLES
    reviews.PROCESSES = 0  # in the bot's process, where the quicker judge is patched in
    setattr(engine.review, "judge", functools.partial(judge, config=QUICK_JUDGE))  # noqa: B010
    return bot_main(argv)


if __name__ == "__main__":
    sys.exit(main())
