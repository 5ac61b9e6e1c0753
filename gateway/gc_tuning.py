"""The cyclic garbage collector tuned for a long-running process holding many objects:
a gateway with thousands of sockets, a decider or projector with many live tables.

A full collection walks every tracked object and stops the process meanwhile: at 6,000
sockets a gateway stopped for 0.7 s, every ~17 s in play, and a decider and a projector
for up to 0.4 s (the 2-core VM; docs/scaling.md), each pause a late push. How often one
comes depends on how many objects reach the oldest generation: each young collection
promotes what is alive at that moment (a push's, a request's, a command's objects in
flight). Young collections 70 times rarer (:data:`GC_THRESHOLDS`) promote that much
less, so full ones come far less often; what exists at start (modules, routes, the app)
is frozen out of every walk.
"""

from __future__ import annotations

import gc

GC_THRESHOLDS = (50_000, 20, 10)


def tune_gc() -> None:
    """:data:`GC_THRESHOLDS`, and the objects made so far frozen out of the walks."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
