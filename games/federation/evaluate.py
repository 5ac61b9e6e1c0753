"""``evaluate``: how good a Federation position looks to one seat, from its view.

In prestige points: the seat's points now, plus what the final scoring would add if the
game ended now (medals, crystals, diamonds, ships in the hangar, alteration tokens), plus
declared estimates of its engine (games/federation/RULES.md, "Bots"): influence on the
planets (medals, laws and row majorities), authority level, missions done and checked;
minus part of the best other seat's points.
"""

from __future__ import annotations

from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import views as vw

INFLUENCE = 0.6
AUTHORITY = 0.8  # per authority level: it scales row wins
MISSION = 1.0
CHECK = 0.3
RIVAL = 0.3


def final_now(p: vw.PlayerView) -> float:
    """The final scoring's pieces a seat would get now (projects aside)."""
    medals = cat.MEDAL_PP[min(len(p.medals), len(cat.MEDAL_PP) - 1)]
    return float(medals + (p.copp + p.lav + p.ocean) // 2 + p.diamond + p.hangar + len(p.tokens))


def evaluate(view: vw.FederationView, seat: int) -> float:
    p = view.players[seat]
    if view.finished:
        best = max((q.pp for i, q in enumerate(view.players) if i != seat), default=0)
        return p.pp - RIVAL * best
    value: float = p.pp + final_now(p)
    value += INFLUENCE * sum(p.influence)
    value += AUTHORITY * p.authority_level
    value += MISSION * sum(p.missions) + CHECK * sum(p.checks)
    rival = max((q.pp + final_now(q) for i, q in enumerate(view.players) if i != seat), default=0.0)
    return value - RIVAL * rival
