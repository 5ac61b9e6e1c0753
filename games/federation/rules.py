"""Small pure helpers over the state: levels, influence, payments, criteria."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import NamedTuple

from games.federation.state import Player, State
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import steps as st


def level(p: Player) -> int:
    return cat.LEVEL_OF_STEP[p.authority_step]


def crystals(p: Player) -> int:
    return p.copp + p.lav + p.ocean


def missions_count(p: Player) -> int:
    """Ships on missions, start and deep-space tiles counting as completed missions."""
    return sum(p.missions) + p.tile_missions


def reserve(p: Player) -> int:
    return cat.MAX_SHIPS - p.hangar - sum(p.missions)


def influence(p: Player, planet: int) -> int:
    bonus = p.inf_bonus[planet]
    if planet == cat.ORANGE:
        return p.orange + bonus
    if planet == cat.BLUE:
        return p.blue + bonus
    if planet == cat.YELLOW:
        return sum(p.stalls) + bonus
    if planet == cat.PURPLE:
        return len(p.erudite) + bonus
    return sum(1 if b < cat.N_PRODUCTION else 2 for b in p.built) + bonus


# ------------------------------------------------------------------ paying costs
# One function decides what a seat can pay: ``payments`` lists the exact payments of a
# cost, and ``can_settle`` (built on it) whether a seat can go through the gains and
# costs still ahead of it in its current action. The placement check, every option that
# costs something, the pay step and the discard step all ask ``can_settle``, so a cost
# that was allowed is always paid, and a pay step never finds nothing to pay.

Holding = tuple[int, int, int, int]  # coppernium, lavandium, oceanium, diamonds
NO_GAIN: Holding = (0, 0, 0, 0)


class Item(NamedTuple):
    """A gain (``alts`` empty) or a cost (one of the alternatives ``alts``) ahead."""

    gain: Holding = NO_GAIN
    alts: tuple[cat.Cost, ...] = ()


def holding(p: Player) -> Holding:
    return (p.copp, p.lav, p.ocean, p.diamond)


def payments_of(h: Holding, alts: Iterable[Sequence[int]]) -> list[Holding]:
    """Every exact payment (copp, lav, ocean, diamond) of one of the alternative costs.

    A cost is (copp, lav, ocean, any crystal, diamond); oceanium may replace copp or lav.
    """
    copp, lav, ocean, diamond = h
    found: list[Holding] = []
    for cost in alts:
        c0, l0, o0, a0, d0 = cost
        if d0 > diamond:
            continue
        total = c0 + l0 + o0 + a0
        for c in range(min(copp, total) + 1):
            for lv in range(min(lav, total - c) + 1):
                o = total - c - lv
                if o > ocean or o < o0:
                    continue
                spare = o - o0
                if spare < max(0, c0 - c) + max(0, l0 - lv):
                    continue
                pay = (c, lv, o, d0)
                if pay not in found:
                    found.append(pay)
    return found


def payments(p: Player, alts: Iterable[Sequence[int]]) -> list[Holding]:
    return payments_of(holding(p), alts)


def discards_of(h: Holding) -> list[Holding]:
    """Every way to discard the crystals over the limit (``[NO_GAIN]`` within it)."""
    copp, lav, ocean, _ = h
    excess = copp + lav + ocean - cat.MAX_CRYSTALS
    if excess <= 0:
        return [NO_GAIN]
    out: list[Holding] = []
    for c in range(min(copp, excess) + 1):
        for lv in range(min(lav, excess - c) + 1):
            o = excess - c - lv
            if o <= ocean:
                out.append((c, lv, o, 0))
    return out


def minus(h: Holding, d: Sequence[int]) -> Holding:
    return (h[0] - d[0], h[1] - d[1], h[2] - d[2], h[3] - d[3])


@lru_cache(maxsize=4096)
def can_settle(h: Holding, items: tuple[Item, ...]) -> bool:
    """Whether a seat holding ``h`` can go through ``items`` in order: pay every cost in
    some way, and after every gain discard the crystals over 10 at once (in some way)."""
    if not items:
        return True
    item, rest = items[0], items[1:]
    if item.alts:
        return any(can_settle(minus(h, pay), rest) for pay in payments_of(h, item.alts))
    gained = (h[0] + item.gain[0], h[1] + item.gain[1], h[2] + item.gain[2], h[3] + item.gain[3])
    return any(can_settle(minus(gained, d), rest) for d in discards_of(gained))


# Steps that end the chain of steps a seat's current action put in the queue.
_CHAIN_ENDS = (
    st.AfterPlacement,
    st.Turn,
    st.ExecutivePhase,
    st.EndRound,
    st.BeginRound,
    st.FinalScoring,
)


def _crystal_index(step: st.AnyStep) -> tuple[int, int]:
    """(index in a Holding, amount) of a crystal or diamond gain step; (-1, 0) otherwise."""
    match step:
        case st.GainCoppernium(amount=n):
            return 0, n
        case st.GainLavandium(amount=n):
            return 1, n
        case st.GainOceanium(amount=n):
            return 2, n
        case st.GainDiamonds(amount=n):
            return 3, n
    return -1, 0


def settle_items(steps: Iterable[st.AnyStep], seat: int) -> tuple[Item, ...]:
    """The fixed gains and costs of ``seat`` in ``steps`` (a queue, front first), up to
    the end of its current action: pay steps, and crystals or diamonds gained (or, for a
    negative amount, paid) by effect steps. Choices that may cost or gain more later are
    not counted; each of them checks its own options when it comes up."""
    out: list[Item] = []
    for step in steps:
        if isinstance(step, _CHAIN_ENDS):
            break
        if step.seat != seat:
            continue
        if isinstance(step, st.PayCost):
            out.append(Item(alts=tuple(_cost(a) for a in step.alternatives)))
            continue
        index, amount = _crystal_index(step)
        if index < 0 or amount == 0:
            continue
        amounts = [0, 0, 0, 0]
        if amount > 0:
            amounts[index] = amount
            out.append(Item(gain=(amounts[0], amounts[1], amounts[2], amounts[3])))
        else:
            cost = [0, 0, 0, 0, 0]
            cost[4 if index == 3 else index] = -amount
            out.append(Item(alts=(_cost(cost),)))
    return tuple(out)


def _cost(a: Sequence[int]) -> cat.Cost:
    return (a[0], a[1], a[2], a[3], a[4])


def pending_items(s: State, seat: int) -> tuple[Item, ...]:
    """What ``seat`` must still gain and pay after the step now at the front."""
    return settle_items(s.queue[1:], seat)


def can_pay_now(s: State, seat: int, *alts: cat.Cost) -> bool:
    """Whether ``seat`` can pay one of ``alts`` now and still settle what follows."""
    items = (Item(alts=alts), *pending_items(s, seat)) if alts else pending_items(s, seat)
    return can_settle(holding(s.players[seat]), items)


def criterion(s: State, p: Player, name: str) -> int:
    if name == "medals":
        return len(p.medals)
    if name == "missions":
        return missions_count(p)
    if name == "erudite":
        return len(p.erudite)
    if name == "authority_level":
        return level(p)
    if name == "diamonds":
        return p.diamond
    if name == "upper_stalls":
        return sum(1 for x in p.stalls if x == 2)
    if name == "production_robots":
        return sum(1 for b in p.built if b < cat.N_PRODUCTION)
    return len(p.tokens)


def space_votes(s: State, i: int) -> int:
    seat = s.space_seat[i]
    votes = s.space_votes[i]
    if seat >= 0 and s.space_die[i]:
        votes += max(0, s.players[seat].die)
    return votes


def wing_votes(s: State) -> tuple[int, int]:
    left = right = 0
    for i in range(cat.N_SPACES):
        v = space_votes(s, i)
        if i % 6 < 3:
            left += v
        else:
            right += v
    return left, right


def prizes(s: State, values: list[int]) -> list[int]:
    """Project majority prizes for one project, by the values each seat compares."""
    n = s.seats
    out = [0] * n
    table = (cat.PRIZES_EN if s.prize_mode == "en" else cat.PRIZES)[n]
    order = sorted((v for v in values if v > 0), reverse=True)
    if not order:
        return out
    if n == 2:
        a, b = values
        if a == b:
            return [cat.TWO_PLAYER_TIE, cat.TWO_PLAYER_TIE]
        hi, lo = (0, 1) if a > b else (1, 0)
        out[hi] = table[0]
        if values[lo] > 0 and values[hi] - values[lo] <= cat.TWO_PLAYER_GAP:
            out[lo] = table[1]
        return out
    place = 0
    for value in sorted(set(order), reverse=True):
        tied = [i for i in range(n) if values[i] == value]
        pot = sum(table[k] for k in range(place, place + len(tied)) if k < len(table))
        for i in tied:
            out[i] = pot // len(tied)
        place += len(tied)
    return out
