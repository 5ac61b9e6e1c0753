"""Export each game's static catalogue (``orrery_contracts.<game>.catalogue``) as the JSON the
web client reads: ``clients/web/catalogue/<game>.json`` plus ``index.json`` (the games a
person can create, their seats and options).

    python -m clients.web.export            # rewrite the JSON files
    python -m clients.web.export --check    # exit 1 when a file is out of date

The output is committed (the browser fetches it as a static file; no build step) and
``tests/test_web_catalogue.py`` regenerates it and compares, so it never drifts from the
catalogue. Deterministic: keys in a fixed order, lists in catalogue order, no timestamps.

Besides the raw data, every card, tile and effect gets a short English ``text`` made
here, so the client shows what a thing means without knowing the rules, and every
phase its words (``phases``, from ``clients.wording``: the terminal's words too). The seats and
options of each game are stated here (the client side may not import ``games``), each
option and each of its values with the words a person reads (``label``,
``value_labels``), and an option that only tables of a few players use says up to how
many (``seats_up_to``); the test checks them against the game registry.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from clients.wording import CRYSTALS, PHASE_WORDS, cost_text, effect_text, plural
from orrery_contracts.federation import catalogue as fed
from orrery_contracts.fractured_sky import catalogue as fs
from orrery_contracts.spacecraft import catalogue as sc

OUT = Path(__file__).resolve().parent / "catalogue"

# ---------------------------------------------------------------- the games offered

GAMES: list[dict[str, Any]] = [
    {
        "name": "fractured_sky",
        "title": "Fractured Sky",
        "min_seats": 1,
        "max_seats": 5,
        "default_seats": 3,
        # the region count as the board has it: two regions leave small tables
        "blurb": "Hidden-power area control: airships with secret chips over floating "
        f"regions ({fs.REGION_COUNT} with 4-5 players, "
        f"{fs.REGION_COUNT - sum(r.removed_small for r in fs.REGIONS)} with "
        f"{fs.SMALL_TABLE_MAX} or fewer participants). 1-2 players face two automated "
        "opponents.",
        "options": [
            {
                "key": "difficulty",
                "label": "Automated opponents (1-2 players)",
                "values": list(fs.DIFFICULTIES),
                "value_labels": {d: d.capitalize() for d in fs.DIFFICULTIES},
                "default": "easy",
                # only tables of this many players or fewer have them
                "seats_up_to": max(n for n in range(1, 6) if fs.ai_count(n)),
            }
        ],
    },
    {
        "name": "spacecraft",
        "title": "SPACEcraft",
        "min_seats": 2,
        "max_seats": 4,
        "default_seats": 2,
        "blurb": "Dig through the junkyard, build rocket parts and launch the best rocket.",
        "options": [
            {
                "key": "variant",
                "label": "Design cards",
                "values": list(sc.TRIGGER_BONUS),
                "value_labels": {
                    "basic": "Basic (design card rows)",
                    "advanced": "Advanced (cards marked with markers)",
                },
                "default": "basic",
            }
        ],
    },
    {
        "name": "federation",
        "title": "Federation",
        "min_seats": 2,
        "max_seats": 4,
        "default_seats": 2,
        "blurb": "Place ambassadors in the senate, climb five planets' tracks, pass laws.",
        "options": [
            {
                "key": "law_effect",
                "label": "Laws score",
                "values": ["all", "majority"],
                "value_labels": {
                    "all": "Every player with influence scores",
                    "majority": "Only the most influence scores",
                },
                "default": "all",
            },
            {
                "key": "project_prizes",
                "label": "Project prizes",
                "values": ["seed", "en"],
                "value_labels": {"seed": "16 / 8 / 4 PP", "en": "12 / 8 / 4 PP"},
                "default": "seed",
            },
            {
                "key": "president_medal",
                "label": "President's medal",
                "values": ["any", "intrigue"],
                "value_labels": {"any": "Any medal", "intrigue": "The intrigue medal only"},
                "default": "any",
            },
        ],
    },
]

# ---------------------------------------------------------------- Fractured Sky


def _cost(cost: tuple[int, int, int]) -> dict[str, int]:
    return {r: n for r, n in zip(fs.RESOURCES, cost, strict=True) if n}


def fractured_sky() -> dict[str, Any]:
    return {
        "resources": list(fs.RESOURCES),
        "rounds": fs.ROUNDS,
        "airships": fs.AIRSHIPS,
        "power_limit": fs.POWER_LIMIT,
        "chips": list(fs.CHIPS),
        "white_chips": sorted(fs.WHITE_CHIPS),
        "costs": {
            "fortress": _cost(fs.FORTRESS_COST),
            "market": _cost(fs.MARKET_COST),
            "skimmer": _cost(fs.SKIMMER_COST),
            "scout": _cost(fs.SCOUT_COST),
            "peek_total": fs.PEEK_COST_TOTAL,
            "trade_give_total": fs.TRADE_GIVE_TOTAL,
        },
        "regions": [
            {
                "index": r.index,
                "key": r.key,
                "name": r.name,
                "x": r.x,
                "y": r.y,
                "resources": list(r.resources),
                "removed_small": r.removed_small,
            }
            for r in fs.REGIONS
        ],
        "platforms": [
            {"index": p.index, "key": p.key, "x": p.x, "y": p.y, "regions": list(p.regions)}
            for p in fs.PLATFORMS
        ],
        "objectives": [
            {"index": o.index, "key": o.key, "icon": o.icon, "kind": o.kind, "text": o.text}
            for o in fs.OBJECTIVES
        ],
        "objective_icons": {
            fs.ICON_FLEET: "fleet",
            fs.ICON_BUILD: "buildings",
            fs.ICON_INTEL: "intelligence",
        },
        "gold_slots": {
            str(fs.TURN_SLOTS_SMALL): sorted(fs.GOLD_SLOTS_SMALL),
            str(fs.TURN_SLOTS_LARGE): sorted(fs.GOLD_SLOTS_LARGE),
        },
        "ai_names": list(fs.AI_NAMES),
        "ai_deck": [
            {
                "index": c.index,
                "action": c.action,
                "large": c.large,
                "small": c.small,
                "text": f"{c.action} (large star {c.large.upper()}, small star {c.small.upper()})",
            }
            for c in fs.AI_DECK
        ],
        "ai_tokens": [{"index": t.index, "high": t.high, "low": t.low} for t in fs.AI_TOKENS],
    }


# ---------------------------------------------------------------- SPACEcraft

GOAL_TEXT = {
    sc.GOAL_FIN_PAIR: "a pair of identical fins attached directly to one body",
    sc.GOAL_BODIES_BY_CONNECTOR: "identical bodies joined by a connector",
    sc.GOAL_CONNECTOR_PAIR: "identical connectors on both sides of a body",
    sc.GOAL_NOSE_ENGINE: "a nose and an engine of the same colour on the same body",
    sc.GOAL_NOSE_BODY: "a nose directly on a body of the same colour",
    sc.GOAL_BODY_ENGINE: "a body attached to an engine of the same colour",
    sc.GOAL_BODY_STACK: "identical bodies attached directly to each other",
    sc.GOAL_NOSES_BY_CONNECTOR: "identical noses on bodies joined by a connector",
}


def part_name(part_kind: str) -> str:
    """``fin.WB`` -> ``white-blue fin``; ``body.K`` -> ``grey body``."""
    shape, colours = part_kind.split(".", 1)
    return "-".join(sc.COLOUR_NAMES[c] for c in colours) + " " + shape


def _design_text(card: sc.DesignCard) -> str:
    parts = [plural(n, s) for s, n in card.shapes.items()]
    parts += [plural(n, f"{sc.COLOUR_NAMES[c]} part") for c, n in card.colours.items()]
    if card.width:
        parts.append(f"width {card.width}")
    if card.height:
        parts.append(f"height {card.height}")
    return "at least " + ", ".join(parts)


def _subject_name(subject: str) -> str:
    return f"{sc.COLOUR_NAMES[subject]} part" if subject in sc.COLOUR_NAMES else subject


def spacecraft() -> dict[str, Any]:
    return {
        "junk": [
            {"name": name, "weight": w, "count": n}
            for name, w, n in zip(sc.JUNK_NAMES, sc.JUNK_WEIGHT, sc.JUNK_COUNT, strict=True)
        ],
        "board_max_tiles": sc.BOARD_MAX_TILES,
        "board_max_weight": sc.BOARD_MAX_WEIGHT,
        "shapes": list(sc.SHAPES),
        "colours": {c: sc.COLOUR_NAMES[c] for c in [*sc.COLOURS, "K"]},
        "part_weight": dict(sc.PART_WEIGHT),
        "grey_body": sc.GREY_BODY,
        "columns": sc.N_COLUMNS,
        "section_a": list(sc.SECTION_A),
        "slots": [
            {
                "index": i,
                "column": s.column,
                "kind": s.kind,
                "stock": s.stock,
                "name": part_name(s.kind),
                "weight": sc.PART_WEIGHT[sc.shape_of(s.kind)],
            }
            for i, s in enumerate(sc.SLOTS)
        ],
        "blueprints": [
            {
                "id": b.id,
                "needs": dict(b.needs),
                "text": ", ".join(plural(n, s) for s, n in b.needs.items()),
            }
            for b in sc.BLUEPRINTS
        ],
        "blueprint_points": sc.BLUEPRINT_POINTS,
        "goals": [
            {
                "id": g.id,
                "pattern": g.pattern,
                "points": g.points,
                "text": GOAL_TEXT.get(g.pattern, g.pattern.replace("_", " ")),
            }
            for g in sc.GOALS
        ],
        "countdown": list(sc.COUNTDOWN),
        "trigger_bonus": dict(sc.TRIGGER_BONUS),
        "design_cards": [
            {
                "id": c.id,
                "deck": c.deck,
                "points": c.points,
                "shapes": dict(c.shapes),
                "colours": dict(c.colours),
                "width": c.width,
                "height": c.height,
                "text": _design_text(c),
            }
            for c in sc.DESIGN_CARDS
        ],
        "advanced_cards": [
            {
                "id": c.id,
                "subject": c.subject,
                "track_a": list(c.track_a),
                "track_b": list(c.track_b),
                "text": f"points per {_subject_name(c.subject)}",
            }
            for c in sc.ADVANCED_CARDS
        ],
        "markers_per_player": sc.MARKERS_PER_PLAYER,
    }


# ---------------------------------------------------------------- Federation


def _effect(effect: fed.Effect) -> dict[str, Any]:
    return {"effect": [list(pair) for pair in effect], "text": effect_text(effect)}


def _cost_dict(cost: fed.Cost) -> dict[str, Any]:
    return {"cost": list(cost), "text": cost_text(cost)}


ICON_TEXT = {
    "orange": "orange planet",
    "blue": "blue planet",
    "yellow": "yellow planet",
    "purple": "purple planet",
    "green": "green planet",
    "authority": "authority room",
    "spy": "spy",
    "president": "president's office",
    "project": "project room",
    "assistant": "assistant room",
    "ships": "shipyard",
    "mission_check": "mission-check room",
}

MEGA_CRITERIA_TEXT = {
    "medals": "medals",
    "missions": "missions done",
    "erudite": "erudite tiles",
    "authority_level": "authority level",
    "diamonds": "diamonds",
    "upper_stalls": "upper stall pawns",
    "production_robots": "production structures",
    "alteration_tokens": "alteration tokens",
}


def federation() -> dict[str, Any]:
    return {
        "planets": list(fed.PLANETS),
        "crystals": list(CRYSTALS),
        "icons": [
            {"index": i, "key": k, "name": ICON_TEXT.get(k, k)}
            for i, k in enumerate(fed.ICON_NAMES)
        ],
        "mission_level": list(fed.MISSION_LEVEL),
        "max_missions": fed.MAX_MISSIONS,
        "senate": [list(row) for row in fed.SENATE],
        "outer": fed.OUTER,
        "project_category": list(fed.PROJECT_CATEGORY),
        "common_project": fed.COMMON,
        "project_max": fed.PROJECT_MAX,
        "ambassadors": [
            {"index": i, "votes": votes, "funding": _effect(funding)}
            for i, (votes, funding) in enumerate(fed.AMBASSADORS)
        ],
        "space_costs": {
            "spy": _cost_dict(fed.SPY_COST),
            "assistant": _cost_dict(fed.ASSISTANT_COST),
            "ships": _cost_dict(fed.SHIPS_COST),
        },
        "max_crystals": fed.MAX_CRYSTALS,
        "max_ships": fed.MAX_SHIPS,
        "max_die": fed.MAX_DIE,
        "level_of_step": list(fed.LEVEL_OF_STEP),
        "max_step": fed.MAX_STEP,
        "level_bottom": list(fed.LEVEL_BOTTOM),
        "upkeep": [None if c is None else _cost_dict(c) for c in fed.UPKEEP],
        "medal_pp": list(fed.MEDAL_PP),
        "medal_kinds": list(fed.MEDAL_KINDS),
        "orange_max": fed.ORANGE_MAX,
        "orange_rewards": [_effect(e) for e in fed.ORANGE_REWARDS],
        "orange_token_levels": list(fed.ORANGE_TOKEN_LEVELS),
        "asteroids": [_effect(e) for e in fed.ASTEROIDS],
        "dead_rewards": [_effect(e) for e in fed.DEAD_REWARDS],
        "blue_max": fed.BLUE_MAX,
        "blue_power": list(fed.BLUE_POWER),
        "alterations": [
            {
                "id": i,
                "power": power,
                "votes": votes,
                "side": "funding" if votes == 0 else "vote",
                **_effect(bonus),
            }
            for i, (power, votes, bonus) in enumerate(fed.ALTERATIONS)
        ],
        "stalls": [
            {
                "index": i,
                **_cost_dict(cost),
                "reward": effect_text(reward),
                "upper_factor": fed.UPPER_FACTOR,
            }
            for i, (cost, reward) in enumerate(fed.STALLS)
        ],
        "erudite": [
            {
                "tile": t,
                "planet": fed.PLANETS[t // 3],
                "level": t % 3 + 1,
                "timing": timing,
                **_effect(effect),
            }
            for t, (timing, effect) in enumerate(fed.ERUDITE)
        ],
        "production": [
            {"index": i, **_cost_dict(cost), **_effect(effect)}
            for i, (cost, effect) in enumerate(fed.PRODUCTION)
        ],
        "n_production": fed.N_PRODUCTION,
        "mega_costs": [_cost_dict(c) for c in fed.MEGA_COSTS],
        "mega_slots": list(fed.MEGA_SLOTS),
        "mega_criteria": [
            {"index": i, "key": k, "text": MEGA_CRITERIA_TEXT.get(k, k)}
            for i, k in enumerate(fed.MEGA_CRITERIA)
        ],
        "start_tiles": [_effect(e) for e in fed.START_TILES],
        "deep_space": [_effect(e) for e in fed.DEEP_SPACE],
        "law_pp_per_level": fed.LAW_PP_PER_LEVEL,
        "rounds": fed.ROUNDS,
        "turns": fed.TURNS,
    }


# ---------------------------------------------------------------- writing

BUILDERS = {"fractured_sky": fractured_sky, "spacecraft": spacecraft, "federation": federation}


def documents() -> dict[str, str]:
    """File name -> JSON text, exactly as committed."""
    out = {"index.json": _dump({"games": GAMES})}
    for game in GAMES:
        name = game["name"]
        phases = {"phases": PHASE_WORDS[name]}  # the terminal client's words too
        out[f"{name}.json"] = _dump({**game, **BUILDERS[name](), **phases})
    return out


def _dump(document: Any) -> str:
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


def stale(directory: Path = OUT) -> list[str]:
    """The files that differ from what the catalogues give now (missing ones included)."""
    return [
        name
        for name, text in documents().items()
        if not (directory / name).exists() or (directory / name).read_text("utf-8") != text
    ]


def main(argv: list[str]) -> int:
    if "--check" in argv:
        names = stale()
        if names:
            print("out of date: " + ", ".join(names) + " (run: python -m clients.web.export)")
            return 1
        return 0
    OUT.mkdir(exist_ok=True)
    for name, text in documents().items():
        (OUT / name).write_text(text, "utf-8")
        print(f"wrote {OUT / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
