"""Fractured Sky as a player reads it: regions by name, airships by owner, the turn track,
secret cards and objectives, every participant (the built-in AIs too) and this seat's chips.

Participants are the table's seats followed by the AIs (1–2 seat games); chips show as
their class (white 1/10, black, AI token) until the round-end reveal, except this
seat's own. The move menu groups by action, then region or platform, then chip.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from clients.terminal.renderers import (
    Command,
    Players,
    View,
    compact_table,
    plural,
    seat_name,
)
from orrery_contracts.fractured_sky import catalogue as cat

TITLE = "Fractured Sky"

RESOURCE_SHORT = {"gold": "G", "iron": "I", "wood": "W"}


def _game(tv: View) -> dict[str, Any]:
    view: dict[str, Any] = tv["view"]
    return view


def who(tv: View, participant: int) -> str:
    """A participant's name: a table seat's player, or an AI by its colour."""
    if participant < 0:
        return "—"
    if participant < len(tv["seats"]):
        return seat_name(tv, participant)
    for ai in _game(tv).get("ais", []):
        if ai["seat"] == participant:
            return f"{ai['name'].capitalize()} (AI)"
    return f"participant {participant}"


def region_name(index: int) -> str:
    return cat.REGIONS[index].name if 0 <= index < len(cat.REGIONS) else f"region {index}"


def region_label(index: int, g: dict[str, Any] | None = None) -> str:
    """Name and resource pair (and stardust on it, when known)."""
    if not 0 <= index < len(cat.REGIONS):
        return f"region {index}"
    region = cat.REGIONS[index]
    label = f"{region.name} ({'/'.join(region.resources)})"
    if g is not None:
        for r in g["regions"]:
            if r["index"] == index and r["stardust"]:
                label += f" ✦{r['stardust']}"
    return label


def platform_label(index: int, g: dict[str, Any]) -> str:
    if not 0 <= index < len(cat.PLATFORMS):
        return f"platform {index + 1}"
    active = set(g["regions_active"])
    bridged = [region_name(r) for r in cat.PLATFORMS[index].regions if r in active]
    return f"platform {index + 1}: {', '.join(bridged) or 'no bridges in play'}"


def objective_text(card: int | None) -> str:
    if card is None or not 0 <= card < len(cat.OBJECTIVES):
        return "face down"
    return cat.OBJECTIVES[card].text


def _chip(airship: dict[str, Any]) -> str:
    mark = "⚑" if airship.get("explorer") else ""
    if airship.get("chip") is not None:
        return f"{airship['chip']}{mark}"
    return {"white": "◻", "black": "◼", "token": "◆"}.get(airship["chip_class"], "?") + mark


def _resources(amounts: dict[str, int]) -> str:
    parts = [f"{amounts[r]} {r}" for r in cat.RESOURCES if amounts.get(r)]
    return " + ".join(parts) or "nothing"


# ------------------------------------------------------------------ the board


def board(tv: View) -> list[RenderableType]:
    g = _game(tv)
    legend = Text("chips: ◻ white (1 or 10), ◼ black, ◆ AI token; ⚑ explorer", style="dim")
    parts: list[RenderableType] = [_status(tv, g), _regions(tv, g)]
    lines = [legend, *_buildings(tv, g), *_tray(tv, g), *_results(tv, g)]
    if lines:
        parts.append(Text("\n").join(lines))
    return parts


def _status(tv: View, g: dict[str, Any]) -> Text:
    text = Text()
    text.append(f"Round {g['round']} of {cat.ROUNDS}", style="bold")
    # (the phase, in words, is in the screen's header)
    if g["turn"] >= 0:
        text.append(f" · turn: {who(tv, g['turn'])}")
    text.append(" · public stardust card: ")
    text.append(region_name(g["public_card"]), style="bold yellow")
    text.append(f" · stardust left {g['stardust_supply']}")
    if g.get("difficulty"):
        text.append(f" · AI difficulty {g['difficulty']}")
    order = ", ".join(f"{i + 1}. {who(tv, p)}" for i, p in enumerate(g["order"]))
    text.append(f"\nturn order: {order}")
    taken = [f"{i + 1}. {who(tv, p)}" for i, p in enumerate(g["next_slots"]) if p >= 0]
    gold = cat.gold_slots(len(g["players"]))
    free = [
        f"{i + 1}{' (gold)' if i + 1 in gold else ''}"
        for i, p in enumerate(g["next_slots"])
        if p < 0
    ]
    text.append(f" · next round: {', '.join(taken) or 'no slot taken'}")
    if free:
        text.append(f", free {', '.join(free)}")
    return text


def _regions(tv: View, g: dict[str, Any]) -> Table:
    table = compact_table(
        "regions, left to right",
        "region",
        "yields",
        "stardust",
        "airships",
        "skimmers",
    )
    for r in g["regions"]:
        index = r["index"]
        ships = ", ".join(f"{who(tv, a['seat'])} {_chip(a)}" for a in r["airships"])
        name = region_name(index)
        style = "bold yellow" if index == g["public_card"] else ""
        resources = "/".join(cat.REGIONS[index].resources) if index < len(cat.REGIONS) else ""
        table.add_row(
            Text(name, style=style),
            resources,
            "✦" * r["stardust"],
            ships,
            _counts(tv, r["skimmers"]),
        )
    return table


def _counts(tv: View, per_participant: list[int]) -> str:
    return ", ".join(
        f"{who(tv, s)} ×{n}" if n > 1 else who(tv, s) for s, n in enumerate(per_participant) if n
    )


def _buildings(tv: View, g: dict[str, Any]) -> list[Text]:
    lines = []
    for p in g["platforms"]:
        built = [
            f"{kind} {names}"
            for kind, names in (
                ("fortress", _counts(tv, p["fortresses"])),
                ("market", _counts(tv, p["markets"])),
            )
            if names
        ]
        if built:
            line = Text(f"{platform_label(p['index'], g)} — ", style="dim")
            line.append("; ".join(built))
            lines.append(line)
    return lines


def _tray(tv: View, g: dict[str, Any]) -> list[Text]:
    lines = []
    for card in g["secret_cards"]:
        known = card.get("region")
        what = region_name(known) if known is not None else "face down"
        if card.get("opened"):
            what += " (revealed early)"
        scouts = ", ".join(
            f"{who(tv, m['seat'])} took {m['resource']}"
            if m.get("resource")
            else f"{who(tv, m['seat'])} (large space)"
            for m in card["scouts"]
        )
        lines.append(
            Text(
                f"secret card {card['position'] + 1}: {what}"
                + (f" · scouted: {scouts}" if scouts else "")
            )
        )
    for objective in g["objectives"]:
        peeks = ", ".join(who(tv, s) for s in objective["peeked_by"])
        what = objective_text(objective.get("card"))
        state = "revealed" if objective["revealed"] else objective["icon"]
        lines.append(
            Text(
                f"objective {objective['position'] + 1} ({state}): {what}"
                + (f" · peeked by {peeks}" if peeks else "")
            )
        )
    return lines


def _results(tv: View, g: dict[str, Any]) -> list[Text]:
    lines = []
    for r in g["region_results"]:
        if not r["ranking"] and not r["stardust"]:
            continue
        ranking = " > ".join(f"{who(tv, s)} {r['power'][s]}" for s in r["ranking"])
        line = f"last round, {region_name(r['region'])}: {ranking or 'nobody eligible'}"
        if r["stardust_seat"] >= 0:
            line += f"; {who(tv, r['stardust_seat'])} took ✦{r['stardust']}"
        lines.append(Text(line, style="dim"))
    for o in g["objective_results"][-1:]:
        winner = who(tv, o["winner"]) if o["winner"] >= 0 else "nobody"
        lines.append(
            Text(
                f"objective of round {o['round']}: {objective_text(o['card'])} → {winner}",
                style="dim",
            )
        )
    return lines


# ------------------------------------------------------------------ players


def players(tv: View) -> Players:
    g = _game(tv)
    columns = ["✦", "gold", "iron", "wood", "airships", "forts", "markets", "skimmers"]
    cells: dict[int, list[str]] = {}
    ais: list[tuple[str, list[str]]] = []
    ai_views = {ai["seat"]: ai for ai in g.get("ais", [])}
    for p in g["players"]:
        row = [
            str(p["stardust"]),
            str(p["gold"]),
            str(p["iron"]),
            str(p["wood"]),
            str(p["airships_left"]),
            str(p["fortresses_left"]),
            str(p["markets_left"]),
            str(p["skimmers_left"]),
        ]
        if p["seat"] in ai_views:
            ai = ai_views[p["seat"]]
            row[1:4] = ["–", "–", "–"]
            row[5:8] = [
                str(ai["fortresses_left"]),
                str(ai["markets_left"]),
                str(ai["skimmers_left"]),
            ]
            ais.append((who(tv, p["seat"]), row))
        elif p.get("ai"):
            ais.append((who(tv, p["seat"]), row))
        else:
            cells[p["seat"]] = row
    return Players(columns=columns, cells=cells, ais=ais)


# ------------------------------------------------------------------ this seat only


def private(tv: View) -> RenderableType | None:
    g = _game(tv)
    me = tv.get("viewer")
    if me is None or g.get("my_chips") is None:
        return None
    lines = Text()
    mine = next((p for p in g["players"] if p["seat"] == me), None)
    if mine is not None:
        lines.append(
            f"resources: {mine['gold']} gold, {mine['iron']} iron, {mine['wood']} wood · "
            f"✦ {mine['stardust']} stardust · {plural(mine['airships_left'], 'airship')} left\n"
        )
    lines.append(f"unused chips: {' '.join(map(str, g['my_chips'])) or 'none'}\n")
    placed = [
        f"{region_name(r['index'])} {a['chip']}{' ⚑' if a.get('explorer') else ''}"
        for r in g["regions"]
        for a in r["airships"]
        if a["seat"] == me
    ]
    if placed:
        lines.append(f"my airships: {', '.join(placed)}\n")
    drawn = g.get("my_drawn") or []
    if drawn:
        lines.append(f"secret cards drawn exploring: {', '.join(map(region_name, drawn))}\n")
    peeked = [
        f"objective {o['position'] + 1}: {objective_text(o['card'])}"
        for o in g["objectives"]
        if not o["revealed"] and me in o["peeked_by"] and o.get("card") is not None
    ]
    if peeked:
        lines.append(f"peeked: {'; '.join(peeked)}\n")
    if g.get("scouting", -1) >= 0:
        card = g["secret_cards"][g["scouting"]]
        lines.append(
            f"scouting secret card {g['scouting'] + 1}: "
            f"{region_label(card['region']) if card.get('region') is not None else '?'}\n"
        )
    for choice in g.get("my_choices") or []:
        lines.append(
            f"to choose: {' or '.join(choice['options'])} "
            f"({choice['reason'].replace('_', ' ')} in {region_name(choice['region'])})\n"
        )
    lines.rstrip()
    return Group(lines)


# ------------------------------------------------------------------ the menu

_ACTIONS = {
    "fs.choose_start": "choose your 4 starting resources",
    "fs.place_airship": "place an airship",
    "fs.build_fortress": "build a fortress (3 iron)",
    "fs.build_market": "build a market (1 gold + 2 wood)",
    "fs.place_skimmer": "place a skimmer (1 iron + 1 wood)",
    "fs.scout": "scout a secret card (2 gold)",
    "fs.scout_take": "take from the scouted card",
    "fs.peek": "peek at an objective (any 2 resources)",
    "fs.trade": "trade 2 resources for 1 (free, turn goes on)",
    "fs.choose_slot": "choose your turn slot for next round",
    "fs.choose_resource": "choose a resource",
}


def path(command: Command, tv: View) -> list[str]:
    g = _game(tv)
    kind = str(command.get("type", ""))
    action = _ACTIONS.get(kind, kind)
    if kind == "fs.choose_start":
        return [action, _resources(command)]
    if kind == "fs.place_airship":
        return [action, region_label(command["region"], g), f"chip {command['chip']}"]
    if kind in ("fs.build_fortress", "fs.build_market"):
        return [action, platform_label(command["platform"], g)]
    if kind == "fs.place_skimmer":
        return [action, region_label(command["region"], g)]
    if kind == "fs.scout":
        return [action, f"secret card {command['card'] + 1}"]
    if kind == "fs.scout_take":
        return [action, command.get("resource") or "nothing"]
    if kind == "fs.peek":
        position = command["objective"]
        icon = next((o["icon"] for o in g["objectives"] if o["position"] == position), "")
        return [action, f"objective {position + 1} ({icon})", f"pay {_resources(command)}"]
    if kind == "fs.trade":
        return [action, f"give {_resources(command)}", f"get 1 {command['get']}"]
    if kind == "fs.choose_slot":
        gold = " (+1 gold)" if command["slot"] in cat.gold_slots(len(g["players"])) else ""
        return [action, f"slot {command['slot']}{gold}"]
    if kind == "fs.choose_resource":
        return [action, command["resource"]]
    return [kind, ", ".join(f"{k} {v}" for k, v in command.items() if k != "type")]
