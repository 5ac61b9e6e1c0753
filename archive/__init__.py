"""The archive: finished tables leave Redis for a real database (PostgreSQL in production,
SQLite in the data folder by default), and every reader of a table finds them there.

``archive.store`` is the store (URL → database, migrations, reads, writes),
``archive.packing`` the stored form of a log and the summary row read from it,
``archive.chat`` the stored form of a finished table's chat (kept apart from the log),
``archive.archiver`` the process that moves finished tables out of Redis. Only the wire
contract (``orrery_contracts``) is imported, so services, projections, the gateway and
the command line may all read the archive.
"""

from archive.databases import ArchiveUnavailable
from archive.model import (
    ArchivedSeat,
    ArchivedTable,
    ArchiveStats,
    ChatEntries,
    Page,
    TableSummary,
)
from archive.store import (
    ARCHIVE_URL_ENV,
    Archive,
    ArchiveConflict,
    BadCursor,
    default_archive_url,
    open_archive,
)

__all__ = [
    "ARCHIVE_URL_ENV",
    "Archive",
    "ArchiveConflict",
    "ArchiveStats",
    "ArchiveUnavailable",
    "ArchivedSeat",
    "ArchivedTable",
    "BadCursor",
    "ChatEntries",
    "Page",
    "TableSummary",
    "default_archive_url",
    "open_archive",
]
