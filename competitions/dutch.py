"""Two-seat Swiss by the FIDE Dutch system, through py4swiss (MIT; its pairings are
checked against bbpPairings, the FIDE-endorsed reference engine, in its own test suite).

The tournament's history is written as a TRF(x) file (the FIDE Tournament Report File,
one ``001`` line per player in seed order, a result block per round) and handed to
py4swiss's Dutch engine. White is the first seat. A player who withdrew is written with a
zero-point bye for the round to pair, so the engine leaves them out. The engine's time
grows steeply with the field (about half a second at 64 players, several seconds at 128
on one core), so above ``ORRERY_TOURNAMENT_DUTCH_MAX_PLAYERS`` a two-seat round is paired
by Orrery's own score-group pods (competitions/pods.py) instead.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from competitions.state import TournamentState


def _result(points: float, forfeit: bool, opponent_forfeit: bool) -> str:
    if forfeit:
        return "-"
    if opponent_forfeit:
        return "+"
    return "1" if points == 1.0 else "=" if points == 0.5 else "0"


def trf_text(state: TournamentState, players: list[str]) -> str:
    """The TRF of the rounds played so far; ``players``: who is paired next (the others
    get a zero-point bye for it)."""
    number = {p: i + 1 for i, p in enumerate(state.order)}
    lines = ["012 orrery", f"XXR {max(state.rounds, state.round + 1)}", "XXC white1"]
    pairing = set(players)
    for player in state.order:
        entrant = state.entrants[player]
        blocks: list[str] = []
        points = 0.0
        by_round = {g.round: g for g in entrant.games}
        for rnd in range(1, state.round + 1):
            game = by_round.get(rnd)
            if game is not None:
                other = game.opponents[0]
                theirs = next(g for g in state.entrants[other].games if g.table_id == game.table_id)
                colour = "w" if game.seat == 0 else "b"
                res = _result(game.points, game.forfeit, theirs.forfeit)
                blocks.append(f"{number[other]:>4} {colour} {res}")
                points += game.points
            elif rnd in entrant.byes:
                blocks.append("0000 - U")
                points += 1.0
            else:
                blocks.append("0000 - Z")
        if player not in pairing:
            blocks.append("0000 - Z")
        base = [" "] * 89
        base[0:3] = "001"
        base[4:8] = f"{number[player]:>4}"
        base[14:47] = f"p{number[player]}".ljust(33)
        base[48:52] = f"{max(0, min(9999, int(entrant.rating))):>4}"
        base[80:84] = f"{points:4.1f}"
        base[85:89] = f"{number[player]:>4}"
        lines.append("".join(base) + "".join("  " + b for b in blocks))
    return "\n".join(lines) + "\n"


def pair_dutch(state: TournamentState, players: list[str]) -> tuple[list[list[str]], list[str]]:
    """The next round's tables (white first) and byes."""
    from py4swiss.engines import DutchEngine
    from py4swiss.trf import TrfParser

    with tempfile.TemporaryDirectory(prefix="orrery-dutch-") as folder:
        path = Path(folder) / "round.trf"
        path.write_text(trf_text(state, players))
        found = DutchEngine.generate_pairings(TrfParser.parse(path))
    by_number = dict(enumerate(state.order, start=1))
    tables: list[list[str]] = []
    byes: list[str] = []
    for pairing in found:
        if pairing.black == 0 or pairing.white == 0:
            byes.append(by_number[pairing.white or pairing.black])
        else:
            tables.append([by_number[pairing.white], by_number[pairing.black]])
    return tables, byes
