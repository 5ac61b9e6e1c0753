"""The screen around a game's board: header, seat list, private panel, standing, menu.

Pure functions from a table view (plus what the session knows: its messages, the menu
it shows, the last round it saw) to one rich renderable. The game's own parts come
from its renderer (``renderers.renderer_for``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from clients.terminal.menu import Entry
from clients.terminal.printable import printable
from clients.terminal.renderers import Renderer, View, compact_table, seat_name
from clients.wording import phase_text
from orrery_contracts.chat import ChatMessage


@dataclass(frozen=True)
class Menu:
    entries: list[Entry]
    crumbs: list[str] = field(default_factory=list)  # the groups opened so far


def round_of(tv: View, last_round: int = 0) -> int:
    """The round to show: the table's while playing; after the end (where the table
    view says 0) the game view's own round, else the last one this session saw."""
    if tv.get("round"):
        return int(tv["round"])
    game = tv.get("view")
    game_round = game.get("round") if isinstance(game, dict) else None
    return game_round if isinstance(game_round, int) and game_round > 0 else last_round


def title(tv: View, renderer: Renderer) -> str:
    return renderer.TITLE or str(tv.get("game", "?"))


def header(tv: View, renderer: Renderer, last_round: int = 0) -> Text:
    text = Text()
    text.append(title(tv, renderer), style="bold cyan")
    text.append(f" · table {tv['table_id']}")
    shown_round = round_of(tv, last_round)
    if shown_round:
        text.append(f" · round {shown_round}")
    phase = tv.get("phase")
    if phase == "finished":
        text.append(" · finished", style="bold")
    elif phase == "lobby":
        open_seats = sum(1 for s in tv["seats"] if s["name"] is None)
        text.append(f" · lobby, {open_seats} open seat(s)" if open_seats else " · lobby, full")
    elif phase == "playing":
        text.append(f" · {phase_text(str(tv.get('game', '')), str(tv.get('game_phase', '')))}")
        text.append(" · ")
        text.append_text(turn_line(tv))
    return text


def turn_line(tv: View) -> Text:
    """Whose turn it is, from this seat's side."""
    to_move = list(tv.get("to_move") or [])
    me = tv.get("viewer")
    if not to_move:
        return Text("nobody to move")
    others = [seat_name(tv, s) for s in to_move if s != me]
    if me in to_move:
        if others:
            return Text(f"your move (with {', '.join(others)}: all at once)", style="bold green")
        return Text("your move", style="bold green")
    together = " (all at once)" if len(to_move) > 1 else ""
    return Text(f"to move: {', '.join(others)}{together}", style="yellow")


def standing_lines(tv: View) -> tuple[dict[int, View], list[View]]:
    """The view's standings (the rules' own score, public): per seat, and the built-in
    opponents in participant order."""
    lines: list[View] = list(tv.get("standings") or [])
    seats = {line["seat"]: line for line in lines if line.get("seat") is not None}
    ais = sorted((line for line in lines if line.get("ai")), key=lambda line: line["participant"])
    return seats, ais


def _place(line: View | None) -> list[str]:
    return [str(line["rank"]), str(line["points"])] if line else ["", ""]


def seats_table(tv: View, renderer: Renderer) -> Table:
    extra = renderer.players(tv) if tv.get("view") is not None else None
    ranked, ai_lines = standing_lines(tv)
    places = ["rank", "points"] if ranked else []
    table = compact_table(
        None, "seat", "player", "state", *places, *(extra.columns if extra else [])
    )
    table.columns[1].no_wrap = True
    to_move = set(tv.get("to_move") or [])
    for seat in tv["seats"]:
        s = seat["seat"]
        if seat["name"] is None:
            state = "open"
        elif seat.get("left"):
            state = "conceded (bot)"
        elif tv.get("phase") == "playing" and s in to_move:
            state = "to move"
        else:
            state = ""
        style = "bold" if s == tv.get("viewer") else None
        cells = extra.cells.get(s, []) if extra else []
        name = seat_name(tv, s) if seat["name"] is not None else "—"
        place = _place(ranked.get(s)) if places else []
        table.add_row(str(s), name, state, *place, *cells, style=style)
    ai_rows = list(extra.ais) if extra else []
    for index in range(max(len(ai_rows), len(ai_lines))):
        line = ai_lines[index] if index < len(ai_lines) else None
        name, cells = ai_rows[index] if index < len(ai_rows) else (str(line and line["name"]), [])
        place = _place(line) if places else []
        table.add_row("AI", name, "", *place, *cells, style="magenta")
    return table


