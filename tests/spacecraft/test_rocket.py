"""Rocket geometry: legal and illegal layouts, feasibility against brute force, goal patterns."""

from __future__ import annotations

from itertools import product

import pytest

from games.spacecraft import rocket
from orrery_contracts.spacecraft import catalogue as cat
from orrery_contracts.spacecraft.commands import Placement
from tests.spacecraft.support import P

REP = {
    "fin": "fin.W",
    "nose": "nose.B",
    "connector": "connector.B",
    "body": "body.W",
    "engine": "engine.R",
}


def test_legal_layouts() -> None:
    assert rocket.invalid_reason([P("body.K", 0, 0)]) is None
    tall = [P("nose.W", 0, 2), P("body.W", 0, 1), P("body.K", 0, 0), P("engine.R", 0, -1)]
    tall += [P("fin.W", -1, 0), P("fin.G", 1, 1)]
    assert rocket.invalid_reason(tall) is None
    bridged = [P("body.K", 0, 0), P("connector.B", 1, 0), P("body.W", 2, 0)]
    bridged += [P("connector.R", 3, 0), P("nose.G", 2, 1), P("engine.W", 0, -1)]
    assert rocket.invalid_reason(bridged) is None  # dangling connector at (3,0) is legal
    assert rocket.width(bridged) == 4 and rocket.height(bridged) == 3


@pytest.mark.parametrize(
    ("layout", "why"),
    [
        ([P("body.K", 0, 0), P("fin.W", 0, 1)], "fin"),  # fin on top
        ([P("body.K", 0, 0), P("nose.W", 0, -1)], "nose"),  # nose below
        ([P("body.K", 0, 0), P("engine.W", 0, 1)], "engine"),  # engine on top
        ([P("body.K", 0, 0), P("connector.B", 0, 1)], "connector"),  # connector above
        ([P("body.K", 0, 0), P("body.W", 1, 0)], "one piece"),  # bodies side by side
        ([P("body.K", 0, 0), P("fin.W", 1, 0), P("body.W", 2, 0)], "one piece"),  # fin no bridge
        ([P("body.K", 0, 0), P("body.W", 0, 0)], "two parts"),
        ([P("fin.W", 0, 0)], "fin"),
        ([P("body.K", 0, 0), P("fin.Z", 1, 0)], "unknown"),
        ([P("body.K", 0, 0), P("nose.W", 0, 1), P("body.W", 0, 2)], "one piece"),
    ],
)
def test_illegal_layouts(layout: list[Placement], why: str) -> None:
    reason = rocket.invalid_reason(layout)
    assert reason is not None and why in reason


def _polyominoes(limit: int) -> list[list[tuple[int, int]]]:
    """All fixed polyominoes with up to ``limit`` cells (normalised, deduplicated)."""
    found: set[frozenset[tuple[int, int]]] = {frozenset({(0, 0)})}
    layer = set(found)
    for _ in range(limit - 1):
        nxt: set[frozenset[tuple[int, int]]] = set()
        for shape in layer:
            for x, y in shape:
                for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                    c = (x + dx, y + dy)
                    if c in shape:
                        continue
                    grown = shape | {c}
                    mx, my = min(p[0] for p in grown), min(p[1] for p in grown)
                    nxt.add(frozenset((p[0] - mx, p[1] - my) for p in grown))
        found |= nxt
        layer = nxt
    return [sorted(s) for s in found]


def test_feasibility_agrees_with_brute_force_on_small_part_sets() -> None:
    limit = 5
    achieved: set[tuple[int, ...]] = set()
    shapes = cat.SHAPES
    for cells in _polyominoes(limit):
        for assignment in product(range(len(shapes)), repeat=len(cells)):
            key = tuple(assignment.count(i) for i in range(len(shapes)))
            if key in achieved or key[shapes.index("body")] == 0:
                continue
            layout = [P(REP[shapes[a]], x, y) for a, (x, y) in zip(assignment, cells, strict=True)]
            if rocket.invalid_reason(layout) is None:
                achieved.add(key)
    checked = 0
    for key in product(range(limit + 1), repeat=len(shapes)):
        if not 1 <= sum(key) <= limit or key[shapes.index("body")] == 0:
            continue
        counts = dict(zip(shapes, key, strict=True))
        assert rocket.feasible_counts(counts) == (key in achieved), counts
        checked += 1
    assert checked > 100


