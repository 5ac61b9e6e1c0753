"""Turn notifications: the ``orrery notifier`` role that tells players who are away that a
table waits for them, by Web Push (RFC 8030 / 8291 / 8292) and e-mail, and what the
gateway shares with it (personal data kept apart, signed links, preferences, activity).
See docs/gateway.md ("Notifications") and docs/security.md ("Personal data")."""
