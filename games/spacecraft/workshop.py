"""The workshop: its compartments, what a part costs and who can pay for it.

``payment_problem`` is the one affordability rule: ``decide`` checks a build's payment
with it, and ``cheapest_payment`` (the payment ``legal_commands`` lists) searches only
payments it accepts (the column's token and tiles held besides it that reach the weight).
"""

from __future__ import annotations

from functools import cache, lru_cache
from itertools import combinations_with_replacement, repeat
from operator import mul

from games.rejection import BAD_RESOURCE, CANNOT_AFFORD, Rejected
from games.spacecraft import rocket
from games.spacecraft.state import SpacecraftState
from orrery_contracts.spacecraft import catalogue as cat


def payment_problem(beside: list[int], token: int, need: int, pay: list[int]) -> str | None:
    """Why paying ``pay`` (junk ids) for a part of weight ``need`` in a column requiring
    ``token`` fails, or None: the one affordability rule (``decide`` and the cheapest
    payment that ``legal_commands`` lists both use it)."""
    counts = [0] * cat.N_JUNK
    weight = 0
    for t in pay:
        counts[t] += 1
        weight += cat.JUNK_WEIGHT[t]
    for t, n in enumerate(counts):
        if n > beside[t]:
            return "cannot_afford"
    if counts[token] == 0:
        return "missing_required_junk"
    if weight < need:
        return "too_light"
    return None


def paid_ids(names: list[str]) -> list[int] | None:
    """The junk ids of a payment given by name, None when a name is no junk."""
    try:
        return [cat.JUNK_ID[name] for name in names]
    except KeyError:
        return None


def slot_problem(state: SpacecraftState, slot: int) -> Rejected | None:
    """Whether compartment ``slot`` exists and still holds a part."""
    if not 0 <= slot < len(cat.SLOTS):
        return Rejected("no_such_slot", "no such workshop compartment")
    if state.supply[slot] <= 0:
        return Rejected("sold_out", f"no {cat.SLOTS[slot].kind} left in the workshop")
    return None


def pay_problem(state: SpacecraftState, seat: int, slot: int, pay: list[str]) -> Rejected | None:
    """Whether ``pay`` (junk names) pays for a part of compartment ``slot``."""
    column, need = SLOT_COST[slot]
    token = state.tokens[column]
    held = tuple(state.beside[seat])
    if accepted_payment(held, token, need, tuple(pay)) is not None:
        return None  # the usual payment, looked up as ``play``'s build looks it up
    paid = paid_ids(pay)
    if paid is None:
        unknown = next(name for name in pay if name not in cat.JUNK_ID)
        return Rejected(BAD_RESOURCE, f"unknown junk {unknown!r}")
    reason = _payment_reason(held, token, need, tuple(paid))
    if reason == "cannot_afford":
        return Rejected(CANNOT_AFFORD, "you do not have that junk beside your board")
    if reason == "missing_required_junk":
        return Rejected("missing_required_junk", f"this column needs a {cat.JUNK_NAMES[token]}")
    if reason == "too_light":
        return Rejected(CANNOT_AFFORD, "the junk paid is too light for this part")
    return None


# Each compartment's column and part weight.
SLOT_COST = tuple((slot.column, cat.PART_WEIGHT[rocket.shape(slot.kind)]) for slot in cat.SLOTS)


@lru_cache(maxsize=4096)
def accepted_payment(
    beside: tuple[int, ...], token: int, need: int, pay: tuple[str, ...]
) -> tuple[int, ...] | None:
    """The junk ids of ``pay`` (names), sorted, when they are junk and ``payment_problem``
    accepts them for a part of weight ``need`` in a column requiring ``token`` from a
    seat holding ``beside``; None otherwise. Cached per holding and payment: a build's
    check and its event ask it once (a search pays the same way from the same holding
    again and again)."""
    paid = paid_ids(list(pay))
    if paid is None or payment_problem(list(beside), token, need, paid) is not None:
        return None
    return tuple(sorted(paid))


@lru_cache(maxsize=4096)
def _payment_reason(
    beside: tuple[int, ...], token: int, need: int, pay: tuple[int, ...]
) -> str | None:
    """``payment_problem``, cached per holding and payment (a search pays the same way
    from the same holding again and again)."""
    return payment_problem(list(beside), token, need, list(pay))


def cheapest_payment(beside: list[int], token: int, need: int) -> list[int] | None:
    """The payment (junk ids) of least total weight, fewest tiles on ties, that
    ``payment_problem`` accepts; None when it accepts no payment.

    Whether any payment exists is ``payment_problem`` on paying everything (paying more
    never hurts). The search then adds to the column's token the lightest tiles that
    reach the weight: at most ``need - weight(token)`` of them (each weighs at least 1),
    held besides the token, so ``payment_problem`` accepts the result by construction
    (the tests check it)."""
    found = _cheapest(tuple(beside), token, need)
    return None if found is None else list(found)


def _cheapest(beside: tuple[int, ...], token: int, need: int) -> tuple[int, ...] | None:
    # paying everything (payment_problem of it, written out: it holds every tile, so it
    # fails only without the token or when too light)
    weight = sum(map(mul, beside, cat.JUNK_WEIGHT))  # one count per junk type
    if not beside[token] or weight < need:
        return None
    rest = need - cat.JUNK_WEIGHT[token]
    if rest <= 0:
        return (token,)
    avail = list(beside)
    avail[token] -= 1
    # a combination uses at most ``rest`` tiles of a type: whether the seat holds it
    # depends on each count up to ``rest`` alone, so the search is made once per such
    # clamped holding (at most 4 ** 7 of them per ``rest``)
    best = _first_held(rest, tuple(map(min, avail, repeat(rest))))
    if best is not None:
        # payment_problem accepts it by construction: the token and tiles held besides it
        # (``avail``), weighing at least ``need``
        return tuple(sorted([token, *best]))
    return tuple(_everything(list(beside)))  # (never: paying everything passed above)


@cache
def _first_held(rest: int, avail: tuple[int, ...]) -> tuple[int, ...] | None:
    """The least combination of ``_combos(rest)`` that ``avail`` holds (its sorted tile
    types), None when it holds none."""
    for key, counts in _combos(rest):  # least (weight, size, combo) first
        for t, n in counts:  # (a loop, not all() of a generator made per combination)
            if avail[t] < n:
                break
        else:
            return key[2]
    return None


@lru_cache(maxsize=16)
def _combos(
    rest: int,
) -> tuple[tuple[tuple[int, int, tuple[int, ...]], tuple[tuple[int, int], ...]], ...]:
    """Every multiset of 1 to ``rest`` junk tiles weighing at least ``rest``, as its key
    (weight, size, the sorted tile types) and its count per type, least key first: the
    cheapest payment's search takes the first the seat holds."""
    found = []
    for size in range(1, rest + 1):
        for combo in combinations_with_replacement(range(cat.N_JUNK), size):
            weight = sum(cat.JUNK_WEIGHT[t] for t in combo)
            if weight >= rest:
                counts = tuple((t, combo.count(t)) for t in sorted(set(combo)))
                found.append(((weight, size, combo), counts))
    found.sort()
    return tuple(found)


def _everything(beside: list[int]) -> list[int]:
    return [t for t in range(cat.N_JUNK) for _ in range(beside[t])]
