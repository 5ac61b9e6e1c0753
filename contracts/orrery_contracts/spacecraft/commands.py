"""SPACEcraft commands (tag prefix ``sc.``); RULES.md in games/spacecraft says when."""

from __future__ import annotations

import msgspec

from orrery_contracts.base import CommandBody


class Placement(msgspec.Struct, frozen=True, kw_only=True):
    """One rocket part on the rocket grid (x to the right, y upward)."""

    kind: str  # e.g. "body.K", "fin.W", "engine.WB"
    x: int
    y: int


class ChooseGoal(CommandBody, frozen=True, tag="sc.choose_goal"):
    """Keep one of the two dealt personal goals (setup choice, all seats at once)."""

    goal: int


class Visit(CommandBody, frozen=True, tag="sc.visit"):
    """Pawn off the junkyard: enter onto pile (x, y) and take its top tile."""

    x: int
    y: int


class Search(CommandBody, frozen=True, tag="sc.search"):
    """Pawn on the junkyard: move straight to pile (x, y) and take its top tile."""

    x: int
    y: int


class Leave(CommandBody, frozen=True, tag="sc.leave"):
    """Leave the junkyard: board tiles go beside the board; the build step begins."""


class Build(CommandBody, frozen=True, tag="sc.build"):
    """Build the part of workshop ``slot`` paying the junk named in ``pay`` (from beside the
    board). ``layout`` optionally gives the whole new rocket; without it the part is attached
    automatically (rearranging the rocket only when it cannot be attached as it stands)."""

    slot: int
    pay: list[str]
    layout: list[Placement] | None = None


class Arrange(CommandBody, frozen=True, tag="sc.arrange"):
    """Rearrange the whole rocket (build step only)."""

    layout: list[Placement]


class Fulfil(CommandBody, frozen=True, tag="sc.fulfil"):
    """Basic: fulfil a lower-row design card, or your reserved card, that your rocket meets."""

    card: int


class Reserve(CommandBody, frozen=True, tag="sc.reserve"):
    """Basic: reserve a lower-row design card face down (none fulfilled this turn)."""

    card: int


class Mark(CommandBody, frozen=True, tag="sc.mark"):
    """Advanced: put a marker on the leftmost free space of an advanced design card."""

    card: int


class EndTurn(CommandBody, frozen=True, tag="sc.end_turn"):
    """Finish the leave action (after the optional build and design steps)."""
