"""Federation (Explor8 2022) as an Orrery decider, 2-4 players.

Sources: the BGA game help (seed 003, Japanese) and the research notes (summarised in
games/federation/RULES.md). All content — the senate layout, track rewards, stalls, erudite
/ production / megastructure effects, start and deep-space tiles, 2-3 player blocking —
lives in ``orrery_contracts.federation.catalogue`` (ASSUMED items marked PROVISIONAL there).

Flow: the state holds a queue of steps. Automatic steps (gains, reveals, the executive
phase, scoring) run inside the ``decide`` that reaches them; a choice step waits for a
command from its seat (``status.to_move``). A choice with a single possibility is taken
at once; one with none is skipped, except a payment: a cost is paid or the action is not
allowed, so a pay step always has an option.

Costs: one function decides what a seat can pay (``rules.can_settle`` over
``rules.payments_of``): whether a placement is allowed, which stalls, structures, spy
targets and missions are offered, which payments a pay step offers and which crystals a
discard may throw away. It follows the gains and costs still ahead in the seat's action:
the crystals an envoy or a token brings are gained first and may pay the space; crystals
over 10 are discarded at once, but never one that a cost under way still needs; a
payment is offered only if the costs after it can still be paid.

``legal_commands`` lists every command ``decide`` accepts: the pending choice's options
(the very list ``decide`` checks against) or every accepted placement (``check_place`` on
each ambassador × space × side × die × token).

Rule choices where the rules are silent or ASSUMED:

* Senate layout / project columns / 2-3 player blocking and neutral votes (1 vote each,
  occupying the space; a player wins a row only with at least the neutral votes there):
  notes §1.1 and §6 proposals.
* Ambassadors on the outer space give 1 oceanium only (no side, no die, no token: a
  funding-side placement there is refused, ``funding_not_allowed``). A voting alteration
  token goes only on the voting side, a funding token on the funding side; it replaces the
  ambassador's vote; the die may join a voting ambassador with or without a token. Token
  and ambassador crystals are gained before the space's cost is paid (and the limit of 10
  applies at once, keeping what the cost needs). A placement whose action has no possible
  choice (e.g. no affordable stall) is allowed and does nothing.
* Orange: tokens on levels 3, 6, 7 (4th token, added to level 7's reward) and 8; a token
  is revealed when a player reaches the level before it. At the fork, ``straight`` jumps
  2 levels. Dead asteroids: the taker chooses 1 diamond or 3 PP.
* Blue: moving takes a token of the new level (choice of spot); at level 7 a token of
  level 7. ``token`` effects take from your current blue level (nothing at level 0).
* Yellow: one pawn per player per stall; the upper reward is the lower one ×3.
* Purple: at most one tile per colour and level per player; all tiles of a colour and
  level are the same (PROVISIONAL effects), so face-down tiles hide nothing.
* Green: megastructures take the best free slot; criteria are counted after paying.
* Authority: 9 steps (medal on step 8, deep-space tile on step 9, at most one deep-space
  tile per player); round-end payment is a choice of every seat at level >= 3.
* Income is optional per production structure (``fed.income``), resolved left to right.
* Projects: the "advance a project" choice cannot pick a project already at 9; a funded
  project at 9 overflows to the common project. Majorities need at least 1; ties split the
  summed prizes rounded down; 2 players: tie 7 each, the 2nd gets 4 only within 2 levels.
* Laws (CONFLICT): default every player scores 2 PP × influence on the law's planet;
  option ``law_effect="majority"`` scores only the top influence. Vote ties: the start
  player chooses. Round 4 reveals the laws of rounds 4 and 5, never the same planet twice.
* President's office (CONFLICT): default any one medal type you lack (a planet medal is
  the lowest remaining of that planet); option ``president_medal="intrigue"``.
* Project prizes (CONFLICT): default 16/8/4 (4 players); option ``project_prizes="en"``
  gives 12/8/4.
* The start player is drawn at random; the president (if any) starts the next round.
* The spy cannot copy an action whose every space is blocked this round.
* Content simplified from the notes' ASSUMED lists (catalogue, PROVISIONAL): start tile 2's
  power-1 token comes from blue level 1; deep-space "power-3 token" is a token from your
  blue level + 2 PP; erudite yellow-1 / green-1 ("planet" timing) give 1 coppernium / 1
  crystal of choice after your next action on that planet, since a cost rebate cannot
  happen *after* the action.

Modules: ``state`` (State + evolve), ``setup`` (random opening), ``ctx`` (decide-time
working copy), ``rules`` (pure helpers), ``effects`` (automatic steps, rooms, missions),
``choices`` (pending choices: options + application), ``turn`` (ambassador placement),
``rounds`` (round start, executive phase, final scoring), ``engine`` (decide / drain),
``legal`` (legal commands), ``views``.

Rejection codes: not_your_turn, wrong_phase, game_over, illegal_command, cannot_afford,
ambassador_used, space_taken, space_blocked, no_die, die_not_allowed, no_token,
token_not_allowed, token_mismatch, funding_not_allowed, bad_options.

Content: the setup event records the starting ships, dead asteroids, erudite stock and
medal thresholds, each round's start the neutral votes, every gain and payment its
amounts, so ``evolve`` and the state's defaults read no content data (rules version 2;
fields added since version 1 default to version 1's values).

Queue steps: one tagged Struct per kind (``orrery_contracts.federation.steps``), queued by
``fed.queued`` and dispatched by type (rules version 3). Logs of versions 1 and 2 hold
untyped ``Step(kind, a, b)`` in ``fed.pushed``; ``legacy.upcast`` reads them.
"""

