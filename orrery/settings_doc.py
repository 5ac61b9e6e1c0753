"""Every ``ORRERY_*`` environment variable, in one registry, and the page made from it.

``docs/configuration.md`` is generated from :data:`SETTINGS`:

    python -m orrery.settings_doc --write    # rewrite docs/configuration.md
    python -m orrery.settings_doc --check    # exit 1 when it is out of date

``tests/test_settings_doc.py`` fails when the page and the registry differ, when a
tracked file names an ``ORRERY_*`` variable the registry does not list, or when the
registry lists one that nothing names any more. So a new setting is added here, with
its default, the processes that read it and what it does, and the page is rewritten.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

PAGE = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"


@dataclass(frozen=True)
class Setting:
    name: str
    default: str  # as a user reads it: "16", "off", "–" (none)
    readers: str  # the processes or commands that read it
    what: str  # what it does, in a sentence
    group: str  # the section of the page


SERVICE = "The service's processes"
SERVER = "Reaching the server"
GATEWAY = "The gateway and the bot runner"
ARCHIVE = "The archive"
MATCHMAKING = "Matchmaking"
COMMANDS = "The command line"
DEPLOY = "The shipped deployments (`deploy/`)"
DEVELOPMENT = "Tests and development"

GROUPS = (SERVER, SERVICE, GATEWAY, ARCHIVE, MATCHMAKING, COMMANDS, DEPLOY, DEVELOPMENT)

INTRO = {
    SERVER: "Every command and process reads these; a command-line option, where there is "
    "one (`--redis-url`, `--partitions`), wins over the variable.",
    SERVICE: "Read by the decider workers, projectors and timekeepers (`orrery serve` "
    "passes its environment to every process it starts).",
    GATEWAY: "Read by `orrery gateway` and `orrery bots` (see [gateway.md](gateway.md)).",
    ARCHIVE: "Read by the archivers and by every command that reads or archives "
    "finished tables (see [archive.md](archive.md)).",
    MATCHMAKING: 'Read by `orrery matchmaker` (see [gateway.md](gateway.md), "Quick play").',
    COMMANDS: "Read by single commands of the command line (see [cli.md](cli.md)).",
    DEPLOY: "Used only by `deploy/compose.yaml`, the Kubernetes manifests and the ACL "
    "template (`deploy/valkey/users.acl.template`); no Orrery process reads them. Each "
    "`*_PASSWORD` is one Redis user's password (see [security.md](security.md)).",
    DEVELOPMENT: "For tests and `dev.py`; never set them in production.",
}

SETTINGS: tuple[Setting, ...] = (
    # reaching the server
    Setting(
        "ORRERY_REDIS_URL",
        "the embedded server",
        "every command and process",
        "the server: `redis://…`, or a cluster as `redis+cluster://h1:p1,h2:p2` (or any "
        "node's URL); without it a command starts the embedded server of its data folder",
        SERVER,
    ),
    Setting(
        "ORRERY_REDIS_USERNAME",
        "–",
        "every command and process",
        "the Redis user, when the URL names none",
        SERVER,
    ),
    Setting(
        "ORRERY_REDIS_PASSWORD",
        "–",
        "every command and process",
        "the Redis user's password, when the URL holds none",
        SERVER,
    ),
    Setting(
        "ORRERY_PARTITIONS",
        "16",
        "serve, worker, projector, timekeeper, archiver",
        "P, the partition count, for new data (it must match the stored P)",
        SERVER,
    ),
    Setting(
        "ORRERY_LOG_LEVEL",
        "info",
        "every process",
        "the structlog level (`debug`, `info`, `warning`, `error`, `critical`)",
        SERVER,
    ),
    Setting(
        "ORRERY_EXTRA_GAMES",
        "–",
        "every process",
        "extra games to host, comma-separated `module:GAME` (e.g. the tests' tiny game)",
        SERVER,
    ),
    Setting(
        "ORRERY_SECRET_KEY",
        "generated once into `<data-dir>/data/secret.key` (mode 0600)",
        "worker, gateway, bot runner, matchmaker",
        "the server key: signs sessions and player identities, derives seat secrets; every "
        "process must share it (`orrery serve` passes it to its children)",
        SERVER,
    ),
    Setting(
        "ORRERY_METRICS_PORT",
        "off",
        "worker, projector, timekeeper, archiver, matchmaker",
        "serve Prometheus `/metrics` on this port (`--metrics-port`; under `serve`, child i "
        "on port + i)",
        SERVER,
    ),
    Setting(
        "ORRERY_METRICS_ADDR",
        "0.0.0.0",
        "worker, projector, timekeeper, archiver, matchmaker",
        "the address `/metrics` listens on",
        SERVER,
    ),
    # the service's processes
    Setting(
        "ORRERY_CONSUMER",
        "`role-host-pid`",
        "worker, projector",
        "the consumer name in the consumer groups (unique per process)",
        SERVICE,
    ),
    Setting(
        "ORRERY_CLAIM_IDLE_MS",
        "15000",
        "worker, projector",
        "how long an entry may sit with a crashed consumer before another claims it",
        SERVICE,
    ),
    Setting(
        "ORRERY_WAIT_AOF_MS",
        "0 (off)",
        "worker",
        "confirm the AOF fsync (`WAITAOF`) within this many ms before answering "
        '"accepted" (`--wait-aof`)',
        SERVICE,
    ),
    Setting(
        "ORRERY_WAIT_REPLICAS",
        "0 (off)",
        "worker",
        'confirm that this many replicas received the append (`WAIT`) before answering "'
        'accepted" (`--wait-replicas`): a failover then loses no answered command',
        SERVICE,
    ),
    Setting(
        "ORRERY_WAIT_REPLICAS_MS",
        "2000",
        "worker",
        "how long the `WAIT` for replicas may take",
        SERVICE,
    ),
    Setting(
        "ORRERY_INTAKE_BATCH",
        "32",
        "worker",
        "command entries a worker reads per batch",
        SERVICE,
    ),
    Setting(
        "ORRERY_INTAKE_CONCURRENCY",
        "48",
        "worker",
        "commands a worker process decides and appends at once",
        SERVICE,
    ),
    Setting(
        "ORRERY_WORKER_TTL_S",
        "5",
        "worker",
        "a worker whose beat in `orrery:deciders` is older than this loses its partitions "
        "to the others",
        SERVICE,
    ),
    Setting(
        "ORRERY_REPLY_TTL_S",
        "3600",
        "worker",
        "a reply stream's lifetime without a reply",
        SERVICE,
    ),
    Setting(
        "ORRERY_LOBBY_TTL_S",
        "86400",
        "worker, projector",
        "a table not started within this many seconds of its creation is closed (0: never)",
        SERVICE,
    ),
    Setting(
        "ORRERY_CHAT_RATE",
        "`5/10`",
        "worker",
        "chat messages per author, `N/S`: N per S seconds (`rate_limited` beyond)",
        SERVICE,
    ),
    Setting(
        "ORRERY_NOTICE_TTL_S",
        "604800 (7 days)",
        "projector",
        'idle lifetime of a player\'s "your turn" notice stream',
        SERVICE,
    ),
    Setting(
        "ORRERY_PROJECTOR_NICE",
        "2",
        "serve, projector",
        "the projector runs this much below the deciders' CPU priority (`--nice`; 0: the "
        "same), so on shared CPUs an outcome does not wait behind a projection batch",
        SERVICE,
    ),
    Setting(
        "ORRERY_TIMEKEEPER_POLL_MS",
        "250",
        "timekeeper",
        "the longest sleep between deadline checks",
        SERVICE,
    ),
    Setting(
        "ORRERY_GROUP_WATCHDOG_S",
        "5",
        "worker, projector",
        "how often missing consumer groups are recreated (0: never)",
        SERVICE,
    ),
    Setting(
        "ORRERY_TOPOLOGY_POLL_S",
        "0.5",
        "worker, projector",
        "how often a cluster's masters are checked, to follow a failover",
        SERVICE,
    ),
    Setting(
        "ORRERY_DEAD_CONSUMER_S",
        "3600",
        "worker, projector",
        "a consumer idle this long with nothing pending is removed from its group",
        SERVICE,
    ),
    # the gateway
    Setting(
        "ORRERY_GATEWAY_CORS_ORIGINS",
        "none (same origin only)",
        "gateway",
        "comma-separated browser origins allowed to call the API (`--cors-origin`)",
        GATEWAY,
    ),
    Setting(
        "ORRERY_GATEWAY_RATE",
        "20",
        "gateway",
        "per-player token bucket: requests per second",
        GATEWAY,
    ),
    Setting(
        "ORRERY_GATEWAY_BURST",
        "60",
        "gateway",
        "per-player token bucket: its size",
        GATEWAY,
    ),
    Setting(
        "ORRERY_GATEWAY_ANON_RATE",
        "2",
        "gateway",
        "per client address, for sign-up and sign-in: requests per second",
        GATEWAY,
    ),
    Setting(
        "ORRERY_GATEWAY_ANON_BURST",
        "20",
        "gateway",
        "per client address, for sign-up and sign-in: the bucket's size",
        GATEWAY,
    ),
    Setting(
        "ORRERY_GATEWAY_MAX_BODY",
        "16384",
        "gateway",
        "the largest request body (and WebSocket message) in bytes; larger: 413",
        GATEWAY,
    ),
    Setting(
        "ORRERY_SESSION_TTL_S",
        "86400",
        "gateway",
        "how long a session token lasts",
        GATEWAY,
    ),
    Setting(
        "ORRERY_WEB_DIR",
        "`clients/web/`",
        "gateway",
        "the static files served at `/`",
        GATEWAY,
    ),
    # the archive
    Setting(
        "ORRERY_ARCHIVE_URL",
        "`sqlite:///<data-dir>/data/archive.sqlite3`",
        "archiver, gateway, every command that reads or archives tables",
        "the archive: `sqlite:///PATH` or `postgresql://USER:PASSWORD@HOST:PORT/DB` "
        "(`--archive-url`)",
        ARCHIVE,
    ),
    Setting(
        "ORRERY_ARCHIVE_AFTER_S",
        "600",
        "archiver, archive run",
        "a table that finished or closed this long ago is archived (0: at once)",
        ARCHIVE,
    ),
    Setting(
        "ORRERY_ARCHIVE_POLL_S",
        "1",
        "archiver",
        "the longest sleep between looks for due tables",
        ARCHIVE,
    ),
    Setting(
        "ORRERY_ARCHIVE_CONCURRENCY",
        "4",
        "archiver",
        "archive transactions (of up to 50 tables of one partition) at once",
        ARCHIVE,
    ),
    Setting(
        "ORRERY_ARCHIVE_LEASE_MS",
        "30000",
        "archiver",
        "how long a table an archiver took stays its own (a crashed archiver's tables wait "
        "this long)",
        ARCHIVE,
    ),
    # matchmaking
    Setting(
        "ORRERY_MATCHMAKER_LEASE_MS",
        "10000",
        "matchmaker",
        "how long a matchmaker owns a game's queue without renewing it (a crashed "
        "matchmaker's queues wait this long)",
        MATCHMAKING,
    ),
    Setting(
        "ORRERY_MATCHMAKER_CYCLE_S",
        "1",
        "matchmaker",
        "how often the matcher runs and realtime tickets' players are checked for presence",
        MATCHMAKING,
    ),
    Setting(
        "ORRERY_QUEUE_OFFLINE_S",
        "30",
        "matchmaker, matchmaking audit",
        "a realtime ticket expires this long after its player's last live socket closed",
        MATCHMAKING,
    ),
    # single commands
    Setting(
        "ORRERY_ADMIN_TOKEN",
        "–",
        "replay, export",
        "the operator's token for `--as admin`",
        COMMANDS,
    ),
    Setting(
        "ORRERY_TOKEN",
        "–",
        "replay, export",
        "a seat's secret for `--as SEAT` (`--token`)",
        COMMANDS,
    ),
    Setting(
        "ORRERY_SEAT_TOKEN",
        "–",
        "play",
        "the seat's secret to resume with (`--token`)",
        COMMANDS,
    ),
    Setting(
        "ORRERY_PROG",
        "`orrery` (`dev.py` sets what you typed)",
        "play",
        'how you run the command line, in the "come back with" and "others join with" lines',
        COMMANDS,
    ),
    Setting(
        "ORRERY_DRILL_LOG_LEVEL",
        "warning",
        "cluster drill",
        "the log level of the drill's processes",
        COMMANDS,
    ),
    Setting(
        "ORRERY_DRILL_KEEP",
        "off",
        "cluster drill",
        "any value keeps the drill's cluster running afterwards",
        COMMANDS,
    ),
    # deployments
    Setting(
        "ORRERY_GATEWAY_REDIS_URL",
        "–",
        "`deploy/k8s/gateway.yaml`",
        "the gateway's Redis URL, as its own ACL user (the Secret's key)",
        DEPLOY,
    ),
    Setting(
        "ORRERY_BOTS_REDIS_URL",
        "–",
        "`deploy/k8s/gateway.yaml`",
        "the bot runner's Redis URL, as its own ACL user (the Secret's key)",
        DEPLOY,
    ),
    Setting(
        "ORRERY_ADMIN_PASSWORD",
        "– (required)",
        "compose, Valkey's ACL",
        "the operator user `orrery-admin`",
        DEPLOY,
    ),
    Setting(
        "ORRERY_APP_PASSWORD",
        "– (required)",
        "compose, Valkey's ACL",
        "a trusted app's user `orrery-app`",
        DEPLOY,
    ),
    Setting(
        "ORRERY_REPLICATION_PASSWORD",
        "– (required)",
        "compose, Valkey's ACL",
        "the replicas' user",
        DEPLOY,
    ),
    Setting(
        "ORRERY_WORKER_PASSWORD",
        "– (required)",
        "compose, Valkey's ACL",
        "the decider workers' user `orrery-worker`",
        DEPLOY,
    ),
    Setting(
        "ORRERY_PROJECTOR_PASSWORD",
        "– (required)",
        "compose, Valkey's ACL",
        "the projectors' user `orrery-projector`",
        DEPLOY,
    ),
    Setting(
        "ORRERY_TIMEKEEPER_PASSWORD",
        "– (required)",
        "compose, Valkey's ACL",
        "the timekeepers' user `orrery-timekeeper`",
        DEPLOY,
    ),
    Setting(
        "ORRERY_ARCHIVER_PASSWORD",
        "– (required)",
        "compose, Valkey's ACL",
        "the archivers' user `orrery-archiver`",
        DEPLOY,
    ),
    Setting(
        "ORRERY_GATEWAY_PASSWORD",
        "– (required)",
        "compose, Valkey's ACL",
        "the gateway's user `orrery-gateway`",
        DEPLOY,
    ),
    Setting(
        "ORRERY_BOTS_PASSWORD",
        "– (required)",
        "compose, Valkey's ACL",
        "the bot runner's user `orrery-bots`",
        DEPLOY,
    ),
    Setting(
        "ORRERY_MATCHMAKER_PASSWORD",
        "– (required)",
        "compose, Valkey's ACL",
        "the matchmakers' user `orrery-matchmaker`",
        DEPLOY,
    ),
    Setting(
        "ORRERY_ARCHIVE_PASSWORD",
        "– (required)",
        "compose",
        "the password of the archive's PostgreSQL user `orrery`",
        DEPLOY,
    ),
    Setting(
        "ORRERY_WORKERS",
        "2",
        "compose",
        "decider worker replicas",
        DEPLOY,
    ),
    Setting(
        "ORRERY_PROJECTORS",
        "1",
        "compose",
        "projector replicas",
        DEPLOY,
    ),
    Setting(
        "ORRERY_GATEWAYS",
        "1",
        "compose",
        "gateway replicas",
        DEPLOY,
    ),
    # tests and development
    Setting(
        "ORRERY_FAULT_KILL_AFTER_APPEND",
        "–",
        "worker",
        "SIGKILL the worker right after the append of a command whose id has this prefix",
        DEVELOPMENT,
    ),
    Setting(
        "ORRERY_FAULT_KILL_ARCHIVER_AFTER",
        "–",
        "archiver",
        "SIGKILL the archiver right after `write`, `verify`, `delete` or `lobby`",
        DEVELOPMENT,
    ),
    Setting(
        "ORRERY_FAULT_KILL_MATCHMAKER_AFTER",
        "–",
        "matchmaker",
        "SIGKILL the matchmaker right after `made`, `create`, `join`, `bots`, `start` or `started`",
        DEVELOPMENT,
    ),
    Setting(
        "ORRERY_CHROMIUM",
        "`chromium` on the `PATH`",
        "dev.py test, the browser tests",
        "the Chromium binary the browser tests drive",
        DEVELOPMENT,
    ),
    Setting(
        "ORRERY_WEB_SCREENSHOTS",
        "off",
        "the browser tests",
        "a folder to write the table pages' screenshots to (`docs/img` refreshes the "
        "committed ones)",
        DEVELOPMENT,
    ),
)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render() -> str:
    """docs/configuration.md, as the registry says it."""
    lines = [
        "# Configuration: environment variables",
        "",
        "Every `ORRERY_*` variable Orrery or its deployments read, with its default, who",
        "reads it and what it does. A command-line option, where there is one, wins over",
        "its variable. This page is generated from `orrery/settings_doc.py`",
        "(`python -m orrery.settings_doc --write`); a test fails when the two differ or",
        "when the code names a variable the registry does not list.",
    ]
    for group in GROUPS:
        lines += ["", f"## {group}", "", INTRO[group], ""]
        lines += ["| variable | default | read by | what it does |", "|---|---|---|---|"]
        for s in SETTINGS:
            if s.group == group:
                cells = (f"`{s.name}`", s.default, s.readers, s.what)
                lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    page = render()
    if argv == ["--write"]:
        PAGE.write_text(page)
        return 0
    if argv == ["--check"]:
        if PAGE.read_text() != page:
            print(f"{PAGE} is out of date: python -m orrery.settings_doc --write")
            return 1
        return 0
    if argv:
        print("usage: python -m orrery.settings_doc [--write | --check]", file=sys.stderr)
        return 2
    sys.stdout.write(page)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
