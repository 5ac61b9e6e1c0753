"""Every ``ORRERY_*`` environment variable, in one registry, and the page made from it.

``docs/configuration.md`` is generated from :data:`SETTINGS`:

    python -m orrery.settings_doc --write    # rewrite docs/configuration.md
    python -m orrery.settings_doc --check    # exit 1 when it is out of date

``tests/test_settings_doc.py`` fails when the page and the registry differ, when a
tracked file names an ``ORRERY_*`` variable the registry does not list, or when the
registry lists one that nothing names any more. A process's setting is declared in its
process kind's settings module, beside the field its process reads it into
(``orrery_contracts.settings`` says which modules); the variables no single process kind
owns are declared here. Each declaration holds the default, the processes that read it
and what it does; then the page is rewritten.
"""

from __future__ import annotations

import sys
from pathlib import Path

import archive.settings
import bots.settings
import competitions.settings
import gateway.settings
import matchmaking.settings
import notify.settings
import orrery.settings
import projections.settings
import services.settings
import streams.settings
from orrery_contracts.settings import (
    ARCHIVE,
    COMMANDS,
    DEPLOY,
    DEVELOPMENT,
    GATEWAY,
    MATCHMAKING,
    NOTIFICATIONS,
    SERVER,
    SERVICE,
    Setting,
)

PAGE = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"


GROUPS = (
    SERVER,
    SERVICE,
    GATEWAY,
    ARCHIVE,
    MATCHMAKING,
    NOTIFICATIONS,
    COMMANDS,
    DEPLOY,
    DEVELOPMENT,
)

INTRO = {
    SERVER: "Every command and process reads these; a command-line option, where there is "
    "one (`--redis-url`, `--partitions`), wins over the variable.",
    SERVICE: "Read by the decider workers, projectors and timekeepers (`orrery serve` "
    "passes its environment to every process it starts).",
    GATEWAY: "Read by `orrery gateway` and `orrery bots` (see [gateway.md](gateway.md)).",
    ARCHIVE: "Read by the archivers and by every command that reads or archives "
    "finished tables (see [archive.md](archive.md)).",
    MATCHMAKING: 'Read by `orrery matchmaker` (see [gateway.md](gateway.md), "Quick play").',
    NOTIFICATIONS: "Read by `orrery notifier` (`ORRERY_PUSH_HOSTS` by the gateway too; see "
    '[gateway.md](gateway.md), "Notifications").',
    COMMANDS: "Read by single commands of the command line (see [cli.md](cli.md)).",
    DEPLOY: "Used only by `deploy/compose.yaml`, the Kubernetes manifests and the ACL "
    "template (`deploy/valkey/users.acl.template`); no Orrery process reads them. Each "
    "`*_PASSWORD` is one Redis user's password (see [security.md](security.md)).",
    DEVELOPMENT: "For tests and `dev.py`; never set them in production.",
}

# every process's and command's (the server, the logs, the key, the metrics)
SERVER_SETTINGS: tuple[Setting, ...] = (
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
)

# read by single commands of the command line
COMMAND_SETTINGS: tuple[Setting, ...] = (
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
)

# no Orrery process reads these: the deployments do
DEPLOY_SETTINGS: tuple[Setting, ...] = (
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
        "ORRERY_NOTIFIER_PASSWORD",
        "– (required)",
        "compose, Valkey's ACL",
        "the notifiers' user `orrery-notifier`",
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
)

# the tests' and dev.py's (each process's fault injection is declared with it)
DEVELOPMENT_SETTINGS: tuple[Setting, ...] = (
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

# The registry: the variables above and each process kind's settings module's, in the
# page's order within each section.
SETTINGS: tuple[Setting, ...] = (
    *SERVER_SETTINGS,
    *streams.settings.SETTINGS,
    *services.settings.SETTINGS,
    *projections.settings.SETTINGS,
    *orrery.settings.SETTINGS,
    *gateway.settings.SETTINGS,
    *bots.settings.SETTINGS,
    *archive.settings.SETTINGS,
    *matchmaking.settings.SETTINGS,
    *competitions.settings.SETTINGS,
    *notify.settings.SETTINGS,
    *COMMAND_SETTINGS,
    *DEPLOY_SETTINGS,
    *DEVELOPMENT_SETTINGS,
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
        "its variable. This page is generated from each process kind's settings module",
        "(`services/settings.py` for the workers, `projections/settings.py`,",
        "`streams/settings.py`, `orrery/settings.py`, `gateway/settings.py`,",
        "`archive/settings.py`, `matchmaking/settings.py`, `competitions/settings.py`,",
        "`notify/settings.py`) and",
        "`orrery/settings_doc.py`",
        "(`python -m orrery.settings_doc --write`); a test fails when the two differ or",
        "when the code names a variable no declaration lists.",
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
