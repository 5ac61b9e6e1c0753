"""Words for the games' things, in one place for every client: the catalogue export
(``clients.web.export``, which writes the texts the web client shows) and the terminal
client's renderers say an effect or a cost in the same words.

Federation: an effect is a tuple of ``(key, n)`` pairs from its catalogue
(``(("c", 1), ("pp", 3))`` -> "+1 coppernium, +3 PP"); a cost is five counts
(coppernium, lavandium, oceanium, crystals of any kind, diamonds).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any


def plural(n: int, word: str) -> str:
    """``plural(2, "body")`` -> "2 bodies"."""
    if n == 1:
        return f"{n} {word}"
    return f"{n} {word[:-1]}ies" if word.endswith("y") else f"{n} {word}s"


# ---------------------------------------------------------------- Federation

CRYSTALS = ("coppernium", "lavandium", "oceanium")

EFFECT_WORDS: dict[str, tuple[str, str]] = {
    # key: (singular, plural) of what n of them gives
    "c": ("coppernium", "coppernium"),
    "l": ("lavandium", "lavandium"),
    "o": ("oceanium", "oceanium"),
    "d": ("diamond", "diamonds"),
    "pp": ("PP", "PP"),
    "ship": ("spaceship", "spaceships"),
    "auth": ("authority step", "authority steps"),
    "die": ("on the assistant die", "on the assistant die"),
    "crystal": ("crystal of your choice", "crystals of your choice"),
    "token": ("alteration token", "alteration tokens"),
    "token_l1": ("alteration token from blue level 1", "alteration tokens from blue level 1"),
    "project": ("project step of your choice", "project steps of your choice"),
    "influence": ("influence on a planet of your choice", "influence on planets of your choice"),
}
EFFECT_PHRASES = {
    "die_min": "the assistant die at {n} or more",
    "check_any": "a check on any mission",
    "check_l2": "a check on a level-2 mission",
    "erudite1": "a level-1 erudite tile",
    "free_mission": "a mission without its check",
    "orange": "the orange planet's action",
    "blue": "the blue planet's action",
    "funding": "the matching mission's check",
    "retrigger": "fire one of your production structures",
    "pp_per_medal": "{n} PP per medal (at most 10)",
    "pp_per_upper": "{n} PP per upper stall pawn",
}


def effect_text(effect: Iterable[Sequence[Any]]) -> str:
    """``(("c", 1), ("l", 1))`` -> ``+1 coppernium, +1 lavandium``."""
    out = []
    for key, n in effect:
        if key in EFFECT_PHRASES:
            out.append(EFFECT_PHRASES[key].format(n=n))
        elif key in EFFECT_WORDS:
            one, many = EFFECT_WORDS[key]
            word = one if abs(n) == 1 else many
            out.append(f"{'+' if n > 0 else '-'}{abs(n)} {word}")
        else:  # a key these words do not know yet: still say something true
            out.append(f"{key} {n}")
    return ", ".join(out) if out else "nothing"


def cost_text(cost: Sequence[int]) -> str:
    copp, lav, ocean, any_crystal, diamond = cost
    parts = [f"{n} {name}" for n, name in zip((copp, lav, ocean), CRYSTALS, strict=True) if n]
    if any_crystal:
        parts.append(plural(any_crystal, "crystal"))
    if diamond:
        parts.append(plural(diamond, "diamond"))
    return " + ".join(parts) if parts else "free"


# ---------------------------------------------------------------- phases

# What a game's phase means to a player: the table view's ``game_phase`` and the game
# view's own phase, step (SPACEcraft: ``play.action`` is a phase and its step) or pending
# choice (Federation). The catalogue export gives the web client the same words.
PHASE_WORDS: dict[str, dict[str, str]] = {
    "fractured_sky": {
        "setup": "Setting up",
        "start": "Everybody chooses 4 starting resources",
        "play": "Actions: airships, buildings, skimmers, scouting, peeking",
        "scout": "Scouting: take a resource from the scouted card",
        "slot": "Choosing a turn slot for the next round",
        "rewards": "Round end: resource choices",
        "finished": "Game over",
    },
    "spacecraft": {
        "setup": "Setting up",
        "goals": "Everybody keeps one of two personal goals",
        "play": "Turns",
        "final": "Final round: one last leave each",
        "over": "Game over",
        "finished": "Game over",
        "action": "take a pile or leave",
        "build": "build step",
        "design": "design step",
    },
    "federation": {
        "setup": "setting up",
        "start_pick": "pick a start tile",
        "turn": "place an ambassador",
        "post": "do a mission, use a tile or end the turn",
        "pay": "choose how to pay",
        "discard": "discard crystals down to 10",
        "crystal": "choose a crystal",
        "fork": "choose at the orange fork",
        "dead": "choose a dead asteroid's reward",
        "blue_take": "take an alteration token",
        "yellow": "choose a stall",
        "purple": "choose an erudite tile",
        "green": "choose a structure to build",
        "project": "advance a project",
        "check": "put a check on a mission",
        "spy": "choose what the spy copies",
        "medal": "choose a medal",
        "influence": "add influence on a planet",
        "deep": "take a deep-space tile",
        "retrigger": "fire a production structure",
        "free_mission": "perform a free mission",
        "income_choice": "take or skip income",
        "upkeep": "pay for the authority level",
        "law": "break the law vote's tie",
        "finished": "game over",
    },
}


def phase_text(game: str, phase: str) -> str:
    """``phase_text("spacecraft", "play.build")`` -> "Turns · build step"; a phase these
    words do not know yet is still said in words ("mission checks")."""
    words = PHASE_WORDS.get(game, {})
    return " · ".join(words.get(part, part.replace("_", " ")) for part in phase.split(".") if part)
