"""`orrery schema`: what a client may send is what the server reads — the join it sends
carries no field the service fills in, and no outcome carries a seat secret."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from orrery.cli import app


def test_the_schema_lists_only_what_a_client_sends(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["schema", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    for path in tmp_path.glob("*.schema.json"):
        defs = json.loads(path.read_text())["$defs"]
        join = defs["JoinRequest"]
        assert set(join["properties"]) == {"type", "name", "seat"}, path.name
        assert "JoinSeat" not in defs  # the logged form is the service's, not the client's
        assert set(defs["Accepted"]["properties"]) == {
            "outcome", "command_id", "table_id", "first_seq", "last_seq", "seat",
        }  # fmt: skip
        envelope = next(v for k, v in defs.items() if k.startswith("CommandEnvelope"))
        assert {"token", "reply_to", "identity"} <= set(envelope["properties"])
