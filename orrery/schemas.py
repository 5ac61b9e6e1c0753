"""JSON Schema (2020-12) for the whole wire contract, one file per game plus a common one,
and one for the gateway's HTTP API.

A client in another language needs only these files: the command envelope with every
command body the table accepts, outcomes, the log's event envelope with every event,
the per-seat view, the feed entry and the scoreboard records. ``gateway.schema.json``
holds the HTTP API's bodies, the very components of ``/v1/openapi.json``
(:class:`gateway.openapi.Schemas`) under ``$defs``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from games.codec import client_command_union, event_union
from games.registry import all_games
from gateway.openapi import moved_refs
from orrery_contracts.envelope import CommandEnvelope, EventEnvelope, Outcome
from orrery_contracts.feed import FeedEntry
from orrery_contracts.views import RatingLine, TableScore, TableView


def _generic(generic: Any, *parameters: Any) -> Any:
    """``generic[parameters]`` for unions built at run time."""
    return generic[parameters if len(parameters) > 1 else parameters[0]]


def _document(title: str, types: dict[str, Any]) -> dict[str, Any]:
    schemas, components = msgspec.json.schema_components(
        list(types.values()), ref_template="#/$defs/{name}"
    )
    names = _short_names(components)
    document = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": title,
        "properties": dict(zip(types, schemas, strict=True)),
        "$defs": {names[name]: _titled(schema, names[name]) for name, schema in components.items()},
    }
    return moved_refs(document, "#/$defs/", "#/$defs/", names)


def _short_names(components: dict[str, Any]) -> dict[str, str]:
    """A short, stable name per definition: msgspec names a generic Struct after all its
    parameters (``CommandEnvelope_typing.Union_contracts.table.CreateTable__…``, 1,000
    characters); each file has one instance of each generic, so its class name is enough."""
    names = {name: name.split("_", 1)[0] if "." in name else name for name in components}
    if len(set(names.values())) != len(names):
        raise ValueError("two schema definitions would share a short name")
    return names


def _titled(schema: dict[str, Any], name: str) -> dict[str, Any]:
    """A generic's title names its parameters too (``CommandEnvelope[typing.Union[…]]``),
    and code generators name types after titles: give it the definition's short name."""
    return {**schema, "title": name} if "title" in schema else schema


def gateway_schema() -> dict[str, Any]:
    """The gateway's HTTP bodies (the OpenAPI document's components) as one JSON Schema."""
    from gateway.openapi import REF, Schemas
    from orrery.gateway import hosted_games

    components = Schemas(hosted_games()).components
    roots = {
        "view": "TableView",
        "replay": "ReplayView",
        "new_table": "NewTable",
        "command": "CommandIn",
        "outcome": "CommandOutcome",
        "error": "ErrorBody",
    }
    document = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Orrery gateway HTTP API",
        "properties": {key: {"$ref": REF.format(name=name)} for key, name in roots.items()},
        "$defs": components,
    }
    local: dict[str, Any] = moved_refs(document, REF.format(name=""), "#/$defs/")
    return local


def write_schemas(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    common = _document(
        "Orrery wire contract (lifecycle only)",
        {
            "command_envelope": _generic(CommandEnvelope, client_command_union(None)),
            "outcome": Outcome,
            "event_envelope": _generic(EventEnvelope, event_union(None)),
            "feed_entry": FeedEntry,
            "table_score": TableScore,
            "rating_line": RatingLine,
        },
    )
    path = out / "orrery.schema.json"
    path.write_text(json.dumps(common, indent=2))
    written.append(path)
    for name, game in all_games().items():
        commands = client_command_union(name)
        doc = _document(
            f"Orrery wire contract: {game.title}",
            {
                "command_envelope": _generic(CommandEnvelope, commands),
                "outcome": Outcome,
                "event_envelope": _generic(EventEnvelope, event_union(name)),
                "view": _generic(TableView, game.view_type, commands),
                "options": game.options_type,
            },
        )
        path = out / f"{name}.schema.json"
        path.write_text(json.dumps(doc, indent=2))
        written.append(path)
    path = out / "gateway.schema.json"
    path.write_text(json.dumps(gateway_schema(), indent=2))
    written.append(path)
    return written
