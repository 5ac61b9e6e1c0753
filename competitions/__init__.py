"""Competitions: tournaments (Swiss, round robin, single and double elimination, 2 to 5
seats a table) and arena seasons, each an aggregate with its own hash-chained log whose
pairings are decided from the log and a recorded seed, so an audit re-derives them."""
