"""Personal goals: each seat chooses one of the two dealt to it, all at once; play starts
when the last seat has chosen (``sc.choose_goal``)."""

from __future__ import annotations

from games.rejection import ALREADY_CHOSEN, NOT_AN_OPTION, WRONG_PHASE, Rejected
from games.spacecraft.state import NO_CARD, SpacecraftState
from orrery_contracts.base import EventBody
from orrery_contracts.spacecraft.commands import ChooseGoal
from orrery_contracts.spacecraft.events import GoalChosen, PlayStarted


def choose_goal_problem(state: SpacecraftState, c: ChooseGoal, seat: int) -> Rejected | None:
    """Whether ``seat`` may choose this goal now."""
    if state.phase != "goals":
        return Rejected(WRONG_PHASE, "personal goals are chosen at the start only")
    if state.goals[seat] != NO_CARD:
        return Rejected(ALREADY_CHOSEN, "you already chose your personal goal")
    if c.goal not in state.goal_options[seat]:
        return Rejected(NOT_AN_OPTION, "choose one of the two goals dealt to you")
    return None


def choose_goal(state: SpacecraftState, c: ChooseGoal, seat: int) -> list[EventBody]:
    events: list[EventBody] = [GoalChosen(seat=seat, goal=c.goal)]
    if all(g != NO_CARD for s, g in enumerate(state.goals) if s != seat):
        events.append(PlayStarted(first=0))
    return events
