"""``evaluate``: how good a SPACEcraft position looks to one seat, from its view.

In points: what the seat would score if the game ended now (the countdown bonus, the
blueprint, its personal goal, its design cards), plus declared estimates of its
progress (games/spacecraft/RULES.md, "Bots"): each blueprint part still missing costs
a share of the blueprint's points, each rocket part is worth two points (parts score
goals and designs, and a rocket grows by building), junk held (on the board or beside
it) a fifth of a point per unit of weight (it pays for the next parts: without it a
visit, a search or a leave all look alike and a seat gathers at random), each piece of
unused junk a tiny amount more (it breaks ties), a reserved card one point; minus part
of the best other seat's points.
"""

from __future__ import annotations

from games.spacecraft import rocket
from orrery_contracts.spacecraft import catalogue as cat
from orrery_contracts.spacecraft import views as vw

PART = 2.0  # a part on the rocket: it scores goals and designs, and nears the blueprint
MATERIAL = 0.2  # per unit of junk weight held: a part of weight 3 is worth 2 and more
JUNK = 0.02  # unused junk only breaks ties
RESERVED = 1.0
MISSING_PART = 0.8  # of the blueprint's points, per part it still lacks (at most all)
RIVAL = 0.3

_BLUEPRINTS = {b.id: b for b in cat.BLUEPRINTS}
_WEIGHT = dict(zip(cat.JUNK_NAMES, cat.JUNK_WEIGHT, strict=True))


def points_now(view: vw.SpacecraftView, seat: int) -> float:
    """The seat's points if the game ended now (scoring.breakdown, from the view)."""
    s = view.seats[seat]
    points = cat.TRIGGER_BONUS[view.variant] if view.countdown_holder == seat else 0
    if s.meets_blueprint:
        points += cat.BLUEPRINT_POINTS
    if s.goal is not None:
        points += rocket.goal_points(s.rocket, s.goal)
    if view.variant != "advanced":
        points += sum(cat.DESIGN_BY_ID[c].points for c in s.fulfilled)
    else:
        for card in view.advanced:
            if seat in card.markers:
                value = card.track[len(card.markers) - 1]
                points += value * rocket.subject_count(s.rocket, card.subject)
    return float(points)


def evaluate(view: vw.SpacecraftView, seat: int) -> float:
    if view.points is not None:  # the game is over: the final points
        final_rival = max((p for i, p in enumerate(view.points) if i != seat), default=0)
        return view.points[seat] - RIVAL * final_rival
    s = view.seats[seat]
    value = points_now(view, seat)
    value += PART * (len(s.rocket) - 1)
    value += JUNK * (len(s.board) + sum(s.beside.values()))
    held = sum(_WEIGHT[n] for n in s.board) + sum(_WEIGHT[n] * k for n, k in s.beside.items())
    value += MATERIAL * held
    if s.has_reserved:
        value += RESERVED
    if not s.meets_blueprint:
        counts = rocket.shape_counts(p.kind for p in s.rocket)
        needs = _BLUEPRINTS[view.blueprint].needs
        missing = sum(max(0, n - counts.get(shape, 0)) for shape, n in needs.items())
        value -= min(cat.BLUEPRINT_POINTS, MISSING_PART * missing)
    rival = max((points_now(view, i) for i in range(len(view.seats)) if i != seat), default=0.0)
    return value - RIVAL * rival
