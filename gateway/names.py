"""Look-alike names: the keys under which an account name is unique.

A name is taken once per *confusable skeleton* (Unicode UTS #39, section 4), computed
by ICU's spoof checker, not by a table of our own: so ``Аlice`` (Cyrillic А),
``Αlice`` (Greek), ``alıce``, fullwidth ``Ａｌｉｃｅ`` (after NFKC), mathematical
``𝐀lice`` and ``AIice`` (capital I for l) are all the same name as ``Alice``. Two
skeletons are kept per name, because the skeleton is not closed under case folding
(``I`` → ``l`` but ``i`` → ``i``):

* the skeleton of the name as typed (catches ``AIice`` against ``Alice``);
* the case-folded skeleton of the case-folded name (catches ``ALICE``, ``Αlice``
  against ``alice``: names were always compared case-insensitively).

Format characters (zero-width joiners and the like) never reach this point: the shared
name rule (``orrery_contracts.inputs.normalise_name``) refuses them outside emoji.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

import icu


@lru_cache(maxsize=1)
def _checker() -> icu.SpoofChecker:
    return icu.SpoofChecker()


def skeleton(text: str) -> str:
    """The UTS #39 skeleton of ``text`` (ICU), NFC so that equal skeletons compare equal."""
    return unicodedata.normalize("NFC", _checker().getSkeleton(0, text))


def lookalike_keys(name: str) -> list[str]:
    """The distinct skeletons a (normalised) name claims; two names that share any one
    of them are the same name to a reader. The name is NFKC-normalised first, as UTS #39
    expects of identifiers (ICU's confusables leave fullwidth digits to it)."""
    compat = unicodedata.normalize("NFKC", name)
    typed = skeleton(compat)
    folded = skeleton(skeleton(unicodedata.normalize("NFKC", compat.casefold())).casefold())
    folded = folded.casefold()
    return [typed] if typed == folded else [typed, folded]
