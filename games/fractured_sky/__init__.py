"""Fractured Sky (IV Studio) for 1-5 players as a decider (1-2 players with AIs).

The same skeleton as every game: ``game`` (the GAME object: definition and wiring
only), ``state`` (``FracturedSkyState`` and lookups), ``setup`` (the initial state and
opening events), ``decide`` (one function per command), ``evolve`` (one ``match`` over
the events), ``legal`` (the predicates ``decide`` checks, their rejection codes, and
``legal_commands``), ``views``, ``scoring`` (``score`` and the final ranking), ``undo``;
and the rules of this game: ``status`` (who is to move), ``turns`` (turn order), ``ai`` (automated
opponents), ``round_end`` (reveal, objective, region rewards, cleanup), ``power`` (power
and ranking) and ``objectives``. The options (``FracturedSkyOptions``), commands, events,
views and the static content (``catalogue``) live in ``orrery_contracts.fractured_sky``.

``decide`` validates with ``legal.problem`` alone (``gate`` for the phase and turn, then
per-parameter predicates) and ``legal_commands`` lists exactly the candidates those same
predicates accept. Events carry what was paid (buildings, skimmers, scouting,
peeks, trades) and the setup event the content the fold needs (market-card threshold,
stardust supply, board size), so ``evolve`` never reads the catalogue and an old log
replays the same after the content data changes (rules version 2; fields added since
version 1 default to version 1's values).

Rule choices where the rules are silent or the research notes ASSUMED something:

1. Board, resource pairs, platforms/bridges, objective cards and slot icons, the gold
   icon on slot 5 of the 5-slot side and 40 stardust tokens: the notes' ASSUMED data,
   kept in the catalogue and marked provisional.
2. The first player is drawn at random in ``setup`` (recorded); the others follow in
   seat order ("clockwise"). Covered gold icons pay 1 gold at setup too.
3. With 3 participants, bridges to the removed regions are ignored; those platforms
   stay buildable. Platforms hold any number of buildings.
4. Chips over 10 in total: every chip is reduced by the excess, floored at 0.
5. Power in a region = chip (after the reduction) + 1 per own fortress bridged to the
   region (only with an own airship there) + 1 per own skimmer there. A participant is
   eligible for a rank with power >= 1, so a 0-chip airship plus a skimmer is eligible;
   ineligible participants take no rank. Markets pay only when the airship's own power
   (chip + fortresses) is >= 1. A player may put several skimmers in one region.
6. Ranks: the best power takes the best available tier (stardust, only when the region
   holds stardust; then both resources; then one of choice); ties go to the earlier
   slot in the end-of-round turn order (the column just filled). The rank-1 winner
   takes every stardust token on the region; unclaimed stardust stays.
7. "One resource of choice" and each market payout are pending choices answered with
   ``fs.choose_resource`` (any seat order) when the region's two resources differ;
   double regions (e.g. iron + iron) pay without asking.
8. Round end order: flip the leftmost objective, reveal secret cards (place stardust),
   reveal chips; score the objective (before region rewards; it is measured at the
   reveal, e.g. "most resources held" counts resources before the rewards); resolve
   regions left to right; answer choices; cleanup.
9. Scouting is two steps: ``fs.scout`` pays and shows the card privately, then
   ``fs.scout_take`` takes one of its resources (public) or nothing; so a rejection can
   never tell you anything about a card you have not paid to see. Re-scouting a card
   someone else scouted is allowed; your own twice is not.
10. Exploration draws come from the top of the unused secret deck and stay private
    until cleanup. Resources are public (cubes on the tray); the shield hides chips.
11. After the third airship the player picks a free slot numbered <= player count with
    ``fs.choose_slot``; when exactly one is free it is taken automatically.
12. The free trade (2 resources of any kind for 1 of any kind, "at any time") is allowed
    whenever the game runs and the seat holds the resources: on or off its turn, in the
    start phase once its resources are chosen, during its own scout or slot step and while
    reward choices are pending (not for AIs, not after the end). A trade never makes a
    seat "to move": ``status().to_move`` lists only seats owing their required action,
    while ``legal_commands`` lists a seat's trades wherever they are accepted (for a seat
    not to move, only trades). Each trade costs the seat one resource, so random legal
    play (bots, moves made for seats that left) still ends.
13. The game ends after round 5's rewards; score = stardust, ties to the final turn order.

1-2 players (automated opponents, "AIs"): participants ``seats``.. are AIs (2 in solo,
1 with two players), seated last; 3 participants use the 3-slot side and remove Frosty
Fjord and Wayward Wood. Their turns run inside the ``decide`` of the command that hands
them the turn; all their randomness (action deck order, set-aside and face-down tokens)
is drawn at round setup and recorded, so AI turns draw nothing. Choices:

14. The action deck (14 cards), compasses and 9 tokens per AI are the notes' ASSUMED
    data (catalogue). A placed airship takes the top face-down token.
15. Compass tie-break: largest projection on the large star, then the small star, then
    the leftmost; scouting uses the east/west sign of the large star (the small star
    when it points due north/south; otherwise the westmost card).
16. AI Advantage counts the AI's own buildings: for airships, its fortresses and markets
    bridged to the region; for builds, its buildings of the same type on the platform.
    Build rule (A) "near the most stardust" = the most stardust in one bridged region.
17. An AI never pays, draws no exploration card, cannot scout a card it scouted or one
    already opened, and has 5 skimmers; a card it cannot carry out is flipped and the
    next one tried (if the deck ran out it would simply place an airship).
18. Rotation: among its tokens in regions holding stardust after the secret reveal, the
    highest high face (ties: leftmost) turns high (two on hard), all others low.
19. AI resources (turn slot 3 gold, market payouts) go on its market card (medium: 6,
    hard: 5 per stardust, converted at once); on easy they are ignored.
20. The 1-2 player scouting rule counts resources taken by people plus one per AI scout;
    the card is revealed and its stardust placed at once, and it places no more at the
    round-end reveal. Solo has no objectives; with two players the AI can win them.
21. Score ranks include the AIs (a person beaten by both AIs ranks 3rd).
"""

from games.fractured_sky.game import GAME

__all__ = ["GAME"]
