"""Clients of the service: the Python SDK, bots and the terminal client.

They import ``contracts`` only — a bot plays from its own view, like a person.
"""
