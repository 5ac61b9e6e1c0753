"""The terminal client: a person plays one seat from that seat's view (``orrery play``).

* ``session`` — the loop between view updates and typed lines (waits for its own moves
  to show, redraws on every update, refreshes after a rejection);
* ``keyboard`` — typed lines from standard input, on a daemon thread;
* ``frame`` — the screen around a board (header, seats with the game's AIs, private
  panel, final standing, menu);
* ``menu`` — legal commands grouped into a tree (pick a region, then a chip);
* ``render_<game>`` — each game drawn as a player reads it, names from
  ``contracts/orrery_contracts/<game>/catalogue.py`` (``render_generic`` for any other game).

Like every client it imports ``contracts`` (and the SDK) only, never ``games``.
"""

from clients.terminal.session import LineSource, Result, Session, play_terminal

__all__ = ["LineSource", "Result", "Session", "play_terminal"]
