"""Consumer-group plumbing for Redis Streams, written once for every stream consumer.

The decider workers' intake (``services/intake.py``, the ``deciders`` group on the
command streams) and the projectors (``projections/runner.py``, the ``projections``
group on the feeds) consume their partitions the same way, and this package is that
way: consumer names and groups (:mod:`streams.consumers`), the raw batches their
handlers receive (:mod:`streams.batches`), the readers of new entries — one read over
many streams, or one per stream on a cluster, whose batches a projector coalesces —
(:mod:`streams.readers`), the FastStream claimer per stream (:mod:`streams.subscribers`),
the bounded redelivery with its dead letters (:mod:`streams.deliveries`), and the Lua
script calls that both sides send in pipelines, loaded again when the server lost them
(:mod:`streams.scripts`).

It sits between the contract and the two sides: ``orrery_contracts ← streams ←
services, projections`` (``tests/test_layering.py``). It imports nothing of the rules,
the services or the projections, and nothing but FastStream, redis-py and structlog of
the libraries; what a consumer does with an entry is its own business (the intake
scrubs a seat token out of a dead letter before it hands the entry here).
"""
