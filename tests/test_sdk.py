"""The Python SDK as a client developer uses it: typed views, the view that includes a
command's outcome, and types a type checker holds them to."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from mypy import api as mypy_api

from orrery_client.sdk import OrreryClient
from orrery_contracts.envelope import Accepted, Rejection
from tests.support.service import REPO, LiveService, live_service
from tests.support.tinygame import Draw, Stand, TinyView


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    with live_service(Path(tmp_path_factory.mktemp("sdk"))) as service:
        yield service


async def test_play_and_view_returns_the_view_that_includes_the_move(live: LiveService) -> None:
    async with OrreryClient(live.url) as client:
        table = await client.create_table("tiny", 2)
        a = await client.join(table, "Ann")
        b = await client.join(table, "Bob")
        await client.start(a)
        played = await client.play_and_view(a, Draw())
        assert isinstance(played.outcome, Accepted)
        assert played.view["seq"] >= played.outcome.last_seq  # never the view before it
        refused = await client.play_and_view(a, Stand())  # not a's turn any more
        assert isinstance(refused.outcome, Rejection) and refused.view["seq"] >= 1
        typed = await client.typed_view(table, b.seat, TinyView)
        assert typed is not None and isinstance(typed.view, TinyView)
        assert typed.view.seats[b.seat].cards is not None  # b's own cards, as a Struct
        assert typed.view.seats[a.seat].cards is None


def test_the_sdk_is_typed_for_its_users(tmp_path: Path) -> None:
    assert (REPO / "clients" / "py.typed").exists() and (REPO / "contracts" / "py.typed").exists()
    snippet = (
        "from orrery_client.sdk import OrreryClient\n"
        "from orrery_contracts.fractured_sky.commands import PlaceAirship\n"
        "from tests.support.tinygame import TinyView\n"
        "async def f(c: OrreryClient) -> None:\n"
        "    v = await c.typed_view('t', 0, TinyView)\n"
        "    assert v is not None and v.view is not None\n"
        "    v.view.seatz\n"  # a typo: an error
        "    PlaceAirship(region=7, chp=7)\n"  # a misspelt field of a command: an error
    )
    (tmp_path / "client_app.py").write_text(snippet)
    (tmp_path / "mypy.ini").write_text("[mypy]\n")
    out, _, code = mypy_api.run(
        ["--config-file", str(tmp_path / "mypy.ini"), "--no-incremental",
         str(tmp_path / "client_app.py")]
    )  # fmt: skip
    assert code == 1
    assert '"TinyView" has no attribute "seatz"' in out
    assert 'Unexpected keyword argument "chp" for "PlaceAirship"' in out
