"""Fractured Sky (IV Studio) for 3-5 players as a decider.

Modules: ``state`` (the state and lookups), ``setup`` (options, opening events),
``actions`` (decide: turn actions and their rejection codes), ``round_end`` (reveal,
objective, region rewards, cleanup), ``power`` (power and ranking), ``objectives``,
``evolve``, ``views``, ``legal``, ``game`` (the GAME object). Static content lives in
``contracts.fractured_sky.catalogue``.

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
12. Free trades (2 for 1) are allowed only while it is your turn to act.
13. The game ends after round 5's rewards; score = stardust, ties to the final turn order.

An automated opponent (issue 4) would be a participant numbered ``seats`` and upward:
turn order, slots and rewards already run over participants.
"""

from games.fractured_sky.game import GAME, FracturedSky

__all__ = ["GAME", "FracturedSky"]
