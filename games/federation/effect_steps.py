"""Catalogue effects as queue steps (an effect's ``(key, n)`` pairs, each translated by
``orrery_contracts.federation.steps.effect_step``), and the pay step of a cost.

The steps of an effect are a pure function of the seat, the effect, the icon and the
factor, and steps are frozen: each is made once (cached) and shared by every queue that
holds it."""

from __future__ import annotations

from functools import cache, lru_cache

from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import steps as st


@lru_cache(maxsize=4096)
def effect_steps(
    seat: int, effect: cat.Effect, icon: int = -1, times: int = 1
) -> tuple[st.AnyStep, ...]:
    """The steps of a catalogue effect (its ``(key, n)`` pairs, in order), ``times`` over."""
    return tuple([st.effect_step(seat, key, n * times, icon) for key, n in effect])


@cache  # (a few costs for each seat)
def pay_step(seat: int, *alts: cat.Cost) -> st.PayCost:
    """The pay step of one of ``alts`` (cached like the effects' steps: nothing changes a
    step, its alternatives included)."""
    step = st.PayCost(seat=seat, alternatives=[list(a) for a in alts])
    _COSTS[id(step)] = (step, alts)
    return step


# The catalogue costs of each pay step made here, by the step's identity (the step is
# held too, so its identity is never another's).
_COSTS: dict[int, tuple[st.PayCost, tuple[cat.Cost, ...]]] = {}


def costs_of(step: st.PayCost) -> tuple[cat.Cost, ...] | None:
    """The alternatives of a pay step made by ``pay_step`` as catalogue tuples (None for a
    step made elsewhere: read from a log, or by hand)."""
    found = _COSTS.get(id(step))
    return found[1] if found is not None and found[0] is step else None
