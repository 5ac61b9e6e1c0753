"""Audit of a matchmaking log (``orrery matchmaking audit GAME``): the hash chain is
recomputed, and every decision is re-derived from the log and its recorded clock:

* each pass of the matcher (the ``match.made`` entries of one ``cycle``, all at one
  clock) must be exactly what the matcher makes of the tickets the log shows waiting
  just before it, at that clock: the same tickets together, the same seat counts and
  bots, the same seats (a shuffle seeded by the log), table id and spread, and the
  same bots' level from the bots' ratings the entry records;
* each ``queue.expired`` must be due at its clock (the player offline for the window
  the entry records, or the party not accepted in time);
* no ticket is matched twice, and every match made is started or failed (or still
  pending at the end of the log).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from matchmaking.queue import (
    GENESIS,
    QueueState,
    entry_hash,
    evolve,
    expiry_reason,
    made,
    matches,
)
from orrery_contracts.matchmaking import MatchMade, QueueEntry, QueueExpired


@dataclass
class QueueAudit:
    game: str
    entries: int = 0
    matches: int = 0
    passes: int = 0
    expired: int = 0
    pending: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def audit(
    game: str, seat_range: tuple[int, int], entries: list[QueueEntry], offline_s: float
) -> QueueAudit:
    report = QueueAudit(game=game, entries=len(entries))
    state = QueueState(game=game, seat_range=seat_range, offline_s=offline_s)
    prev = GENESIS
    matched: set[str] = set()
    i = 0
    while i < len(entries):
        entry = entries[i]
        if entry.prev != prev or entry.hash != entry_hash(prev, entry.seq, entry.at, entry.event):
            report.problems.append(f"seq {entry.seq}: the hash chain is broken")
            return report
        event = entry.event
        if isinstance(event, MatchMade):
            run = [entry]
            while (
                i + len(run) < len(entries)
                and isinstance(entries[i + len(run)].event, MatchMade)
                and getattr(entries[i + len(run)].event, "cycle", None) == event.cycle
            ):
                run.append(entries[i + len(run)])
            report.passes += 1
            _check_pass(state, run, report, matched)
            for one in run:
                if one.prev != prev or one.hash != entry_hash(prev, one.seq, one.at, one.event):
                    report.problems.append(f"seq {one.seq}: the hash chain is broken")
                    return report
                evolve(state, one)
                prev = one.hash
            i += len(run)
            continue
        if isinstance(event, QueueExpired):
            report.expired += 1
            record = state.tickets.get(event.ticket_id)
            if event.after_s:  # the window the matchmaker ran with, as it recorded it
                state.offline_s = event.after_s
            if record is None or expiry_reason(state, record, entry.at) != event.reason:
                report.problems.append(
                    f"seq {entry.seq}: ticket {event.ticket_id} was not due to expire"
                )
        try:
            evolve(state, entry)
        except KeyError as error:
            report.problems.append(f"seq {entry.seq}: names an unknown ticket or match {error}")
        prev = entry.hash
        i += 1
    report.pending = sorted(state.pending)
    return report


def _check_pass(
    state: QueueState, run: list[QueueEntry], report: QueueAudit, matched: set[str]
) -> None:
    at = run[0].at
    if any(e.at != at for e in run):
        report.problems.append(f"seq {run[0].seq}: one pass of the matcher at several clocks")
    groups = matches(state, at)
    if len(groups) != len(run):
        report.problems.append(
            f"seq {run[0].seq}: the matcher makes {len(groups)} tables here, the log {len(run)}"
        )
        return
    for group, entry in zip(groups, run, strict=True):
        logged = entry.event
        assert isinstance(logged, MatchMade)
        report.matches += 1
        expected = made(state, group, logged.cycle, entry.seq, entry.prev, logged.bot_ratings)
        if expected != logged:
            report.problems.append(
                f"seq {entry.seq}: match {logged.match_id} differs from the matcher's "
                f"(tickets {sorted(logged.tickets)} vs {sorted(expected.tickets)})"
            )
        twice = matched & set(logged.tickets)
        if twice:
            report.problems.append(f"seq {entry.seq}: tickets matched twice: {sorted(twice)}")
        matched.update(logged.tickets)
