"""The write side: event store on Redis, command intake (FastStream), seat authentication."""
