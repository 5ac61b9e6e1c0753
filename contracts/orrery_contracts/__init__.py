"""The wire contract: msgspec Structs only, shared by the service, projectors and clients.

Nothing here imports the rules; a client in any language needs only the JSON Schema
that ``orrery schema`` writes from these types.
"""
