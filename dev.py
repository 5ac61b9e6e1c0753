#!/usr/bin/env python3
"""Bootstrap and run Orrery from a fresh clone, with nothing but Python >= 3.11.

    python3 dev.py demo [demo options]   # bots play complete games through the service
    python3 dev.py test [--all]          # ruff, mypy, tests (--all: cluster, bench and slow too)
    python3 dev.py orrery ARGS...        # any orrery command, inside the project's .venv
    python3 dev.py screenshots [FOLDER]  # the README's screenshots again (docs/img unless told)

The exit code is the command's; Ctrl-C goes to the command (``orrery play`` says how to
come back, naming ``python3 dev.py orrery`` as the way in: ``$ORRERY_PROG``).

The first run creates ./.venv and installs the project with its dev extras; later
runs reinstall only when pyproject.toml changed. ``test`` also installs Debian's Chromium
(for the web client's browser tests) when /usr/bin/chromium is missing and it runs as root,
PostgreSQL (the archive's tests) when missing,
curl and jq (the gateway's walk-through in docs/gateway.md) when missing, the npm packages of the
TypeScript check (clients/typescript/, Node.js if missing), of the API documents'
validators (tests/apidocs/) and of the accessibility check (tests/axe/), and the OpenAPI
client generator (in a virtual environment of its own).
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".orrery-installed"


def ensure_venv() -> None:
    if sys.version_info < (3, 11):  # noqa: UP036 - this file runs before the venv exists
        sys.exit("Orrery needs Python 3.11 or newer")
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text() == wanted:
        return
    if not (BIN / "python").exists():
        print("creating .venv ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    print("installing orrery and its dependencies into .venv ...", flush=True)
    pip = [str(BIN / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, "-e", f"{ROOT}[dev]"], check=True, cwd=ROOT)
    STAMP.write_text(wanted)


def apt_install(what: str, *packages: str) -> bool:
    """Install Debian packages when running as root with apt-get; else say what is missing."""
    if os.name != "posix" or os.geteuid() != 0 or not shutil.which("apt-get"):
        print(f"warning: {what} is missing; apt-get install -y {' '.join(packages)}", flush=True)
        return False
    print(f"installing {' '.join(packages)} (apt-get) ...", flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-q", *packages]
    out = subprocess.DEVNULL
    if subprocess.run(install, env=env, stdout=out, check=False).returncode != 0:
        # a fresh machine has no package lists yet
        subprocess.run(["apt-get", "update", "-q"], env=env, stdout=out, check=True)
        subprocess.run(install, env=env, stdout=out, check=True)
    return True


def ensure_chromium() -> None:
    """The browser tests drive Debian's Chromium through Playwright (Playwright's own
    browser download is not reachable from CI): install it when missing."""
    if not (os.environ.get("ORRERY_CHROMIUM") or shutil.which("chromium")):
        apt_install("Chromium", "chromium")


def ensure_postgresql() -> None:
    """The archive's tests run PostgreSQL from Debian's package (its binaries under
    /usr/lib/postgresql/<version>/bin, started by the tests as the package's ``postgres``
    user): install it when missing."""
    if not list(Path("/usr/lib/postgresql").glob("*/bin/postgres")):
        apt_install("PostgreSQL", "postgresql")


def ensure_shell_tools() -> None:
    """The gateway's walk-through (docs/gateway.md) runs in tests with curl and jq."""
    missing = [tool for tool in ("curl", "jq") if not shutil.which(tool)]
    if missing:
        apt_install(" and ".join(missing), *missing)


def npm_install(folder: Path, what: str) -> None:
    """The pinned npm packages of ``folder`` (its package-lock.json) in its node_modules
    (kept out of git and the linters), and Node.js itself when missing; again only when
    the lock file changed."""
    lock, stamp = folder / "package-lock.json", folder / "node_modules" / ".orrery-installed"
    wanted = hashlib.sha256(lock.read_bytes()).hexdigest()
    if stamp.exists() and stamp.read_text() == wanted:
        return
    if not shutil.which("npm") and not apt_install("Node.js", "nodejs", "npm"):
        return
    print(f"installing the npm packages of {what} ...", flush=True)
    npm = ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"]
    subprocess.run(npm, cwd=folder, check=True)
    stamp.write_text(wanted)


def ensure_typescript() -> None:
    """The TypeScript check (tests/test_typescript_types.py) generates types from the schema
    with json-schema-to-typescript and compiles them: install the pinned npm packages
    (clients/typescript/package-lock.json), and Node.js itself when missing."""
    npm_install(ROOT / "clients" / "typescript", "the TypeScript check")


def ensure_apidocs() -> None:
    """tests/test_openapi.py validates the served documents with their formats' own
    tools: @asyncapi/parser (the AsyncAPI document) and Redocly's linter (the OpenAPI
    one), pinned in tests/apidocs/package-lock.json."""
    npm_install(ROOT / "tests" / "apidocs", "the API documents' validators")


def ensure_axe() -> None:
    """tests/test_web_layout.py injects axe-core (pinned in tests/axe/package-lock.json)
    into the web client's pages to check their accessibility."""
    npm_install(ROOT / "tests" / "axe", "the accessibility check")


