"""Command line and process wiring: the composition root (embedded server, workers, projectors)."""
