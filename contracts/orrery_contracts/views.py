"""What a seat (or a spectator) reads: the table around a game's own view.

``view`` is the game's per-seat view (``None`` before the start); ``legal`` lists the
commands this seat may send now, each ready to be used as a command envelope's body.
``clock`` (tables with a clock) is public: every seat's time, and which clocks run.
``standings`` is public too: each participant's points and rank from the game's own
``score`` (which counts public facts only), so no client computes a score itself.
"""

from __future__ import annotations

from typing import Generic, Literal, TypeVar

import msgspec

from orrery_contracts.table import FinalStanding

V = TypeVar("V")
C = TypeVar("C")

TablePhase = Literal["none", "lobby", "playing", "finished", "closed"]


class SeatInfo(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    name: str | None
    left: bool = False
    # a server-side bot plays the seat: its level; ``bot_from_seq``: the seq from which
    # it does, when it took the seat over from a player who abandoned it (``left``)
    bot_level: str | None = None
    bot_from_seq: int | None = None


class ScorePart(msgspec.Struct, frozen=True, kw_only=True):
    """One part of a participant's final score as the game counts it: ``key`` for a
    program ("objectives"), ``label`` for a person ("Objectives"), and its points."""

    key: str
    label: str
    points: int


class StandingLine(msgspec.Struct, frozen=True, kw_only=True):
    """One participant's place, from the rules' own score (live while playing, final
    when finished): a seat, or a built-in opponent without a seat (``seat`` None,
    ``ai`` true; Fractured Sky's AIs in 1-2 player games). Rank 1 is best."""

    seat: int | None
    # the game's number for the participant: the seat, or for a built-in opponent the
    # number after the seats that the game's view uses (its airships, its colour)
    participant: int
    name: str | None
    points: int
    rank: int
    ai: bool = False
    left: bool = False
    # the seq from which a bot played the seat its player abandoned (it ranks as conceded)
    bot_from_seq: int | None = None
    # once the game is over: its final score in parts, summing to ``points`` (public then;
    # empty while playing, and for a game that does not tell its parts)
    parts: list[ScorePart] = []


class ClockView(msgspec.Struct, frozen=True, kw_only=True):
    """A table's clocks. A running seat's time left at a moment ``now`` (unix ms) is
    ``deadline_ms[seat] - now``; a stopped seat has ``remaining_ms[seat]``. All times are
    the log's recorded times (unix ms)."""

    bank_ms: int  # each seat's time at the start
    per_move_ms: int  # added each time a move of the seat begins
    on_expiry: Literal["bot", "concede"]
    running: list[int]  # seats whose clocks run now
    remaining_ms: list[int]  # per seat: time left when its clock last started (or stopped)
    since_ms: list[int | None]  # per seat: when its running clock started
    deadline_ms: list[int | None]  # per seat: when its running clock runs out


class TableView(msgspec.Struct, Generic[V, C], frozen=True, kw_only=True):
    table_id: str
    game: str
    seq: int
    phase: TablePhase
    viewer: int | None
    seats: list[SeatInfo]
    to_move: list[int]
    game_phase: str
    round: int
    view: V | None
    legal: list[C]
    seed_commitment: str
    standing: FinalStanding | None = None
    seed: str | None = None
    clock: ClockView | None = None
    # every participant's standing, best first (empty before the start): what every
    # client shows as the live scores and the final standings
    standings: list[StandingLine] = []
    # the seat whose command made the latest change (None: the table's own events, or an
    # undo), and the seat whose table.undo it was when the latest command is an undo:
    # what a client says in its move log and marks on the board as that seat's move
    actor: int | None = None
    undone_by: int | None = None


class ScoreLine(msgspec.Struct, frozen=True, kw_only=True):
    """One participant's points and rank on the scoreboard (the rules' own score). A
    seat's line has ``seat`` = ``participant`` = its seat; a built-in opponent's (``ai``
    true; Fractured Sky's AIs in 1-2 player games) has no seat of the table: ``seat`` and
    ``participant`` are both its number after the seats (what the game's view and the
    view's ``standings`` call it), so ``seat`` stays an int for readers written before
    these lines existed."""

    seat: int
    name: str | None
    points: int
    rank: int
    left: bool = False
    # the game's number for the participant (None in records written before it existed)
    participant: int | None = None
    ai: bool = False


class TableScore(msgspec.Struct, frozen=True, kw_only=True):
    """The scoreboard's record of one table: live while playing, final when finished.
    ``lines`` holds one line per seat first, in seat order (``lines[s]`` is seat ``s``,
    as it always was), then one per built-in opponent in the game's order: the same
    participants, points and ranks as the view's ``standings`` (ranks count the
    opponents: a solo player behind two AIs is 3rd)."""

    table_id: str
    game: str
    seq: int
    phase: TablePhase
    round: int
    lines: list[ScoreLine]


class RatingLine(msgspec.Struct, frozen=True, kw_only=True):
    player: str
    rating: float
    games: int
