"""Rocket geometry: the grid model of the puzzle pieces, validation, feasibility, auto layout,
measurements (width, height, shape and colour counts) and personal-goal patterns.

Model (research notes §4; the socket scheme is ASSUMED): one part per grid cell, y upward.
A body has sockets on all four sides: above it another body or a nose, below it another body
or an engine, left/right a fin or a connector. A nose sits directly above a body, an engine
directly below one, a fin directly left or right of one (a fin attaches to one body; it never
links two). A connector sits beside a body; with bodies on both sides it bridges them, with
one only it dangles (legal). Bodies joined vertically, and bodies and connectors joined
sideways, must form one connected structure. Adjacency without matching sockets is allowed
and joins nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache

from orrery_contracts.spacecraft import catalogue as cat
from orrery_contracts.spacecraft.commands import Placement

MAX_COORD = 64


class _Memo(dict[str, str]):
    """A kind's shape or colours, worked out on the first lookup of the kind and kept:
    a lookup of a kind seen before is the dict's own (no Python call)."""

    __slots__ = ("of",)

    def __init__(self, of: Callable[[str], str]) -> None:
        super().__init__()
        self.of = of

    def __missing__(self, kind: str) -> str:
        found = self[kind] = self.of(kind)
        return found


# ``shape(kind)`` and ``colours(kind)``: every rocket's check, view and score asks them
shape: Callable[[str], str] = _Memo(cat.shape_of).__getitem__
colours: Callable[[str], str] = _Memo(cat.colours_of).__getitem__


def invalid_reason(layout: Iterable[Placement]) -> str | None:
    """Why ``layout`` is not a legal rocket, or None when it is."""
    cells: dict[tuple[int, int], str] = {}
    for p in layout:
        if p.kind not in cat.ALL_KINDS:
            return f"unknown part {p.kind!r}"
        if abs(p.x) > MAX_COORD or abs(p.y) > MAX_COORD:
            return "part placed too far out"
        if (p.x, p.y) in cells:
            return f"two parts on cell ({p.x}, {p.y})"
        cells[(p.x, p.y)] = shape(p.kind)
    core: list[tuple[int, int]] = []
    for (x, y), s in cells.items():
        if s == "body" or s == "connector":
            core.append((x, y))
            if s == "connector" and not (
                cells.get((x - 1, y)) == "body" or cells.get((x + 1, y)) == "body"
            ):
                return f"connector at ({x}, {y}) touches no body"
        elif s == "nose":
            if cells.get((x, y - 1)) != "body":
                return f"nose at ({x}, {y}) is not on top of a body"
        elif s == "engine":
            if cells.get((x, y + 1)) != "body":
                return f"engine at ({x}, {y}) is not below a body"
        elif s == "fin" and not (
            cells.get((x - 1, y)) == "body" or cells.get((x + 1, y)) == "body"
        ):
            return f"fin at ({x}, {y}) is not beside a body"
    if not core:
        return "a rocket needs a body"
    seen = {core[0]}
    stack = [core[0]]
    while stack:
        x, y = stack.pop()
        s = cells[(x, y)]
        if s == "body":
            nbrs = [((x, y + 1), "body"), ((x, y - 1), "body")]
            nbrs += [((x - 1, y), "connector"), ((x + 1, y), "connector")]
        else:
            nbrs = [((x - 1, y), "body"), ((x + 1, y), "body")]
        for cell, want in nbrs:
            if cell not in seen and cells.get(cell) == want:
                seen.add(cell)
                stack.append(cell)
    if len(seen) != len(core):
        return "the rocket is not in one piece"
    return None


def shape_counts(kinds: Iterable[str]) -> dict[str, int]:
    return dict(_shape_counts(tuple(kinds)))


@lru_cache(maxsize=1024)
def _shape_counts(kinds: tuple[str, ...]) -> dict[str, int]:
    """Cached: every seat's view, the score and the design checks count the same
    rockets after each command (the caller gets a copy)."""
    counts = dict.fromkeys(cat.SHAPES, 0)
    for k in kinds:
        counts[shape(k)] += 1
    return counts


def feasible_counts(counts: dict[str, int]) -> bool:
    """Whether some legal layout holds exactly these shape counts (closed form, notes §4)."""
    b, n, e = counts["body"], counts["nose"], counts["engine"]
    f, c = counts["fin"], counts["connector"]
    stacks = max(1, n, e)
    return stacks <= b and stacks - 1 <= c and f + c + stacks - 1 <= 2 * b


