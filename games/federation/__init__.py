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

Costs: one function decides what a seat can pay (``payments.can_settle`` over
``payments.payments_of``): whether a placement is allowed, which stalls, structures, spy
targets and missions are offered, which payments a pay step offers and which crystals a
discard may throw away. It follows the gains and costs still ahead in the seat's action:
the crystals an envoy or a token brings are gained first and may pay the space; crystals
over 10 are discarded at once, but never one that a cost under way still needs; a
payment is offered only if the costs after it can still be paid.

``legal_commands`` lists every command ``decide`` accepts: the pending choice's options
(the very list ``decide`` checks against) or every accepted placement (``legal.place_problem`` on
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

Modules (the skeleton every game shares, then Federation's own rules):
``game`` (the game object), ``state`` (``FederationState``), ``setup`` (the opening),
``decide``, ``evolve`` (one ``match`` on the event type), ``legal``
(``problem``, ``legal_commands``), ``views``, ``scoring`` (standing, final scoring, project prizes),
``undo``; ``automatic`` (running the queue: automatic steps by type, the "at once"
rules), ``choices`` (pending choices: options + answer, by step type), ``placement``
(the ambassador placement), ``effects`` (gains, planet actions, rooms, missions),
``effect_steps`` (catalogue effects as typed steps), ``payments`` (what a seat can pay,
``can_settle``), ``counts`` (levels, crystals, influence, criteria), ``senate`` (votes,
row winners), ``laws``, ``rounds`` (round start, executive phase, round end),
``working_copy`` (the decide-time copy that folds each event it emits). Options are
``orrery_contracts.federation.options.FederationOptions`` (``Literal`` fields: msgspec
refuses any other value on decode, ``bad_options``).

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

from games.federation.game import GAME
from orrery_contracts.federation import FederationOptions

__all__ = ["GAME", "FederationOptions"]
