"""Checks of command-line arguments shared by ``demo`` and ``play``: game names (with a
"did you mean"), ``--options`` (``key=value`` pairs or JSON objects), player counts and
the bots' level (``--bots``);
and the ports ``serve`` and ``gateway`` listen on. Each problem is a
:class:`~orrery.errors.UserError` naming the fix."""

from __future__ import annotations

import difflib
import errno
import json
import socket
from typing import Any

from orrery.errors import UserError


def check_game(game: str, available: list[str]) -> str:
    """``game`` if it is hosted here, else an error naming it and the fix."""
    if game in available:
        return game
    folded = [g for g in available if g.lower() == game.lower()]
    close = folded or difflib.get_close_matches(game.lower(), available, n=1)
    if close:
        raise UserError(f"unknown game {game!r}; did you mean --game {close[0]}?")
    raise UserError(f"unknown game {game!r}; choose --game {' | '.join(available)}")


def check_bot_level(level: str) -> str:
    """``--bots LEVEL`` if bots play at that level, else an error naming the levels."""
    from orrery_contracts.lobby import BOT_LEVELS

    if level in BOT_LEVELS:
        return level
    raise UserError(f"unknown bot level {level!r}; choose --bots {' | '.join(BOT_LEVELS)}")


def parse_options(items: list[str]) -> dict[str, Any]:
    """``key=value`` items (values read as JSON when they parse: ``3``, ``true``, else as
    text) or JSON objects, merged left to right."""
    options: dict[str, Any] = {}
    for item in items:
        text = item.strip()
        if text.startswith("{"):
            try:
                value = json.loads(text)
            except json.JSONDecodeError as error:
                raise UserError(f"--options {text!r} is not a JSON object ({error.msg})") from None
            if not isinstance(value, dict):
                raise UserError(f"--options {text!r} is not a JSON object")
            options.update(value)
            continue
        key, sep, raw = text.partition("=")
        if not sep or not key.strip():
            raise UserError(
                f"--options takes key=value (e.g. difficulty=hard) or a JSON object, not {text!r}"
            )
        try:
            options[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            options[key.strip()] = raw
    return options


def check_players(game: str, players: int | None, minimum: int, maximum: int) -> None:
    if players is not None and not minimum <= players <= maximum:
        raise UserError(
            f"{game} seats {minimum}-{maximum} players, not {players}; give --players in that range"
        )


def port_problem(port: int, option: str, error: OSError) -> str:
    """One line saying why ``port`` (given as ``option``) cannot be listened on, and the fix."""
    if error.errno == errno.EADDRINUSE:
        return (
            f"port {port} ({option}) is in use: stop what listens there, choose another "
            f"port, or leave {option} out for a free one"
        )
    if error.errno == errno.EACCES:
        return f"port {port} ({option}) needs privileges: choose a port above 1023"
    return f"cannot listen on port {port} ({option}): {error.strerror or error}"


def check_port(port: int | None, option: str, host: str = "127.0.0.1") -> None:
    """Raise a :class:`UserError` when something listens on ``port`` already (before a
    server is started there: the embedded server would die with only a log line, and a
    Redis already on that port would answer in its place). Port 0 or None: a free one."""
    if not port:
        return
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        # as the servers do: a port a stopped server left in TIME_WAIT is free to listen on
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as error:
            raise UserError(port_problem(port, option, error)) from None
