"""Playing a tournament without a service: its log built by the same decide / due /
evolve the organiser runs, each table's ranks drawn by a seeded RNG (unit tests, the
benchmark's field)."""

from __future__ import annotations

import random

from competitions.events import TournamentEntry, TournamentEvent, entry_hash
from competitions.state import TournamentState, evolve
from competitions.tournament import decide, due, result_event
from orrery_contracts.tournaments import (
    CreateTournament,
    RegisterPlayer,
    StartTournament,
    TournamentCommand,
    TournamentSpec,
)


class Sim:
    def __init__(self, spec: TournamentSpec, seed: str = "ab" * 16, min_seats: int = 2) -> None:
        self.state = TournamentState()
        self.entries: list[TournamentEntry] = []
        self.now = 1_000_000
        self.seed = seed
        self.min_seats = min_seats
        self.send(CreateTournament(command_id="c", tournament_id="t1", organiser="org", spec=spec))

    def add(self, event: TournamentEvent) -> None:
        seq, prev = self.state.seq + 1, self.state.head
        entry = TournamentEntry(
            seq=seq,
            at=self.now,
            prev=prev,
            hash=entry_hash(prev, seq, self.now, event),
            event=event,
        )
        evolve(self.state, entry)
        self.entries.append(entry)

    def send(self, command: TournamentCommand, rating: float = 1500.0) -> None:
        for event in decide(
            self.state, command, seed=self.seed, rating=rating, min_seats=self.min_seats
        ):
            self.add(event)

    def register(self, count: int, rng: random.Random) -> list[str]:
        players = [f"p{i:03d}" for i in range(count)]
        for p in players:
            self.send(
                RegisterPlayer(command_id=p, tournament_id="t1", player_id=p, name=p),
                rating=float(rng.randint(1000, 2500)),
            )
        self.send(StartTournament(command_id="s", tournament_id="t1", by="org"))
        return players

    def send_start(self) -> None:
        self.send(StartTournament(command_id="s", tournament_id="t1", by="org"))

    def settle(self) -> None:
        """Apply what is due until nothing is."""
        while True:
            events = due(self.state, self.now)
            if not events:
                return
            for event in events:
                self.add(event)

    def play_round(self, rng: random.Random) -> None:
        last = self.state.current()
        assert last is not None
        for table in last.tables:
            if self.state.tables[table.table_id].finished is None:
                ranks = [rng.randint(1, len(table.players)) for _ in table.players]
                event = result_event(self.state, table.table_id, ranks)
                if event is not None:
                    self.add(event)

    def run(self, rng: random.Random) -> None:
        self.settle()
        while self.state.state == "running":
            self.play_round(rng)
            self.settle()
