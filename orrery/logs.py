"""structlog, configured once per process: JSON lines when stderr is not a terminal,
a readable console renderer when it is. Context variables (table id, command id,
seat, seq) bound around each command appear on every line."""

from __future__ import annotations

import logging
import os
import sys

import structlog

_configured = False


class StderrLogger:
    """Prints to whatever ``sys.stderr`` is *now* (tests and CLIs swap it around)."""

    def msg(self, message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    log = debug = info = warn = warning = error = err = critical = exception = fatal = msg


def _stderr_logger(*args: object) -> StderrLogger:
    return StderrLogger()


def configure_logging(level: str | None = None) -> None:
    global _configured
    if _configured:
        return
    _configured = True
    level_name = (level or os.environ.get("ORRERY_LOG_LEVEL", "info")).upper()
    numeric = logging.getLevelNamesMapping().get(level_name, logging.INFO)
    renderer: structlog.typing.Processor
    if sys.stderr.isatty():
        renderer = structlog.dev.ConsoleRenderer()
    else:
        renderer = structlog.processors.JSONRenderer()
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=_stderr_logger,
        cache_logger_on_first_use=True,
    )
    # FastStream logs every message at INFO through stdlib logging: keep warnings only.
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    for name in ("faststream", "faststream.access.redis"):
        logging.getLogger(name).setLevel(logging.WARNING)
