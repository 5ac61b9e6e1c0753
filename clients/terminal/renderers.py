"""How a game is drawn: the small interface each ``render_<game>`` module implements.

A renderer is a module of pure functions from a seat's table view (the JSON of
``orrery_contracts.views.TableView``, with the game's own view under ``view``) to rich
renderables and labels. It reads the game's static content from
``orrery_contracts.<game>.catalogue`` for names; it never imports ``games``. A game without a
module of its own is drawn by ``render_generic``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from rich import box
from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from clients.terminal.printable import PrintableConsole

View = dict[str, Any]
Command = dict[str, Any]


@dataclass(frozen=True)
class Players:
    """The game's columns of the seat list, and the built-in opponents to list with it."""

    columns: list[str] = field(default_factory=list)
    cells: dict[int, list[str]] = field(default_factory=dict)  # per table seat
    ais: list[tuple[str, list[str]]] = field(default_factory=list)  # (name, cells)


class Renderer(Protocol):
    TITLE: str

    def board(self, tv: View) -> list[RenderableType]:
        """The public board, as everybody at the table sees it."""
        ...

    def private(self, tv: View) -> RenderableType | None:
        """What only this seat sees (its hand, chips, goals), or None for a spectator."""
        ...

    def players(self, tv: View) -> Players: ...

    def path(self, command: Command, tv: View) -> list[str]:
        """The menu labels of one legal command, most general first."""
        ...


# games drawn by a module of their own (clients/terminal/render_<game>.py)
DRAWN = ("fractured_sky", "spacecraft", "federation")


def module_for(game: str) -> Renderer:
    """The game's renderer module itself (``render_generic`` for a game without one)."""
    name = game if game in DRAWN else "generic"
    return cast(Renderer, importlib.import_module(f"clients.terminal.render_{name}"))


def renderer_for(game: str) -> Renderer:
    """The game's renderer, falling back to the generic drawing for any view it cannot
    read (a newer service may add to a view): the client shows the data, never crashes."""
    module = module_for(game)
    if module.TITLE == "":
        return module
    return _Guarded(module, module_for(""))


_SHAPE_ERRORS = (KeyError, IndexError, TypeError, ValueError, AttributeError)
_CANNOT = "(this client cannot draw this view of the game; here it is as data)"


class _Guarded:
    def __init__(self, module: Renderer, fallback: Renderer) -> None:
        self.TITLE = module.TITLE
        self._module = module
        self._fallback = fallback

    def board(self, tv: View) -> list[RenderableType]:
        try:
            return self._module.board(tv)
        except _SHAPE_ERRORS:
            return [Text(_CANNOT, style="dim"), *self._fallback.board(tv)]

    def private(self, tv: View) -> RenderableType | None:
        try:
            return self._module.private(tv)
        except _SHAPE_ERRORS:
            return None

    def players(self, tv: View) -> Players:
        try:
            return self._module.players(tv)
        except _SHAPE_ERRORS:
            return Players()

    def path(self, command: Command, tv: View) -> list[str]:
        try:
            return self._module.path(command, tv)
        except _SHAPE_ERRORS:
            return self._fallback.path(command, tv)


def seat_name(tv: View, seat: int | None) -> str:
    """A table seat's player name ("you" marked), for boards and labels."""
    if seat is None or seat < 0:
        return "—"
    seats = tv.get("seats") or []
    name = seats[seat]["name"] if 0 <= seat < len(seats) and seats[seat]["name"] else None
    label = name or f"seat {seat}"
    return f"{label} (you)" if seat == tv.get("viewer") else label


_PLURALS = {"body": "bodies", "nose": "noses"}


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or _PLURALS.get(word) or word + 's')}"


def compact_table(title: str | None, *columns: str) -> Table:
    """The tables of every board: a title, one header rule, no borders, rows kept on one
    line where they fit."""
    table = Table(
        title=title,
        title_justify="left",
        title_style="bold",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        padding=(0, 1),
    )
    for column in columns:
        table.add_column(column)
    return table


def make_console(**options: Any) -> Console:
    """The console every screen is drawn on: no markup, emoji codes or highlighting in
    plain strings, so a player's name is printed as typed (never read as styling), and
    no escape sequence or control character from text it did not draw (``printable``)."""
    return PrintableConsole(markup=False, emoji=False, highlight=False, **options)
