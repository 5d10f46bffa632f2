"""What a group keeps over weeks: ratings and ladders, stats and pings, reviews, puzzles, and a
person's data."""
