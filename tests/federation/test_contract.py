"""The wire contract: unique ``fed.`` tags, JSON schema, round trips, the game surface."""

from __future__ import annotations

import msgspec

from games.federation import GAME, FederationOptions
from games.registry import get_game
from orrery_contracts.federation import (
    COMMAND_TYPES,
    EVENT_TYPES,
    FederationCommand,
    FederationView,
)
from orrery_contracts.federation import commands as cmd


def test_tags_are_unique_and_prefixed() -> None:
    tags = [t.__struct_config__.tag for t in COMMAND_TYPES + EVENT_TYPES]
    assert len(tags) == len(set(tags))
    assert all(isinstance(t, str) and t.startswith("fed.") for t in tags)


def test_schema_and_round_trip() -> None:
    msgspec.json.schema_components((*COMMAND_TYPES, *EVENT_TYPES, FederationView))
    command = cmd.Place(ambassador=2, space=7, funding=True, token=12)
    raw = msgspec.json.encode(command)
    assert msgspec.json.decode(raw, type=FederationCommand) == command


def test_game_surface() -> None:
    assert get_game("federation") is GAME
    assert (GAME.name, GAME.rules_version, GAME.min_seats, GAME.max_seats) == (
        "federation",
        "3",  # 3: typed queue steps (``fed.queued``)
        2,
        4,
    )
    assert GAME.command_types == COMMAND_TYPES and GAME.event_types == EVENT_TYPES
    assert GAME.view_type is FederationView
    assert isinstance(GAME.options_type(), FederationOptions)
    state = GAME.initial_state(FederationOptions(), 3)
    assert GAME.initial_state(FederationOptions(), 3) == state
