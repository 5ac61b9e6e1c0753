"""Rules for untrusted text that every entry point shares: player names and short,
sanitised excerpts of bad input for rejection messages.

These are pure functions (no I/O) so the table decider, the chat, the gateway and clients
apply the same checks. Choices:

* a name is NFC-normalised, stripped, 1-40 characters, with no control, surrogate,
  private-use or unassigned characters, and no format character (Cf) but where an
  emoji sequence needs one: a zero-width joiner between two emoji (👩‍💻), tag characters
  closing a flag (🏴 + tags + cancel tag). So a name cannot carry terminal escapes, bidi
  overrides or an invisible character that makes a second "Alice" (``Alice\u200d``).
  Emoji are told by their category (So, other symbol): no Unicode property table is
  needed on a client, and a joiner between two symbols draws nothing worse than a symbol;
* a message quotes at most :data:`EXCERPT` characters of what the client sent, with
  anything unprintable replaced, so a rejection never echoes a megabyte back.
"""

from __future__ import annotations

import unicodedata
from typing import Any

MAX_NAME = 40
EXCERPT = 40
ZWJ = "\u200d"
_FLAG = "\U0001f3f4"  # waving black flag: the base of the tag sequences (subdivision flags)
_TAGS = range(0xE0020, 0xE007F)  # tag characters; U+E007F cancel tag ends the sequence
_CANCEL_TAG = "\U000e007f"
# What may stand between an emoji and its joiner: variation selector-16, skin tones.
_EMOJI_MODIFIERS = {"\ufe0f", *(chr(c) for c in range(0x1F3FB, 0x1F400))}


def _emoji(char: str) -> bool:
    return unicodedata.category(char) == "So"


def _emoji_before(name: str, i: int) -> bool:
    """An emoji ends just before position ``i`` (modifiers skipped)."""
    while i > 0 and name[i - 1] in _EMOJI_MODIFIERS:
        i -= 1
    return i > 0 and _emoji(name[i - 1])


def _format_allowed(name: str, i: int) -> bool:
    """Whether the format character at ``i`` is part of an emoji sequence."""
    char = name[i]
    if char == ZWJ:  # between two emoji: never at an edge, never twice in a row
        return _emoji_before(name, i) and i + 1 < len(name) and _emoji(name[i + 1])
    if ord(char) in _TAGS or char == _CANCEL_TAG:
        start = i
        while start > 0 and ord(name[start - 1]) in _TAGS:
            start -= 1
        end = i
        while end < len(name) and ord(name[end]) in _TAGS:
            end += 1
        # 🏴 tags… cancel-tag, with at least one tag, wherever in it this character is
        return (
            start > 0
            and name[start - 1] == _FLAG
            and end > start
            and end < len(name)
            and name[end] == _CANCEL_TAG
            and (char != _CANCEL_TAG or i == end)
        )
    return False


def normalise_name(raw: str) -> str | None:
    """The name as it is stored and shown, or None when it is not acceptable."""
    return normalise_text(raw, MAX_NAME)


def normalise_text(raw: str, longest: int) -> str | None:
    """Untrusted text as it is stored and shown (a name, a chat line: NFC, stripped,
    1 to ``longest`` characters, nothing invisible or controlling), or None. Every
    space (no-break, thin, ideographic…) becomes one plain space: runs of them too."""
    spaced = "".join(
        " " if unicodedata.category(c) == "Zs" else c for c in unicodedata.normalize("NFC", raw)
    )
    text = " ".join(part for part in spaced.split(" ") if part).strip()
    if not 1 <= len(text) <= longest:
        return None
    for i, char in enumerate(text):
        category = unicodedata.category(char)
        if category == "Cf":
            if not _format_allowed(text, i):
                return None
        elif category[0] == "C":
            return None
    return text


def lookup_name(raw: str) -> str:
    """The form a name is looked up by (sign-in): NFC and stripped, nothing refused, so
    an account whose name an older, laxer rule let in can still sign in."""
    return unicodedata.normalize("NFC", raw).strip()


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
