"""Round start (laws, blocked spaces), the executive phase, round end and final scoring."""

from __future__ import annotations

from random import Random

from games.federation.choices import advance_project
from games.federation.counts import level
from games.federation.laws import draw_pair
from games.federation.senate import row_winners
from games.federation.state import FederationState
from games.federation.working_copy import Ctx
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation import events as ev
from orrery_contracts.federation import steps as st


def _order(s: FederationState) -> list[int]:
    return [(s.start_player + i) % s.seats for i in range(s.seats)]


def _blocks(s: FederationState, rnd: int, rng: Random) -> tuple[list[int], list[int]]:
    n_block = cat.BLOCKED_PER_WING.get(s.seats, 0)
    n_neutral = cat.NEUTRAL_PER_ROW.get(s.seats, 0)
    blocked: list[int] = []
    for wing in range(2) if n_block else ():  # (a sample of none draws nothing)
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
    s = ctx.state
    stacks = [list(x) for x in s.law_stacks]
    nxt: list[int] = []
    if rnd <= 3:
        left, right = draw_pair(stacks, ctx.rng)
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
    turns = [_TURNS[seat] for _ in range(cat.TURNS) for seat in order]
    ctx.push(*turns, st.ExecutivePhase(round=rnd))


# Steps are frozen: the same few are made once and queued round after round.
_SEATS = range(4)  # (at most 4 seats)
_TURNS = tuple(st.Turn(seat=seat) for seat in _SEATS)
_INCOMES = tuple(st.CollectIncome(seat=seat) for seat in _SEATS)
_UPKEEPS = tuple(st.ChooseUpkeep(seat=seat) for seat in _SEATS)
_ROUND_END = (st.FundProjects(), st.ScoreRows(), st.CountLawVotes())
_CHOOSE_INCOMES = tuple(
    tuple(st.ChooseIncome(seat=seat, structure=b) for b in range(cat.N_PRODUCTION))
    for seat in _SEATS
)


def executive_phase(ctx: Ctx, rnd: int) -> None:
    order = _order(ctx.state)
    ctx.push(
        *[_INCOMES[seat] for seat in order],
        *[_UPKEEPS[seat] for seat in order],
        *_ROUND_END,
        st.EndRound(round=rnd),
    )


def collect_income(ctx: Ctx, seat: int) -> None:
    built = sorted(b for b in ctx.state.players[seat].built if b < cat.N_PRODUCTION)
    incomes = _CHOOSE_INCOMES[seat]
    ctx.push(*[incomes[b] for b in built])


def fund_projects(ctx: Ctx) -> None:
    s = ctx.state
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


def score_rows(ctx: Ctx) -> None:
    s = ctx.state
    for row in range(3):
        for seat in row_winners(s, row):
            ctx.gain(seat, pp=level(s.players[seat]), reason=_ROW_REASONS[row])


_ROW_REASONS = tuple(f"row {row}" for row in range(3))


def end_round(ctx: Ctx, rnd: int) -> None:
    s = ctx.state
    start = s.president_next if s.president_next >= 0 else s.start_player
    ctx.emit(ev.RoundEnded(round=rnd, start_player=start))
    if rnd < cat.ROUNDS:
        ctx.push(st.BeginRound(round=rnd + 1))
    else:
        ctx.push(st.FinalScoring())
