"""The wire contract: unique ``fed.`` tags, JSON schema, round trips, the game surface,
the typed queue steps and the upcast of rules version 2's untyped ones."""

from __future__ import annotations

from typing import get_type_hints

import msgspec
import pytest

from games.clone import clone
from games.codec import event_union
from games.federation import GAME, FederationOptions, automatic, choices
from games.registry import get_game
from orrery_contracts.federation import (
    COMMAND_TYPES,
    EVENT_TYPES,
    FederationCommand,
    FederationView,
)
from orrery_contracts.federation import commands as cmd
from orrery_contracts.federation import events as ev
from orrery_contracts.federation import steps as st
from orrery_contracts.federation.legacy import LegacyStep, upcast
from orrery_contracts.table import TableStarted


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


# ---------------------------------------------------------------- typed queue steps

# every kind rules versions 1 and 2 wrote, with the typed step it means now
LEGACY = [
    (LegacyStep(kind="fx_c", seat=1, a=2, b=6), st.GainCoppernium(seat=1, amount=2)),
    (LegacyStep(kind="fx_l", seat=1, a=-1, b=6), st.GainLavandium(seat=1, amount=-1)),
    (LegacyStep(kind="fx_o", seat=1, a=1), st.GainOceanium(seat=1, amount=1)),
    (LegacyStep(kind="fx_d", seat=1, a=1), st.GainDiamonds(seat=1, amount=1)),
    (LegacyStep(kind="fx_pp", seat=1, a=3), st.GainPrestige(seat=1, amount=3)),
    (LegacyStep(kind="fx_ship", seat=1, a=2), st.GainShips(seat=1, amount=2)),
    (LegacyStep(kind="fx_auth", seat=1, a=2), st.GainAuthority(seat=1, steps=2)),
    (LegacyStep(kind="fx_die", seat=1, a=2), st.RaiseDie(seat=1, amount=2)),
    (LegacyStep(kind="fx_die_min", seat=1, a=2), st.DieAtLeast(seat=1, value=2)),
    (LegacyStep(kind="fx_funding", seat=1, b=7), st.CheckFundedMission(seat=1, icon=7)),
    (LegacyStep(kind="fx_pp_per_medal", seat=1, a=2), st.PrestigePerMedal(seat=1, points=2)),
    (
        LegacyStep(kind="fx_pp_per_upper", seat=1, a=2),
        st.PrestigePerUpperStall(seat=1, points=2),
    ),
    (LegacyStep(kind="fx_crystal", seat=1, a=3), st.CrystalsOfChoice(seat=1, count=3)),
    (LegacyStep(kind="fx_project", seat=1, a=2), st.ProjectAdvances(seat=1, count=2)),
    (LegacyStep(kind="fx_check_any", seat=1, a=1), st.MissionChecks(seat=1, count=1)),
    (
        LegacyStep(kind="fx_check_l2", seat=1, a=1),
        st.MissionChecks(seat=1, count=1, level_two_only=True),
    ),
    (LegacyStep(kind="fx_erudite1", seat=1, a=1), st.LevelOneErudites(seat=1, count=1)),
    (LegacyStep(kind="fx_influence", seat=1, a=1), st.InfluenceOfChoice(seat=1, count=1)),
    (LegacyStep(kind="fx_free_mission", seat=1, a=1), st.FreeMissions(seat=1, count=1)),
    (LegacyStep(kind="fx_retrigger", seat=1, a=1), st.Retriggers(seat=1, count=1)),
    (LegacyStep(kind="fx_token_l1", seat=1, a=1), st.TokensFromLevel(seat=1, count=1, level=1)),
    (LegacyStep(kind="fx_token", seat=1, a=1), st.TokensFromYourLevel(seat=1, count=1)),
    (LegacyStep(kind="fx_orange", seat=1, a=1), st.OrangeActions(seat=1, count=1)),
    (LegacyStep(kind="fx_blue", seat=1, a=1), st.BlueActions(seat=1, count=1)),
    (LegacyStep(kind="planet", seat=1, a=2), st.PlanetAction(seat=1, planet=2)),
    (LegacyStep(kind="armed", seat=1, a=2), st.PlanetTiles(seat=1, planet=2)),
    (LegacyStep(kind="president", seat=1), st.PresidentsOffice(seat=1)),
    (LegacyStep(kind="intrigue", seat=1), st.IntrigueMedal(seat=1)),
    (LegacyStep(kind="mission_pp", seat=1, a=9), st.MissionPrestige(seat=1, mission=9)),
    (
        LegacyStep(kind="mega_pp", seat=1, a=2, b=3),
        st.MegastructurePrestige(seat=1, megastructure=2, multiplier=3),
    ),
    (LegacyStep(kind="begin_round", a=2), st.BeginRound(round=2)),
    (LegacyStep(kind="exec", a=2), st.ExecutivePhase(round=2)),
    (LegacyStep(kind="income", seat=1), st.CollectIncome(seat=1)),
    (LegacyStep(kind="projects"), st.FundProjects()),
    (LegacyStep(kind="rows"), st.ScoreRows()),
    (LegacyStep(kind="law_vote"), st.CountLawVotes()),
    (LegacyStep(kind="law_apply", a=1), st.PassLaw(side=1)),
    (LegacyStep(kind="round_end", a=5), st.EndRound(round=5)),
    (LegacyStep(kind="final"), st.FinalScoring()),
    (LegacyStep(kind="turn", seat=1), st.Turn(seat=1)),
    (LegacyStep(kind="post", seat=1), st.AfterPlacement(seat=1)),
    (LegacyStep(kind="post", seat=1, a=1), st.AfterPlacement(seat=1, mission_done=True)),
    (
        LegacyStep(kind="pay", seat=1, alts=[[0, 1, 0, 0, 0], [0, 0, 0, 3, 0]]),
        st.PayCost(seat=1, alternatives=[[0, 1, 0, 0, 0], [0, 0, 0, 3, 0]]),
    ),
    (LegacyStep(kind="discard", seat=1), st.DiscardCrystals(seat=1)),
    (LegacyStep(kind="crystal", seat=1), st.ChooseCrystal(seat=1)),
    (LegacyStep(kind="start_pick", seat=1), st.ChooseStartTile(seat=1)),
    (LegacyStep(kind="deep", seat=1), st.ChooseDeepSpace(seat=1)),
    (LegacyStep(kind="influence", seat=1), st.ChooseInfluence(seat=1)),
    (LegacyStep(kind="medal", seat=1), st.ChooseMedal(seat=1)),
    (LegacyStep(kind="fork", seat=1), st.ChooseFork(seat=1)),
    (LegacyStep(kind="dead", seat=1), st.ChooseDeadAsteroid(seat=1)),
    (LegacyStep(kind="blue_take", seat=1, a=3), st.ChooseToken(seat=1, level=3)),
    (LegacyStep(kind="yellow", seat=1), st.ChooseStall(seat=1)),
    (LegacyStep(kind="purple", seat=1), st.ChooseErudite(seat=1)),
    (LegacyStep(kind="purple", seat=1, a=1), st.ChooseErudite(seat=1, level_one_only=True)),
    (LegacyStep(kind="green", seat=1), st.ChooseStructure(seat=1)),
    (LegacyStep(kind="retrigger", seat=1), st.ChooseRetrigger(seat=1)),
    (LegacyStep(kind="project", seat=1), st.ChooseProject(seat=1)),
    (LegacyStep(kind="check", seat=1), st.ChooseCheck(seat=1)),
    (LegacyStep(kind="check", seat=1, a=1), st.ChooseCheck(seat=1, level_two_only=True)),
    (LegacyStep(kind="spy", seat=1), st.ChooseSpyTarget(seat=1)),
    (LegacyStep(kind="spy", seat=1, a=1), st.ChooseSpyTarget(seat=1, planets_only=True)),
    (LegacyStep(kind="free_mission", seat=1), st.ChooseFreeMission(seat=1)),
    (LegacyStep(kind="income_choice", seat=1, a=2), st.ChooseIncome(seat=1, structure=2)),
    (LegacyStep(kind="upkeep", seat=1), st.ChooseUpkeep(seat=1)),
    (LegacyStep(kind="law", seat=0), st.ChooseLaw(seat=0)),
]


