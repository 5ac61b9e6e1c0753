"""Round end: reveal, objective, region rewards left to right, cleanup or game end.

These functions run inside ``decide`` on its working state (``games.working``: a private
copy, ``work.state``, that folds every event emitted), so later steps see earlier ones.
The regions' resolutions, a known kind of event and most of a round end's, are recorded
and folded with their ``evolve`` fold directly: the same events and the same state as
``Working.emit`` gives.

A round end resolves every region with the same turn order, markets and rewards table,
so those are made once per round end (``_resolutions``). What the ranks give, and the
resolution of a region nobody is in, are frozen values: made once and shared by every
outcome that gives them.
"""

from __future__ import annotations

from functools import lru_cache
from operator import add, attrgetter
from random import Random
from typing import Any

from games.fractured_sky.evolve import FOLDS
from games.fractured_sky.objectives import measure, winner
from games.fractured_sky.power import (
    Presence,
    presences,
    rank_key,
    reveal,
)
from games.fractured_sky.scoring import standings
from games.fractured_sky.setup import deal_ai, shuffle
from games.fractured_sky.state import FracturedSkyState, ai_threshold, end_order, region_platforms
from games.working import Working
from orrery_contracts.fractured_sky import catalogue as cat
from orrery_contracts.fractured_sky import events as ev

TIER_STARDUST = "stardust"
TIER_BOTH = "both"
TIER_ONE = "one"

_SEAT = attrgetter("seat")
_RESOURCES = tuple(r.resources for r in cat.REGIONS)  # per region: its two resources


class _Rewards:
    """What the ranks give one seat in one region (``seat`` a person): the "both" rank's
    gains, and the "one of choice" rank's gain (same two resources) or choice."""

    __slots__ = ("both", "one_choice", "one_gain")

    def __init__(self, seat: int, region: int) -> None:
        first, second = _RESOURCES[region]
        if first == second:
            self.both: tuple[ev.Gain, ...] = (
                ev.Gain(seat=seat, resource=first, amount=2, reason="rank_both"),
            )
            self.one_gain: ev.Gain | None = ev.Gain(seat=seat, resource=first, reason="rank_one")
            self.one_choice: ev.Choice | None = None
        else:
            self.both = (
                ev.Gain(seat=seat, resource=first, reason="rank_both"),
                ev.Gain(seat=seat, resource=second, reason="rank_both"),
            )
            self.one_gain = None
            self.one_choice = ev.Choice(
                seat=seat, region=region, options=[first, second], reason="rank_one"
            )


@lru_cache(maxsize=16)
def _rewards(seats: int) -> tuple[tuple[_Rewards, ...], ...]:
    """Per region index, per person: its rewards (made once per number of people)."""
    return tuple(
        tuple(_Rewards(seat, region) for seat in range(seats)) for region in range(cat.REGION_COUNT)
    )


def _paying_markets(sim: FracturedSkyState) -> list[list[int] | None] | None:
    """Per participant, its markets if they may pay (None: none built, or an AI's
    without a market card); None when no market is built at all (the early rounds)."""
    if not any(map(any, sim.markets)):
        return None
    seats = sim.seats
    paid = ai_threshold(sim) > 0
    return [
        row if (seat < seats or paid) and any(row) else None for seat, row in enumerate(sim.markets)
    ]


_NOBODY: dict[tuple[int, int], ev.RegionResolved] = {}  # (region, participants) → event


def _nobody(region: int, participants: int) -> ev.RegionResolved:
    """The resolution of a region where nobody is present: a value, made once."""
    found = _NOBODY.get((region, participants))
    if found is None:
        outcome = ev.RegionOutcome(
            region=region, power=[-1] * participants, ranking=[], gains=[], choices=[]
        )
        found = _NOBODY[region, participants] = ev.RegionResolved(outcome=outcome)
    return found


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
    per_region: list[list[Presence]] = [[]] * len(sim.board_stardust)
    per_region[region] = found
    return _resolutions(sim, order, [region], per_region)[0].outcome


