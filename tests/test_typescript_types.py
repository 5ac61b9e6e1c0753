"""A TypeScript client generated from the JSON Schema: json-schema-to-typescript
(pinned in clients/typescript/package.json, installed by ``python3 dev.py test``) turns
``orrery schema``'s files into types whose names are the schema's short definition
names, and the example app type-checks against them while a typo does not. The files
include the gateway's HTTP bodies (``gateway.schema.json``, the OpenAPI document's
components): a view as ``GET …/view`` answers it, a command as ``POST …/commands`` takes
it, the error body."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from orrery.schemas import write_schemas
from tests.support.service import REPO

pytestmark = pytest.mark.gateway

TS = REPO / "clients" / "typescript"
TSC = TS / "node_modules" / ".bin" / "tsc"
IDENTIFIER = re.compile(r"^[A-Z][A-Za-z0-9]{0,39}$")


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("node") is None or not TSC.exists():
        pytest.fail("Node.js and clients/typescript/node_modules are needed: python3 dev.py test")
    work = tmp_path_factory.mktemp("ts")
    write_schemas(work / "schema")
    subprocess.run(
        ["node", str(TS / "generate.mjs"), str(work / "schema"), str(work / "types")],
        check=True, cwd=TS, capture_output=True,
    )  # fmt: skip
    shutil.copy(TS / "example.ts", work / "example.ts")
    shutil.copy(TS / "tsconfig.json", work / "tsconfig.json")
    return work


def _exported(path: Path) -> set[str]:
    return set(re.findall(r"^export (?:interface|type) (\w+)", path.read_text(), flags=re.M))


def test_every_generated_name_is_a_short_definition_name(generated: Path) -> None:
    for schema_file in sorted((generated / "schema").glob("*.schema.json")):
        schema = json.loads(schema_file.read_text())
        names = _exported(generated / "types" / schema_file.name.replace(".schema.json", ".d.ts"))
        assert set(schema["$defs"]) <= names  # each definition under its own name
        assert len(names - set(schema["$defs"])) == 1  # plus the file's root type
        assert all(IDENTIFIER.match(n) for n in names), [n for n in names if len(n) > 40]


def test_an_app_type_checks_and_a_typo_does_not(generated: Path) -> None:
    example = (generated / "example.ts").read_text()
    broken = (
        example.replace("region: 7, chip: 7", "region: 7, chp: 7")
        .replace("outcome.code", "outcome.cod")
        .replace("error.code !==", "error.cdoe !==")  # the gateway's ErrorBody
        .replace('!== "spacecraft"', '!== "spacecrafts"')  # not one of the games
    )
    (generated / "broken.ts").write_text(broken)
    config = json.loads((generated / "tsconfig.json").read_text())
    config["files"] = ["example.ts", "broken.ts"]
    (generated / "tsconfig.json").write_text(json.dumps(config))
    # one compiler run for both files (tsc's start-up is most of its time)
    run = subprocess.run(
        [str(TSC), "-p", "."], capture_output=True, text=True, timeout=120, cwd=generated
    )
    errors = [line for line in run.stdout.splitlines() if ": error TS" in line]
    assert run.returncode != 0 and errors, run.stdout
    assert all(line.startswith("broken.ts(") for line in errors), errors  # example.ts is clean
    assert "'chp' does not exist" in run.stdout and "'cod' does not exist" in run.stdout
    assert "'cdoe' does not exist" in run.stdout and '"spacecrafts"\' have no overlap' in run.stdout
    assert (generated / "types" / "gateway.d.ts").exists()
