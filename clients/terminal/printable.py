"""Text from elsewhere reaches the terminal as text only, never as terminal commands.

Names, chat, rule texts, rejection messages and every string of a view come from other
people or other processes. The service refuses control characters in names and chat,
but the terminal client does not rely on that: everything it prints passes through
:class:`PrintableConsole`, which removes escape sequences (CSI, OSC, DCS, SOS, PM,
APC, two-character ESC forms, their 8-bit C1 forms) and every other control character
from the text it is given, while the styles and cursor movements the client draws
itself (Rich emits those from styles and control segments, never from the text) pass
as they are. A line break or tab inside a piece of text becomes a space, so a chat
message cannot fake a line of the screen.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.segment import Segment
from rich.text import Text

# ESC or its 8-bit CSI/OSC/DCS/... introducers, then the rest of the sequence
_SEQUENCE = re.compile(
    r"""
    (?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]                 # CSI: ESC[2J, ESC[5m
    | (?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])         # OSC, DCS, SOS, PM, APC ...
      [^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?           # ... up to BEL or ST (or the end)
    | \x1b[ -/]*[0-~]                                  # two-character forms: ESC c, ESC(B
    """,
    re.VERBOSE,
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_BREAK = re.compile(r"[\t\n\r]")


def printable(text: str, *, keep_lines: bool = False) -> str:
    """``text`` without escape sequences or control characters (``keep_lines``: line
    breaks stay, for text the client laid out in lines itself)."""
    text = _SEQUENCE.sub("", text)
    if not keep_lines:
        text = _BREAK.sub(" ", text)
    return _CONTROL.sub("", text.replace("\r", "").replace("\t", " "))


class Printable:
    """A renderable whose text is made printable after Rich laid it out (its line
    breaks are Rich's own)."""

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for segment in console.render(self.renderable, options):
            if segment.control or segment.text == "\n":
                yield segment
            else:
                yield Segment(printable(segment.text, keep_lines=True), segment.style)


class PrintableConsole(Console):
    """A console that prints only printable text (see the module docstring)."""

    def print(self, *objects: Any, **options: Any) -> None:
        super().print(*_printables(objects), **options)


def _printables(objects: Iterable[Any]) -> list[Any]:
    # a plain string is text, never markup (the console has markup off)
    return [Printable(Text(o) if isinstance(o, str) else o) for o in objects]
