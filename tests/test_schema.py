"""`orrery schema`: what a client may send is what the server reads — the join it sends
carries no field the service fills in, and no outcome carries a seat secret."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from orrery.cli import app

pytestmark = pytest.mark.unit


def test_the_schema_lists_only_what_a_client_sends(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["schema", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    for path in tmp_path.glob("*.schema.json"):
        defs = json.loads(path.read_text())["$defs"]
        if path.name == "gateway.schema.json":  # the HTTP API's bodies (below)
            continue
        join = defs["JoinRequest"]
        assert set(join["properties"]) == {"type", "name", "seat"}, path.name
        assert "JoinSeat" not in defs  # the logged form is the service's, not the client's
        assert set(defs["Accepted"]["properties"]) == {
            "outcome", "command_id", "table_id", "first_seq", "last_seq", "seat", "chat_id",
        }  # fmt: skip
        envelope = defs["CommandEnvelope"]
        assert {"token", "reply_to", "identity"} <= set(envelope["properties"])
        # short names a code generator turns into readable type names, every $ref resolved
        assert all(re.fullmatch(r"[A-Z][A-Za-z0-9]{0,39}", name) for name in defs), path.name
        refs = re.findall(r'"\$ref": "#/\$defs/([^"]+)"', path.read_text())
        assert refs and set(refs) <= set(defs)


def test_the_gateway_schema_is_the_openapi_documents_bodies(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["schema", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "gateway.schema.json").read_text()
    defs = json.loads(text)["$defs"]
    assert {"TableView", "CommandIn", "ErrorBody", "NewTable", "SpacecraftTableView"} <= set(defs)
    assert defs["TableView"]["discriminator"]["mapping"]["spacecraft"] == (
        "#/$defs/SpacecraftTableView"
    )
    assert all(re.fullmatch(r"[A-Z][A-Za-z0-9]{0,39}", name) for name in defs)
    refs = re.findall(r'"\$ref": "#/\$defs/([^"]+)"', text)
    assert refs and set(refs) <= set(defs) and "#/components/" not in text