from __future__ import annotations

from random import Random
from typing import Any

import msgspec

from games.federation import engine
from games.federation.ctx import Ctx
from games.federation.engine import decide as _decide
from games.federation.legal import legal_commands
from games.federation.setup import set_up
from games.federation.state import State, evolve, initial_state
from games.federation.undo import UNDO
from games.federation.views import view as _view
from games.protocol import Standing, Status
from games.rejection import BAD_OPTIONS, Rejected
from orrery_contracts.base import CommandBody, EventBody
from orrery_contracts.federation import COMMAND_TYPES, EVENT_TYPES, FederationView


class FederationOptions(msgspec.Struct, frozen=True, kw_only=True):
    law_effect: str = "all"  # "all" (seed) | "majority"
    project_prizes: str = "seed"  # "seed" (16/8/4) | "en" (12/8/4)
    president_medal: str = "any"  # "any" (seed) | "intrigue"


class FederationGame:
    name = "federation"
    title = "Federation"
    rules_version = "3"
    min_seats = 2
    max_seats = 4
    options_type = FederationOptions
    state_type = State
    command_types: tuple[type[CommandBody], ...] = COMMAND_TYPES
    event_types: tuple[type[EventBody], ...] = EVENT_TYPES
    view_type = FederationView
    undo = UNDO  # which outcomes table.undo can take back (games/undo.py)

    def validate_options(self, options: Any, seats: int) -> None:
        if not self.min_seats <= seats <= self.max_seats:
            raise Rejected(BAD_OPTIONS, "Federation is for 2 to 4 players")
        if options.law_effect not in ("all", "majority"):
            raise Rejected(BAD_OPTIONS, "law_effect must be 'all' or 'majority'")
        if options.project_prizes not in ("seed", "en"):
            raise Rejected(BAD_OPTIONS, "project_prizes must be 'seed' or 'en'")
        if options.president_medal not in ("any", "intrigue"):
            raise Rejected(BAD_OPTIONS, "president_medal must be 'any' or 'intrigue'")

    def initial_state(self, options: Any, seats: int) -> State:
        return initial_state(
            seats, options.law_effect, options.project_prizes, options.president_medal
        )

    def setup(self, options: Any, seats: int, rng: Random) -> list[EventBody]:
        ctx = Ctx(self.initial_state(options, seats), rng)
        ctx.emit(set_up(seats, rng))
        engine.start(ctx)
        return ctx.events

    def decide(self, state: State, command: CommandBody, seat: int, rng: Random) -> list[EventBody]:
        return _decide(state, command, seat, rng)

    def evolve(self, state: State, event: EventBody) -> State:
        return evolve(state, event)

    def view(self, state: State, seat: int | None) -> FederationView:
        return _view(state, seat)

    def legal_commands(self, state: State, seat: int) -> list[CommandBody]:
        return legal_commands(state, seat)

    def score(self, state: State) -> Standing:
        points = tuple(p.pp for p in state.players)
        ranks = tuple(1 + sum(1 for q in points if q > v) for v in points)
        return Standing(points=points, ranks=ranks)

    def status(self, state: State) -> Status:
        if state.finished:
            return Status(phase="finished", finished=True, round=state.round)
        step = state.queue[0] if state.queue else None
        if step is None:
            return Status(phase="setup", round=state.round)
        return Status(phase=step.kind, to_move=(step.seat,), round=state.round)


GAME = FederationGame()
