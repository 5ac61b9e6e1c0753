"""The terminal client's drawing, from real views of every game (no server needed).

Views come from random games played through the pure table decider and encoded to JSON
exactly as the projector stores them; the renderers only ever see that JSON.
"""

from __future__ import annotations

import io
import re
from functools import cache
from random import Random
from typing import Any

import msgspec
import pytest

from clients.terminal import frame, menu
from clients.terminal.renderers import make_console, module_for, renderer_for
from clients.terminal.session import lifecycle_path
from games.codec import codec_for, json_encoder
from games.table import TableState, table_status, table_view
from orrery_contracts.fractured_sky import catalogue as fs_cat
from orrery_contracts.spacecraft import catalogue as sc_cat
from orrery_contracts.table import CreateTable, JoinSeat, StartTable
from tests.support.table_play import step

pytestmark = pytest.mark.unit

View = dict[str, Any]
GAMES = [
    ("fractured_sky", 1, {"difficulty": "hard"}),
    ("fractured_sky", 4, {}),
    ("spacecraft", 3, {}),
    ("spacecraft", 2, {"variant": "advanced"}),
    ("federation", 3, {}),
    ("tiny", 2, {}),
]


@cache
def played(game: str, players: int, options_items: tuple[tuple[str, Any], ...]) -> list[View]:
    """Every seat's view every few moves of one random game, the last ones finished."""
    chooser = Random(11)
    state = step(
        TableState(table_id="t1"),
        CreateTable(game=game, seats=players, options=dict(options_items)),
        None,
    )
    for s in range(players):
        state = step(state, JoinSeat(name=f"P{s}", token_hash=f"h{s}"), None)
    state = step(state, StartTable(), 0)
    codec = codec_for(game)
    views: list[View] = []
    moves = 0
    while state.phase == "playing":
        if moves % 9 == 0:
            views.extend(_views(state, players))
        seat = chooser.choice(list(table_status(state).to_move))
        legal = _json(table_view(state, seat))["legal"]
        choice = chooser.choice([c for c in legal if c["type"] != "table.leave"])
        state = step(state, codec.decode_command(msgspec.json.encode(choice), True), seat)
        moves += 1
    return views + _views(state, players)


def _json(view: Any) -> View:
    decoded: View = msgspec.json.decode(json_encoder.encode(view))
    return decoded


def _views(state: TableState, players: int) -> list[View]:
    return [_json(table_view(state, s)) for s in range(players)] + [_json(table_view(state, None))]


def views_of(game: str, players: int, options: dict[str, Any]) -> list[View]:
    return played(game, players, tuple(sorted(options.items())))


def menu_root(view: View) -> menu.Node:
    renderer = module_for(view["game"])  # the module itself: a failure is not hidden
    return menu.build(view["legal"], lambda c: lifecycle_path(c, view) or renderer.path(c, view))


def draw(view: View, *, last_round: int = 0, width: int = 160) -> str:
    out = io.StringIO()
    console = make_console(file=out, width=width)
    root = menu_root(view)
    console.print(
        frame.screen(
            view,
            module_for(view["game"]),
            menu=frame.Menu(menu.entries(root)),
            last_round=last_round,
        )
    )
    return out.getvalue()


def some(views: list[View], test: Any) -> View:
    return next(v for v in views if test(v))


@pytest.mark.parametrize(("game", "players", "options"), GAMES)
def test_every_view_draws_and_its_menu_reaches_every_legal_command(
    game: str, players: int, options: dict[str, Any]
) -> None:
    for view in views_of(game, players, options):
        text = draw(view)
        assert view["table_id"] in text
        leaves = [leaf.command for _, leaf in menu_root(view).leaves()]
        assert sorted(map(repr, leaves)) == sorted(map(repr, view["legal"]))
        for entry in menu.entries(menu_root(view)):  # every line opens or is a command
            assert entry.command is not None or menu.entries(entry.node)


def test_fractured_sky_is_drawn_with_names_chips_and_the_ais() -> None:
    views = views_of("fractured_sky", 1, {"difficulty": "hard"})
    view = some(views, lambda v: v["viewer"] == 0 and v["game_phase"] == "play")
    text = draw(view)
    for region in view["view"]["regions_active"]:
        assert fs_cat.REGIONS[region].name in text
    assert "Black (AI)" in text and "Orange (AI)" in text  # the AIs are in the seat list
    assert "AI difficulty hard" in text
    assert "only you see this" in text
    chips = " ".join(map(str, view["view"]["my_chips"]))
    assert f"unused chips: {chips}" in text
    assert not re.search(r"\b(region|chip|platform)=\d", text)  # no bare ids
    assert "..." not in text and "+14" not in text  # nothing cut
    # a spectator sees no private panel
    spectator = some(views, lambda v: v["viewer"] is None and v["view"] is not None)
    assert "only you see this" not in draw(spectator)


