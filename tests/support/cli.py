"""Running the command line as a user does: ``python -m orrery.cli ARGS`` in a process of
its own, from this checkout (its children import the tests' tiny game from here too)."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.support.service import REPO


def run_orrery(
    *args: str, timeout: float = 120, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The finished process, its output as text; ``env`` is added to this one's."""
    return subprocess.run(
        [sys.executable, "-m", "orrery.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
        cwd=REPO,
    )
