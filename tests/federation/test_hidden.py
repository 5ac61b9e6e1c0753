"""Hidden information: face-down tokens, deep-space tiles and law stacks stay hidden."""

from __future__ import annotations

import msgspec

from games.federation import GAME
from games.playthrough import clone_state
from tests.federation.helpers import opening, play_until


def _views(s):  # type: ignore[no-untyped-def]
    return [msgspec.json.encode(GAME.view(s, seat)) for seat in (None, *range(s.seats))]


def test_hidden_facts_do_not_reach_any_view() -> None:
    for seats in (2, 3, 4):
        a = play_until(opening(seats, seed=seats), "turn")
        b = clone_state(GAME, a)
        b.deep_space.reverse()
        b.deep_space[0] = 7 if b.deep_space[0] != 7 else 6
        b.law_stacks[0] = b.law_stacks[0][::-1]
        b.law_stacks[1] = b.law_stacks[1][1:] + b.law_stacks[1][:1]
        hidden_orange = [
            i for i, t in enumerate(a.orange_tokens) if t >= 0 and not a.orange_shown[i]
        ]
        assert hidden_orange
        b.orange_tokens[hidden_orange[0]] = (a.orange_tokens[hidden_orange[0]] + 1) % 8
        hidden_blue = [lvl for lvl in range(1, 8) if not a.blue_shown[lvl]]
        assert hidden_blue
        b.blue_tokens[hidden_blue[-1] - 1][0] = 50 - a.blue_tokens[hidden_blue[-1] - 1][0]
        assert msgspec.msgpack.encode(a) != msgspec.msgpack.encode(b)
        assert _views(a) == _views(b)


def test_revealed_facts_do_reach_the_views() -> None:
    a = play_until(opening(3, seed=5), "turn")
    b = clone_state(GAME, a)
    level = next(i for i, t in enumerate(a.orange_tokens) if t >= 0 and not a.orange_shown[i])
    a.orange_shown[level] = b.orange_shown[level] = True
    b.orange_tokens[level] = (a.orange_tokens[level] + 1) % 8
    assert all(x != y for x, y in zip(_views(a), _views(b), strict=True))
