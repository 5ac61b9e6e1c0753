"""Servers Orrery starts itself: the embedded Valkey, one per data folder, and a local
cluster (and the URL and client helpers for a cluster)."""