def feasible(kinds: Iterable[str]) -> bool:
    return _feasible(tuple(kinds))


@lru_cache(maxsize=1024)
def _feasible(kinds: tuple[str, ...]) -> bool:
    """Cached: the listing asks it of the same rocket, plus each shape, after each
    command of the build step."""
    return feasible_counts(_shape_counts(kinds))


def auto_layout(kinds: Iterable[str]) -> list[Placement] | None:
    """A legal layout of exactly these parts (a staircase of body stacks), or None;
    made once per set of kinds (the layout sorts the parts of each shape, so their
    order is not asked; the build step's listing asks it of the same rocket after each
    command, every rocket of the same parts after a build), each caller given its own
    list."""
    made = _auto_layout(tuple(sorted(kinds)))
    return None if made is None else list(made)


def layout_problem(layout: list[Placement]) -> str | None:
    """``invalid_reason`` of a layout, cached per layout (the listing's automatic layout
    is checked again after each command of the build step)."""
    return _layout_problem(tuple(layout))


@lru_cache(maxsize=1024)
def _layout_problem(layout: tuple[Placement, ...]) -> str | None:
    return invalid_reason(layout)


@lru_cache(maxsize=1024)
def _auto_layout(kinds: tuple[str, ...]) -> tuple[Placement, ...] | None:
    made = _make_layout(kinds)
    return None if made is None else tuple(made)


def _make_layout(kinds: Iterable[str]) -> list[Placement] | None:
    by_shape: dict[str, list[str]] = {s: [] for s in cat.SHAPES}
    for k in kinds:
        by_shape[shape(k)].append(k)
    for parts in by_shape.values():
        parts.sort()
    counts = {s: len(v) for s, v in by_shape.items()}
    if not feasible_counts(counts):
        return None
    bodies = by_shape["body"]
    stacks = max(1, counts["nose"], counts["engine"])
    lengths = [1] * stacks
    lengths[0] += len(bodies) - stacks
    out: list[Placement] = []
    free_sides: list[tuple[int, int]] = []
    bridges: list[tuple[int, int]] = []
    bi = 0
    base = 0
    for i, length in enumerate(lengths):
        x = 2 * i
        for j in range(length):
            y = base + j
            out.append(Placement(kind=bodies[bi], x=x, y=y))
            bi += 1
            if i == 0 or j != 0:
                free_sides.append((x - 1, y))
            if i == stacks - 1 or j != length - 1:
                free_sides.append((x + 1, y))
        if i < counts["nose"]:
            out.append(Placement(kind=by_shape["nose"][i], x=x, y=base + length))
        if i < counts["engine"]:
            out.append(Placement(kind=by_shape["engine"][i], x=x, y=base - 1))
        if i < stacks - 1:
            bridges.append((x + 1, base + length - 1))
        base = base + length - 1
    connectors = by_shape["connector"]
    for (x, y), k in zip(bridges, connectors, strict=False):
        out.append(Placement(kind=k, x=x, y=y))
    rest = connectors[len(bridges) :] + by_shape["fin"]
    for (x, y), k in zip(free_sides, rest, strict=False):
        out.append(Placement(kind=k, x=x, y=y))
    return out


def attach(layout: list[Placement], new_kind: str) -> list[Placement] | None:
    """The layout with ``new_kind`` added in a free legal cell (no other part moves): the
    first free one of the candidate cells, taken around each part in (x, y) order."""
    cells = {(p.x, p.y): shape(p.kind) for p in layout}
    s = shape(new_kind)
    up = s in ("nose", "body")
    down = s in ("engine", "body")
    sideways = s in ("fin", "connector")
    bridge = s == "body"
    for x, y in sorted(cells):  # the cells are unique: their order is the items' order
        here = cells[(x, y)]
        if here == "body":
            candidates: tuple[tuple[int, int], ...] = ()
            if up:
                candidates += ((x, y + 1),)
            if down:
                candidates += ((x, y - 1),)
            if sideways:
                candidates += ((x + 1, y), (x - 1, y))
        elif here == "connector" and bridge:
            candidates = ((x + 1, y), (x - 1, y))
        else:
            continue
        for cell in candidates:
            if cell not in cells:
                return [*layout, Placement(kind=new_kind, x=cell[0], y=cell[1])]
    return None