def test_auto_layout_is_valid_exactly_when_feasible() -> None:
    for key in product(range(4), range(4), range(4), range(1, 6), range(4)):
        counts = dict(zip(cat.SHAPES, key, strict=True))
        kinds = [REP[s] for s, n in counts.items() for _ in range(n)]
        layout = rocket.auto_layout(kinds)
        if rocket.feasible_counts(counts):
            assert layout is not None and rocket.invalid_reason(layout) is None, counts
            assert sorted(p.kind for p in layout) == sorted(kinds)
        else:
            assert layout is None


def test_attach_keeps_other_parts_in_place() -> None:
    base = [P("body.K", 0, 0), P("nose.W", 0, 1)]
    grown = rocket.attach(base, "body.W")
    assert grown is not None and grown[:2] == base and rocket.invalid_reason(grown) is None
    assert rocket.attach(base, "nose.G") is None  # the only top is taken
    placed = rocket.place_new(base, "engine.W")
    assert placed is not None and rocket.invalid_reason(placed) is None


def _instances(layout: list[Placement], goal: str) -> int:
    assert rocket.invalid_reason(layout) is None
    return rocket.goal_instances(layout, goal)


def test_goal_fin_pair() -> None:
    layout = [P("body.K", 0, 0), P("fin.W", -1, 0), P("fin.W", 1, 0)]
    layout += [P("body.W", 0, 1), P("fin.W", -1, 1), P("fin.G", 1, 1)]
    assert _instances(layout, cat.GOAL_FIN_PAIR) == 1
    assert rocket.goal_points(layout, 35) == 7


def test_goal_bodies_by_connector_and_connector_pair() -> None:
    layout = [P("body.W", 0, 0), P("connector.B", 1, 0), P("body.W", 2, 0)]
    layout += [P("connector.B", -1, 0), P("body.K", 2, 1), P("connector.G", 3, 0)]
    assert _instances(layout, cat.GOAL_BODIES_BY_CONNECTOR) == 1
    assert _instances(layout, cat.GOAL_CONNECTOR_PAIR) == 1  # body (0,0): B | B
    layout[3] = P("connector.R", -1, 0)
    assert _instances(layout, cat.GOAL_CONNECTOR_PAIR) == 0


def test_goal_nose_engine_nose_body_body_engine() -> None:
    layout = [P("nose.WR", 0, 1), P("body.W", 0, 0), P("engine.WB", 0, -1)]
    assert _instances(layout, cat.GOAL_NOSE_ENGINE) == 1  # share white
    assert _instances(layout, cat.GOAL_NOSE_BODY) == 1
    assert _instances(layout, cat.GOAL_BODY_ENGINE) == 1
    grey = [P("nose.W", 0, 1), P("body.K", 0, 0), P("engine.W", 0, -1)]
    assert _instances(grey, cat.GOAL_NOSE_ENGINE) == 1  # same body, same colour
    assert _instances(grey, cat.GOAL_NOSE_BODY) == 0  # grey matches no colour
    assert _instances(grey, cat.GOAL_BODY_ENGINE) == 0
    split = [P("nose.W", 0, 2), P("body.W", 0, 1), P("body.K", 0, 0), P("engine.W", 0, -1)]
    assert _instances(split, cat.GOAL_NOSE_ENGINE) == 0  # not the same body
    assert _instances(split, cat.GOAL_NOSE_BODY) == 1
    assert rocket.goal_points(split, 39) == 5


def test_goal_body_stack_counts_every_identical_pair() -> None:
    layout = [P("body.W", 0, 0), P("body.W", 0, 1), P("body.W", 0, 2), P("body.K", 0, 3)]
    assert _instances(layout, cat.GOAL_BODY_STACK) == 2  # middle body serves twice
    assert rocket.goal_points(layout, 41) == 8


def test_goal_noses_by_connector() -> None:
    layout = [P("body.K", 0, 0), P("connector.B", 1, 0), P("body.W", 2, 0)]
    layout += [P("nose.G", 0, 1), P("nose.G", 2, 1)]
    assert _instances(layout, cat.GOAL_NOSES_BY_CONNECTOR) == 1
    assert rocket.goal_points(layout, 42) == 9
    layout[4] = P("nose.R", 2, 1)
    assert _instances(layout, cat.GOAL_NOSES_BY_CONNECTOR) == 0


def test_design_conditions() -> None:
    layout = [P("body.K", 0, 0), P("connector.WB", 1, 0), P("body.B", 2, 0)]
    assert rocket.meets_design(layout, cat.DESIGN_BY_ID[12])  # 1 white + 2 blue (WB counts twice)
    assert not rocket.meets_design(layout, cat.DESIGN_BY_ID[11])  # 3 connectors
    assert rocket.meets_design(layout, cat.DESIGN_BY_ID[9])  # width 3
    assert not rocket.meets_design(layout, cat.DESIGN_BY_ID[10])  # height 3