def test_fractured_sky_menu_picks_a_region_then_a_chip() -> None:
    views = views_of("fractured_sky", 4, {})
    view = some(
        views,
        lambda v: sum(c["type"] == "fs.place_airship" for c in v["legal"]) > 30,
    )
    top = menu.entries(menu_root(view))
    assert len(top) < 10
    airship = next(e for e in top if e.label.startswith("place an airship"))
    assert "choices" in airship.label and airship.command is None
    regions = menu.entries(airship.node)
    names = {r.name for r in fs_cat.REGIONS}
    assert regions and all(e.label.split(" (")[0] in names for e in regions)
    chips = menu.entries(regions[0].node)
    assert chips and all(re.fullmatch(r"chip \d+", e.label) for e in chips)
    command = chips[0].command
    assert command is not None and command["type"] == "fs.place_airship"
    assert command in view["legal"]
    leave = top[-1]
    assert leave.command == {"type": "table.leave"} and leave.label.startswith("concede")


def test_spacecraft_is_drawn_with_junk_goals_and_the_rocket() -> None:
    views = views_of("spacecraft", 3, {})
    choosing = some(views, lambda v: v["viewer"] == 1 and v["game_phase"] == "goals")
    text = draw(choosing)
    assert "choose one goal to keep" in text
    for goal in choosing["view"]["seats"][1]["goal_options"]:
        assert sc_cat.GOAL_BY_ID[goal].pattern  # a real goal, shown by its text
        assert f"goal {goal}:" in text
    playing = some(views, lambda v: v["viewer"] == 0 and v["game_phase"].startswith("play"))
    text = draw(playing)
    assert "junkyard" in text and "workshop" in text and "my rocket" in text
    tops = {c["top"] for c in playing["view"]["junkyard"] if c["top"]}
    assert any(junk in text for junk in tops)
    assert sc_cat.BLUEPRINT_BY_ID[playing["view"]["blueprint"]].id == playing["view"]["blueprint"]
    assert f"blueprint {playing['view']['blueprint']}:" in text
    assert "[body K]" in text  # the start body, drawn on the rocket grid


def test_federation_is_drawn_with_the_senate_and_the_seat_panel() -> None:
    views = views_of("federation", 3, {})
    view = some(views, lambda v: v["viewer"] == 2 and v["phase"] == "playing")
    text = draw(view)
    assert "senate" in text and "authority" in text and "laws in force" in text
    assert "ambassadors in hand" in text and "only you see this" in text


def test_the_final_standing_is_a_table_and_the_round_survives_the_end() -> None:
    fs_end = views_of("fractured_sky", 1, {"difficulty": "hard"})[-2]
    # the table's view keeps the game's last round after the end
    assert fs_end["phase"] == "finished" and fs_end["round"] == fs_end["view"]["round"] > 0
    text = draw(fs_end)
    assert "final standing" in text and "rank" in text and "{" not in text
    assert f"round {fs_end['view']['round']}" in text  # not "round 0"
    rank = fs_end["standing"]["ranks"][0]
    assert re.search(rf"\b{rank}\s+P0 \(you\)\s+{fs_end['standing']['points'][0]}\b", text)
    # the built-in opponents are in the final standing, each with its place and points
    for line in fs_end["standings"]:
        if line["ai"]:
            assert re.search(rf"\b{line['rank']}\s+{line['name']}\s+{line['points']}\b", text)
    assert sum(1 for line in fs_end["standings"] if line["ai"]) == 2
    sc_end = views_of("spacecraft", 3, {})[-2]
    assert sc_end["phase"] == "finished"
    assert sc_end["round"] > 0 and f"round {sc_end['round']}" in draw(sc_end, last_round=12)


def test_a_name_is_printed_as_typed_never_read_as_styling() -> None:
    view = views_of("tiny", 2, {})[0]
    view = {**view, "seats": [{**view["seats"][0], "name": "[bold red]Eve[/] :smile:"}]}
    assert "[bold red]Eve[/] :smile:" in draw(view)


def test_a_view_the_client_cannot_read_is_shown_as_data() -> None:
    view = views_of("spacecraft", 3, {})[0]
    broken = {**view, "view": {**view["view"], "junkyard": "???", "seats": [{"odd": 1}]}}
    out = io.StringIO()
    renderer = renderer_for("spacecraft")
    make_console(file=out, width=120).print(frame.screen(broken, renderer))
    assert "cannot draw this view" in out.getvalue() and "???" in out.getvalue()
    assert renderer.path({"type": "sc.visit"}, broken) == ["visit"]


def test_menu_collapses_single_choices_and_keeps_twins_apart() -> None:
    commands: list[dict[str, Any]] = [
        {"type": "a", "n": 1},
        {"type": "a", "n": 2},
        {"type": "b"},
    ]
    labels = {1: ["act", "one way", "only"], 2: ["act", "other"], None: ["b", "x"]}

    def path(c: dict[str, Any]) -> list[str]:
        return labels[c.get("n")]

    root = menu.build(commands, path)
    flat = menu.entries(root)
    assert [(e.group, e.label) for e in flat] == [
        ("act · one way", "only"),
        ("act", "other"),
        ("b", "x"),
    ]
    grouped = menu.entries(root, flat=2)
    assert [e.label for e in grouped] == ["act  (2 choices)", "b · x"]
    assert menu.find(root, ["act", "other"]) is not None
    assert menu.find(root, ["nothing"]) is None
    twins = menu.build([{"type": "t", "n": 1}, {"type": "t", "n": 2}], lambda c: ["same"])
    assert len(twins.leaves()) == 2