def test_every_step_kind_of_rules_version_2_is_upcast_to_the_typed_step() -> None:
    for old, new in LEGACY:
        assert upcast(old) == new, old.kind
    assert {type(new) for _, new in LEGACY} == set(st.STEP_TYPES)
    for unknown in ("fx_nothing", "nothing"):
        with pytest.raises(ValueError, match="unknown"):
            upcast(LegacyStep(kind=unknown))


def test_an_old_pushed_event_folds_into_the_queue_a_new_queued_event_makes() -> None:
    old = ev.Pushed(steps=[old for old, _ in LEGACY])
    new = ev.Queued(steps=[new for _, new in LEGACY])
    decoder = msgspec.msgpack.Decoder(event_union("federation"))
    # the log format: each decodes to itself; the queue they fold into is the same
    assert decoder.decode(msgspec.msgpack.encode(old)) == old
    assert decoder.decode(msgspec.msgpack.encode(new)) == new
    before = GAME.initial_state(FederationOptions(), 2)
    folded_old = GAME.evolve(clone(before), old)
    assert folded_old.queue == GAME.evolve(clone(before), new).queue == new.steps


def test_a_choice_step_s_kind_is_the_pending_word_clients_know() -> None:
    """Views and statuses show a pending choice by its kind: the words of rules version 2."""
    choices = [new for old, new in LEGACY if isinstance(new, st.Choice)]
    assert {c.kind for c in choices} == {old.kind for old, new in LEGACY if new in choices}
    tags = [str(t.__struct_config__.tag) for t in st.STEP_TYPES]
    assert len(tags) == len(set(tags)) and not any(t.startswith("fx_") for t in tags)


def test_an_event_of_another_game_is_an_error_for_evolve() -> None:
    state = GAME.initial_state(FederationOptions(), 2)
    with pytest.raises(TypeError, match="not a Federation event"):
        GAME.evolve(state, TableStarted())


def test_every_step_type_has_its_handlers_each_taking_that_very_type() -> None:
    """The dispatch tables are keyed by the step's type: every choice has its options and
    its answer, every automatic step its handler, and each handler is annotated with the
    type it is filed under (mypy checks each handler's body against that annotation)."""
    choice_types = {t for t in st.STEP_TYPES if issubclass(t, st.Choice)} - {st.Turn}
    automatic_types = {t for t in st.STEP_TYPES if not issubclass(t, st.Choice)}
    assert set(choices._OPTIONS) == set(choices._ANSWERS) == choice_types
    assert choice_types == choices.CHOICE_TYPES
    assert set(automatic._AUTOMATIC) == automatic_types
    tables = (choices._OPTIONS, choices._ANSWERS, automatic._AUTOMATIC)
    for table in tables:
        for step_type, handler in table.items():
            assert get_type_hints(handler)["step"] is step_type, handler.__name__