def place_new(layout: list[Placement], new_kind: str) -> list[Placement] | None:
    """Attach a new part, rearranging the whole rocket only if it cannot be attached;
    made once per layout and part (a search builds the same part on the same rocket
    again and again), each caller given its own list."""
    placed = _placed(tuple(layout), new_kind)
    return None if placed is None else list(placed)


@lru_cache(maxsize=4096)
def _placed(layout: tuple[Placement, ...], new_kind: str) -> tuple[Placement, ...] | None:
    attached = attach(list(layout), new_kind)
    if attached is not None:
        return tuple(attached)
    made = auto_layout([p.kind for p in layout] + [new_kind])
    return None if made is None else tuple(made)


@lru_cache(maxsize=4096)
def fitted(layout: tuple[Placement, ...], new_kind: str) -> tuple[Placement, ...] | None:
    """``place_new`` of a part whose shape is one of ``fitting_shapes`` of the rocket,
    None for a part that does not fit: a build's fit check and its placement, asked
    once per layout and part."""
    if shape(new_kind) not in _fitting_shapes(tuple([p.kind for p in layout])):
        return None
    return _placed(layout, new_kind)


def fitting_shapes(kinds: tuple[str, ...]) -> frozenset[str]:
    """The shapes of a part that fits a rocket of ``kinds``, rearranged if need be: those
    whose count one higher is ``feasible_counts``; cached per rocket (the build step's
    check and listing ask it of the same rocket after each command)."""
    return _fitting_shapes(kinds)


@lru_cache(maxsize=4096)
def _fitting_shapes(kinds: tuple[str, ...]) -> frozenset[str]:
    counts = dict(_shape_counts(kinds))
    fits = []
    for s in cat.SHAPES:
        counts[s] += 1
        if feasible_counts(counts):
            fits.append(s)
        counts[s] -= 1
    return frozenset(fits)


def same_parts(a: Iterable[Placement], b: Iterable[Placement]) -> bool:
    return Counter(p.kind for p in a) == Counter(p.kind for p in b)


def extent(layout: list[Placement]) -> tuple[int, int]:
    """``width`` and ``height`` of a rocket, cached per layout (every seat's view asks
    them of every rocket after each command; a rocket changes a few times a game)."""
    return _extent(tuple(layout))


@lru_cache(maxsize=1024)
def _extent(layout: tuple[Placement, ...]) -> tuple[int, int]:
    return width(layout), height(layout)


def width(layout: Iterable[Placement]) -> int:
    return len({p.x for p in layout})


def height(layout: Iterable[Placement]) -> int:
    return len({p.y for p in layout})


def colour_count(layout: Iterable[Placement], colour: str) -> int:
    """Parts showing ``colour``; a two-coloured part counts once for each of its colours."""
    return sum(1 for p in layout if colour in colours(p.kind))


def subject_count(layout: Iterable[Placement], subject: str) -> int:
    """Parts matching an advanced card subject (a shape name or a colour letter)."""
    if subject in cat.COLOURS:
        return colour_count(layout, subject)
    return sum(1 for p in layout if shape(p.kind) == subject)


def meets_design(layout: list[Placement], card: cat.DesignCard) -> bool:
    return _meets(_figures(tuple(layout)), card)


@lru_cache(maxsize=1024)
def _figures(layout: tuple[Placement, ...]) -> tuple[dict[str, int], dict[str, int], int, int]:
    """What a design card asks of a rocket: its shape counts, its parts showing each
    colour (a two-coloured part once for each), its width and height; made once per
    rocket (the listing asks every card in the row of the same rocket)."""
    shapes = dict.fromkeys(cat.SHAPES, 0)
    showing: dict[str, int] = {}
    for p in layout:
        shapes[shape(p.kind)] += 1
        for c in set(colours(p.kind)):
            showing[c] = showing.get(c, 0) + 1
    return shapes, showing, width(layout), height(layout)


def _meets(figures: tuple[dict[str, int], dict[str, int], int, int], card: cat.DesignCard) -> bool:
    shapes, showing, w, h = figures
    for s, n in card.shapes.items():
        if shapes[s] < n:
            return False
    for c, n in card.colours.items():
        if showing.get(c, 0) < n:
            return False
    if card.width and w < card.width:
        return False
    return not (card.height and h < card.height)


