"""A tournament's log: its events (tags ``tn.*``) and entries, hash-chained like a
table's log. Every fact a pairing depends on is in an event: the entrants and their
ratings as registered, the seed (committed to at creation, kept in the log that only the
service and operators read, shown in the view once the tournament is over), each table's
result. ``evolve`` (competitions/state.py) never decides anything."""

from __future__ import annotations

import hashlib

import msgspec

from orrery_contracts.tournaments import TournamentSpec

GENESIS = "0" * 64


class TournamentCreated(msgspec.Struct, frozen=True, kw_only=True, tag="tn.created"):
    tournament_id: str
    organiser: str
    spec: TournamentSpec
    seed: str  # hex; its SHA-256 is the commitment the view shows
    min_seats: int = 2  # the game's smallest table: a pod is never smaller


class PlayerRegistered(msgspec.Struct, frozen=True, kw_only=True, tag="tn.registered"):
    player_id: str
    name: str
    rating: float


class PlayerWithdrew(msgspec.Struct, frozen=True, kw_only=True, tag="tn.withdrew"):
    """Before the start: off the list. After it: forfeits every game not finished and
    is paired no more."""

    player_id: str


class PlayerCheckedIn(msgspec.Struct, frozen=True, kw_only=True, tag="tn.checked_in"):
    player_id: str


class TournamentStarted(msgspec.Struct, frozen=True, kw_only=True, tag="tn.started"):
    rounds: int  # the number of rounds (elimination: an upper bound)
    players: list[str]  # who plays, in seed order (rating, then the seeded draw)


class PairedTable(msgspec.Struct, frozen=True, kw_only=True):
    table_id: str
    players: list[str]  # seat order
    bracket: str = ""


class RoundPaired(msgspec.Struct, frozen=True, kw_only=True, tag="tn.round_paired"):
    round: int
    tables: list[PairedTable]
    byes: list[str]
    deadline: int  # unix ms


class TableStarted(msgspec.Struct, frozen=True, kw_only=True, tag="tn.table_started"):
    round: int
    table_id: str


class TableFinished(msgspec.Struct, frozen=True, kw_only=True, tag="tn.table_finished"):
    """``ranks``: per seat, 1 best (ties share a rank); ``forfeit``: players who lost by
    forfeit (ranked last); ``adjudicated``: ended by the tournament alone (a table that
    never started by the round's deadline, or ``orrery tournament pair``), its players
    sharing the rank."""

    round: int
    table_id: str
    ranks: list[int]
    forfeit: list[str] = []
    adjudicated: bool = False


class TournamentFinished(msgspec.Struct, frozen=True, kw_only=True, tag="tn.finished"):
    standings: list[str]  # player ids, first place first
    seed: str


class TournamentCancelled(msgspec.Struct, frozen=True, kw_only=True, tag="tn.cancelled"):
    reason: str


TournamentEvent = (
    TournamentCreated
    | PlayerRegistered
    | PlayerWithdrew
    | PlayerCheckedIn
    | TournamentStarted
    | RoundPaired
    | TableStarted
    | TableFinished
    | TournamentFinished
    | TournamentCancelled
)


class TournamentEntry(msgspec.Struct, frozen=True, kw_only=True):
    seq: int
    at: int  # unix ms
    prev: str
    hash: str
    event: TournamentEvent


entry_encoder = msgspec.msgpack.Encoder()
entry_decoder = msgspec.msgpack.Decoder(TournamentEntry)
_event_bytes = msgspec.msgpack.Encoder()


def entry_hash(prev: str, seq: int, at: int, event: TournamentEvent) -> str:
    digest = hashlib.sha256()
    digest.update(bytes.fromhex(prev))
    digest.update(f"{seq}:{at}:".encode())
    digest.update(_event_bytes.encode(event))
    return digest.hexdigest()


def seed_commitment(seed: str) -> str:
    return hashlib.sha256(bytes.fromhex(seed)).hexdigest()
