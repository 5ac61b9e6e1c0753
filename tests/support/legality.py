"""The check every game's legality tests share (OpenSpiel's one source of truth):
``legal_commands`` lists, once each, exactly the candidates ``decide`` accepts, and
``decide`` refuses exactly what the game's ``legal.problem(state, seat, command)`` finds,
with its code."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from functools import cache
from random import Random
from typing import Any

import msgspec

from games.rejection import Rejected
from orrery_contracts.base import CommandBody

ENCODE = msgspec.msgpack.encode


@cache
def problem_of(name: str) -> Callable[[Any, int, CommandBody], Rejected | None]:
    """The game's one legality check, ``games.<name>.legal.problem``."""
    problem: Callable[[Any, int, CommandBody], Rejected | None]
    problem = importlib.import_module(f"games.{name}.legal").problem
    return problem


def accepted(game: Any, state: Any, command: CommandBody, seat: int) -> bool:
    found = problem_of(game.name)(state, seat, command)
    try:
        game.decide(state, command, seat, Random(0))
    except Rejected as refused:
        assert found is not None and found.code == refused.code, (seat, command, found)
        return False
    assert found is None, (seat, command, found)
    return True


def listed_exactly_when_accepted(
    game: Any, state: Any, seat: int, candidates: Iterable[CommandBody]
) -> list[CommandBody]:
    """Assert it for ``seat`` over ``candidates`` (which should include near misses:
    out-of-range ids, amounts one too many); returns the seat's legal commands."""
    legal: list[CommandBody] = game.legal_commands(state, seat)
    listed = [ENCODE(c) for c in legal]
    assert len(listed) == len(set(listed)), "a command is listed twice"
    for command in legal:
        assert accepted(game, state, command, seat), (seat, command)
    for command in candidates:
        if accepted(game, state, command, seat):
            assert ENCODE(command) in listed, (seat, command)
    return legal
