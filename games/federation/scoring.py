"""Scoring: the final standing's pieces (medals, crystals, projects...), project
majority prizes, the final scoring step, ``score`` (the protocol's standing) and
``score_parts`` (a finished game's points: those earned in play, then each final piece)."""

from __future__ import annotations

from games.federation.counts import crystals, influence, missions_count
from games.federation.state import FederationState
from games.federation.working_copy import Ctx
from games.protocol import Standing
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import events as ev
from orrery_contracts.views import ScorePart


def score(s: FederationState) -> Standing:
    """Prestige points so far; ranks by points, ties sharing the better rank."""
    points = tuple(p.pp for p in s.players)
    ranks = tuple(1 + sum(1 for q in points if q > v) for v in points)
    return Standing(points=points, ranks=ranks)


def prizes(s: FederationState, values: list[int]) -> list[int]:
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


def final_breakdown(s: FederationState) -> list[dict[str, int]]:
    rows: list[dict[str, int]] = []
    for p in s.players:
        rows.append(
            {
                "medals": cat.MEDAL_PP[len(p.medals)],
                "crystals": crystals(p) // 2,
                "diamonds": p.diamond,
                "ships": p.hangar,
                "tokens": len(p.tokens),
                "projects": 0,
            }
        )
    for col in range(6):
        if s.projects[col] < cat.PROJECT_MAX:
            continue
        planet = cat.PROJECT_CATEGORY[col]
        values = [missions_count(p) if planet < 0 else influence(p, planet) for p in s.players]
        for seat, pts in enumerate(prizes(s, values)):
            rows[seat]["projects"] += pts
    if s.projects[cat.COMMON] >= cat.PROJECT_MAX:
        for seat, pts in enumerate(prizes(s, [p.common for p in s.players])):
            rows[seat]["projects"] += pts
    return rows


def final_scoring(ctx: Ctx) -> None:
    s = ctx.state
    for seat, row in enumerate(final_breakdown(s)):
        ctx.gain(seat, pp=sum(row.values()), reason="final scoring")
    ctx.emit(ev.Finished(points=[p.pp for p in s.players]))


FINAL_PARTS = {
    "medals": "Medals",
    "crystals": "Crystals",
    "diamonds": "Diamonds",
    "ships": "Spaceships",
    "tokens": "Alteration tokens",
    "projects": "Project prizes",
}


def score_parts(s: FederationState) -> list[list[ScorePart]]:
    """A finished game's points per seat: the final scoring's pieces (counted again from
    the final state, which the final scoring does not change but for the points) and the
    prestige points earned in play before it."""
    out = []
    for p, row in zip(s.players, final_breakdown(s), strict=True):
        final = [ScorePart(key=key, label=FINAL_PARTS[key], points=row[key]) for key in FINAL_PARTS]
        earned = p.pp - sum(part.points for part in final)
        out.append([ScorePart(key="play", label="During play", points=earned), *final])
    return out
