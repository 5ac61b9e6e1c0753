"""Federation as a player reads it: the senate by planet and room, laws, projects,
tracks and structures, every seat's crystals, ships, authority and medals, and this
seat's ambassadors, checks, tiles and tokens.

Effects and costs are spelled out in ``clients.wording``'s words, the ones the catalogue
export gives the web client (``+1 coppernium``); ids that the commands carry (spaces,
missions, tiles, tokens) are shown with their names. The move menu groups a placement by
space, then ambassador and side.
"""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from clients.terminal.renderers import Command, Players, View, compact_table, plural, seat_name
from clients.wording import CRYSTALS, cost_text, effect_text, phase_text
from orrery_contracts.federation import catalogue as cat

TITLE = "Federation"


def _game(tv: View) -> dict[str, Any]:
    view: dict[str, Any] = tv["view"]
    return view


# Effects and costs in the catalogue export's words (clients.wording), so the terminal
# and the web client say the same thing.
effect = effect_text
cost = cost_text


def planet(index: int) -> str:
    return cat.PLANETS[index] if 0 <= index < len(cat.PLANETS) else "ships on missions"


def icon(index: int) -> str:
    return cat.ICON_NAMES[index] if 0 <= index < len(cat.ICON_NAMES) else f"icon {index}"


def space_label(space: int) -> str:
    if space == cat.OUTER:
        return "outer space (1 oceanium, no vote)"
    row, column = divmod(space, 6)
    wing = "left" if column < 3 else "right"
    return f"{icon(cat.SPACE_ICON[space])} (row {row + 1}, {wing} wing)"


def mission_label(mission: int) -> str:
    level = cat.MISSION_LEVEL[mission] if 0 <= mission < len(cat.MISSION_LEVEL) else "?"
    return f"{icon(mission)} mission (level {level})"


def token_text(token: int) -> str:
    if not 0 <= token < len(cat.ALTERATIONS):
        return f"token {token}"
    power, votes, bonus = cat.ALTERATIONS[token]
    side = plural(votes, "vote") if votes else "funding"
    return f"token {token} (power {power}, {side}: {effect(bonus)})"


def erudite_text(tile: int) -> str:
    if not 0 <= tile < len(cat.ERUDITE):
        return f"tile {tile}"
    timing, bonus = cat.ERUDITE[tile]
    colour, level = divmod(tile, 3)
    return f"{planet(colour)} erudite L{level + 1} ({timing}: {effect(bonus)})"


def structure_text(structure: int, g: dict[str, Any]) -> str:
    if 0 <= structure < len(g["production"]):
        pid = g["production"][structure]
        build_cost, output = cat.PRODUCTION[pid]
        return f"production {structure + 1}: {effect(output)} (costs {cost(build_cost)})"
    index = structure - len(g["production"])
    if 0 <= index < len(g["mega"]):
        criteria = " & ".join(cat.MEGA_CRITERIA[c].replace("_", " ") for c in g["mega"][index])
        return f"megastructure {index + 1}: {criteria}"
    return f"structure {structure}"


def project_label(project: int) -> str:
    if project == cat.COMMON:
        return "common project"
    category = cat.PROJECT_CATEGORY[project] if 0 <= project < len(cat.PROJECT_CATEGORY) else -1
    return f"project {project + 1} ({planet(category)})"


# ------------------------------------------------------------------ the board


def board(tv: View) -> list[RenderableType]:
    g = _game(tv)
    return [_status(tv, g), Text(LEGEND, style="dim"), _senate(tv, g), _tracks(g)]


