"""``view``: what one seat (or a spectator, ``seat=None``) may know.

Public: the board (stardust, airships with their chip class, skimmers, buildings), the
turn track, every player's resources, stardust and supplies, scout and peek marks
(including the resource a scout took), revealed objectives and secret cards, and the
round results. Private to a seat: its own chip values and unused chips, the secret
cards it scouted, the objectives it peeked, its exploration draws and its pending
resource choices (the choices themselves are derived from public results, but only the
owner answers them). Chip values of others become public at the round-end reveal.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from games.fractured_sky.state import PHASE_FINISHED, FracturedSkyState, chip_class, unused_chips
from orrery_contracts.fractured_sky import catalogue as cat
from orrery_contracts.fractured_sky import views as vw
from orrery_contracts.fractured_sky.events import Choice

_CLASS = {v: chip_class(v) for v in range(cat.POWER_LIMIT + 1)}
_PLATFORMS = cat.PLATFORM_COUNT


def _regions(state: FracturedSkyState, seat: int | None) -> list[vw.RegionView]:
    """Every region as ``seat`` sees it: the chip values on airships are hidden, but the
    viewer's own (until the round-end reveal shows every chip). One pass over each
    participant's row places its airships, in seat order, and the skimmers come as the
    columns of their table (no comprehension per region)."""
    revealed = state.revealed
    humans = state.seats
    explorer = state.explorer
    ships: dict[int, list[vw.AirshipView]] = {region: [] for region in state.regions}
    for s, row in enumerate(state.airships):
        shown_row = state.chips_revealed[s] if revealed else row if s == seat else None
        human = s < humans
        for region, here in ships.items():
            chip = row[region]
            if chip >= 0:
                here.append(
                    vw.AirshipView(
                        seat=s,
                        chip_class=_CLASS[chip] if human else "token",
                        chip=None if shown_row is None else shown_row[region],
                        explorer=explorer[region] == s,
                    )
                )
    skimmers = _columns(state.skimmers)
    board = state.board_stardust
    return [
        vw.RegionView(
            index=region,
            stardust=board[region],
            airships=here,
            skimmers=skimmers[region] if skimmers else [],
        )
        for region, here in ships.items()
    ]


def _columns(rows: list[list[int]]) -> list[list[int]]:
    """The columns of a table given by its rows (``[]`` for no rows)."""
    return [*map(list, zip(*rows, strict=True))]


def _players(state: FracturedSkyState) -> list[vw.PlayerView]:
    slot_of = {s: i + 1 for i, s in enumerate(state.next_slots) if s >= 0}
    pending = [0] * state.participants
    for p in state.pending:
        pending[p.seat] += 1
    out = []
    for s in range(state.participants):
        gold, iron, wood = state.resources[s]
        out.append(
            vw.PlayerView(
                seat=s,
                gold=gold,
                iron=iron,
                wood=wood,
                stardust=state.stardust[s],
                airships_left=cat.AIRSHIPS - state.ships[s],
                fortresses_left=cat.FORTRESS_SUPPLY - sum(state.fortresses[s]),
                markets_left=cat.MARKET_SUPPLY - sum(state.markets[s]),
                skimmers_left=cat.SKIMMER_SUPPLY - sum(state.skimmers[s]),
                started=state.started[s],
                next_slot=slot_of.get(s, 0),
                pending_choices=pending[s],
                ai=s >= state.seats,
            )
        )
    return out


def _secret_cards(state: FracturedSkyState, seat: int | None) -> list[vw.SecretCardView]:
    marks: list[list[vw.ScoutMark]] = [[] for _ in state.secret_cards]
    known: set[int] = set()
    for record in state.scouts:
        marks[record.card].append(
            vw.ScoutMark(
                seat=record.seat,
                resource=cat.RESOURCES[record.resource] if record.resource >= 0 else None,
            )
        )
        if record.seat == seat:
            known.add(record.card)
    return [
        vw.SecretCardView(
            position=i,
            scouts=marks[i],
            region=region if (state.revealed or state.secret_open[i] or i in known) else None,
            opened=state.secret_open[i],
        )
        for i, region in enumerate(state.secret_cards)
    ]


def _objectives(state: FracturedSkyState, seat: int | None) -> list[vw.ObjectiveView]:
    peeked_by: list[list[int]] = [[] for _ in state.objectives]
    for s, positions in enumerate(state.peeks):
        for position in positions:
            peeked_by[position].append(s)
    out = []
    for i, card in enumerate(state.objectives):
        revealed = i < state.objectives_revealed
        visible = revealed or (seat is not None and seat in peeked_by[i])
        out.append(
            vw.ObjectiveView(
                position=i,
                icon=cat.OBJECTIVE_SLOT_ICONS[i],
                revealed=revealed,
                peeked_by=peeked_by[i],
                card=card if visible else None,
            )
        )
    return out


def _own_fields(
    state: FracturedSkyState, seat: int | None
) -> tuple[list[int] | None, list[int] | None, list[Choice] | None]:
    """The fields only a seat itself is shown: its unused chips, its exploration draws
    and its pending resource choices (None for a spectator)."""
    if seat is None or not 0 <= seat < state.seats:
        return None, None, None
    return unused_chips(state, seat), list(state.drawn[seat]), _own_choices(state, seat)


def _own_choices(state: FracturedSkyState, seat: int) -> list[Choice]:
    if not state.pending:  # the usual case: no comprehension made for nothing
        return []
    return [
        Choice(
            seat=p.seat,
            region=p.region,
            options=[cat.RESOURCES[r] for r in p.options],
            reason=p.reason,
        )
        for p in state.pending
        if p.seat == seat
    ]


def view(state: FracturedSkyState, seat: int | None) -> vw.FracturedSkyView:
    my_chips, my_drawn, my_choices = _own_fields(state, seat)
    return vw.FracturedSkyView(
        seat=seat,
        round=state.round,
        phase=state.phase,
        turn=state.turn,
        seats=state.seats,
        regions_active=list(state.regions),
        slot_count=state.slot_count,
        order=list(state.order),
        next_slots=list(state.next_slots),
        public_card=state.public_card,
        stardust_supply=state.supply,
        revealed=state.revealed,
        regions=_regions(state, seat),
        platforms=_platforms(state),
        players=_players(state),
        secret_cards=_secret_cards(state, seat),
        objectives=_objectives(state, seat),
        objective_results=list(state.objective_results),
        region_results=list(state.region_results),
        scouting=state.scouting,
        finished=state.phase == PHASE_FINISHED,
        difficulty=state.difficulty if state.participants > state.seats else None,
        ais=_ais(state),
        my_chips=my_chips,
        my_drawn=my_drawn,
        my_choices=my_choices,
    )


def _platforms(state: FracturedSkyState) -> list[vw.PlatformView]:
    fortresses = _columns(state.fortresses)
    markets = _columns(state.markets)
    if not fortresses:  # no participants yet
        return [vw.PlatformView(index=p, fortresses=[], markets=[]) for p in range(_PLATFORMS)]
    return [
        vw.PlatformView(index=p, fortresses=fortresses[p], markets=markets[p])
        for p in range(_PLATFORMS)
    ]


def views(state: FracturedSkyState, viewers: Sequence[int | None]) -> list[vw.FracturedSkyView]:
    """:func:`view` of each viewer, the public parts built once: a seat's view is the
    spectator's with what depends on the viewer replaced for it (the regions where it has
    an airship, the secret cards it scouted, the objectives it peeked, its own fields)."""
    shared = view(state, None)
    return [shared if seat is None else _seat_view(state, seat, shared) for seat in viewers]


def _seat_view(
    state: FracturedSkyState, seat: int, shared: vw.FracturedSkyView
) -> vw.FracturedSkyView:
    regions = shared.regions
    if not state.revealed and 0 <= seat < state.participants:
        # a region with the seat's airship shows it its chip (before the reveal only)
        row = state.airships[seat]
        regions = list(regions)
        for i, region in enumerate(state.regions):
            chip = row[region]
            if chip >= 0:
                regions[i] = _own_chip(regions[i], seat, chip)
    secret_cards = _own_secret_cards(state, seat, shared.secret_cards)
    objectives = _own_objectives(state, seat, shared.objectives)
    if not 0 <= seat < state.seats:  # no fields of its own: the spectator's Nones
        return msgspec.structs.replace(
            shared, seat=seat, regions=regions, secret_cards=secret_cards, objectives=objectives
        )
    return msgspec.structs.replace(
        shared,
        seat=seat,
        regions=regions,
        secret_cards=secret_cards,
        objectives=objectives,
        my_chips=unused_chips(state, seat),
        my_drawn=list(state.drawn[seat]),
        my_choices=_own_choices(state, seat),
    )


def _own_secret_cards(
    state: FracturedSkyState, seat: int, public: list[vw.SecretCardView]
) -> list[vw.SecretCardView]:
    """The spectator's secret cards as ``seat`` sees them (what :func:`_secret_cards`
    gives the seat): a hidden card it scouted shows its region."""
    if state.revealed:
        return public
    cards = public
    for record in state.scouts:
        card = record.card
        if record.seat == seat and not state.secret_open[card] and cards[card].region is None:
            if cards is public:
                cards = list(public)
            cards[card] = msgspec.structs.replace(cards[card], region=state.secret_cards[card])
    return cards


def _own_objectives(
    state: FracturedSkyState, seat: int, public: list[vw.ObjectiveView]
) -> list[vw.ObjectiveView]:
    """The spectator's objectives as ``seat`` sees them (what :func:`_objectives` gives
    the seat): an unrevealed objective it peeked shows its card."""
    if not 0 <= seat < len(state.peeks):
        return public
    objectives = public
    for position in state.peeks[seat]:
        if position >= state.objectives_revealed and objectives[position].card is None:
            if objectives is public:
                objectives = list(public)
            objectives[position] = msgspec.structs.replace(
                objectives[position], card=state.objectives[position]
            )
    return objectives


def _own_chip(public: vw.RegionView, seat: int, chip: int) -> vw.RegionView:
    """The spectator's region as ``seat`` sees it before the reveal: its own airship
    there shows its chip (what :func:`_region` gives the seat; nothing else differs)."""
    ships = list(public.airships)
    for i, ship in enumerate(ships):
        if ship.seat == seat:
            ships[i] = msgspec.structs.replace(ship, chip=chip)
    return msgspec.structs.replace(public, airships=ships)


def _ais(state: FracturedSkyState) -> list[vw.AiView]:
    if state.participants <= state.seats:  # no automated opponents (3 or more players)
        return []
    threshold = cat.AI_MARKET_THRESHOLD[state.difficulty]
    allowed = cat.AI_BUILDINGS[state.difficulty]
    out = []
    for index in range(state.participants - state.seats):
        seat = state.seats + index
        out.append(
            vw.AiView(
                seat=seat,
                name=cat.AI_NAMES[index],
                flipped=list(state.ai_flipped[index]),
                cards_left=len(state.ai_deck[index]),
                out_tokens=list(state.ai_out[index]),
                tally=state.ai_tally[index],
                threshold=threshold,
                markets_left=allowed - sum(state.markets[seat]),
                fortresses_left=allowed - sum(state.fortresses[seat]),
                skimmers_left=cat.AI_SKIMMERS - sum(state.skimmers[seat]),
            )
        )
    return out
