"""Benchmarks (``orrery bench …``): each prints its figures next to a baseline measured in
the same run; none is a timed test."""