def standing_table(tv: View, renderer: Renderer) -> RenderableType | None:
    """The final standing: every participant, built-in opponents included, a shared place
    as "=1", and the points in their parts (the standings' ``parts``) after the total."""
    if not tv.get("standing"):
        return None
    lines = list(tv.get("standings") or [])
    parts: dict[str, str] = {}  # key -> the words, seats' first
    for line in sorted(lines, key=lambda line: bool(line.get("ai"))):
        for part in line.get("parts") or []:
            parts.setdefault(part["key"], part["label"])
    table = compact_table("final standing", "rank", "player", "points", *parts.values())
    for line in lines:
        seat = line.get("seat")
        if seat is None:
            name = str(line["name"])
        else:
            left = tv["seats"][seat].get("left") if seat < len(tv["seats"]) else False
            name = seat_name(tv, seat) + (" (conceded)" if left else "")
        mine = seat is not None and seat == tv.get("viewer")
        style = "bold green" if line["rank"] == 1 else ("bold" if mine else None)
        shared = sum(1 for other in lines if other["rank"] == line["rank"]) > 1
        place = f"={line['rank']}" if shared else str(line["rank"])  # a shared place: "=1"
        scored = {part["key"]: str(part["points"]) for part in line.get("parts") or []}
        cells = [scored.get(key, "") for key in parts]
        table.add_row(place, name, str(line["points"]), *cells, style=style)
    return table


def menu_panel(menu: Menu) -> Panel:
    lines: list[Text] = []
    group = ""
    for number, entry in enumerate(menu.entries, 1):
        if entry.group != group:
            group = entry.group
            if group:
                lines.append(Text(group, style="bold"))
        line = Text("  ")
        line.append(f"{number:>3}. ", style="bold")
        leave = (entry.command or {}).get("type") == "table.leave"
        line.append(entry.label, style="red" if leave else "")
        lines.append(line)
    crumbs = " › ".join(menu.crumbs)
    heading = f"your options › {crumbs}" if crumbs else "your options"
    hint = "number to choose" + (" · b back" if menu.crumbs else "") + " · h help"
    return Panel(
        Text("\n").join(lines),
        title=heading,
        title_align="left",
        subtitle=hint,
        subtitle_align="left",
    )


def private_panel(tv: View, renderer: Renderer, title: str | None = None) -> Panel | None:
    """What only the view's seat sees (its hand, chips, goals), framed; None for a
    spectator's view or a game without private parts."""
    mine = renderer.private(tv) if tv.get("viewer") is not None else None
    if mine is None:
        return None
    who = seat_name(tv, tv["viewer"])
    return Panel(
        mine,
        title=title or f"{who}: only you see this",
        title_align="left",
        border_style="green",
    )


def screen(
    tv: View,
    renderer: Renderer,
    *,
    menu: Menu | None = None,
    messages: Sequence[str] = (),
    last_round: int = 0,
    chat: Sequence[Text] = (),
) -> Group:
    """Everything one redraw shows, top to bottom (``chat``: the table's last lines)."""
    parts: list[RenderableType] = [header(tv, renderer, last_round), seats_table(tv, renderer)]
    if tv.get("view") is not None:
        parts.extend(renderer.board(tv))
        mine = private_panel(tv, renderer)
        if mine is not None:
            parts.append(mine)
    standing = standing_table(tv, renderer)
    if standing is not None:
        parts.append(standing)
    if chat:
        parts.append(Panel(Text("\n").join(chat), title="chat (c TEXT to say)", title_align="left"))
    if messages:
        parts.append(Text("\n".join(messages), style="dim"))
    if menu is not None and menu.entries:
        parts.append(menu_panel(menu))
    return Group(*parts)


def chat_line(message: ChatMessage, tv: View) -> Text:
    """One chat message as plain text (never markup: a message cannot style the screen)."""
    if message.deleted:
        return Text("(a message was deleted)", style="dim italic")
    if message.seat is not None:
        who = message.name or seat_name(tv, message.seat)
    else:
        who = f"{message.name} (spectator)"
    line = Text(f"{printable(who)}: ", style="bold")
    line.append(printable(message.text))
    return line
