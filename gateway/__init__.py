"""The gateway: Orrery's HTTP + WebSocket front door for client apps (docs/gateway.md).

Player accounts and sessions, a lobby, bots on demand and ratings by player, over the
existing wire contract: commands are XADDed to the partition streams with the seat's
secret (held here, derived from the server key, never sent to a browser), outcomes come
back on this process's own reply stream, views are read from the projected keys and
pushed over WebSockets. The gateway imports ``orrery_contracts`` and the SDK only; it
keeps no state but in Redis, so any number of gateway processes run side by side.
"""
