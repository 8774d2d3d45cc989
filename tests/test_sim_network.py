"""The simulated array's queueing network: drives that queue where their data lies."""

from __future__ import annotations

import pytest

from sweeper.sim.network import Station, mva, solve

DRIVE_S = 0.008  # one random access of a 10k drive, about


@pytest.mark.parametrize("n", (1, 4, 20, 64))
def test_separate_drive_queues_are_exact_mva_over_the_drives(n: int) -> None:
    # Eight drives, each request waiting at the one that holds its data, are eight
    # stations a request visits with probability 1/8: exact MVA over them, written out.
    drives = 8
    sol = solve([Station("drives", drives, DRIVE_S, DRIVE_S, queues=drives)], 1.0, 0.0, 0, 0, n)
    per = [DRIVE_S / drives] * drives
    x, q, _ = mva(per, per, 0.0, n)
    assert sol.iops == pytest.approx(x, rel=1e-9)
    assert sol.read_s == pytest.approx(n / x, rel=1e-9)  # Little, over the whole loop
    assert sol.load("drives").queue == pytest.approx(sum(q), rel=1e-9)
    assert sol.load("drives").utilisation == pytest.approx(x * DRIVE_S / drives, rel=1e-9)


@pytest.mark.parametrize("n", (4, 20, 64))
def test_requests_wait_longer_where_they_cannot_take_any_drive(n: int) -> None:
    # The same drives and work: one queue every drive takes from (Seidmann), pairs that
    # read from either copy, and drives that serve only their own data, in that order.
    def solved(queues: int) -> float:
        return solve([Station("d", 16, DRIVE_S, DRIVE_S, queues=queues)], 1.0, 0.0, 0, 0, n).iops

    pooled, pairs, own = solved(1), solved(8), solved(16)
    assert pooled > pairs > own
    # Capacity is the drives' either way: 16 / D, approached as the load grows.
    assert max(pooled, pairs, own) <= 16 / DRIVE_S * (1 + 1e-9)


def test_an_idle_network_answers_in_the_slowest_piece_whatever_its_queues() -> None:
    # Four pieces of one I/O on four drives at once: the I/O waits for the slowest piece
    # (its path), not for the sum of the pieces, however the drives queue.
    path = 1.6 * DRIVE_S
    for queues in (1, 8, 32):
        station = Station("d", 32, 4 * DRIVE_S, 4 * DRIVE_S, read_path=path, queues=queues)
        sol = solve([station], 1.0, 0.0, 0, 0, 1)
        assert sol.read_s == pytest.approx(path, rel=1e-9), queues