def _status(tv: View, g: dict[str, Any]) -> Text:
    text = Text()
    text.append(f"Round {g['round']} of {cat.ROUNDS}", style="bold")
    pending = phase_text("federation", g["pending"])
    if g["pending_seat"] >= 0:
        text.append(f" · {seat_name(tv, g['pending_seat'])}: {pending}")
    text.append(f" · start player {seat_name(tv, g['start_player'])}")
    if g["president_next"] >= 0:
        text.append(f" · president next: {seat_name(tv, g['president_next'])}")
    laws = " | ".join(planet(p) for p in g["laws"] if p >= 0) or "none"
    text.append(f"\nlaws in force: {laws}")
    if g["next_laws"]:
        text.append(f" · next: {' | '.join(planet(p) for p in g['next_laws'] if p >= 0)}")
    medals = ", ".join(f"{k} {n}" for k, n in g["medal_supply"].items())
    text.append(f" · medals left: {medals}")
    return text


def _senate(tv: View, g: dict[str, Any]) -> Table:
    table = compact_table("senate", "", *(f"{'L' if c < 3 else 'R'}{c % 3 + 1}" for c in range(6)))
    for row in range(3):
        cells: list[Text] = []
        for column in range(6):
            space = g["spaces"][row * 6 + column]
            cell = Text(icon(space["icon"]), style="bold")
            seat = space["seat"]
            if seat == -2:
                cell.append(" blocked", style="dim")
            elif seat == -3:
                cell.append(f" neutral {space['votes']}v", style="dim")
            elif seat >= 0:
                side = "funding" if space["funding"] else f"{space['votes']}v"
                cell.append(f"\n{seat_name(tv, seat)} {side}", style="cyan")
                if space["token"] >= 0:
                    cell.append(" +token")
            cells.append(cell)
        table.add_row(f"row {row + 1}", *cells)
    outer = ", ".join(f"{seat_name(tv, s)} ×{n}" for s, n in enumerate(g["outer"]) if n)
    table.caption = f"outer space: {outer or 'empty'}"
    table.caption_justify = "left"
    return table


