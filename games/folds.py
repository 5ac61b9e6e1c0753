"""A game's ``evolve`` made from its folds: one function per event type, looked up by the
event's exact type (a dict: no chain of ``isinstance`` or class patterns).

Each game keeps its folds in ``evolve.FOLDS`` and takes its ``evolve`` (one event) and
``evolve_all`` (a command's events, one call) from :func:`fold_functions`. A fold changes
the state in place; an event the game does not know is a ``TypeError``, never ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

S = TypeVar("S")


def fold_functions(
    folds: Mapping[Any, Callable[[S, Any], None]], game: str
) -> tuple[Callable[[S, Any], S], Callable[[S, list[Any]], None]]:
    """``(evolve, evolve_all)`` over ``folds`` (event type → in-place fold) for ``game``."""

    def evolve(state: S, event: Any) -> S:
        try:  # (a subscript, cheaper than ``get`` when the type is known, as it nearly is)
            fold = folds[type(event)]
        except KeyError:
            raise TypeError(f"not a {game} event: {type(event).__name__}") from None
        fold(state, event)
        return state

    def evolve_all(state: S, events: list[Any]) -> None:
        for event in events:
            try:
                fold = folds[type(event)]
            except KeyError:
                raise TypeError(f"not a {game} event: {type(event).__name__}") from None
            fold(state, event)

    return evolve, evolve_all
