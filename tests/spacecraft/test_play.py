"""``play`` makes the seat to move's usual commands with their checks at once: for every
command, accepted or refused, it gives what ``decide`` then ``evolve`` give (the same
events and state, or the same rejection and the state untouched).

At every other step of random games the seat to move's candidates are commands of each
kind around the legal ones: in the action step each visit and search of the grid and
just off it; each listed build; every fourth compartment (and none) paid with everything
beside the board, one of them with nothing, an unknown name or a single tile; each card of the
rows and the reserve; the automatic layout and the rocket's own; the leave and the end
of the turn.
"""

from __future__ import annotations

from random import Random

import msgspec
import pytest

from games.playthrough import clone_state, fold, play_random
from games.rejection import Rejected
from games.rng import derive_rng
from games.spacecraft import GAME, SpacecraftOptions, rocket
from games.spacecraft.state import SpacecraftState
from orrery_contracts.base import CommandBody
from orrery_contracts.spacecraft import catalogue as cat
from orrery_contracts.spacecraft.commands import (
    Arrange,
    Build,
    EndTurn,
    Fulfil,
    Leave,
    Mark,
    Reserve,
    Search,
    Visit,
)

encode = msgspec.msgpack.encode


def candidates(state: SpacecraftState, seat: int, step: int) -> list[CommandBody]:
    """The seat to move's commands around the legal ones (the compartments paid in the
    odd ways turn with ``step``)."""
    size = state.size
    out: list[CommandBody] = [Leave(), EndTurn(), Visit(x=0, y=0), Search(x=0, y=0)]
    if state.step == "action":
        cells = [(x, y) for x in range(-1, size + 1) for y in range(-1, size + 1)]
        out += [Visit(x=x, y=y) for x, y in cells] + [Search(x=x, y=y) for x, y in cells]
    listed = {c.slot: c.pay for c in GAME.legal_commands(state, seat) if isinstance(c, Build)}
    held = [cat.JUNK_NAMES[t] for t, n in enumerate(state.beside[seat]) for _ in range(n)]
    out += [Build(slot=slot, pay=pay) for slot, pay in listed.items()]
    for slot in range(-1 + step % 4, len(cat.SLOTS) + 1, 4):
        out.append(Build(slot=slot, pay=held))
    odd = step % (len(cat.SLOTS) + 2) - 1
    single = [cat.JUNK_NAMES[step % cat.N_JUNK]]
    out += [Build(slot=odd, pay=pay) for pay in ([], ["gold"], single, [*held, *single])]
    cards = {-1, *state.lower, *state.upper, *state.reserved, *state.adv_cards}
    for card in sorted(cards):
        out += [Fulfil(card=card), Reserve(card=card), Mark(card=card)]
    current = state.rockets[seat]
    auto = rocket.auto_layout([p.kind for p in current])
    out += [Arrange(layout=list(current))] + ([Arrange(layout=auto)] if auto else [])
    return out


def outcome(
    state: SpacecraftState, command: CommandBody, seat: int, played: bool
) -> tuple[bool, bytes]:
    """Whether the command is accepted, and its events and the state after them, or the
    rejection and the state as it is."""
    try:
        if played:
            events = GAME.play(state, command, seat, Random(0))
        else:
            events = GAME.decide(state, command, seat, Random(0))
            for event in events:
                state = GAME.evolve(state, event)
    except Rejected as refused:
        return False, encode([refused.code, refused.message, state])
    return True, encode([events, state])


@pytest.mark.parametrize(("players", "variant", "seed"), [(3, "basic", 5), (2, "advanced", 6)])
def test_play_gives_what_decide_gives_for_every_command(
    players: int, variant: str, seed: int
) -> None:
    options = SpacecraftOptions(variant=variant)  # type: ignore[arg-type]
    played = play_random(GAME, options, players, seed)
    seed_bytes = seed.to_bytes(16, "big", signed=True)
    setup = list(GAME.setup(options, players, derive_rng(seed_bytes, 0)))
    state = fold(GAME, options, players, setup)
    seq = len(setup)
    accepted = refused = 0
    for step, (seat, command) in enumerate(played.commands):
        if state.phase in ("play", "final") and step % 2:
            for candidate in candidates(state, seat, step):
                by_play = outcome(clone_state(GAME, state), candidate, seat, True)
                by_decide = outcome(clone_state(GAME, state), candidate, seat, False)
                assert by_play == by_decide, candidate
                accepted += by_play[0]
                refused += not by_play[0]
        seq += len(GAME.play(state, command, seat, derive_rng(seed_bytes, seq + 1)))
    assert accepted > len(played.commands) // 2 and refused > accepted
