"""``evaluate``: how good a Fractured Sky position looks to one seat, from its view.

In stardust (the game's points): the seat's stardust now, plus declared estimates of
what its position will bring (games/fractured_sky/RULES.md, "Bots"): a share of the
stardust in each region where it has an airship, weighed by its chip against the other
airships there (an unseen chip counts as the average chip); its resources, pending
resource choices and buildings, which turn into stardust in later rounds; minus the
best other participant's stardust, since only the rank counts.
"""

from __future__ import annotations

from orrery_contracts.fractured_sky import views as vw

RESOURCE = 0.15  # a resource held (or to be chosen): about a seventh of a stardust
BUILDING = 0.4  # a fortress or market: presence and income in the rounds left
SKIMMER = 0.25
REGION_SHARE = 0.8  # of the stardust in a region, at the seat's share of the power there
UNSEEN_CHIP = 5.0  # the average of the chips 0..10
RIVAL = 0.3  # weight of the best other participant's stardust


def evaluate(view: vw.FracturedSkyView, seat: int) -> float:
    me = view.players[seat]
    value = float(me.stardust)
    value += RESOURCE * (me.gold + me.iron + me.wood + me.pending_choices)
    value += BUILDING * sum(p.fortresses[seat] + p.markets[seat] for p in view.platforms)
    rounds_left = max(0, 5 - view.round)
    if not view.revealed:
        value += _airships(view, seat)
    value += SKIMMER * sum(r.skimmers[seat] for r in view.regions) * (1 + rounds_left) / 5
    rival = max((p.stardust for p in view.players if p.seat != seat), default=0)
    return value - RIVAL * rival


def _airships(view: vw.FracturedSkyView, seat: int) -> float:
    total = 0.0
    for region in view.regions:
        mine = 0.0
        others = 0.0
        for ship in region.airships:
            power = float(ship.chip) if ship.chip is not None else UNSEEN_CHIP
            if ship.seat == seat:
                mine += power + 0.5
            else:
                others += power + 0.5
        if mine:
            total += REGION_SHARE * (region.stardust + 1) * mine / (mine + others)
    return total
