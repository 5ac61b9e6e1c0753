"""Each process kind reads its settings once, from its settings module, when it starts:
no module reads the environment when it is imported (a value read then is the one of
whichever process imported it first, a test's included), and each settings class reads
its defaults from an empty environment and its variables from a full one."""

from __future__ import annotations

import ast
from collections.abc import Iterator

import pytest

from archive.settings import ArchiverSettings
from bots.settings import BotSettings
from matchmaking.settings import MatchmakerSettings
from orrery.settings import TimekeeperSettings, WatchdogSettings
from projections.settings import ProjectorSettings
from services.settings import WorkerSettings
from streams.settings import ConsumerSettings
from tests.test_imports import MODULES

pytestmark = pytest.mark.unit


def _environment_reads(node: ast.AST) -> Iterator[int]:
    """Lines that read ``os.environ`` / ``os.getenv`` (a subscript, a call or a method),
    but in a lambda (a dataclass field's default factory runs when the object is made)."""
    if isinstance(node, ast.Lambda):
        return
    if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv"):
        yield node.lineno
    for child in ast.iter_child_nodes(node):
        yield from _environment_reads(child)


def _at_import(statements: list[ast.stmt]) -> Iterator[int]:
    """Lines that run when the module is imported and read the environment: module and
    class bodies, not function bodies; a default that is ``os.environ`` itself (the
    mapping a function reads from when called) is no read."""
    for statement in statements:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            for default in [*statement.args.defaults, *statement.args.kw_defaults]:
                if default is not None and not (
                    isinstance(default, ast.Attribute) and default.attr == "environ"
                ):
                    yield from _environment_reads(default)
        elif isinstance(statement, ast.ClassDef):
            yield from _at_import(statement.body)
        elif isinstance(statement, ast.If) and "__main__" in ast.unparse(statement.test):
            continue  # a script's entry point
        else:
            yield from _environment_reads(statement)


def test_no_module_reads_the_environment_when_imported() -> None:
    found = [
        f"{name}:{line}"
        for name, path in sorted(MODULES.items())
        for line in _at_import(ast.parse(path.read_text(), str(path)).body)
    ]
    assert found == []


@pytest.mark.parametrize(
    "kind",
    [
        WorkerSettings,
        ProjectorSettings,
        ConsumerSettings,
        WatchdogSettings,
        TimekeeperSettings,
        ArchiverSettings,
        MatchmakerSettings,
        BotSettings,
    ],
)
def test_an_empty_environment_gives_the_defaults(kind: type) -> None:
    assert kind.from_env({}) == kind()


def test_the_worker_reads_its_variables() -> None:
    settings = WorkerSettings.from_env(
        {
            "ORRERY_INTAKE_BATCH": "8",
            "ORRERY_INTAKE_CONCURRENCY": "4",
            "ORRERY_WORKER_TTL_S": "2.5",
            "ORRERY_REPLY_TTL_S": "60",
            "ORRERY_LOBBY_TTL_S": "1.5",
            "ORRERY_CHAT_RATE": "3/7",
            "ORRERY_WAIT_AOF_MS": "100",
            "ORRERY_WAIT_REPLICAS": "1",
            "ORRERY_WAIT_REPLICAS_MS": "500",
            "ORRERY_SECRET_KEY": "k",
            "ORRERY_FAULT_KILL_AFTER_APPEND": "crash-",
        }
    )
    assert settings == WorkerSettings(
        intake_batch=8,
        intake_concurrency=4,
        worker_ttl_s=2.5,
        reply_ttl_s=60,
        lobby_ttl_s=1.5,
        chat_rate=3,
        chat_window_s=7,
        wait_aof_ms=100,
        wait_replicas=1,
        wait_replicas_ms=500,
        secret_key="k",
        kill_after_append="crash-",
    )


def test_the_other_processes_read_theirs() -> None:
    assert ProjectorSettings.from_env(
        {"ORRERY_NOTICE_TTL_S": "9", "ORRERY_LOBBY_TTL_S": "2"}
    ) == ProjectorSettings(notice_ttl_s=9, lobby_ttl_s=2.0)
    assert ConsumerSettings.from_env(
        {"ORRERY_CONSUMER": "pod-7", "ORRERY_CLAIM_IDLE_MS": "800"}
    ) == ConsumerSettings(consumer="pod-7", claim_idle_ms=800)
    assert WatchdogSettings.from_env(
        {
            "ORRERY_GROUP_WATCHDOG_S": "0",
            "ORRERY_TOPOLOGY_POLL_S": "0.25",
            "ORRERY_DEAD_CONSUMER_S": "1.5",
        }
    ) == WatchdogSettings(interval_s=0.0, topology_poll_s=0.25, dead_consumer_idle_ms=1500)
    assert TimekeeperSettings.from_env({"ORRERY_TIMEKEEPER_POLL_MS": "50"}) == TimekeeperSettings(
        poll_ms=50
    )
    assert ArchiverSettings.from_env(
        {
            "ORRERY_ARCHIVE_AFTER_S": "0",
            "ORRERY_ARCHIVE_POLL_S": "0.5",
            "ORRERY_ARCHIVE_CONCURRENCY": "1",
            "ORRERY_ARCHIVE_LEASE_MS": "900",
            "ORRERY_FAULT_KILL_ARCHIVER_AFTER": "write",
        }
    ) == ArchiverSettings(after_s=0.0, poll_s=0.5, concurrency=1, lease_ms=900, fault="write")
    assert MatchmakerSettings.from_env(
        {
            "ORRERY_MATCHMAKER_LEASE_MS": "500",
            "ORRERY_MATCHMAKER_CYCLE_S": "0.1",
            "ORRERY_QUEUE_OFFLINE_S": "2",
            "ORRERY_FAULT_KILL_MATCHMAKER_AFTER": "made",
        }
    ) == MatchmakerSettings(lease_ms=500, cycle_s=0.1, offline_s=2.0, fault="made")
    assert BotSettings.from_env({"ORRERY_BOT_BUDGET_MS": "150"}) == BotSettings(budget_ms=150)
