"""Automated opponents of the 1-2 player rules: their turns run inside ``decide``.

Each AI flips the top card of its (recorded, shuffled) action deck and carries it out,
flipping again when it cannot. Ties are broken by AI Advantage, then by the compass of
the previously flipped card (the current one for the round's first card): candidates
are compared by their projection on the large star, then on the small star, then the
leftmost wins. Everything random was drawn at round setup, so AI turns draw nothing.
"""

from __future__ import annotations

from random import Random

from games.fractured_sky.round_end import convert_ai, finish_round
from games.fractured_sky.state import (
    PHASE_PLAY,
    FracturedSkyState,
    platform_regions,
    region_platforms,
)
from games.fractured_sky.turns import free_slots, next_seat, slot_gold
from games.working import Working
from orrery_contracts.base import EventBody
from orrery_contracts.fractured_sky import catalogue as cat
from orrery_contracts.fractured_sky import events as ev

AI_SLOT_PREFERENCE = (1, 3, 2)


def compass_key(card: cat.AiCard, x: float, y: float) -> tuple[float, float, float]:
    lx, ly = cat.COMPASS[card.large]
    sx, sy = cat.COMPASS[card.small]
    return (-(lx * x + ly * y), -(sx * x + sy * y), x)


def _best(items: list[int], score: dict[int, int]) -> list[int]:
    top = max(score[i] for i in items)
    return [i for i in items if score[i] == top]


def _own_buildings(sim: FracturedSkyState, seat: int, platforms: tuple[int, ...]) -> int:
    return sum(sim.fortresses[seat][p] + sim.markets[seat][p] for p in platforms)


def airship_region(sim: FracturedSkyState, seat: int, compass: cat.AiCard) -> int:
    """Most stardust among regions without this AI's airship, then AI Advantage (own
    buildings bridged to the region), then the compass."""
    row = sim.airships[seat]
    free = [r for r in sim.regions if row[r] < 0]
    dusty = [r for r in free if sim.board_stardust[r] > 0]
    pool = _best(dusty, {r: sim.board_stardust[r] for r in dusty}) if dusty else free
    bridges = region_platforms(sim)
    pool = _best(pool, {r: _own_buildings(sim, seat, bridges[r]) for r in pool})
    return min(pool, key=lambda r: compass_key(compass, cat.REGIONS[r].x, cat.REGIONS[r].y))


def build_platform(sim: FracturedSkyState, seat: int, kind: str, compass: cat.AiCard) -> int:
    """(A) near the most stardust, (B) most bridges, (C) AI Advantage (own buildings of
    that type on the platform), (D) the compass."""
    bridges = platform_regions(sim)
    pool = [p for p in range(cat.PLATFORM_COUNT) if bridges[p]]
    pool = _best(pool, {p: max(sim.board_stardust[r] for r in bridges[p]) for p in pool})
    pool = _best(pool, {p: len(bridges[p]) for p in pool})
    built = sim.fortresses if kind == cat.AI_FORTRESS else sim.markets
    pool = _best(pool, {p: built[seat][p] for p in pool})
    return min(pool, key=lambda p: compass_key(compass, cat.PLATFORMS[p].x, cat.PLATFORMS[p].y))


def scout_card(sim: FracturedSkyState, seat: int, compass: cat.AiCard) -> int:
    """The westmost or eastmost secret card this AI has not scouted (-1: none)."""
    done = {r.card for r in sim.scouts if r.seat == seat}
    pool = [i for i in range(len(sim.secret_cards)) if i not in done and not sim.secret_open[i]]
    if not pool:
        return -1
    dx = cat.COMPASS[compass.large][0] or cat.COMPASS[compass.small][0]
    return max(pool) if dx > 0 else min(pool)


def _plan(
    sim: FracturedSkyState, seat: int, card: cat.AiCard, compass: cat.AiCard
) -> list[EventBody]:
    """The events of carrying out ``card``, or [] when it cannot be carried out."""
    action = card.action
    if action == cat.AI_AIRSHIP:
        return _place(sim, seat, compass)
    if action == cat.AI_SCOUT:
        chosen = scout_card(sim, seat, compass)
        if chosen < 0:
            return []
        out: list[EventBody] = [ev.AiScouted(seat=seat, card=chosen)]
        if sim.secret_taken[chosen] + 1 >= cat.SCOUT_REVEAL_AT:
            out.append(open_secret(sim, chosen))
        return out
    if action in (cat.AI_MARKET, cat.AI_FORTRESS):
        built = sim.fortresses if action == cat.AI_FORTRESS else sim.markets
        if sum(built[seat]) >= cat.AI_BUILDINGS[sim.difficulty]:
            return []
        platform = build_platform(sim, seat, action, compass)
        return [ev.AiBuilt(seat=seat, kind=action, platform=platform)]
    if sum(sim.skimmers[seat]) >= cat.AI_SKIMMERS:
        return []
    return [ev.AiSkimmerPlaced(seat=seat, region=sim.public_card)]


def open_secret(sim: FracturedSkyState, card: int) -> ev.SecretOpened:
    return ev.SecretOpened(
        card=card, region=sim.secret_cards[card], stardust=1 if sim.supply > 0 else 0
    )


def _place(sim: FracturedSkyState, seat: int, compass: cat.AiCard) -> list[EventBody]:
    region = airship_region(sim, seat, compass)
    token = sim.ai_pool[seat - sim.seats][0]
    return [
        ev.AirshipPlaced(seat=seat, region=region, chip=token, explorer=sim.explorer[region] < 0)
    ]


def ai_turn(work: Working[FracturedSkyState], rng: Random) -> None:
    sim = work.state
    seat = sim.turn
    index = seat - sim.seats
    while True:
        deck = sim.ai_deck[index]
        flipped = sim.ai_flipped[index]
        if not deck:  # cannot happen with the 14-card deck; place an airship anyway
            compass = cat.AI_DECK[flipped[-1]] if flipped else cat.AI_DECK[0]
            for event in _place(sim, seat, compass):
                work.emit(event)
            break
        card = cat.AI_DECK[deck[0]]
        compass = cat.AI_DECK[flipped[-1]] if flipped else card
        planned = _plan(sim, seat, card, compass)
        work.emit(ev.AiCardFlipped(seat=seat, card=card.index, executed=bool(planned)))
        if planned:
            for event in planned:
                work.emit(event)
            break
    if sim.ships[seat] == cat.AIRSHIPS:
        free = free_slots(sim)
        slot = next(s for s in AI_SLOT_PREFERENCE if s in free)
        work.emit(ev.SlotTaken(seat=seat, slot=slot, gold=slot_gold(sim, slot)))
        convert_ai(work)
    nxt = next_seat(sim, seat, sim.ships)
    if nxt >= 0:
        work.emit(ev.TurnBegan(seat=nxt))
    else:
        finish_round(work, rng)


def run_automation(work: Working[FracturedSkyState], rng: Random) -> None:
    """Play AI turns while an automated opponent is to act."""
    sim = work.state
    while sim.phase == PHASE_PLAY and sim.turn >= sim.seats:
        ai_turn(work, rng)
