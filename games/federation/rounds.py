"""Round start (laws, blocked spaces), the executive phase, round end and final scoring."""

from __future__ import annotations

from random import Random

from games.federation.choices import advance_project
from games.federation.ctx import Ctx
from games.federation.rules import (
    crystals,
    influence,
    level,
    missions_count,
    prizes,
    space_votes,
    wing_votes,
)
from games.federation.state import State
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import events as ev
from orrery_contracts.federation import steps as st


def _order(s: State) -> list[int]:
    return [(s.start_player + i) % s.seats for i in range(s.seats)]


def _draw_pair(stacks: list[list[int]], rng: Random) -> tuple[int, int]:
    left = stacks[0].pop()
    aside: list[int] = []
    while stacks[1][-1] == left:
        aside.append(stacks[1].pop())
    right = stacks[1].pop()
    if aside:
        stacks[1].extend(aside)
        rng.shuffle(stacks[1])
    return left, right


def _blocks(s: State, rnd: int, rng: Random) -> tuple[list[int], list[int]]:
    n_block = cat.BLOCKED_PER_WING.get(s.seats, 0)
    n_neutral = cat.NEUTRAL_PER_ROW.get(s.seats, 0)
    blocked: list[int] = []
    for wing in range(2):
        for row in rng.sample(range(3), n_block):
            blocked.append(row * 6 + wing * 3 + rng.randrange(3))
    neutral: list[int] = []
    for row in range(3):
        wings = [0, 1] if n_neutral >= 2 else [(row + rnd) % 2] if n_neutral == 1 else []
        for wing in wings:
            free = [row * 6 + wing * 3 + c for c in range(3)]
            free = [i for i in free if i not in blocked]
            neutral.append(rng.choice(free))
    return sorted(blocked), sorted(neutral)


def begin_round(ctx: Ctx, rnd: int) -> None:
    s = ctx.s
    stacks = [list(x) for x in s.law_stacks]
    nxt: list[int] = []
    if rnd <= 3:
        left, right = _draw_pair(stacks, ctx.rng)
    elif rnd == 4:
        lefts, rights = stacks[0][-2:], stacks[1][-2:]
        stacks = [[], []]
        ctx.rng.shuffle(lefts)
        pairings = [(rights[0], rights[1]), (rights[1], rights[0])]
        ok = [pr for pr in pairings if pr[0] != lefts[0] and pr[1] != lefts[1]]
        r4, r5 = ctx.rng.choice(ok)
        left, right = lefts[0], r4
        nxt = [lefts[1], r5]
    else:
        left, right = s.next_laws
    blocked, neutral = _blocks(s, rnd, ctx.rng)
    ctx.emit(
        ev.RoundStarted(
            round=rnd,
            left_law=left,
            right_law=right,
            laws=stacks,
            next_laws=nxt,
            blocked=blocked,
            neutral=neutral,
            neutral_votes=cat.NEUTRAL_VOTES,
        )
    )
    order = _order(s)
    turns = [st.Turn(seat=seat) for _ in range(cat.TURNS) for seat in order]
    ctx.push(*turns, st.ExecutivePhase(round=rnd))


def executive_phase(ctx: Ctx, rnd: int) -> None:
    order = _order(ctx.s)
    ctx.push(
        *[st.CollectIncome(seat=seat) for seat in order],
        *[st.ChooseUpkeep(seat=seat) for seat in order],
        st.FundProjects(),
        st.ScoreRows(),
        st.CountLawVotes(),
        st.EndRound(round=rnd),
    )


def collect_income(ctx: Ctx, seat: int) -> None:
    built = sorted(b for b in ctx.s.players[seat].built if b < cat.N_PRODUCTION)
    ctx.push(*[st.ChooseIncome(seat=seat, structure=b) for b in built])


def fund_projects(ctx: Ctx) -> None:
    s = ctx.s
    for col in range(6):
        for row in range(3):
            i = row * 6 + col
            seat = s.space_seat[i]
            if seat < 0 or not s.space_funding[i]:
                continue
            if s.projects[col] < cat.PROJECT_MAX:
                ctx.emit(ev.ProjectAdvanced(project=col))
            elif s.projects[cat.COMMON] < cat.PROJECT_MAX:
                advance_project(ctx, cat.COMMON, seat)


def row_winners(s: State, row: int) -> list[int]:
    totals = [0] * s.seats
    neutral = 0
    for i in range(row * 6, row * 6 + 6):
        seat = s.space_seat[i]
        if seat >= 0:
            totals[seat] += space_votes(s, i)
        elif seat == -3:
            neutral += s.space_votes[i]
    best = max(totals)
    if best <= 0 or best < neutral:
        return []
    return [seat for seat in range(s.seats) if totals[seat] == best]


def score_rows(ctx: Ctx) -> None:
    s = ctx.s
    for row in range(3):
        for seat in row_winners(s, row):
            ctx.gain(seat, pp=level(s.players[seat]), reason=f"row {row}")


def count_law_votes(ctx: Ctx) -> None:
    left, right = wing_votes(ctx.s)
    if left == right:
        ctx.push(st.ChooseLaw(seat=ctx.s.start_player))
    else:
        ctx.push(st.PassLaw(side=0 if left > right else 1))


def pass_law(ctx: Ctx, side: int) -> None:
    s = ctx.s
    planet = s.laws[side]
    left, right = wing_votes(s)
    ctx.emit(ev.LawPassed(side=side, planet=planet, left_votes=left, right_votes=right))
    levels = [influence(p, planet) for p in s.players]
    if s.law_mode == "majority":
        top = max(levels)
        levels = [v if v == top else 0 for v in levels]
    for seat, v in enumerate(levels):
        ctx.gain(seat, pp=cat.LAW_PP_PER_LEVEL * v, reason="law")


def end_round(ctx: Ctx, rnd: int) -> None:
    s = ctx.s
    start = s.president_next if s.president_next >= 0 else s.start_player
    ctx.emit(ev.RoundEnded(round=rnd, start_player=start))
    if rnd < cat.ROUNDS:
        ctx.push(st.BeginRound(round=rnd + 1))
    else:
        ctx.push(st.FinalScoring())


def final_breakdown(s: State) -> list[dict[str, int]]:
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
    s = ctx.s
    for seat, row in enumerate(final_breakdown(s)):
        ctx.gain(seat, pp=sum(row.values()), reason="final scoring")
    ctx.emit(ev.Finished(points=[p.pp for p in s.players]))