def _resolutions(
    sim: FracturedSkyState, order: list[int], regions: list[int], found: list[list[Presence]]
) -> list[ev.RegionResolved]:
    """The resolution of each of ``regions`` (``order``: the turn order that breaks
    ties, ``found``: presences per region). A region's outcome reads nothing another
    region's outcome changes (presences, markets and its own stardust), so all are
    made in one loop, with what every region is resolved with made once."""
    board = sim.board_stardust
    participants = sim.participants
    seats = sim.seats
    rewards = _rewards(seats)
    markets = _paying_markets(sim)
    platforms = region_platforms(sim)
    key = None  # the ranking key, made at the first region where two rank
    out: list[ev.RegionResolved] = []
    for region in regions:
        here = found[region]
        if not here:  # nobody here: no rank, no market, nothing gained
            out.append(_nobody(region, participants))
            continue
        power = [-1] * participants
        gains: list[ev.Gain] = []
        choices: list[ev.Choice] = []
        stardust_here = board[region]
        stardust_seat = -1
        if len(here) == 1:  # the most frequent case: ranked alone, if eligible at all
            place = here[0]
            seat = place.seat
            total = power[seat] = place.total
            ranking = [seat] if total >= 1 else []
            if not ranking:
                pass
            elif stardust_here:
                stardust_seat = seat
            elif seat < seats:  # an AI takes only stardust
                gains.extend(rewards[region][seat].both)
        else:
            # the ranking (``power.ranking``): eligible presences (power >= 1), best first
            ranked: list[Presence] = []
            for place in here:
                total = power[place.seat] = place.total
                if total >= 1:
                    ranked.append(place)
            if len(ranked) == 2 and ranked[0].total != ranked[1].total:
                if ranked[1].total > ranked[0].total:  # two unequal: the stronger first
                    ranked.reverse()
            elif len(ranked) > 1:
                if key is None:
                    key = rank_key(tuple(order))
                ranked.sort(key=key)
            if ranked:
                stardust_seat = _ranks(
                    rewards[region], seats, stardust_here, ranked, gains, choices
                )
            ranking = [*map(_SEAT, ranked)]
        if markets is not None:
            _markets(markets, seats, region, platforms[region], here, gains, choices)
        outcome = ev.RegionOutcome(
            region=region,
            power=power,
            ranking=ranking,
            stardust_seat=stardust_seat,
            stardust=stardust_here if stardust_seat >= 0 else 0,
            gains=gains,
            choices=choices,
        )
        out.append(ev.RegionResolved(outcome=outcome))
    return out


def _ranks(
    rewards: tuple[_Rewards, ...],
    seats: int,
    stardust_here: int,
    ranked: list[Presence],
    gains: list[ev.Gain],
    choices: list[ev.Choice],
) -> int:
    """The rank rewards (stardust, then both resources, then one of choice) of
    ``ranked``, best first (not empty; ``rewards``: the region's, per person): the
    gains and choices, and the stardust's seat (-1: no stardust here)."""
    stardust_seat = -1
    rank = 0  # an AI occupies its rank, but takes only stardust
    if stardust_here:
        stardust_seat = ranked[0].seat
        rank = 1
    if rank < len(ranked):
        seat = ranked[rank].seat
        if seat < seats:
            gains.extend(rewards[seat].both)
        if rank + 1 < len(ranked):
            seat = ranked[rank + 1].seat
            if seat < seats:
                one = rewards[seat]
                if one.one_gain is not None:
                    gains.append(one.one_gain)
                else:
                    choices.append(one.one_choice)  # type: ignore[arg-type]
    return stardust_seat


def _markets(
    markets_of: list[list[int] | None],
    seats: int,
    region: int,
    platforms: tuple[int, ...],
    found: list[Presence],
    gains: list[ev.Gain],
    choices: list[ev.Choice],
) -> None:
    """Each present seat's markets (``markets_of``: per participant, None: none that
    pay) bridged to ``region`` (over ``platforms``) pay one resource each, in seat
    order: 0-power airships (not lifted by a fortress) and skimmers never pay."""
    first, second = _RESOURCES[region]
    for place in found:
        seat = place.seat
        markets = markets_of[seat]
        if markets is None or place.ship_power < 1:
            continue
        count = 0
        for p in platforms:
            count += markets[p]
        if not count:
            continue
        if seat >= seats or first == second:  # an AI's goes onto its market card
            gains.append(ev.Gain(seat=seat, resource=first, amount=count, reason="market"))
        else:
            choices.extend(
                ev.Choice(seat=seat, region=region, options=[first, second], reason="market")
                for _ in range(count)
            )


# The fold of a region's resolution, looked up once: ``Working.emit`` finds the fold by
# the event's type and its watch bits for every event, and this game watches none.
_FOLD_RESOLVED: Any = FOLDS[ev.RegionResolved]


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
    chips, excess, found = reveal(sim, board)
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
    if position >= 0:
        values = measure(sim, chips, card, order, found)
        best = winner(values, order) if sim.supply > 0 else -1
        outcome = ev.ObjectiveOutcome(
            round=sim.round, position=position, card=card, values=values, winner=best
        )
        work.emit(ev.ObjectiveScored(outcome=outcome))
    _resolve_regions(work, found, order)
    if not sim.pending:
        after_rewards(work, rng, order)


def _resolve_regions(
    work: Working[FracturedSkyState], found: list[list[Presence]], order: list[int]
) -> None:
    """Every region left to right, each outcome folded before the next is recorded."""
    sim = work.state
    events = work.events
    convert = ai_threshold(sim) > 0  # recorded at setup: the same for every region
    for resolved in _resolutions(sim, order, sim.regions, found):
        events.append(resolved)
        _FOLD_RESOLVED(sim, resolved)
        if convert:
            convert_ai(work)


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


def after_rewards(
    work: Working[FracturedSkyState], rng: Random, order: list[int] | None = None
) -> None:
    """Cleanup and the next round, or the end of the game after round 5 (``order``: the
    end-of-round turn order, when the caller has it)."""
    sim = work.state
    if order is None:
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
    public = rng.choice(sim.regions)
    deck = list(sim.regions)
    shuffle(rng, deck)
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
