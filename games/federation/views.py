"""Per-seat views. Everything is public except face-down track tokens, the deep-space
tiles and the order of the law stacks (sizes only), which no seat sees: every seat's
view is the spectator's with its own ``seat`` (:func:`views` builds it once per table).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from games.federation.counts import influence, level
from games.federation.state import FederationState
from orrery_contracts.federation import catalogue as cat
from orrery_contracts.federation.views import FederationView, PlayerView, SpaceView


def view(s: FederationState, seat: int | None) -> FederationView:
    front = s.queue[0] if s.queue and not s.finished else None
    players = [
        PlayerView(
            copp=p.copp,
            lav=p.lav,
            ocean=p.ocean,
            diamond=p.diamond,
            pp=p.pp,
            hangar=p.hangar,
            reserve=cat.MAX_SHIPS - p.hangar - sum(p.missions),
            authority_step=p.authority_step,
            authority_level=level(p),
            die=p.die,
            die_on_board=p.die_on_board,
            ambassadors_used=list(p.used),
            checks=list(p.checks),
            missions=list(p.missions),
            tile_missions=p.tile_missions,
            medals=list(p.medals),
            orange=p.orange,
            blue=p.blue,
            stalls=list(p.stalls),
            erudite=list(p.erudite),
            erudite_used=list(p.erudite_used),
            built=list(p.built),
            tokens=list(p.tokens),
            common=p.common,
            influence=[influence(p, k) for k in range(5)],
            start_tile=p.start_tile,
            deep_space=list(p.deep_space),
        )
        for p in s.players
    ]
    spaces = [
        SpaceView(
            icon=cat.SPACE_ICON[i],
            seat=s.space_seat[i],
            votes=s.space_votes[i],
            funding=s.space_funding[i],
            token=s.space_token[i],
        )
        for i in range(cat.N_SPACES)
    ]
    orange = [t if t < 0 or s.orange_shown[i] else -2 for i, t in enumerate(s.orange_tokens)]
    blue = [
        [t if t < 0 or s.blue_shown[lvl + 1] else -2 for t in row]
        for lvl, row in enumerate(s.blue_tokens)
    ]
    return FederationView(
        seat=seat,
        round=s.round,
        start_player=s.start_player,
        president_next=s.president_next,
        pending=front.kind if front else ("finished" if s.finished else ""),
        pending_seat=front.seat if front else -1,
        spaces=spaces,
        outer=[p.outer for p in s.players],
        projects=list(s.projects),
        orange_tokens=orange,
        dead_asteroids=s.dead_left,
        blue_tokens=blue,
        erudite_stock=list(s.erudite_stock),
        production=list(s.production),
        mega=[list(m) for m in s.mega],
        mega_filled=list(s.mega_filled),
        laws=list(s.laws),
        next_laws=list(s.next_laws),
        law_stacks=[len(x) for x in s.law_stacks],
        start_tiles=list(s.start_tiles),
        deep_space_left=len(s.deep_space),
        medal_supply={k: len(v) for k, v in s.medal_supply.items()},
        players=players,
        finished=s.finished,
    )


def views(s: FederationState, viewers: Sequence[int | None]) -> list[FederationView]:
    """:func:`view` of each viewer: nothing depends on the viewer but ``seat``."""
    shared = view(s, None)
    return [msgspec.structs.replace(shared, seat=seat) for seat in viewers]
