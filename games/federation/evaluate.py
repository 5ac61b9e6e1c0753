"""``evaluate``: how good a Federation position looks to one seat, from its view.

In prestige points (games/federation/RULES.md, "Bots", declares each term): the seat's
points now; what the final scoring would add if the game ended now (medals, crystals,
diamonds, ships in the hangar, alteration tokens); what this round's end brings as the
senate stands (each row's majority scores its authority level, and the law the wings'
votes pass scores its influence on that planet, the vote weighed by the votes still in
hand); what influence brings in the laws of the rounds after this one; its authority
level, missions done and checked; minus part of the best other seat's points, final
scoring now and round's end. The round's end is where most of a game's points are made,
so a placement is judged by the majority and the vote it makes or takes away.
"""

from __future__ import annotations

from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import views as vw

INFLUENCE = 0.6  # per influence on a planet, beyond the laws (medals, project majorities)
AUTHORITY = 0.8  # per authority level: it scales the rows won in later rounds
MISSION = 1.0
CHECK = 0.3
RIVAL = 0.3
NEUTRAL = -3  # a space's seat when a neutral vote tile stands on it
_VOTES = tuple(votes for votes, _ in cat.AMBASSADORS)


def final_now(p: vw.PlayerView) -> float:
    """The final scoring's pieces a seat would get now (projects aside)."""
    medals = cat.MEDAL_PP[min(len(p.medals), len(cat.MEDAL_PP) - 1)]
    return float(medals + (p.copp + p.lav + p.ocean) // 2 + p.diamond + p.hangar + len(p.tokens))


def _die_space(view: vw.FederationView, seat: int) -> int:
    """The space the seat's die stands on, as ``determinize`` assumes it (the view does
    not say): its first voting space; -1 when its die is not on the board."""
    if not view.players[seat].die_on_board:
        return -1
    for i, space in enumerate(view.spaces):
        if space.seat == seat and not space.funding:
            return i
    return -1


def space_votes(view: vw.FederationView) -> list[int]:
    """Each senate space's votes: an ambassador's or a neutral tile's, with the die."""
    dice = {_die_space(view, seat): seat for seat in range(len(view.players))}
    out = []
    for i, space in enumerate(view.spaces):
        votes = space.votes if space.seat >= 0 or space.seat == NEUTRAL else 0
        if i in dice:
            votes += max(0, view.players[dice[i]].die)
        out.append(votes)
    return out


def _rows(view: vw.FederationView, votes: list[int]) -> list[float]:
    """Per seat: its authority level per row whose majority it holds (ties shared)."""
    n = len(view.players)
    out = [0.0] * n
    for row in range(3):
        totals = [0] * n
        neutral = 0
        for i in range(row * 6, row * 6 + 6):
            seat = view.spaces[i].seat
            if seat >= 0:
                totals[seat] += votes[i]
            elif seat == NEUTRAL:
                neutral += votes[i]
        best = max(totals)
        if best > 0 and best >= neutral:
            for seat in range(n):
                if totals[seat] == best:
                    out[seat] += view.players[seat].authority_level
    return out


def _law(view: vw.FederationView, votes: list[int]) -> list[float]:
    """Per seat: the law's points, each of this round's two laws weighed by how likely
    its wing wins the vote (its lead over the votes still in hand, ties at even)."""
    n = len(view.players)
    if len(view.laws) < 2 or min(view.laws[:2]) < 0:
        return [0.0] * n
    left_law, right_law = view.laws[0], view.laws[1]
    left = sum(v for i, v in enumerate(votes) if i % 6 < 3)
    right = sum(votes) - left
    in_hand = sum(
        v
        for p in view.players
        for v, used in zip(_VOTES, p.ambassadors_used, strict=False)
        if not used
    )
    p_left = 0.5 + 0.5 * max(-1.0, min(1.0, (left - right) / (in_hand + 1)))
    return [
        cat.LAW_PP_PER_LEVEL
        * (p_left * p.influence[left_law] + (1 - p_left) * p.influence[right_law])
        for p in view.players
    ]


def round_end(view: vw.FederationView) -> list[float]:
    """Per seat: the points this round's end brings as the senate stands, rows and law
    (none once the rows are scored: a tied law vote waiting on the start player)."""
    if view.finished or view.pending in ("law", "start_pick"):
        return [0.0] * len(view.players)
    votes = space_votes(view)
    return [r + w for r, w in zip(_rows(view, votes), _law(view, votes), strict=True)]


def engine(view: vw.FederationView, seat: int) -> float:
    """The seat's means of later points: influence (the laws of the rounds after this
    one, a fifth of them on each planet, and more), authority, missions."""
    p = view.players[seat]
    rounds_after = max(0, cat.ROUNDS - max(view.round, 1))
    per_influence = INFLUENCE + cat.LAW_PP_PER_LEVEL * rounds_after / len(cat.PLANETS)
    value = per_influence * sum(p.influence)
    value += AUTHORITY * p.authority_level
    value += MISSION * sum(p.missions) + CHECK * sum(p.checks)
    return value


def evaluate(view: vw.FederationView, seat: int) -> float:
    p = view.players[seat]
    if view.finished:
        best = max((q.pp for i, q in enumerate(view.players) if i != seat), default=0)
        return p.pp - RIVAL * best
    ends = round_end(view)
    now = [q.pp + final_now(q) + ends[i] for i, q in enumerate(view.players)]
    rival = max((v for i, v in enumerate(now) if i != seat), default=0.0)
    return now[seat] + engine(view, seat) - RIVAL * rival
