"""Auditing a table's log end to end, without trusting the server that wrote it.

:func:`audit_entries` runs every check in one pass over the decoded log entries:

1. **chain** — seqs run 1, 2, 3, … in one table; every ``prev_hash`` is the hash before
   it; every ``hash`` is :func:`orrery_contracts.envelope.chain_hash` of its entry;
2. **fold** — every event decodes and folds with ``evolve`` (events are facts, so this
   never depends on today's ``decide``); nothing follows ``table.finished``; the first
   event of each command carries the command body; the log does not end inside a
   command (``services.replay.unfinished_command``: a truncated file);
3. **seed** — a finished table's revealed seed matches the commitment in its first event;
4. **re-decide** — every accepted command (the body kept with its first event, the
   commanding seat from the envelope) goes through :func:`games.table.decide_table`
   again with the RNG re-derived from the revealed seed, and the resulting events are
   compared byte for byte (msgpack) with the recorded ones; the decider gets the entry's
   recorded-at time as "now" (clock expiries and lobby closes are decided by the log's
   times, never the auditor's clock). Skipped, and said so, when
   the table is unfinished (the seed is still secret) or when the log was written under
   another rules version than this server's;
5. **standing** — folding the events gives the final standing ``table.finished`` records.

The first discrepancy stops the audit and is reported with its seq. Rejected commands
are not in the log, so there is nothing to re-decide for them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from games.codec import codec_for, msgpack_encoder
from games.registry import get_game
from games.rejection import Rejected
from games.table import TableState, advance, decide_table, final_standing
from orrery_contracts.envelope import GENESIS_HASH, RawEnvelope, chain_hash
from orrery_contracts.table import TableClosed, TableFinished
from services.replay import mid_command_text, unfinished_command


class Discrepancy(Exception):
    """The log is not what an honest server following the rules would have written."""

    def __init__(self, seq: int, check: str, detail: str) -> None:
        super().__init__(f"seq {seq}: {check}: {detail}")
        self.seq = seq
        self.check = check
        self.detail = detail


@dataclass
class AuditReport:
    table_id: str
    game: str = ""
    events: int = 0
    commands: int = 0
    commands_redecided: int = 0
    finished: bool = False
    rules_version: str = ""  # the log's (first event)
    server_rules_version: str = ""  # this installation's, for the same game
    passed: list[str] = field(default_factory=list)
    not_checked: list[str] = field(default_factory=list)
    failure: Discrepancy | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None

    @property
    def complete(self) -> bool:
        return self.failure is None and not self.not_checked

    def as_dict(self) -> dict[str, Any]:
        failure = None
        if self.failure is not None:
            failure = {
                "seq": self.failure.seq,
                "check": self.failure.check,
                "detail": self.failure.detail,
            }
        return {
            "table_id": self.table_id,
            "game": self.game,
            "verdict": self.verdict,
            "events_verified": self.events,
            "commands": self.commands,
            "commands_redecided": self.commands_redecided,
            "finished": self.finished,
            "rules_version": self.rules_version,
            "server_rules_version": self.server_rules_version,
            "passed": self.passed,
            "not_checked": self.not_checked,
            "failure": failure,
        }

    @property
    def verdict(self) -> str:
        if self.failure is not None:
            return "FAILED"
        return "PASSED" if not self.not_checked else "PASSED (partial)"


# ---------------------------------------------------------------- single checks


def verify_chain(
    entries: Sequence[RawEnvelope],
    table_id: str | None = None,
    head: tuple[int, str] | None = None,
) -> int:
    """Check seqs, table id and the hash chain; returns the number of entries.

    ``head`` is the (seq, hash) the store's meta says the log ends at, when known.
    """
    expected_table = table_id if table_id is not None else (entries[0].table_id if entries else "")
    prev = GENESIS_HASH
    for index, entry in enumerate(entries):
        seq = index + 1
        if entry.seq != seq:
            raise Discrepancy(seq, "chain", f"entry {seq} of the log carries seq {entry.seq}")
        if entry.table_id != expected_table:
            raise Discrepancy(
                seq, "chain", f"entry belongs to table {entry.table_id!r}, not {expected_table!r}"
            )
        if entry.prev_hash != prev:
            raise Discrepancy(
                seq,
                "chain",
                f"prev_hash {entry.prev_hash[:12]}… is not the hash before it"
                f" ({prev[:12]}…): an entry is missing, extra or moved",
            )
        computed = chain_hash(entry)
        if entry.hash != computed:
            raise Discrepancy(
                seq,
                "chain",
                f"hash {entry.hash[:12]}… does not match the entry's contents"
                f" ({computed[:12]}…): the entry was altered",
            )
        prev = entry.hash
    if head is not None:
        last_seq = len(entries)
        if head != (last_seq, prev if entries else head[1]):
            raise Discrepancy(
                max(last_seq, 1),
                "chain",
                f"the store's head is seq {head[0]} hash {head[1][:12]}…, "
                f"the log ends at seq {last_seq} hash {prev[:12]}…",
            )
    return len(entries)


def seed_matches(seed_hex: str, commitment: str) -> bool:
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        return False
    return hashlib.sha256(seed).hexdigest() == commitment


def _decode_event(state: TableState, entry: RawEnvelope) -> Any:
    try:
        return codec_for(state.game or None).decode_event(entry.body)
    except (msgspec.DecodeError, msgspec.ValidationError) as error:
        raise Discrepancy(entry.seq, "fold", f"the event does not decode: {error}") from None


def _decode_command(state: TableState, entry: RawEnvelope) -> Any:
    assert entry.command is not None
    try:
        return codec_for(state.game or None).decode_command(entry.command, False)
    except (msgspec.DecodeError, msgspec.ValidationError) as error:
        raise Discrepancy(entry.seq, "re-decide", f"the command does not decode: {error}") from None


def _tag(body: bytes) -> str:
    try:
        decoded = msgspec.msgpack.decode(body)
    except msgspec.DecodeError:
        return "?"
    return str(decoded.get("type", "?")) if isinstance(decoded, dict) else "?"


def _difference(recorded: bytes, decided: bytes) -> str:
    """A short human description of how two encoded events differ."""
    try:
        a = msgspec.msgpack.decode(recorded)
        b = msgspec.msgpack.decode(decided)
    except msgspec.DecodeError:
        return "the encoded bodies differ"
    if isinstance(a, dict) and isinstance(b, dict):
        if a.get("type") != b.get("type"):
            return f"recorded {a.get('type')}, re-decided {b.get('type')}"
        fields = [k for k in {**a, **b} if a.get(k) != b.get(k)]
        parts = [f"{k}: recorded {_short(a.get(k))}, re-decided {_short(b.get(k))}" for k in fields]
        return f"{a.get('type')} differs in " + "; ".join(parts)
    return "the encoded bodies differ"


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---------------------------------------------------------------- the whole audit


def audit_entries(
    entries: Sequence[RawEnvelope],
    table_id: str | None = None,
    head: tuple[int, str] | None = None,
) -> AuditReport:
    """Every check on a decoded log; the report says what passed and what could not run."""
    report = AuditReport(table_id=table_id or (entries[0].table_id if entries else ""))
    try:
        _audit(entries, report, head)
    except Discrepancy as discrepancy:
        report.failure = discrepancy
    return report


def _audit(
    entries: Sequence[RawEnvelope], report: AuditReport, head: tuple[int, str] | None
) -> None:
    if not entries:
        raise Discrepancy(0, "chain", f"table {report.table_id!r} has no events")
    verify_chain(entries, report.table_id, head)
    report.passed.append(f"hash chain of {len(entries)} events")
    last = entries[-1]
    # The seed is revealed by the last event; peek at it before folding so that the
    # commands can be re-decided in the same pass.
    created = _decode_event(TableState(table_id=report.table_id), entries[0])
    report.game = getattr(created, "game", "")
    report.rules_version = getattr(created, "rules_version", "")
    game = get_game(report.game) if report.game else None
    if game is None:
        report.not_checked.append(
            f"fold, re-decide and standing: this server does not host the game {report.game!r}"
        )
        return
    report.server_rules_version = game.rules_version
    seed: bytes | None = None
    final: Any = None
    try:
        final = codec_for(report.game).decode_event(last.body)
    except (msgspec.DecodeError, msgspec.ValidationError):
        final = None  # reported with its seq by the fold below
    if isinstance(final, TableFinished | TableClosed):
        report.finished = True
        if not seed_matches(final.seed, getattr(created, "seed_commitment", "")):
            raise Discrepancy(
                last.seq,
                "seed",
                f"the revealed seed {final.seed[:16]}… does not hash to the commitment "
                f"{getattr(created, 'seed_commitment', '')[:16]}… of seq 1",
            )
        report.passed.append("seed commitment")
        seed = bytes.fromhex(final.seed)
    redecide = seed is not None and report.rules_version == game.rules_version
    if not report.finished:
        report.not_checked.append(
            "seed commitment, re-deciding and final standing: the table has not finished "
            "(its seed is revealed only by table.finished)"
        )
    elif not redecide:
        report.not_checked.append(
            f"re-deciding: the log was written under {report.game} rules version "
            f"{report.rules_version!r}, this server runs {game.rules_version!r}; "
            "the events were folded with evolve only (events are facts)"
        )
    state = _fold_and_redecide(entries, report, seed if redecide else None)
    report.passed.append(f"fold of {len(entries)} events")
    cut = unfinished_command(state)
    if cut is not None:
        raise Discrepancy(last.seq, "end", mid_command_text(cut))
    if redecide:
        report.passed.append(f"re-decided {report.commands_redecided} commands")
    if isinstance(final, TableFinished):
        _check_standing(state, last.seq)
        report.passed.append("final standing")


def _fold_and_redecide(
    entries: Sequence[RawEnvelope], report: AuditReport, seed: bytes | None
) -> TableState:
    state = TableState(table_id=report.table_id)
    seen: set[str] = set()
    index = 0
    while index < len(entries):
        first = entries[index]
        end = index + 1
        while end < len(entries) and entries[end].command_id == first.command_id:
            end += 1
        group = entries[index:end]
        if first.command_id in seen:
            raise Discrepancy(first.seq, "fold", f"command id {first.command_id!r} appears twice")
        seen.add(first.command_id)
        report.commands += 1
        if first.command is None:
            raise Discrepancy(
                first.seq,
                "fold",
                f"the first event of command {first.command_id!r} does not carry the command",
            )
        for extra in group[1:]:
            if extra.command is not None:
                raise Discrepancy(extra.seq, "fold", "a command body on a non-first event")
        if seed is not None:
            _redecide(state, group, seed)
            report.commands_redecided += 1
        for entry in group:
            if state.phase in ("finished", "closed"):
                raise Discrepancy(entry.seq, "fold", f"an event after table.{state.phase}")
            event = _decode_event(state, entry)
            try:
                state = advance(
                    state,
                    event,
                    entry.seq,
                    entry.hash,
                    entry.recorded_at,
                    opens_command=entry is first,
                    actor=first.seat,
                )
            except Exception as error:  # a fact the rules' evolve cannot apply
                raise Discrepancy(entry.seq, "fold", f"evolve failed: {error!r}") from None
            report.events += 1
        index = end
    return state


def _redecide(state: TableState, group: Sequence[RawEnvelope], seed: bytes) -> None:
    first = group[0]
    command = _decode_command(state, first)
    try:
        decided = decide_table(state, command, first.seat, seed, first.recorded_at)
    except Rejected as rejected:
        raise Discrepancy(
            first.seq,
            "re-decide",
            f"the recorded command {_tag(first.command or b'')} is rejected when "
            f"re-decided ({rejected.code}: {rejected.message})",
        ) from None
    for offset, event in enumerate(decided):
        encoded = msgpack_encoder.encode(event)
        if offset >= len(group):
            raise Discrepancy(
                group[-1].seq,
                "re-decide",
                f"re-deciding command {first.command_id!r} gives {len(decided)} events, "
                f"the log has {len(group)} (first missing: {getattr(event, 'type', '?')} "
                f"{_tag(encoded)})",
            )
        recorded = bytes(group[offset].body)
        if encoded != recorded:
            raise Discrepancy(group[offset].seq, "re-decide", _difference(recorded, encoded))
    if len(decided) < len(group):
        extra = group[len(decided)]
        raise Discrepancy(
            extra.seq,
            "re-decide",
            f"re-deciding command {first.command_id!r} gives {len(decided)} events, the log "
            f"has {len(group)} (first extra: {_tag(bytes(extra.body))})",
        )


def _check_standing(state: TableState, seq: int) -> None:
    game = get_game(state.game)
    assert game is not None and state.standing is not None
    folded = final_standing(game, state.game_state, state.left)
    recorded = state.standing
    if list(folded.points) != list(recorded.points) or list(folded.ranks) != list(recorded.ranks):
        raise Discrepancy(
            seq,
            "standing",
            f"recorded points {recorded.points} ranks {recorded.ranks}, the folded game "
            f"scores points {folded.points} ranks {folded.ranks}",
        )
