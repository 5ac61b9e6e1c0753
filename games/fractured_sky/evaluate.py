"""``evaluate``: how good a Fractured Sky position looks to one seat, from its view.

In stardust (the game's points): the seat's stardust now, plus declared estimates of
what its position will bring (games/fractured_sky/RULES.md, "Bots"): in each region
where it has an airship, its chance of ranking first there (its power after the over-10
rule against the strongest other participant's, an unseen chip counting as a third of
the 10 a player can spend well in a round) times the stardust there (plus one for each
secret card it knows names the region), second places' resources otherwise; its
resources, pending resource choices and buildings, which turn into stardust in later
rounds; minus part of the best other participant's stardust, since only the rank counts.
"""

from __future__ import annotations

import math

from orrery_contracts.fractured_sky import views as vw

RESOURCE = 0.15  # a resource held (or to be chosen): about a seventh of a stardust
BUILDING = 1.2  # a fortress or market: power and income in the rounds left
SKIMMER = 0.25
SKIMMER_POWER = 1.0
UNSEEN_CHIP = 10 / 3  # an airship whose chip the seat does not see
SECOND_PLACE = 0.3  # resources for a place behind the first, in stardust
SPREAD = 1.5  # how sure a lead in power is (a logistic's scale)
RIVAL = 0.3  # weight of the best other participant's stardust


def evaluate(view: vw.FracturedSkyView, seat: int) -> float:
    me = view.players[seat]
    value = float(me.stardust)
    value += RESOURCE * (me.gold + me.iron + me.wood + me.pending_choices)
    value += BUILDING * sum(p.fortresses[seat] + p.markets[seat] for p in view.platforms)
    rounds_left = max(0, 5 - view.round)
    if not view.revealed:
        value += _regions(view, seat)
    value += SKIMMER * sum(r.skimmers[seat] for r in view.regions) * (1 + rounds_left) / 5
    rival = max((p.stardust for p in view.players if p.seat != seat), default=0)
    return value - RIVAL * rival


def _regions(view: vw.FracturedSkyView, seat: int) -> float:
    own = [
        s.chip for r in view.regions for s in r.airships if s.seat == seat and s.chip is not None
    ]
    excess = max(0, sum(own) - 10)  # every chip loses what the round's chips exceed 10 by
    known = [c.region for c in view.secret_cards if c.region is not None and not c.opened]
    total = 0.0
    for region in view.regions:
        power = {s: SKIMMER_POWER * n for s, n in enumerate(region.skimmers) if n}
        ships = False
        for ship in region.airships:
            chip = UNSEEN_CHIP if ship.chip is None else float(ship.chip)
            if ship.seat == seat:
                ships = True
                chip = max(0.0, chip - excess)
            power[ship.seat] = power.get(ship.seat, 0.0) + chip
        if not ships:
            continue
        best = max((p for s, p in power.items() if s != seat), default=-1.0)
        first = 1 / (1 + math.exp(-(power.get(seat, 0.0) - best) / SPREAD))
        stardust = region.stardust + known.count(region.index)
        total += first * stardust + (1 - first) * SECOND_PLACE
    return total
