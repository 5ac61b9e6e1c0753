"""The tournament audit: the log's hash chain, every round's pairing re-derived from
the log before it (its state and seed) and compared with the one recorded, the seed
against its commitment, and the final standings computed again."""

from __future__ import annotations

from dataclasses import dataclass, field

from competitions.events import (
    GENESIS,
    RoundPaired,
    TournamentEntry,
    TournamentFinished,
    entry_hash,
)
from competitions.pairing import DUTCH_MAX, pair_round
from competitions.standings import ranking
from competitions.state import TournamentState, evolve


@dataclass
class AuditReport:
    tournament_id: str
    entries: int = 0
    rounds_checked: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def audit(
    tournament_id: str, entries: list[TournamentEntry], dutch_max: int = DUTCH_MAX
) -> AuditReport:
    report = AuditReport(tournament_id, entries=len(entries))
    state = TournamentState()
    prev = GENESIS
    for entry in entries:
        if entry.seq != state.seq + 1 or entry.prev != prev:
            report.problems.append(f"seq {entry.seq}: the chain is broken")
        if entry_hash(entry.prev, entry.seq, entry.at, entry.event) != entry.hash:
            report.problems.append(f"seq {entry.seq}: the hash does not match")
        event = entry.event
        if isinstance(event, RoundPaired):
            again = pair_round(state, event.deadline, dutch_max)
            report.rounds_checked += 1
            if again != event:
                report.problems.append(
                    f"round {event.round}: the pairing differs from the one derived from the log"
                )
        if isinstance(event, TournamentFinished):
            if ranking(state) != event.standings:
                report.problems.append("the final standings differ from those derived")
            if event.seed != state.seed:
                report.problems.append("the revealed seed is not the recorded one")
        evolve(state, entry)
        prev = entry.hash
    return report