# tests/test_openapi_client.py generates a Python client from the served OpenAPI document
# with this tool. It pins an older typer than the project's CLI needs, so it lives in a
# virtual environment of its own (inside .venv, so git and the linters skip it).
CLIENT_GENERATOR = "openapi-python-client==0.29.1"
CLIENT_GENERATOR_VENV = VENV / "tools" / "openapi-python-client"


def ensure_client_generator() -> Path:
    """The ``openapi-python-client`` executable (installed on first use)."""
    folder = CLIENT_GENERATOR_VENV
    tool_bin = folder / ("Scripts" if os.name == "nt" else "bin")
    stamp = folder / ".orrery-installed"
    if not (stamp.exists() and stamp.read_text() == CLIENT_GENERATOR):
        print(f"installing {CLIENT_GENERATOR} into {folder} ...", flush=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(folder)
        pip = [str(tool_bin / "python"), "-m", "pip", "install", "--quiet"]
        subprocess.run([*pip, "--disable-pip-version-check", CLIENT_GENERATOR], check=True)
        stamp.write_text(CLIENT_GENERATOR)
    return tool_bin / "openapi-python-client"


def run(*command: str, env: dict[str, str] | None = None) -> int:
    """Run ``command`` in the foreground; its exit code (128 + N when signal N ended it).

    Ctrl-C reaches the child as well (one process group): the child decides what it
    means (``orrery play`` says how to come back and exits 130), and this process waits
    for it instead of raising KeyboardInterrupt over it, or killing it as
    ``subprocess.run`` would. The handler is a function, not SIG_IGN: an ignored signal
    stays ignored across exec, a handled one is reset to the default in the child."""
    previous = signal.signal(signal.SIGINT, lambda *_: None)
    try:
        code = subprocess.Popen(command, cwd=ROOT, env=env).wait()
    finally:
        signal.signal(signal.SIGINT, previous)
    return 128 - code if code < 0 else code


def invoked_as() -> str:
    """How this file was run, up to its own name, plus ``orrery``: the command the user
    typed (``python3 dev.py orrery``), for the lines that tell them what to type next.

    A launcher such as pyenv's shim runs the interpreter by its full path, which the user
    never typed: an absolute interpreter path is named by its file name when that name
    finds an interpreter on PATH (any Python >= 3.11 runs this file)."""
    interpreter = sys.orig_argv[: len(sys.orig_argv) - len(sys.argv)]
    if interpreter and os.path.isabs(interpreter[0]):
        name = os.path.basename(interpreter[0])
        if shutil.which(name):
            interpreter = [name, *interpreter[1:]]
    return shlex.join([*interpreter, sys.argv[0], "orrery"])


def test(options: list[str]) -> int:
    """ruff, ruff format --check, mypy, vulture, then pytest with its modules spread over
    the cores (pytest-xdist, a whole module to one process, so a module's servers start
    once), and the whole run's wall time. The default run leaves out the tiers ``cluster`` and
    ``bench`` and the ``slow`` runs (pyproject's addopts); ``--all`` runs everything (CI)."""
    unknown = [o for o in options if o != "--all"]
    if unknown:
        print(f"dev.py test: unknown option {unknown[0]} (the one option is --all)")
        return 2
    started = time.monotonic()
    ensure_chromium()
    ensure_postgresql()
    ensure_shell_tools()
    ensure_typescript()
    ensure_apidocs()
    ensure_axe()
    ensure_client_generator()
    processes = str(max(1, min(4, os.cpu_count() or 1)))
    pytest = [str(BIN / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    steps = [
        [str(BIN / "ruff"), "check", "."],
        [str(BIN / "ruff"), "format", "--check", "."],
        [str(BIN / "mypy")],
        # dead code in the packages ([tool.vulture] in pyproject.toml)
        [str(BIN / "vulture")],
        # the slowest tests, to keep an eye on the suite's budget
        [*pytest, "-n", processes, "--dist", "loadfile", "--durations=15"]
        + (["-m", ""] if "--all" in options else []),
    ]
    code = 0
    for step in steps:
        print(
            "$",
            " ".join(Path(step[0]).name if i == 0 else shlex.quote(a) for i, a in enumerate(step)),
            flush=True,
        )
        code = run(*step)
        if code != 0:
            break
    minutes, seconds = divmod(round(time.monotonic() - started), 60)
    what = "everything" if "--all" in options else "the default run"
    print(f"dev.py test ({what}): {minutes} min {seconds:02d} s, exit code {code}", flush=True)
    return code


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in {"demo", "test", "orrery", "screenshots"}:
        print(__doc__)
        return 2
    ensure_venv()
    what, rest = sys.argv[1], sys.argv[2:]
    if what == "test":
        return test(rest)
    if what == "screenshots":  # the web client in Chromium at 1280×900 and 390×844
        ensure_chromium()
        return run(str(BIN / "python"), "-m", "tests.support.screenshots", *rest)
    env = {**os.environ, "ORRERY_PROG": invoked_as()}
    if what == "demo":
        return run(str(BIN / "orrery"), "demo", *rest, env=env)
    return run(str(BIN / "orrery"), *rest, env=env)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl-C while the .venv is set up: no traceback
        sys.exit(130)
