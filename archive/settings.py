"""The archive's settings: where the archive is (every process and command that reads
or archives finished tables) and the archiver's own (``orrery archiver``), which
:class:`archive.archiver.Archiver` reads once, when the process makes it."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from orrery_contracts.settings import ARCHIVE, DEVELOPMENT, Setting, number, whole

ARCHIVE_URL_ENV = "ORRERY_ARCHIVE_URL"
AFTER_ENV = "ORRERY_ARCHIVE_AFTER_S"
DEFAULT_AFTER_S = 600.0
POLL_ENV = "ORRERY_ARCHIVE_POLL_S"
DEFAULT_POLL_S = 1.0
CONCURRENCY_ENV = "ORRERY_ARCHIVE_CONCURRENCY"
LEASE_ENV = "ORRERY_ARCHIVE_LEASE_MS"
DEFAULT_LEASE_MS = 30_000
FAULT_ENV = "ORRERY_FAULT_KILL_ARCHIVER_AFTER"
DEFAULT_CONCURRENCY = 4


@dataclass(frozen=True)
class ArchiverSettings:
    # a table that ended this long ago is archived (0: at once)
    after_s: float = DEFAULT_AFTER_S
    # the longest sleep between looks for due tables
    poll_s: float = DEFAULT_POLL_S
    # archive transactions at once
    concurrency: int = DEFAULT_CONCURRENCY
    # how long a table an archiver took stays its own
    lease_ms: int = DEFAULT_LEASE_MS
    # fault injection for the crash tests: SIGKILL right after this step ("": never)
    fault: str = ""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> ArchiverSettings:
        return cls(
            after_s=number(environ, AFTER_ENV, DEFAULT_AFTER_S),
            poll_s=number(environ, POLL_ENV, DEFAULT_POLL_S),
            concurrency=whole(environ, CONCURRENCY_ENV, DEFAULT_CONCURRENCY),
            lease_ms=whole(environ, LEASE_ENV, DEFAULT_LEASE_MS),
            fault=environ.get(FAULT_ENV, ""),
        )


SETTINGS = (
    Setting(
        ARCHIVE_URL_ENV,
        "`sqlite:///<data-dir>/data/archive.sqlite3`",
        "archiver, gateway, every command that reads or archives tables",
        "the archive: `sqlite:///PATH` or `postgresql://USER:PASSWORD@HOST:PORT/DB` "
        "(`--archive-url`)",
        ARCHIVE,
    ),
    Setting(
        AFTER_ENV,
        "600",
        "archiver, archive run",
        "a table that finished or closed this long ago is archived (0: at once)",
        ARCHIVE,
    ),
    Setting(
        POLL_ENV,
        "1",
        "archiver",
        "the longest sleep between looks for due tables",
        ARCHIVE,
    ),
    Setting(
        CONCURRENCY_ENV,
        "4",
        "archiver",
        "archive transactions (of up to 50 tables of one partition) at once",
        ARCHIVE,
    ),
    Setting(
        LEASE_ENV,
        "30000",
        "archiver",
        "how long a table an archiver took stays its own (a crashed archiver's tables wait "
        "this long)",
        ARCHIVE,
    ),
    Setting(
        FAULT_ENV,
        "–",
        "archiver",
        "SIGKILL the archiver right after `write`, `verify`, `delete` or `lobby`",
        DEVELOPMENT,
    ),
)
