"""A write-through partial stripe on flash is written in place: its pages are read and
programmed again with their parity, so per byte it never costs less than a full stripe."""

from __future__ import annotations

from sweeper.sim import ArrayState, Job, load_profile, predict

KIB = 1024
GIB = 1024**3


def test_a_partial_stripe_is_no_cheaper_per_byte_than_a_full_one_on_flash() -> None:
    af = load_profile("allflash-nvme")
    state = ArrayState("raid5", "single_rank", 1, None, "wt-nora")
    full = af.full_stripe_kib("raid5") * KIB

    def mib_s(bs: int) -> float:
        job = Job("write", 0.0, bs, 1, 1, "libaio", 300, 5, 1000 * GIB)
        return predict(af, state, job).iops * bs / KIB**2

    assert mib_s(full - af.strip_kib * KIB) <= mib_s(full)
    assert mib_s(af.strip_kib * KIB) <= mib_s(full)