def _tracks(g: dict[str, Any]) -> Text:
    text = Text()
    projects = " · ".join(
        f"{project_label(i)} {n}/{cat.PROJECT_MAX}" for i, n in enumerate(g["projects"])
    )
    text.append(f"projects: {projects}\n")
    structures = [structure_text(i, g) for i in range(len(g["production"]) + len(g["mega"]))]
    filled = g.get("mega_filled") or []
    text.append("structures: " + "; ".join(structures))
    if any(filled):
        text.append(f" (megastructure slots filled: {' '.join(map(str, filled))})")
    text.append("\n")
    orange = [
        f"L{level}: {effect(cat.ASTEROIDS[t]) if t >= 0 else 'face down'}"
        for level, t in enumerate(g["orange_tokens"])
        if t >= 0 or t == -2
    ]
    text.append(f"orange asteroids: {', '.join(orange) or 'none'}")
    text.append(f" · dead asteroids {g['dead_asteroids']}\n")
    blue = []
    for level, spots in enumerate(g["blue_tokens"], 1):
        shown = [token_text(t) for t in spots if t >= 0]
        if shown:
            blue.append(f"L{level}: {', '.join(shown)}")
        elif any(t == -2 for t in spots):
            blue.append(f"L{level}: face down")
    text.append(f"blue tokens: {'; '.join(blue) or 'none'}\n")
    stock = g["erudite_stock"]
    per_colour = [
        f"{planet(c)} {'/'.join(str(n) for n in stock[c * 3 : c * 3 + 3])}"
        for c in range(len(stock) // 3)
    ]
    text.append(f"erudite tiles left (L1/L2/L3): {', '.join(per_colour)}")
    text.append(f" · deep-space tiles {g['deep_space_left']}")
    return text


# ------------------------------------------------------------------ players


def players(tv: View) -> Players:
    g = _game(tv)
    cells: dict[int, list[str]] = {}
    for seat, p in enumerate(g["players"]):
        die = str(p["die"]) if p["die"] >= 0 else "–"
        cells[seat] = [
            str(p["pp"]),
            f"{p['copp']}/{p['lav']}/{p['ocean']}",
            str(p["diamond"]),
            f"{p['hangar']}/{p['reserve']}",
            f"L{p['authority_level']} ({p['authority_step']})",
            die + ("*" if p["die_on_board"] else ""),
            f"{p['orange']}/{p['blue']}",
            str(sum(p["missions"]) + p["tile_missions"]),
            ", ".join(p["medals"]) or "—",
        ]
    columns = ["PP", "c/l/o", "◆", "ships", "auth.", "die", "or/bl", "miss.", "medals"]
    return Players(columns=columns, cells=cells)


LEGEND = (
    "c/l/o coppernium/lavandium/oceanium · ◆ diamonds · ships in hangar/reserve · "
    "auth. level (step) · die* on the board · or/bl orange/blue track level · miss. missions done"
)


# ------------------------------------------------------------------ this seat only


def private(tv: View) -> RenderableType | None:
    g = _game(tv)
    me = tv.get("viewer")
    if me is None or not 0 <= me < len(g["players"]):
        return None
    p = g["players"][me]
    text = Text()
    free = [
        f"{i + 1} ({plural(cat.AMBASSADORS[i][0], 'vote')})"
        for i, used in enumerate(p["ambassadors_used"])
        if not used
    ]
    text.append(f"ambassadors in hand: {', '.join(free) or 'none'}\n")
    checks = [mission_label(m) for m, on in enumerate(p["checks"]) if on and not p["missions"][m]]
    done = [icon(m) for m, on in enumerate(p["missions"]) if on]
    text.append(f"mission checks: {', '.join(checks) or 'none'}")
    text.append(f" · missions done: {', '.join(done) or 'none'}")
    if p["tile_missions"]:
        text.append(f" (+{p['tile_missions']} from tiles)")
    text.append("\n")
    if p["erudite"]:
        used = set(p["erudite_used"])
        tiles = [erudite_text(t) + (" [used]" if t in used else "") for t in p["erudite"]]
        text.append(f"erudite tiles: {'; '.join(tiles)}\n")
    if p["tokens"]:
        text.append(f"alteration tokens: {'; '.join(token_text(t) for t in p['tokens'])}\n")
    if p["built"]:
        text.append(f"built: {'; '.join(structure_text(s, g) for s in p['built'])}\n")
    influence = ", ".join(f"{planet(i)} {n}" for i, n in enumerate(p["influence"]) if n)
    text.append(f"influence: {influence or 'none'}")
    stalls = [f"{i + 1}{' (upper)' if n > 1 else ''}" for i, n in enumerate(p["stalls"]) if n]
    if stalls:
        text.append(f" · yellow stalls: {', '.join(stalls)}")
    if p["start_tile"] >= 0:
        text.append(f"\nstart tile: {effect(cat.START_TILES[p['start_tile']])}")
    if p["deep_space"]:
        deep = "; ".join(effect(cat.DEEP_SPACE[t]) for t in p["deep_space"])
        text.append(f" · deep space: {deep}")
    return text


# ------------------------------------------------------------------ the menu


def path(command: Command, tv: View) -> list[str]:
    g = _game(tv)
    kind = command.get("type", "")
    if kind == "fed.place":
        a = command["ambassador"]
        votes, funding_bonus = cat.AMBASSADORS[a] if 0 <= a < len(cat.AMBASSADORS) else (0, ())
        if command["space"] == cat.OUTER:
            side = ""
        elif command.get("funding"):
            side = " · funding side" + (f" ({effect(funding_bonus)})" if funding_bonus else "")
        else:
            side = f" · vote side ({plural(votes, 'vote')})"
        extras = []
        if command.get("die"):
            extras.append("with the assistant die")
        if command.get("token", -1) >= 0:
            extras.append(f"with {token_text(command['token'])}")
        return [
            "place an ambassador",
            space_label(command["space"]),
            f"ambassador {a + 1}{side}",
            # the last step says what the placement is, even without die or token
            " and ".join(extras) or f"place it{side.replace(' · ', ', ') or ' (no vote)'}",
        ]
    simple = {
        "fed.mission": ("perform a mission", lambda c: mission_label(c["mission"])),
        "fed.use_tile": ("use an erudite tile", lambda c: erudite_text(c["tile"])),
        "fed.start_tile": ("pick a start tile", lambda c: effect(cat.START_TILES[c["tile"]])),
        "fed.crystal": ("take a crystal", lambda c: CRYSTALS[c["kind"]]),
        "fed.fork": (
            "orange track fork",
            lambda c: "straight (+2 levels)" if c["straight"] else "detour (+1, take the token)",
        ),
        "fed.dead_asteroid": (
            "dead asteroid reward",
            lambda c: effect(cat.DEAD_REWARDS[c["reward"]]),
        ),
        "fed.take_token": (
            "take an alteration token",
            lambda c: (
                f"level {c['level']}, spot {c['spot'] + 1}: "
                + _blue_token(g, c["level"], c["spot"])
            ),
        ),
        "fed.stall": (
            "yellow stall",
            lambda c: (
                f"stall {c['stall'] + 1}{' upper' if c.get('upper') else ''}: "
                f"pay {cost(cat.STALLS[c['stall']][0])}, get "
                f"{effect(cat.STALLS[c['stall']][1])}{' ×3' if c.get('upper') else ''}"
            ),
        ),
        "fed.erudite": ("take an erudite tile", lambda c: erudite_text(c["tile"])),
        "fed.build": ("build", lambda c: structure_text(c["structure"], g)),
        "fed.project": ("advance a project", lambda c: project_label(c["project"])),
        "fed.check": ("check a mission", lambda c: mission_label(c["mission"])),
        "fed.spy": ("spy: copy an action", lambda c: icon(c["target"])),
        "fed.medal": ("take a medal", lambda c: str(c["kind"])),
        "fed.influence": ("+1 influence", lambda c: planet(c["planet"])),
        "fed.deep_space": ("take a deep-space tile", lambda c: f"face-down tile {c['index'] + 1}"),
        "fed.retrigger": ("retrigger a structure", lambda c: structure_text(c["structure"], g)),
        "fed.income": (
            "income",
            lambda c: (
                f"{'take' if c.get('take', True) else 'skip'} " + structure_text(c["structure"], g)
            ),
        ),
        "fed.law": (
            "break the law-vote tie",
            lambda c: (
                f"{'left' if c['side'] == 0 else 'right'} law: "
                + (planet(g["laws"][c["side"]]) if len(g["laws"]) > c["side"] else "?")
            ),
        ),
    }
    if kind in simple:
        action, label = simple[kind]
        return [action, label(command)]
    if kind in ("fed.pay", "fed.discard"):
        amounts = ", ".join(
            f"{command.get(k, 0)} {name}"
            for k, name in (("copp", "coppernium"), ("lav", "lavandium"), ("ocean", "oceanium"))
            + ((("diamond", "diamond"),) if kind == "fed.pay" else ())
            if command.get(k)
        )
        return ["pay" if kind == "fed.pay" else "discard crystals", amounts or "nothing"]
    if kind == "fed.upkeep":
        paid = ", ".join(
            f"{command.get(k, 0)} {n}"
            for k, n in (("copp", "coppernium"), ("lav", "lavandium"), ("ocean", "oceanium"))
            if command.get(k)
        )
        return ["authority upkeep", f"keep level {command['level']}, pay {paid or 'nothing'}"]
    if kind == "fed.end_turn":
        return ["end the turn"]
    return [kind, ", ".join(f"{k} {v}" for k, v in command.items() if k != "type")]


def _blue_token(g: dict[str, Any], level: int, spot: int) -> str:
    try:
        token = g["blue_tokens"][level - 1][spot]
    except (IndexError, TypeError):
        return "?"
    return token_text(token) if token >= 0 else "face down"
