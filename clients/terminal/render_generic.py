"""Drawing for a game without a renderer of its own: its whole view, nothing cut.

Top-level fields become a two-column table (lists of small values on one line); the
commands are labelled by their type (without the game's tag prefix) and fields.
"""

from __future__ import annotations

import json
from typing import Any

from rich.console import RenderableType
from rich.pretty import Pretty
from rich.table import Table

from clients.terminal.renderers import Command, Players, View

TITLE = ""


def board(tv: View) -> list[RenderableType]:
    view = tv.get("view")
    if not isinstance(view, dict):
        return [] if view is None else [Pretty(view)]
    table = Table(show_header=False, box=None, padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    for key, value in view.items():
        table.add_row(str(key), _value(value))
    return [table]


def _value(value: Any) -> RenderableType:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 100 else Pretty(value)


def private(tv: View) -> RenderableType | None:
    return None


def players(tv: View) -> Players:
    return Players()


def path(command: Command, tv: View) -> list[str]:
    kind = str(command.get("type", "?"))
    label = kind.split(".", 1)[-1].replace("_", " ")
    fields = ", ".join(f"{k} {v}" for k, v in command.items() if k != "type")
    return [label, fields] if fields else [label]
