"""Round end: reveal, objective, region rewards left to right, cleanup or game end.

These functions run inside ``decide`` on its working state (``games.working``: a private
copy, ``work.state``, that folds every event they emit), so later steps see earlier ones.
"""

from __future__ import annotations

from operator import add, attrgetter
from random import Random

from games.fractured_sky.objectives import measure, winner
from games.fractured_sky.power import Presence, adjusted_chips, presences, ranking, region_presences
from games.fractured_sky.scoring import standings
from games.fractured_sky.setup import deal_ai
from games.fractured_sky.state import FracturedSkyState, ai_threshold, end_order, region_platforms
from games.working import Working
from orrery_contracts.fractured_sky import catalogue as cat
from orrery_contracts.fractured_sky import events as ev

TIER_STARDUST = "stardust"
TIER_BOTH = "both"
TIER_ONE = "one"


_TIERS_STARDUST = (TIER_STARDUST, TIER_BOTH, TIER_ONE)
_TIERS = (TIER_BOTH, TIER_ONE)
_SEAT = attrgetter("seat")
_RESOURCES = tuple(r.resources for r in cat.REGIONS)  # per region: its two resources


def resolve_region(
    sim: FracturedSkyState,
    chips: list[list[int]],
    region: int,
    order: list[int],
    found: list[Presence] | None = None,
) -> ev.RegionOutcome:
    """Rank rewards (stardust / both resources / one of choice / nothing) and markets
    (``found``: the region's presences, when the caller made them already)."""
    if found is None:
        found = presences(sim, chips, region)
    if not found:  # nobody here: no rank, no market, nothing gained
        return ev.RegionOutcome(
            region=region, power=[-1] * sim.participants, ranking=[], gains=[], choices=[]
        )
    ranked = ranking(found, order)
    seats = sim.seats
    stardust_here = sim.board_stardust[region]
    tiers = _TIERS_STARDUST if stardust_here else _TIERS
    first, second = _RESOURCES[region]
    gains: list[ev.Gain] = []
    choices: list[ev.Choice] = []
    stardust_seat = -1
    for place, tier in zip(ranked, tiers, strict=False):
        seat = place.seat
        if tier is TIER_STARDUST:
            stardust_seat = seat
        elif seat >= seats:
            continue  # an AI takes only stardust, but it occupies its rank
        elif tier is TIER_BOTH:
            if first == second:
                gains.append(ev.Gain(seat=seat, resource=first, amount=2, reason="rank_both"))
            else:
                gains.append(ev.Gain(seat=seat, resource=first, reason="rank_both"))
                gains.append(ev.Gain(seat=seat, resource=second, reason="rank_both"))
        elif first == second:
            gains.append(ev.Gain(seat=seat, resource=first, reason="rank_one"))
        else:
            choices.append(
                ev.Choice(seat=seat, region=region, options=[first, second], reason="rank_one")
            )
    platforms = region_platforms(sim)[region]
    power = [-1] * sim.participants
    markets_of = sim.markets
    for place in found:
        seat = place.seat
        power[seat] = place.total
        if place.ship_power < 1:
            continue  # 0-power airships (not lifted by a fortress) and skimmers never pay
        markets = markets_of[seat]
        count = 0
        for p in platforms:
            count += markets[p]
        if not count:
            continue
        if seat >= seats:  # an AI's market pays onto its market card
            if ai_threshold(sim):
                gains.append(ev.Gain(seat=seat, resource=first, amount=count, reason="market"))
            continue
        if first == second:
            gains.append(ev.Gain(seat=seat, resource=first, amount=count, reason="market"))
        else:
            choices.extend(
                ev.Choice(seat=seat, region=region, options=[first, second], reason="market")
                for _ in range(count)
            )
    return ev.RegionOutcome(
        region=region,
        power=power,
        ranking=[*map(_SEAT, ranked)],
        stardust_seat=stardust_seat,
        stardust=stardust_here if stardust_seat >= 0 else 0,
        gains=gains,
        choices=choices,
    )


def finish_round(work: Working[FracturedSkyState], rng: Random) -> None:
    """Every participant has placed 3 airships and taken a slot: resolve the round."""
    sim = work.state
    order = end_order(sim)
    placed = [0] * cat.REGION_COUNT
    supply = sim.supply
    for card, region in enumerate(sim.secret_cards):
        if supply > 0 and not sim.secret_open[card]:
            placed[region] += 1
            supply -= 1
    board = [*map(add, sim.board_stardust, placed)]
    chips, excess = adjusted_chips(sim, board)
    position = sim.objectives_revealed if sim.objectives_revealed < len(sim.objectives) else -1
    card = sim.objectives[position] if position >= 0 else -1
    work.emit(
        ev.RoundRevealed(
            round=sim.round,
            objective=position,
            objective_card=card,
            secret_cards=list(sim.secret_cards),
            stardust_placed=placed,
            chips=chips,
            excess=excess,
        ),
    )
    found = region_presences(sim, chips)
    if position >= 0:
        values = measure(sim, chips, card, order, found)
        best = winner(values, order) if sim.supply > 0 else -1
        outcome = ev.ObjectiveOutcome(
            round=sim.round, position=position, card=card, values=values, winner=best
        )
        work.emit(ev.ObjectiveScored(outcome=outcome))
    convert = ai_threshold(sim) > 0  # recorded at setup: the same for every region
    for region in sim.regions:
        outcome_r = resolve_region(sim, chips, region, order, found[region])
        work.emit(ev.RegionResolved(outcome=outcome_r))
        if convert:
            convert_ai(work)
    if not sim.pending:
        after_rewards(work, rng)


def convert_ai(work: Working[FracturedSkyState]) -> None:
    """An AI market card at its threshold turns into 1 stardust at once."""
    sim = work.state
    threshold = ai_threshold(sim)
    if not threshold:
        return
    for index, tally in enumerate(sim.ai_tally):
        while tally >= threshold:
            stardust = 1 if sim.supply > 0 else 0
            seat = sim.seats + index
            work.emit(ev.AiConverted(seat=seat, spent=threshold, stardust=stardust))
            tally = sim.ai_tally[index]


def after_rewards(work: Working[FracturedSkyState], rng: Random) -> None:
    """Cleanup and the next round, or the end of the game after round 5."""
    sim = work.state
    order = end_order(sim)
    if sim.round >= cat.ROUNDS:
        work.emit(
            ev.GameEnded(
                order=order,
                points=list(sim.stardust),
                ranks=standings(sim.stardust, order),
            ),
        )
        return
    regions = list(sim.regions)
    public = rng.choice(regions)
    deck = list(regions)
    rng.shuffle(deck)
    count = sim.round + 1
    decks, out, pools = deal_ai(rng, sim.participants - sim.seats)
    work.emit(
        ev.RoundSetUp(
            round=count,
            order=order,
            public_card=public,
            public_stardust=1 if sim.supply > 0 else 0,
            secret_cards=deck[:count],
            secret_deck=deck[count:],
            ai_decks=decks,
            ai_out=out,
            ai_pools=pools,
        ),
    )
    work.emit(ev.TurnBegan(seat=order[0]))
