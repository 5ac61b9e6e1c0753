"""``python -m orrery.cli``: the command line."""

from orrery.cli import main

main()
