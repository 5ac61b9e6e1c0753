"""The two databases behind the archive, reduced to what :mod:`archive.store` needs: a
transaction that executes statements and fetches rows.

* PostgreSQL through psycopg 3's async API and a ``psycopg_pool.AsyncConnectionPool``
  (one connection per transaction, returned to the pool at its end).
* SQLite through the standard library's ``sqlite3``, every call on one thread of the
  store's own (an executor with one worker: the connection is never used by two threads)
  and one transaction at a time per process (an ``asyncio.Lock``); WAL mode so readers
  never wait for the writer, ``busy_timeout`` so archivers in other processes take turns
  at the write lock, ``BEGIN IMMEDIATE`` so a transaction that will write takes the lock
  first (no upgrade deadlock), ``synchronous=FULL`` because Redis deletes the table once
  the commit returns.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Protocol

Row = tuple[Any, ...]

SQLITE_BUSY_TIMEOUT_MS = 30_000
POOL_MAX = 8
CONNECT_TIMEOUT_S = 5.0


class Transaction(Protocol):
    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int: ...

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...


class Database(Protocol):
    dialect: str  # "postgresql" | "sqlite"
    blob: str  # the column type of bytes

    async def open(self) -> None: ...

    async def close(self) -> None: ...

    def transaction(self) -> Any:  # an async context manager giving a Transaction
        ...


class ArchiveUnavailable(Exception):
    """The archive's database cannot be reached (retry later)."""


# ---------------------------------------------------------------- SQLite


class _SqliteTransaction:
    def __init__(self, db: SqliteDatabase) -> None:
        self.db = db

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        return await self.db.call(lambda c: c.execute(sql.replace("%s", "?"), params).rowcount)

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return await self.db.call(lambda c: c.execute(sql.replace("%s", "?"), params).fetchall())


class SqliteDatabase:
    dialect = "sqlite"
    blob = "BLOB"

    def __init__(self, path: Path) -> None:
        self.path = path
        self._executor: ThreadPoolExecutor | None = None
        self._connection: sqlite3.Connection | None = None
        self._lock = asyncio.Lock()

    async def call(self, work: Any) -> Any:
        assert self._executor is not None and self._connection is not None, "not open"
        connection = self._connection
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor, work, connection)
        except sqlite3.OperationalError as error:
            if "locked" in str(error) or "unable to open" in str(error):
                raise ArchiveUnavailable(str(error)) from error
            raise

    async def open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="archive-sqlite")

        def connect() -> sqlite3.Connection:
            connection = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=30
            )
            connection.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("PRAGMA synchronous = FULL")
            connection.execute("PRAGMA foreign_keys = ON")
            return connection

        try:
            self._connection = await asyncio.get_running_loop().run_in_executor(
                self._executor, connect
            )
        except sqlite3.Error as error:
            raise ArchiveUnavailable(f"{self.path}: {error}") from error

    async def close(self) -> None:
        if self._connection is not None:
            connection, self._connection = self._connection, None
            await asyncio.get_running_loop().run_in_executor(self._executor, connection.close)
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[_SqliteTransaction]:
        async with self._lock:
            await self.call(lambda c: c.execute("BEGIN IMMEDIATE"))
            try:
                yield _SqliteTransaction(self)
            except BaseException:
                await asyncio.shield(self.call(lambda c: c.execute("ROLLBACK")))
                raise
            await self.call(lambda c: c.execute("COMMIT"))


# ---------------------------------------------------------------- PostgreSQL


class _PostgresTransaction:
    def __init__(self, connection: Any) -> None:
        self.connection = connection

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        cursor = await self.connection.execute(sql, params or None)
        return int(cursor.rowcount)

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        cursor = await self.connection.execute(sql, params or None)
        return list(await cursor.fetchall())


class PostgresDatabase:
    dialect = "postgresql"
    blob = "BYTEA"

    def __init__(self, url: str, max_size: int = POOL_MAX) -> None:
        self.url = url
        self.max_size = max_size
        self._pool: Any = None

    async def open(self) -> None:
        from psycopg_pool import AsyncConnectionPool  # only a PostgreSQL archive needs it

        # the pool warns at every failed reconnect; the archiver says it once per retry
        logging.getLogger("psycopg.pool").setLevel(logging.ERROR)
        pool = AsyncConnectionPool(
            self.url,
            min_size=1,
            max_size=self.max_size,
            open=False,
            timeout=CONNECT_TIMEOUT_S,
            # a connection is checked as it leaves the pool: after a server restart the
            # broken ones are replaced instead of failing a transaction each
            check=AsyncConnectionPool.check_connection,
            kwargs={"connect_timeout": int(CONNECT_TIMEOUT_S)},
        )
        try:
            await pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
        except Exception as error:
            await pool.close()
            raise ArchiveUnavailable(f"PostgreSQL: {error}") from error
        self._pool = pool

    async def close(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await pool.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[_PostgresTransaction]:
        import psycopg

        assert self._pool is not None, "not open"
        try:
            async with self._pool.connection() as connection, connection.transaction():
                yield _PostgresTransaction(connection)
        except (psycopg.OperationalError, psycopg.InterfaceError) as error:
            raise ArchiveUnavailable(f"PostgreSQL: {error}") from error
        except Exception as error:
            if type(error).__name__ == "PoolTimeout":
                raise ArchiveUnavailable(f"PostgreSQL: {error}") from error
            raise


def database_for(url: str) -> Database:
    """``sqlite:///path`` (``sqlite:////abs/path`` or ``sqlite:///rel/path``) or
    ``postgresql://…`` / ``postgres://…``."""
    if url.startswith("sqlite:///"):
        path = url[len("sqlite:///") :]
        if not path:
            raise ValueError("a sqlite archive URL names a file: sqlite:///path/archive.sqlite3")
        return SqliteDatabase(Path(path))
    if url.startswith(("postgresql://", "postgres://")):
        return PostgresDatabase(url)
    raise ValueError(
        "the archive URL is sqlite:///PATH or postgresql://USER@HOST:PORT/DB, "
        f"not {url.split('://')[0]!r}"
    )
