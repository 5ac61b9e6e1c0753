"""SPACEcraft as a player reads it: the junkyard grid, the workshop, the design cards, every
seat's junk and rocket, and this seat's goal, reserved card and rocket drawing.

Parts are written ``shape colours`` (``fin WB``: white/blue; ``body K`` is the grey start
body); coordinates are ``(x, y)`` as the commands use them. Names, weights, card
conditions and goals come from ``orrery_contracts.spacecraft.catalogue``.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from clients.terminal.renderers import Command, Players, View, compact_table, plural, seat_name
from clients.wording import phase_text
from orrery_contracts.spacecraft import catalogue as cat

TITLE = "SPACEcraft"

GOAL_TEXT = {
    cat.GOAL_FIN_PAIR: "a pair of identical fins on one body",
    cat.GOAL_BODIES_BY_CONNECTOR: "identical bodies joined by a connector",
    cat.GOAL_CONNECTOR_PAIR: "identical connectors on both sides of a body",
    cat.GOAL_NOSE_ENGINE: "same-colour nose and engine on one body",
    cat.GOAL_NOSE_BODY: "a nose on a same-colour body",
    cat.GOAL_BODY_ENGINE: "a body on a same-colour engine",
    cat.GOAL_BODY_STACK: "identical bodies stacked directly",
    cat.GOAL_NOSES_BY_CONNECTOR: "identical noses on connector-joined bodies",
}
LEGEND = "colours: W white, B blue, G gold, R red, K grey"


def _game(tv: View) -> dict[str, Any]:
    view: dict[str, Any] = tv["view"]
    return view


def part(kind: str) -> str:
    """``fin.WB`` → ``fin WB``."""
    shape, _, colours = kind.partition(".")
    return f"{shape} {colours}" if colours else shape


def goal_text(goal_id: int | None) -> str:
    goal = cat.GOAL_BY_ID.get(goal_id) if goal_id is not None else None
    if goal is None:
        return "—" if goal_id is None else f"goal {goal_id}"
    return f"goal {goal.id}: {GOAL_TEXT.get(goal.pattern, goal.pattern)} ({goal.points} pts each)"


def design_text(card_id: int) -> str:
    card = cat.DESIGN_BY_ID.get(card_id)
    if card is None:
        return f"card {card_id}"
    needs = [plural(n, shape) for shape, n in card.shapes.items()]
    needs += [f"{n} {cat.COLOUR_NAMES.get(c, c)}" for c, n in card.colours.items()]
    if card.width:
        needs.append(f"width ≥ {card.width}")
    if card.height:
        needs.append(f"height ≥ {card.height}")
    return f"card {card.id} ({card.points} pts): {', '.join(needs)}"


def advanced_text(card: dict[str, Any]) -> str:
    subject = cat.COLOUR_NAMES.get(card["subject"], card["subject"])
    track = " ".join(
        f"[{v}]" if i < len(card["markers"]) else str(v) for i, v in enumerate(card["track"])
    )
    return f"card {card['card']} side {card['side']}: per {subject} part, track {track}"


def blueprint_text(blueprint_id: int) -> str:
    bp = cat.BLUEPRINT_BY_ID.get(blueprint_id)
    if bp is None:
        return f"blueprint {blueprint_id}"
    return f"blueprint {bp.id}: " + ", ".join(plural(n, s) for s, n in bp.needs.items())


def _junk(names: list[str] | dict[str, int]) -> str:
    if isinstance(names, dict):
        items = [f"{name} ×{n}" if n > 1 else name for name, n in names.items() if n]
        return ", ".join(items) or "—"
    return ", ".join(names) or "—"


SHORT = {"battery": "batt", "propeller": "prop"}


def _junk_short(names: list[str] | dict[str, int]) -> str:
    counts = names if isinstance(names, dict) else {n: names.count(n) for n in dict.fromkeys(names)}
    items = [SHORT.get(n, n) + (f"×{c}" if c > 1 else "") for n, c in counts.items() if c]
    return " ".join(items) or "—"


def _weight(names: list[str]) -> int:
    return sum(cat.JUNK_WEIGHT[cat.JUNK_ID[n]] for n in names if n in cat.JUNK_ID)


# ------------------------------------------------------------------ the board


def board(tv: View) -> list[RenderableType]:
    g = _game(tv)
    parts: list[RenderableType] = [_status(tv, g)]
    grid = Table.grid(padding=(0, 3))
    grid.add_row(_junkyard(tv, g), _cards(g))
    parts.append(grid)
    parts.append(_workshop(g))
    return parts


def _status(tv: View, g: dict[str, Any]) -> Text:
    text = Text()
    text.append(f"{g['variant']} game", style="bold")
    text.append(f" · {phase_text('spacecraft', g['phase'])}")
    if g["phase"] in ("play", "final"):
        text.append(
            f" · {phase_text('spacecraft', g['step'])} · turn of {seat_name(tv, g['current'])}"
        )
    if g["phase"] == "play" and g["step"] != "action":
        text.append(f" · built {g['builds_this_turn']}/2 this turn")
    text.append(f"\n{blueprint_text(g['blueprint'])} (✓ on a rocket that meets it)")
    if g.get("countdown_holder") is not None:
        top = g.get("countdown_top")
        shown = "launch!" if top == 0 else str(top)
        text.append(f" · countdown held by {seat_name(tv, g['countdown_holder'])}, at {shown}")
    if g.get("final_order"):
        text.append(" · final round: " + ", ".join(seat_name(tv, s) for s in g["final_order"]))
    return text


def _junkyard(tv: View, g: dict[str, Any]) -> Table:
    size = g["grid_size"]
    # columns and rows counted from 1, as the web client names them ("column 1, row 1")
    table = compact_table(
        "junkyard (top tile, pile height)", "", *(f"column {x + 1}" for x in range(size))
    )
    for y in range(size):
        cells: list[Text | str] = []
        for x in range(size):
            cell = g["junkyard"][y * size + x]
            text = Text(f"{cell['top']} {cell['height']}" if cell["height"] else "·")
            if cell.get("pawn") is not None:
                text.append(f" [{seat_name(tv, cell['pawn'])}]", style="bold cyan")
            cells.append(text)
        table.add_row(f"row {y + 1}", *cells)
    return table


def _cards(g: dict[str, Any]) -> Table:
    table = compact_table("design cards", "row", "card")
    if g["variant"] == "advanced":
        for card in g["advanced"]:
            table.add_row("advanced", advanced_text(card))
    else:
        for card in g["lower"]:
            if card >= 0:
                table.add_row("lower", design_text(card))
        for card in g["upper"]:
            if card >= 0:
                table.add_row("upper", design_text(card))
        table.add_row("deck", plural(g["deck_size"], "card"))
    return table


def _workshop(g: dict[str, Any]) -> Table:
    table = compact_table(f"workshop ({LEGEND}; parts left)", "column", "pay with", "parts")
    for column in sorted({slot.column for slot in cat.SLOTS}):
        parts = [
            f"{part(slot.kind)} {g['supply'][i] if i < len(g['supply']) else 0}"
            for i, slot in enumerate(cat.SLOTS)
            if slot.column == column
        ]
        token = g["tokens"][column] if column < len(g["tokens"]) else "?"
        table.add_row(str(column + 1), token, " · ".join(parts))
    return table


# ------------------------------------------------------------------ players


def players(tv: View) -> Players:
    g = _game(tv)
    cells: dict[int, list[str]] = {}
    for s in g["seats"]:
        pawn = f"column {s['pawn'][0] + 1}, row {s['pawn'][1] + 1}" if s.get("pawn") else "outside"
        design = (
            f"{s['markers_left']} markers"
            if g["variant"] == "advanced"
            else f"{len(s['fulfilled'])}" + (" +1 reserved" if s["has_reserved"] else "")
        )
        cells[s["seat"]] = [
            pawn,
            _junk_short(s["board"]),
            _junk_short(s["beside"]),
            f"{len(s['rocket'])} parts {s['width']}×{s['height']}"
            + (" ✓" if s["meets_blueprint"] else ""),
            design,
            str(s["goal"]) if s.get("goal") is not None else "?",
        ]
    # points and ranks: the seat list's own columns, from the view's standings
    columns = ["pawn", "board", "beside", "rocket", "designs", "goal"]
    return Players(columns=columns, cells=cells)


# ------------------------------------------------------------------ this seat only


def rocket(placements: list[dict[str, Any]]) -> Table:
    """The rocket on its grid, y upward."""
    table = Table.grid(padding=(0, 1))
    if not placements:
        return table
    xs = [p["x"] for p in placements]
    ys = [p["y"] for p in placements]
    at = {(p["x"], p["y"]): part(p["kind"]) for p in placements}
    for _ in range(min(xs), max(xs) + 1):
        table.add_column(justify="center", min_width=9)
    for y in range(max(ys), min(ys) - 1, -1):
        table.add_row(
            *(f"[{at[x, y]}]" if (x, y) in at else "" for x in range(min(xs), max(xs) + 1))
        )
    return table


def private(tv: View) -> RenderableType | None:
    g = _game(tv)
    me = tv.get("viewer")
    mine = next((s for s in g["seats"] if s["seat"] == me), None)
    if mine is None:
        return None
    text = Text()
    if mine.get("goal_options"):
        text.append("choose one goal to keep:\n", style="bold")
        for goal in mine["goal_options"]:
            text.append(f"  {goal_text(goal)}\n")
    else:
        text.append(f"my {goal_text(mine.get('goal'))}\n")
    board_junk = mine["board"]
    text.append(
        f"on my board: {_junk(board_junk)} (weight {_weight(board_junk)}/"
        f"{cat.BOARD_MAX_WEIGHT}, {len(board_junk)}/{cat.BOARD_MAX_TILES} tiles)"
        f" · beside it: {_junk(mine['beside'])}\n"
    )
    if mine.get("reserved") is not None:
        text.append(f"reserved: {design_text(mine['reserved'])}\n")
    if mine["fulfilled"]:
        text.append(f"fulfilled: {', '.join(design_text(c) for c in mine['fulfilled'])}\n")
    state = "meets the blueprint" if mine["meets_blueprint"] else "blueprint not met yet"
    text.append(f"my rocket ({mine['width']}×{mine['height']}, {state}):")
    return Group(text, rocket(mine["rocket"]))


# ------------------------------------------------------------------ the menu


def path(command: Command, tv: View) -> list[str]:
    g = _game(tv)
    kind = command.get("type", "")
    if kind == "sc.choose_goal":
        return ["keep a personal goal", goal_text(command["goal"])]
    if kind in ("sc.visit", "sc.search"):
        size = g["grid_size"]
        x, y = command["x"], command["y"]
        cell = g["junkyard"][y * size + x] if 0 <= x < size and 0 <= y < size else None
        pile = f"{cell['top']} (pile of {cell['height']})" if cell else "?"
        action = (
            "visit the junkyard: enter a pile"
            if kind == "sc.visit"
            else "search: move to a pile and take its top"
        )
        return [action, f"column {x + 1}, row {y + 1}: {pile}"]
    if kind == "sc.leave":
        return ["leave the junkyard (then build and design)"]
    if kind == "sc.build":
        slot = command["slot"]
        kind_name = cat.SLOTS[slot].kind if 0 <= slot < len(cat.SLOTS) else "?"
        left = g["supply"][slot] if 0 <= slot < len(g["supply"]) else "?"
        weight = cat.PART_WEIGHT.get(cat.shape_of(kind_name), 0)
        column = cat.SLOTS[slot].column if 0 <= slot < len(cat.SLOTS) else "?"
        layout = " (your layout)" if command.get("layout") else ""
        return [
            "build a part",
            f"{part(kind_name)} (column {column}, weight {weight}, {left} left)",
            f"pay {' + '.join(command['pay'])}{layout}",
        ]
    if kind == "sc.arrange":
        parts = ", ".join(
            f"{part(p['kind'])} ({p['x']},{p['y']})" for p in command.get("layout", [])
        )
        return ["rearrange the rocket", parts]
    if kind == "sc.fulfil":
        return ["fulfil a design card", design_text(command["card"])]
    if kind == "sc.reserve":
        return ["reserve a design card", design_text(command["card"])]
    if kind == "sc.mark":
        card = next((c for c in g["advanced"] if c["card"] == command["card"]), None)
        return [
            "mark an advanced design card",
            advanced_text(card) if card else f"card {command['card']}",
        ]
    if kind == "sc.end_turn":
        return ["end the turn"]
    return [kind, ", ".join(f"{k} {v}" for k, v in command.items() if k != "type")]
