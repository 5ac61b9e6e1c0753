"""Errors a user can fix: printed as one line naming the problem and the fix, with a
non-zero exit, never as a traceback (``orrery.cli.main``)."""

from __future__ import annotations


class UserError(Exception):
    """A problem with what the user asked for or with their setup, and how to fix it."""

    exit_code = 2
