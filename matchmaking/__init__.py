"""Matchmaking: tickets, the matcher and its log (DESIGN.md, "Around the tables").

``matcher`` decides who sits together (pure), ``queue`` folds and decides a game's queue
(pure), ``log`` keeps the matchmaking log in Redis, ``matchmaker`` is the role process
(``orrery matchmaker``) and ``audit`` re-derives every decision from a log.
"""
