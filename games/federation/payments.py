"""Paying costs: what a seat can pay, and whether it can settle what its action still
brings and costs.

One function decides what a seat can pay: ``payments`` lists the exact payments of a
cost, and ``can_settle`` (built on it) whether a seat can go through the gains and
costs still ahead of it in its current action. The placement check, every option that
costs something, the pay step and the discard step all ask ``can_settle``, so a cost
that was allowed is always paid, and a pay step never finds nothing to pay.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any, cast

from games.federation.effect_steps import costs_of
from games.federation.state import FederationState, Player
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import steps as st

Holding = tuple[int, int, int, int]  # coppernium, lavandium, oceanium, diamonds
NO_GAIN: Holding = (0, 0, 0, 0)


class Item:
    """A gain (``alts`` empty) or a cost (one of the alternatives ``alts``) ahead.

    Made once for each gain or cost (``cost_item``, ``_gain_item``) and never changed,
    so an item is told by its identity: the cached settlements (``can_settle``) hash a
    sequence of items by their identities, not by their nested tuples."""

    __slots__ = ("alts", "gain")

    def __init__(self, gain: Holding = NO_GAIN, alts: tuple[cat.Cost, ...] = ()) -> None:
        self.gain = gain
        self.alts = alts

    def __repr__(self) -> str:
        return f"Item(gain={self.gain}, alts={self.alts})"


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


@lru_cache(maxsize=4096)
def cost_payments(h: Holding, alts: tuple[cat.Cost, ...]) -> tuple[Holding, ...]:
    """``payments_of`` a cost given as catalogue tuples, cached per holding and cost (the
    settlement, the pay step's options and the check of a payment ask the same ones again
    and again)."""
    return tuple(payments_of(h, alts))


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
        return any(can_settle(minus(h, pay), rest) for pay in cost_payments(h, item.alts))
    gained = (h[0] + item.gain[0], h[1] + item.gain[1], h[2] + item.gain[2], h[3] + item.gain[3])
    return any(can_settle(minus(gained, d), rest) for d in discards_of(gained))


# What each step is to a settlement, by its exact type (steps are final classes; one
# lookup, cheaper than isinstance on a Struct): the end of the chain of steps a seat's
# current action put in the queue (``_END``), a pay step (``_PAY``), or a gain of
# crystals or diamonds (its index in a Holding). Most steps are none of these.
_END = -2
_PAY = -1
_ROLES: dict[type[st.Step], int] = {
    st.AfterPlacement: _END,
    st.Turn: _END,
    st.ExecutivePhase: _END,
    st.EndRound: _END,
    st.BeginRound: _END,
    st.FinalScoring: _END,
    st.PayCost: _PAY,
    st.GainCoppernium: 0,
    st.GainLavandium: 1,
    st.GainOceanium: 2,
    st.GainDiamonds: 3,
}


def settle_items(steps: Iterable[st.AnyStep], seat: int) -> tuple[Item, ...]:
    """The fixed gains and costs of ``seat`` in ``steps`` (a queue, front first), up to
    the end of its current action: pay steps, and crystals or diamonds gained (or, for a
    negative amount, paid) by effect steps. Choices that may cost or gain more later are
    not counted; each of them checks its own options when it comes up."""
    out: list[Item] = []
    for step in steps:
        role = _ROLES.get(type(step))
        if role is None:
            continue
        if role == _END:
            break
        if step.seat != seat:
            continue
        settled: Any = step  # a PayCost, or a gain with its ``amount`` (by ``_ROLES``)
        if role == _PAY:
            out.append(cost_item(pay_alternatives(settled)))
        elif settled.amount:
            out.append(_gain_item(role, settled.amount))
    return tuple(out)


# The item of each gain (or cost) of an effect step, by its Holding index and amount.
_GAIN_ITEMS: dict[tuple[int, int], Item] = {}


def _gain_item(index: int, amount: int) -> Item:
    """A gain of ``amount`` at ``index`` of a Holding, or a cost for a negative amount
    (made once for each and shared: it is a tuple)."""
    item = _GAIN_ITEMS.get((index, amount))
    if item is None:
        if amount > 0:
            amounts = [0, 0, 0, 0]
            amounts[index] = amount
            item = Item(gain=(amounts[0], amounts[1], amounts[2], amounts[3]))
        else:
            cost = [0, 0, 0, 0, 0]
            cost[4 if index == 3 else index] = -amount
            item = Item(alts=(_cost(cost),))
        _GAIN_ITEMS[index, amount] = item
    return item


def _cost(a: Sequence[int]) -> cat.Cost:
    return (a[0], a[1], a[2], a[3], a[4])


def pay_alternatives(step: st.PayCost) -> tuple[cat.Cost, ...]:
    """A pay step's alternative costs as catalogue tuples (each of the 5 amounts)."""
    made = costs_of(step)  # most pay steps are made once, their costs kept
    if made is not None:
        return made
    return cast("tuple[cat.Cost, ...]", tuple(map(tuple, step.alternatives)))


def pending_items(s: FederationState, seat: int) -> tuple[Item, ...]:
    """What ``seat`` must still gain and pay after the step now at the front."""
    return settle_items(s.queue[1:], seat)


def can_pay_now(s: FederationState, seat: int, *alts: cat.Cost) -> bool:
    """Whether ``seat`` can pay one of ``alts`` now and still settle what follows."""
    items = (cost_item(alts), *pending_items(s, seat)) if alts else pending_items(s, seat)
    return can_settle(holding(s.players[seat]), items)


def can_pay_then(h: Holding, rest: tuple[Item, ...], cost: Item) -> bool:
    """``can_pay_now`` for a listing that asks it of many costs: the seat's holding
    ``h`` and what follows (``pending_items``) taken once by the caller, each cost's item
    (``cost_item``) made once by the caller too."""
    return can_settle(h, (cost, *rest))


# The cost items made so far, by their alternatives (the catalogue's costs: few).
_COST_ITEMS: dict[tuple[cat.Cost, ...], Item] = {}


def cost_item(alts: tuple[cat.Cost, ...]) -> Item:
    """The item of a cost (one of ``alts``), made once for each and shared (it is a
    tuple)."""
    item = _COST_ITEMS.get(alts)
    if item is None:
        item = _COST_ITEMS[alts] = Item(alts=alts)
    return item


def settle_options(
    s: FederationState, seat: int, alts: tuple[cat.Cost, ...], most: int | None = None
) -> list[tuple[int, ...]]:
    """The payments of one of ``alts`` after which ``seat`` can still settle the gains
    and costs ahead of it (``payments.can_settle``): the pay step's options (the first
    ``most`` of them, if given)."""
    p = s.players[seat]
    h = (p.copp, p.lav, p.ocean, p.diamond)  # (holding, written out: every pay step asks)
    rest = pending_items(s, seat)
    if not rest:  # nothing follows: every payment settles
        every = cost_payments(h, alts)
        return list(every if most is None else every[:most])
    out: list[tuple[int, ...]] = []
    for pay in cost_payments(h, alts):
        if can_settle(minus(h, pay), rest):
            out.append(pay)
            if len(out) == most:
                break
    return out
