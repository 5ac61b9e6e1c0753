"""Audit: honest logs pass; every kind of tampering fails and names its seq.

The logs here are written by ``services.replay.play_log`` (the worker's decide and seal
without a server); complete games played through the service are audited in
tests/test_transfer.py. Tampering goes through a log file and the real command line.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from orrery.cli import app
from orrery_contracts.envelope import RawEnvelope, decode_entry, encode_entry
from services.audit import audit_entries, verify_chain
from services.replay import fold, play_log
from services.transfer import export_lines, read_log_lines
from tests.support.logs import find, game_log, reseal, rewrite

pytestmark = pytest.mark.unit

runner = CliRunner()


def write(path: Path, entries: list[RawEnvelope]) -> Path:
    path.write_bytes(b"".join(line + b"\n" for line in export_lines(entries)))
    return path


def audit_file(path: Path, *extra: str) -> tuple[int, str]:
    result = runner.invoke(app, ["audit", "--file", str(path), *extra])
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("game", "seats"),
    [("tiny", 1), ("tiny", 4), ("fractured_sky", 1), ("fractured_sky", 2), ("spacecraft", 2),
     ("federation", 2)],
)  # fmt: skip
def test_honest_logs_pass(game: str, seats: int) -> None:
    entries, _ = game_log(game, seats)
    report = audit_entries(entries)
    assert report.complete, report.as_dict()
    assert report.events == len(entries) and report.commands == report.commands_redecided > 0
    assert report.verdict == "PASSED"


def test_cli_passes_a_file_and_prints_counts(tmp_path: Path) -> None:
    entries, _ = game_log("tiny", 3)
    code, output = audit_file(write(tmp_path / "log.jsonl", entries))
    report = audit_entries(entries)
    assert code == 0, output
    assert (
        f"PASSED: {len(entries)} events verified, {report.commands} of {report.commands} "
        "commands re-decided" in output
    )
    code, output = audit_file(tmp_path / "log.jsonl", "--json")
    assert code == 0 and json.loads(output)["verdict"] == "PASSED"


def test_one_byte_changed_in_an_entry(tmp_path: Path) -> None:
    entries, _ = game_log("tiny", 3)
    path = write(tmp_path / "log.jsonl", entries)
    lines = path.read_bytes().splitlines()
    record = json.loads(lines[9])  # seq 10
    raw = bytearray(base64.b64decode(record["entry"]))
    position = raw.index(b"recorded_at") + len(b"recorded_at") + 2  # inside the timestamp
    raw[position] ^= 0x01
    record["entry"] = base64.b64encode(bytes(raw)).decode()
    record["recorded_at"] = decode_entry(bytes(raw)).recorded_at  # keep the line coherent
    lines[9] = json.dumps(record).encode()
    path.write_bytes(b"\n".join(lines) + b"\n")
    code, output = audit_file(path)
    assert code == 1
    assert "FAILED at seq 10 (chain)" in output and "altered" in output


def test_one_byte_changed_in_the_readable_part(tmp_path: Path) -> None:
    entries, _ = game_log("tiny", 3)
    path = write(tmp_path / "log.jsonl", entries)
    text = path.read_text().splitlines()
    assert '"card":' in text[6]  # seq 7 holds a dealt card
    line = text[6]
    at = line.index('"card":') + len('"card":')
    digit = line[at]
    text[6] = line[:at] + ("2" if digit != "2" else "3") + line[at + 1 :]
    path.write_text("\n".join(text) + "\n")
    code, output = audit_file(path)
    assert code == 1 and "line 7 (seq 7)" in output and "event" in output


def test_dropped_event(tmp_path: Path) -> None:
    entries, _ = game_log("fractured_sky", 2)
    code, output = audit_file(write(tmp_path / "log.jsonl", entries[:40] + entries[41:]))
    assert code == 1 and "FAILED at seq 41 (chain)" in output


def test_dropped_event_resealed(tmp_path: Path) -> None:
    entries, _ = game_log("fractured_sky", 2)
    forged = [
        msgspec.structs.replace(e, seq=e.seq - 1) if i > 40 else e for i, e in enumerate(entries)
    ]
    del forged[40]
    code, output = audit_file(write(tmp_path / "log.jsonl", reseal(forged, 40)))
    assert code == 1 and "FAILED at seq" in output and "(re-decide)" in output


def test_two_events_reordered(tmp_path: Path) -> None:
    entries, _ = game_log("spacecraft", 2)
    swapped = list(entries)
    swapped[20], swapped[21] = swapped[21], swapped[20]
    code, output = audit_file(write(tmp_path / "log.jsonl", swapped))
    assert code == 1 and "FAILED at seq 21 (chain)" in output


def test_random_outcome_changed_and_chain_resealed(tmp_path: Path) -> None:
    entries, _ = game_log("fractured_sky", 4, seed=2)
    index = find(entries, "fractured_sky", "fs.game_set_up")
    forged = rewrite(
        entries,
        index,
        "fractured_sky",
        lambda e: msgspec.structs.replace(e, secret_deck=list(reversed(e.secret_deck))),
    )
    assert verify_chain(forged) == len(forged)  # the chain alone does not catch it
    code, output = audit_file(write(tmp_path / "log.jsonl", forged))
    assert code == 1
    assert f"FAILED at seq {index + 1} (re-decide): fs.game_set_up differs in secret_deck" in output


def test_federation_deep_space_order_changed(tmp_path: Path) -> None:
    entries, _ = game_log("federation", 2)
    index = find(entries, "federation", "fed.set_up")
    forged = rewrite(
        entries,
        index,
        "federation",
        lambda e: msgspec.structs.replace(e, deep_space=list(reversed(e.deep_space))),
    )
    report = audit_entries(forged)
    assert report.failure is not None and report.failure.seq == index + 1
    assert report.failure.check == "re-decide" and "deep_space" in report.failure.detail


def test_wrong_revealed_seed(tmp_path: Path) -> None:
    entries, _ = game_log("tiny", 2)
    forged = rewrite(
        entries, len(entries) - 1, "tiny", lambda e: msgspec.structs.replace(e, seed="00" * 32)
    )
    code, output = audit_file(write(tmp_path / "log.jsonl", forged))
    assert code == 1 and f"FAILED at seq {len(entries)} (seed)" in output


def test_unfinished_table_checks_chain_and_fold_and_says_what_waits(tmp_path: Path) -> None:
    entries, _ = game_log("spacecraft", 2)
    path = write(tmp_path / "log.jsonl", entries[:60])
    code, output = audit_file(path)
    assert code == 0, output
    assert "PASSED (partial): 60 events verified, 0 of" in output
    assert "has not finished" in output
    assert audit_file(path, "--require-complete")[0] == 3


def test_other_rules_version_folds_and_says_why_it_cannot_re_decide(tmp_path: Path) -> None:
    entries, _ = game_log("tiny", 2)
    old = rewrite(entries, 0, "tiny", lambda e: msgspec.structs.replace(e, rules_version="0"))
    code, output = audit_file(write(tmp_path / "log.jsonl", old))
    assert code == 0, output
    assert "rules version '0', this server runs '1'" in output and "PASSED (partial)" in output
    assert "ok       final standing" in output


def test_export_lines_round_trip_byte_for_byte() -> None:
    entries, _ = game_log("spacecraft", 2)
    back = read_log_lines(list(export_lines(entries)))
    assert [encode_entry(e) for e in back] == [encode_entry(e) for e in entries]


def test_seats_that_left_are_re_decided_too() -> None:
    # seat 1 concedes: its moves are random legal ones decided in the same appends
    entries, _ = play_log("fractured_sky", 3, 8, leaves={1: 12})
    report = audit_entries(entries)
    assert report.complete, report.as_dict()
    assert fold(entries).left == [False, True, False]
    # everybody leaves: the table ends as abandoned
    entries, _ = play_log("spacecraft", 2, 8, leaves={0: 5, 1: 9})
    report = audit_entries(entries)
    assert report.complete and fold(entries).phase == "finished", report.as_dict()
