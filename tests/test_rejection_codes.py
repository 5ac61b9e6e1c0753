"""One rejection code per situation in every game: the table in games/README.md lists
each code the rules can raise, the situation it names and who raises it. Every code the
source under ``games/`` raises has its row (with exactly the games that raise it), no
row names a code nobody raises, every code is in the wire contract
(``REJECTION_CODES``), each game's RULES.md names every code the game raises, and the
situations every game shares get the same code in each."""

from __future__ import annotations

import importlib
import re
from random import Random

import pytest

from games.playthrough import fold
from games.registry import get_game
from games.rejection import Rejected
from games.rng import derive_rng
from orrery_contracts.rejections import REJECTION_CODES
from tests.support.service import REPO
from tests.support.tinygame import Draw

pytestmark = pytest.mark.unit

GAMES = REPO / "games"
WHO = {"fractured_sky": "FS", "spacecraft": "SC", "federation": "Fed", "table": "table"}


def _raised() -> dict[str, set[str]]:
    """Each code raised under games/, with who raises it (FS, SC, Fed, table, undo)."""
    constants: dict[str, str] = {}
    for path in GAMES.rglob("*.py"):
        constants |= dict(re.findall(r'^([A-Z_]+) = "([a-z_]+)"$', path.read_text(), re.M))
    raised: dict[str, set[str]] = {}
    for path in GAMES.rglob("*.py"):
        text = path.read_text()
        codes = set(re.findall(r'Rejected\(\s*"([a-z_]+)"', text))
        codes |= {constants[c] for c in re.findall(r"Rejected\(\s*([A-Z_]+)\b", text)}
        assert not re.findall(r"Rejected\(\s*[a-z_]+\s*,", text), f"{path}: a code in a variable"
        folder = path.relative_to(GAMES).parts[0]
        who = WHO.get(folder, "undo" if path.name == "undo.py" else folder)
        for code in codes:
            raised.setdefault(code, set()).add(who)
    return raised


def _table() -> dict[str, tuple[str, set[str]]]:
    text = (GAMES / "README.md").read_text()
    section = text.split("## Rejection codes", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([a-z_]+)` \| (.+?) \| ([A-Za-z, ]+) \|$", section, re.M)
    table = {
        code: (situation, {w.strip() for w in who.split(",")}) for code, situation, who in rows
    }
    assert len(table) == len(rows), "a code has two rows"
    return table


def test_every_raised_code_has_one_row_naming_who_raises_it() -> None:
    raised, table = _raised(), _table()
    assert len(raised) > 60  # the scan still finds them
    assert sorted(set(raised) - set(table)) == []  # raised, but not in the table
    assert sorted(set(table) - set(raised)) == []  # in the table, but raised nowhere
    wrong = {code: (table[code][1], who) for code, who in raised.items() if table[code][1] != who}
    assert wrong == {}


def test_one_situation_per_code_and_every_code_in_the_contract() -> None:
    table = _table()
    situations = [situation for situation, _ in table.values()]
    assert len(set(situations)) == len(situations)
    assert sorted(set(table) - set(REJECTION_CODES)) == []


@pytest.mark.parametrize("game", ["fractured_sky", "spacecraft", "federation"])
def test_each_rules_page_names_the_codes_its_game_raises(game: str) -> None:
    rules = (GAMES / game / "RULES.md").read_text()
    named = set(re.findall(r"`([a-z_]+)`", rules.split("## Rejection codes", 1)[1]))
    own = {code for code, who in _raised().items() if WHO[game] in who}
    assert sorted(own - named) == []


def test_the_table_is_sorted() -> None:
    codes = list(_table())
    assert codes == sorted(codes)


@pytest.mark.parametrize("game", ["fractured_sky", "spacecraft", "federation"])
def test_the_same_situation_gets_the_same_code_in_every_game(game: str) -> None:
    """A seat no player sits at, and another game's command: the same codes everywhere,
    in the same order, from ``legal.problem`` and ``decide`` alike."""
    rules = get_game(game)
    assert rules is not None
    options = rules.options_type()
    seats = max(rules.min_seats, 2)
    state = fold(rules, options, seats, rules.setup(options, seats, derive_rng(bytes(16), 0)))
    problem = importlib.import_module(f"games.{game}.legal").problem
    seat = rules.status(state).to_move[0]
    mine = rules.legal_commands(state, seat)[0]
    cases = [(99, mine, "not_your_turn"), (99, Draw(), "not_your_turn")]
    for who, command, code in [*cases, (seat, Draw(), "illegal_command")]:
        assert problem(state, who, command).code == code
        with pytest.raises(Rejected) as refused:
            rules.decide(state, command, who, Random(0))
        assert refused.value.code == code