def meets_design_card(layout: list[Placement], card: int) -> bool:
    """``meets_design`` of the design card with id ``card``, cached per layout and card
    (the listing asks it of every card in the row for the same rocket after each
    command)."""
    return _meets_design_card(tuple(layout), card)


def designs_met(layout: list[Placement], cards: list[int]) -> list[int]:
    """The ``cards`` (ids) whose design the rocket meets, in order (``meets_design_card``
    of each, from the rocket's figures looked up once)."""
    figures = _figures(tuple(layout))
    designs = cat.DESIGN_BY_ID
    return [card for card in cards if _meets(figures, designs[card])]


@lru_cache(maxsize=4096)
def _meets_design_card(layout: tuple[Placement, ...], card: int) -> bool:
    return _meets(_figures(layout), cat.DESIGN_BY_ID[card])


def meets_blueprint(layout: Sequence[Placement], blueprint: int) -> bool:
    # A rocket of fewer parts than the blueprint names cannot meet it: most rockets a
    # build step asks about, answered without counting their shapes.
    if len(layout) < _BLUEPRINT_PARTS.get(blueprint, 0):
        return False
    return _meets_blueprint(tuple([p.kind for p in layout]), blueprint)


_BLUEPRINT_PARTS = {b.id: sum(b.needs.values()) for b in cat.BLUEPRINTS}


@lru_cache(maxsize=1024)
def _meets_blueprint(kinds: tuple[str, ...], blueprint: int) -> bool:
    """Cached like :func:`_shape_counts`: every seat's view asks it of every rocket after
    each command, and a rocket changes only when a part is built or moved."""
    if blueprint not in cat.BLUEPRINT_BY_ID:
        return False
    counts = _shape_counts(kinds)
    return all(counts[s] >= n for s, n in cat.BLUEPRINT_BY_ID[blueprint].needs.items())


def _share_colour(a: str, b: str) -> bool:
    return any(c in colours(b) for c in colours(a))


def goal_instances(layout: Iterable[Placement], pattern: str) -> int:
    """How many distinct part sets realise a personal-goal pattern (parts may be reused)."""
    grid = {(p.x, p.y): p.kind for p in layout}

    def at(x: int, y: int, want: str) -> str | None:
        k = grid.get((x, y))
        return k if k is not None and shape(k) == want else None

    count = 0
    for (x, y), k in grid.items():
        s = shape(k)
        if s == "body":
            if pattern == cat.GOAL_FIN_PAIR:
                left, right = at(x - 1, y, "fin"), at(x + 1, y, "fin")
                count += left is not None and left == right
            elif pattern == cat.GOAL_CONNECTOR_PAIR:
                left, right = at(x - 1, y, "connector"), at(x + 1, y, "connector")
                count += left is not None and left == right
            elif pattern == cat.GOAL_NOSE_ENGINE:
                nose, engine = at(x, y + 1, "nose"), at(x, y - 1, "engine")
                count += nose is not None and engine is not None and _share_colour(nose, engine)
            elif pattern == cat.GOAL_NOSE_BODY:
                nose = at(x, y + 1, "nose")
                count += nose is not None and _share_colour(nose, k)
            elif pattern == cat.GOAL_BODY_ENGINE:
                engine = at(x, y - 1, "engine")
                count += engine is not None and _share_colour(engine, k)
            elif pattern == cat.GOAL_BODY_STACK:
                count += at(x, y + 1, "body") == k
        elif s == "connector":
            left, right = at(x - 1, y, "body"), at(x + 1, y, "body")
            if left is None or right is None:
                continue
            if pattern == cat.GOAL_BODIES_BY_CONNECTOR:
                count += left == right
            elif pattern == cat.GOAL_NOSES_BY_CONNECTOR:
                n1, n2 = at(x - 1, y + 1, "nose"), at(x + 1, y + 1, "nose")
                count += n1 is not None and n1 == n2
    return count


def goal_points(layout: Iterable[Placement], goal: int) -> int:
    g = cat.GOAL_BY_ID.get(goal)
    if g is None:
        return 0
    return g.points * goal_instances(layout, g.pattern)
