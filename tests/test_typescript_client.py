"""A TypeScript program typed only by the two documents a live gateway serves plays a game
of every game to the end (clients/typescript/play/): its types are generated from
``GET /v1/openapi.json`` (openapi-typescript, for openapi-fetch) and
``GET /v1/asyncapi.json`` (json-schema-to-typescript, for the WebSocket frames), it
compiles with ``tsc --strict`` and more, and overrules the checker nowhere: no ``as``, no
``<T>x``, no ``x!``, no ``any``, no ``x is T`` of its own, no ``@ts-ignore``. Every frame it
gets is checked against the AsyncAPI document before use.

It signs two players up, creates, joins and starts a two-seat table of each game and
plays both seats from their own views' ``legal`` lists (seat 0 over the WebSocket, seat 1
over HTTP), takes a move back with the first ``table.undo`` a view offers and says a line
from each seat; each finished table is checked here against the gateway's own answers.
A second program (play/social.ts) sets notification preferences, keeps and forgets a
push subscription, reads its turns, and makes two players friends.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from games.registry import BUILTIN
from tests.support.gateway import LiveGateway, sign_up, unique
from tests.support.service import REPO

pytestmark = pytest.mark.gateway

TS = REPO / "clients" / "typescript"
TSC = TS / "node_modules" / ".bin" / "tsc"
NODE = shutil.which("node")
# the type assertions a search of the text finds (assertions.mjs finds them in the syntax)
CASTS = re.compile(r"\bas\s+(any|unknown)\b|<any>|\bas\s+[A-Z{(\[]|\bas\s+const\b")


@pytest.fixture(scope="module")
def program(live: LiveGateway, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The program's sources beside the types generated from the served documents,
    compiled: ``<work>/dist/play/main.js``."""
    if NODE is None or not TSC.exists():
        pytest.fail("Node.js and clients/typescript/node_modules are needed: python3 dev.py test")
    work = tmp_path_factory.mktemp("ts-play")
    shutil.copytree(TS / "play", work / "play")
    (work / "node_modules").symlink_to(TS / "node_modules", target_is_directory=True)
    generate = [NODE, str(TS / "generate-api.mjs"), live.url, str(work / "generated")]
    run = subprocess.run(generate, capture_output=True, text=True, timeout=120, cwd=TS)
    assert run.returncode == 0, run.stdout + run.stderr
    for name in ("openapi.d.ts", "asyncapi.d.ts"):
        assert (work / "generated" / name).stat().st_size > 0
    run = subprocess.run(
        [str(TSC), "-p", "play"], capture_output=True, text=True, timeout=180, cwd=work
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return work


def test_the_program_compiles_strict_and_overrules_the_checker_nowhere(program: Path) -> None:
    config = json.loads((program / "play" / "tsconfig.json").read_text())["compilerOptions"]
    assert config["strict"] is True and config["noUncheckedIndexedAccess"] is True
    assert config["exactOptionalPropertyTypes"] is True and config["skipLibCheck"] is False
    sources = sorted((program / "play").glob("*.ts"))
    assert sources and (program / "dist" / "play" / "main.js").exists()
    for source in sources:
        assert not CASTS.findall(source.read_text()), source.name
    # and a probe that has one of each, to show the counter finds them
    probe = program / "probe.ts"
    probe.write_text(
        "let a: any = 1;\nconst b = a as number;\nconst c = <string>a;\nconst d = a!;\n"
        "function e(x: unknown): x is string { return true; }\n// @ts-ignore\n"
        "export { b, c, d, e };\n"
    )
    assert NODE is not None
    run = subprocess.run(
        [NODE, str(TS / "assertions.mjs"), *map(str, sources), str(probe)],
        capture_output=True, text=True, timeout=60, check=True, cwd=TS,
    )  # fmt: skip
    counts = json.loads(run.stdout)
    where = counts.pop("where")
    assert all(line.startswith(f"{probe}:") for line in where), where  # none in the program
    assert counts == {
        "as": 1, "angle": 1, "non_null": 1, "any": 1, "predicate": 1, "ts_directives": 1
    }  # fmt: skip


async def test_the_program_plays_every_game_to_the_end(live: LiveGateway, program: Path) -> None:
    assert NODE is not None
    run = subprocess.run(
        [NODE, str(program / "dist" / "play" / "main.js"), live.url, "--seed", "7"],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=program,
        env={**os.environ, "NODE_NO_WARNINGS": "1"},
    )
    assert run.returncode == 0, run.stdout + run.stderr
    games: dict[str, dict[str, Any]] = {}
    for line in run.stdout.splitlines():
        result = json.loads(line)
        games[result["game"]] = result
    assert sorted(games) == sorted(BUILTIN)

    async with httpx.AsyncClient(base_url=live.url, timeout=30) as http:
        spectator = await sign_up(http, unique("Watch"))
        for game, result in games.items():
            table_id = result["table_id"]
            assert result["phase"] == "finished" and result["seats"] == [0, 1], result
            # both ways of sending were used, an undo was taken, both lines were heard
            assert result["moves"]["websocket"] > 0 and result["moves"]["http"] > 0, result
            assert result["undos"] == 1, result
            assert len(result["chat"]) == 2 and all(game in text for text in result["chat"])
            # what the gateway itself says of the table
            table = (await spectator.get(f"/v1/tables/{table_id}")).json()
            assert table["game"] == game and table["phase"] == "finished", table
            assert table["state"] == "finished" and table["finished_at"] is not None, table
            assert [p["name"] for p in table["players"]] == [
                line["name"] for line in sorted(result["standings"], key=_seat) if not line["ai"]
            ]
            final = (await spectator.get(f"/v1/tables/{table_id}/view")).json()
            assert final["phase"] == "finished" and final["seq"] == result["seq"], final
            assert final["standing"] == result["standing"] is not None
            assert final["standings"] == result["standings"]
            chat = (await spectator.get(f"/v1/tables/{table_id}/chat")).json()["messages"]
            assert sorted(m["text"] for m in chat) == sorted(result["chat"])


async def test_the_program_sets_notifications_and_makes_friends(
    live: LiveGateway, program: Path
) -> None:
    """play/social.ts: the notification and friends operations, typed by the document."""
    assert NODE is not None
    run = subprocess.run(
        [NODE, str(program / "dist" / "play" / "social.js"), live.url],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=program,
        env={**os.environ, "NODE_NO_WARNINGS": "1"},
    )
    assert run.returncode == 0, run.stdout + run.stderr
    read = json.loads(run.stdout)
    ann, ben = read.pop("ann"), read.pop("ben")
    assert read == {
        "prefs": {
            "channels": ["push"],
            "quiet_hours": {"start": "22:00", "end": "07:30"},
            "time_zone": "Europe/Paris",
        },
        "push_kept": 1,
        "push_forgot": 204,
        "turns": 0,
        "friendship": ["requested", "friends"],
        "friends": {"ann": [ben], "ben": [ann]},
        "presence": [[ben, "offline"]],
    }


def _seat(line: dict[str, Any]) -> int:
    seat: int = line["seat"] if line["seat"] is not None else 99
    return seat
