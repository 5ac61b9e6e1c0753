"""SPACEcraft (Granna 2022): junkyard, workshop, rocket assembly, design cards, countdown.

Rules from the Japanese summary (seed 002) and the research notes; content data (junk counts,
7th junk type, workshop inventory, blueprints, design cards, advanced tracks) lives in
``contracts/orrery_contracts/spacecraft/catalogue.py`` and is PROVISIONAL there.

Rule choices where the rules are silent or the notes ASSUME (see also RULES.md):

* Rocket model: one part per grid cell; sockets as in ``rocket.py`` (noses above, engines
  below a body; fins and connectors beside a body; bodies join vertically or through a
  connector; a connector touching one body only is legal; adjacency without sockets joins
  nothing). Feasibility ("cannot be built if it cannot fit even after rearranging") is the
  closed form of the notes: stacks = max(1, noses, engines) <= bodies,
  stacks - 1 <= connectors, fins + connectors + stacks - 1 <= 2 * bodies. It is checked
  after each built part (not on the pair), so a body or connector that makes room for the
  second part must be built first; with that order every feasible pair can be built.
* A build without a layout attaches the new part to a free legal cell, else rebuilds the
  whole rocket in the automatic staircase layout; a build with a layout uses it. The rocket
  may be rearranged any number of times during the build step (``sc.arrange``).
* Visit: pawns standing on empty spaces do not block the way in; a pile with a pawn cannot
  be entered. Search: adjacent pile or the farthest reachable pile per direction.
* Leave may be chosen whenever the pawn is in the junkyard; the build step (0-2 parts,
  rearranging), then the design step (basic: fulfil 0-2, or reserve 1 when none was
  fulfilled, which ends the design actions; advanced: place 0-1 marker); ``sc.end_turn``
  finishes. Paying more junk than needed is allowed (surplus lost).
* Colour conditions: a two-coloured part counts once for EACH of its colours. "Same colour"
  in goals: the parts share at least one colour; grey matches nothing. "Identical" = same
  shape and colour variant. The grey body counts as a body everywhere.
* Countdown: checked after each build (first player whose rocket meets the blueprint during
  normal play); at the start of each of the holder's later turns one card goes; when only
  the launch card is left, the final round starts with the holder.
* Other endings: after a turn's refill an upper-row slot is empty (deck exhausted): the final
  round starts with the player whose turn it was (they take one more, final, leave); a player
  outside the junkyard with no pile to visit at the start of their turn: final round starts
  with them. No countdown trigger during the final round.
* The blueprint 5 points go to every player whose final rocket meets it. Unfulfilled
  reserved cards score nothing. Tie-break: most unused junk, then shared rank.
* First player: seat 0. Personal goals: two dealt per seat (8 goals, 4 seats: all dealt),
  chosen simultaneously; others see a seat's choice only once all have chosen.
* Advanced card numbers (PROVISIONAL, catalogue): 47 nose, 48 white, 49 fin, 50 body,
  51 connector, 52 engine, 53 blue, 54 gold, 55 red, so that the seed's scoring example
  holds: its two rightmost cards, No.52 and No.55, are subjects Agatha does not score
  (rules version 2; until then 48 was the engine card and 52 the white one).

``decide`` validates with ``legal.problem`` alone (a gate, then per-parameter
predicates) and ``legal_commands`` keeps only the candidates those same predicates
accept: exact for every command but two with free-form parameters,
``sc.build`` (one build per compartment that some payment can pay, with the cheapest
payment) and ``sc.arrange`` (the automatic layout, once per build step). The setup events
carry the workshop stock and the advanced markers, ``sc.part_built`` what was paid, so
``evolve`` reads no content data (fields added in rules version 2 default to version 1's
values).

Modules (the same skeleton as every game): ``game.py`` the game object, ``state.py``,
``setup.py``, ``decide.py``, ``evolve.py``, ``legal.py``, ``views.py`` (view, status),
``scoring.py``, ``undo.py``; the rules by turn step: ``goals.py``, ``action_step.py``
(visit, search, leave; movement in ``junkyard.py``), ``build_step.py`` (build, arrange;
costs in ``workshop.py``, geometry in ``rocket.py``), ``design_step.py`` (fulfil,
reserve, mark), ``turn_end.py`` (refill, countdown, final round, the end). The options
are declared in ``contracts/orrery_contracts/spacecraft/options.py``.

Rejection codes: not_your_turn, wrong_phase, game_over, illegal_command, already_chosen,
not_an_option, final_leave_only, in_junkyard, not_in_junkyard, illegal_move, board_full,
too_heavy, must_visit, build_step_over, build_limit, no_such_slot, sold_out, bad_payment,
cannot_afford, missing_required_junk, layout_mismatch, invalid_layout, does_not_fit,
wrong_variant, already_reserved, design_limit, card_not_available, requirements_not_met,
already_fulfilled, reserve_full, already_marked, no_markers, card_full; the table's
bad_options for a variant other than the two, bad_seats for a seat count outside 2-4.
"""

from games.spacecraft.game import GAME
from orrery_contracts.spacecraft.options import SpacecraftOptions

__all__ = ["GAME", "SpacecraftOptions"]
