"""Swiss pods for tables of any size, written in Orrery: players of equal standing sit
together, by rating, avoiding repeat opponents.

The field is ordered by points, then rating, then the seeded draw. The first player not
yet seated opens a pod; it is filled from the next players in that order, each time with
the candidate (within a window of the next ``WINDOW`` a seat) who has met the pod's players
least often, the earliest in order on a tie. So a pod holds neighbours in the standings
(and in rating within a score group), repeats happen only when the window holds nothing
new, and a round costs O(players × window); then a pod with a repeat swaps a player
with the nearest pod (in the standings) where that lowers the two pods' repeats. Pod
sizes: as many tables as the field needs at ``seats``; when it does not divide, some
tables get a seat less (never below the game's smallest table), and whoever cannot be
seated gets a bye (the lowest in order first, no one twice while another has had none).
"""

from __future__ import annotations

from collections.abc import Callable

WINDOW = 6


def pod_sizes(count: int, seats: int, min_seats: int) -> tuple[list[int], int]:
    """Table sizes for ``count`` players and how many get a bye."""
    if count < min_seats:
        return [], count
    tables = -(-count // seats)
    while tables > 0:
        low = count // tables
        if low >= max(min_seats, 2) and low <= seats:
            extra = count - low * tables
            if extra == 0 or low + 1 <= seats:
                return [low + 1] * extra + [low] * (tables - extra), 0
        tables -= 1
    full = count // seats
    return [seats] * full, count - full * seats


def pair_pods(
    ordered: list[str],
    seats: int,
    min_seats: int,
    met: Callable[[str, str], int],
    had_bye: Callable[[str], int],
) -> tuple[list[list[str]], list[str]]:
    """``ordered``: the field, best first. Returns the pods (in order) and the byes."""
    sizes, bye_count = pod_sizes(len(ordered), seats, min_seats)
    byes: list[str] = []
    if bye_count:
        # the lowest-placed players who have had the fewest byes
        ranked = sorted(range(len(ordered)), key=lambda i: (had_bye(ordered[i]), -i))[:bye_count]
        byes = [ordered[i] for i in sorted(ranked)]
    waiting = [p for p in ordered if p not in set(byes)]
    pods: list[list[str]] = []
    seated: set[str] = set()
    index = 0
    for size in sizes:
        while waiting[index] in seated:
            index += 1
        pod = [waiting[index]]
        seated.add(waiting[index])
        look = index + 1
        while len(pod) < size:
            window: list[str] = []
            j = look
            while j < len(waiting) and len(window) < WINDOW * size:
                if waiting[j] not in seated:
                    window.append(waiting[j])
                j += 1
            best = min(window, key=lambda c: (sum(met(c, q) for q in pod), window.index(c)))
            pod.append(best)
            seated.add(best)
        pods.append(pod)
    _untangle(pods, met)
    return pods, byes


def _repeats(pod: list[str], met: Callable[[str, str], int]) -> int:
    return sum(met(a, b) for i, a in enumerate(pod) for b in pod[i + 1 :])


def _untangle(pods: list[list[str]], met: Callable[[str, str], int], passes: int = 4) -> None:
    """For each pod with a repeat meeting, swap one of its players with one of the
    nearest pod (in the standings) where that lowers the two pods' repeat meetings."""
    for _ in range(passes):
        changed = False
        for i, a in enumerate(pods):
            if _repeats(a, met) == 0:
                continue
            nearest = sorted(range(len(pods)), key=lambda j: (abs(j - i), j))[1:]
            for j in nearest:
                if _swap(a, pods[j], met):
                    changed = True
                    break
        if not changed:
            return


def _swap(a: list[str], b: list[str], met: Callable[[str, str], int]) -> bool:
    before = _repeats(a, met) + _repeats(b, met)
    for x in range(len(a)):
        for y in range(len(b)):
            a[x], b[y] = b[y], a[x]
            if _repeats(a, met) + _repeats(b, met) < before:
                return True
            a[x], b[y] = b[y], a[x]
    return False
