"""Rules for untrusted text that every entry point shares: player names and short,
sanitised excerpts of bad input for rejection messages.

These are pure functions (no I/O) so the table decider, the chat, the gateway and clients
apply the same checks. Choices:

* a name is NFC-normalised, stripped, 1-40 characters, with no control, format (but
  the emoji joiner U+200D), surrogate, private-use or unassigned characters: so a name
  cannot carry terminal escapes, bidi overrides or invisible look-alikes into every view;
* a message quotes at most :data:`EXCERPT` characters of what the client sent, with
  anything unprintable replaced, so a rejection never echoes a megabyte back.
"""

from __future__ import annotations

import unicodedata
from typing import Any

MAX_NAME = 40
EXCERPT = 40
_ALLOWED_FORMAT = {"\u200d"}  # zero-width joiner: part of many emoji


def normalise_name(raw: str) -> str | None:
    """The name as it is stored and shown, or None when it is not acceptable."""
    return normalise_text(raw, MAX_NAME)


def normalise_text(raw: str, longest: int) -> str | None:
    """Untrusted text as it is stored and shown (a name, a chat line: NFC, stripped,
    1 to ``longest`` characters, nothing invisible or controlling), or None."""
    text = unicodedata.normalize("NFC", raw).strip()
    if not 1 <= len(text) <= longest:
        return None
    for char in text:
        category = unicodedata.category(char)
        if category[0] == "C" and char not in _ALLOWED_FORMAT:
            return None
    return text


def excerpt(value: Any, limit: int = EXCERPT) -> str:
    """A short printable rendering of a client's value for a human message."""
    if isinstance(value, str):
        text = value
    elif value is None or isinstance(value, bool | int | float):
        text = repr(value)
    else:  # never repr a container: it may be huge or nested deeper than repr can go
        text = f"<{type(value).__name__}>"
    if len(text) > limit:
        text = text[:limit] + "…"
    return "".join(c if c.isprintable() else "?" for c in text)
