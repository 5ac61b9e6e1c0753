"""Clients of the service that ship with the server: the terminal client
(``clients.terminal``) and the web client's static files (``clients/web/``).

The Python SDK and its bot are the package ``orrery_client`` in ``clients/orrery_client/``,
installable on its own as the distribution ``orrery-client`` (``clients/pyproject.toml``).
Every client imports the wire contract (``orrery_contracts``) only, never the rules: a
bot plays from its own view, like a person.
"""
