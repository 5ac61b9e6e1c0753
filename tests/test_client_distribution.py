"""The SDK as its own distribution, ``orrery-client`` (``clients/pyproject.toml``): the
wheel holds exactly the two non-generic packages ``orrery_client`` and
``orrery_contracts`` (every module of both, typed), depends on redis and msgspec only,
and, installed into a fresh interpreter that has nothing else, runs its README's example
against a live service without importing any server package."""

from __future__ import annotations

import email
import re
import subprocess
import sys
import textwrap
import tomllib
import venv
import zipfile
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
import redis

from tests.support.service import REPO, LiveService, live_service

pytestmark = pytest.mark.service

CLIENT = REPO / "clients"
README = CLIENT / "orrery_client" / "README.md"
PACKAGES = {
    "orrery_client": CLIENT / "orrery_client",
    "orrery_contracts": REPO / "contracts" / "orrery_contracts",
}
SERVER_PACKAGES = ("games", "streams", "services", "projections", "gateway", "orrery", "clients")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--disable-pip-version-check", "-w", str(out), str(CLIENT)],
        check=True, cwd=CLIENT,
    )  # fmt: skip
    (built,) = out.glob("orrery_client-*.whl")
    return built


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    with live_service(Path(tmp_path_factory.mktemp("client-dist"))) as service:
        yield service


def test_the_wheel_holds_the_two_packages_whole_and_typed(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == set(PACKAGES)
    for package, folder in PACKAGES.items():
        modules = {f"{package}/{p.relative_to(folder).as_posix()}" for p in folder.rglob("*.py")}
        assert modules <= names, modules - names  # a new subpackage left out of the list
        assert f"{package}/py.typed" in names


def test_the_distribution_depends_on_redis_and_msgspec_only(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        (meta,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = email.message_from_bytes(archive.read(meta))
    requires = sorted(re.split(r"[<>=!~ ;]", r)[0] for r in metadata.get_all("Requires-Dist"))
    assert requires == ["msgspec", "redis"]
    server = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert metadata["Version"] == server["version"]  # released together


def test_installed_alone_it_plays_a_table(wheel: Path, live: LiveService, tmp_path: Path) -> None:
    env_dir = tmp_path / "app-env"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
    )  # fmt: skip
    # The app's environment: the wheel, and its two dependencies (the copies this test
    # runs with, put on the path by themselves: no other package of ours is reachable).
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
         "--disable-pip-version-check", "--target", str(site), str(wheel)],
        check=True,
    )  # fmt: skip
    deps = tmp_path / "deps"
    deps.mkdir()
    for module in (redis, msgspec):
        folder = Path(module.__file__ or "").parent
        (deps / folder.name).symlink_to(folder)
    (site / "deps.pth").write_text(f"{deps}\n")
    # the distribution's README example, as an app would run it, plus a look at what it loaded
    (example,) = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    assert example.count('URL = "redis://') == 1
    app = re.sub(r'URL = "redis://[^"]*"', f"URL = {live.url!r}", example) + textwrap.dedent(
        f"""
        import sys
        loaded = {{name.split(".")[0] for name in sys.modules}}
        print("server packages", sorted(loaded & set({SERVER_PACKAGES!r})))
        print("unexpected", sorted(n for n in loaded if n in ("faststream", "structlog")))
        """
    )
    run = subprocess.run(
        [str(python), "-I", "-c", app], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr[-2000:]
    lines = run.stdout.splitlines()
    assert lines[0].startswith("to move: [") and lines[1].startswith("final standing: {")
    assert lines[2:] == ["server packages []", "unexpected []"]
