"""Small pure helpers over the state: levels, influence, payments, criteria."""

from __future__ import annotations

from contracts.federation import catalogue as cat
from games.federation.state import Player, State


def level(p: Player) -> int:
    return cat.LEVEL_OF_STEP[p.auth]


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


def payments(p: Player, alts: list[list[int]] | tuple[cat.Cost, ...]) -> list[tuple[int, ...]]:
    """Every exact payment (copp, lav, ocean, diamond) of one of the alternative costs.

    A cost is (copp, lav, ocean, any crystal, diamond); oceanium may replace copp or lav.
    """
    found: list[tuple[int, ...]] = []
    for cost in alts:
        c0, l0, o0, a0, d0 = cost
        if d0 > p.diamond:
            continue
        total = c0 + l0 + o0 + a0
        for c in range(min(p.copp, total) + 1):
            for lv in range(min(p.lav, total - c) + 1):
                o = total - c - lv
                if o > p.ocean or o < o0:
                    continue
                spare = o - o0
                if spare < max(0, c0 - c) + max(0, l0 - lv):
                    continue
                pay = (c, lv, o, d0)
                if pay not in found:
                    found.append(pay)
    return found


def can_pay(copp: int, lav: int, ocean: int, diamond: int, cost: cat.Cost) -> bool:
    c0, l0, o0, a0, d0 = cost
    if d0 > diamond or o0 > ocean:
        return False
    ocean -= o0
    need_c = max(0, c0 - copp)
    need_l = max(0, l0 - lav)
    if need_c + need_l > ocean:
        return False
    return copp + lav + ocean - (c0 + l0) >= a0


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
    seat = s.sp_seat[i]
    votes = s.sp_votes[i]
    if seat >= 0 and s.sp_die[i]:
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
