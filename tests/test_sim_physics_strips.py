"""One host I/O's strips lie on different drives of its RAID group and are served at once,
and a write falls on stripes where fio puts it: whole stripes get parity from the new data,
the rest a read-modify-write."""

from __future__ import annotations

import pytest

from sweeper.sim import ArrayState, Job, load_profile, predict

KIB = 1024
MIB = 1024**2
GIB = 1024**3


def test_a_large_read_moves_more_than_one_drive_can() -> None:
    # 16 MiB at QD1 from a 7+P rank with no cache help: its strips come from seven drives
    # at once, so the read moves more than one drive's transfer rate.
    ds = load_profile("ds8800-like")
    state = ArrayState("raid5", "single_rank", 1, None, "wt-nora")
    job = Job("randread", 1.0, 16 * MIB, 1, 1, "libaio", 300, 5, 5000 * GIB)
    mib_s = predict(ds, state, job).iops * 16
    assert mib_s > ds.drives.transfer_mib_s


def test_a_read_over_four_drives_takes_less_than_four_one_strip_reads() -> None:
    ds = load_profile("ds8800-like")
    state = ArrayState("raid5", "single_rank", 1, None, "wt-nora")
    strip = ds.strip_kib * KIB

    def latency(bs: int) -> float:
        return predict(
            ds, state, Job("randread", 1.0, bs, 1, 1, "libaio", 300, 5, 5000 * GIB)
        ).read_lat_s

    assert latency(4 * strip) < 2 * latency(strip)


@pytest.mark.parametrize("rw", ["write", "randwrite"])
def test_a_flash_write_programs_its_strips_at_once(rw: str) -> None:
    # 1 MiB write-through on an 11+1 rank of 64 KiB strips: 16 strips on different drives
    # and dies are programmed together, not one after another.
    af = load_profile("allflash-nvme")
    state = ArrayState("raid5", "single_rank", 1, None, "wt-nora")
    job = Job(rw, 0.0, MIB, 1, 1, "libaio", 300, 5, 1000 * GIB)
    strips = MIB // (af.strip_kib * KIB)
    serial = strips * af.drives.program_us * af.drives.write_amplification / 1e6
    assert predict(af, state, job).write_lat_s < serial / 2


@pytest.mark.parametrize("policy", ["wb-ra", "wt-nora"])
def test_a_larger_random_write_never_completes_more_writes(policy: str) -> None:
    # None of these is a multiple of the 1.75 MiB stripe: a write of at least a full
    # stripe still read-modify-writes its ends, so more bytes never cost less.
    ds = load_profile("ds8800-like")
    state = ArrayState("raid5", "single_rank", 1, None, policy)
    sizes = (256 * KIB, MIB, 2 * MIB, 4 * MIB)
    iops = [
        predict(ds, state, Job("randwrite", 0.0, bs, 32, 1, "libaio", 300, 5, 5000 * GIB)).iops
        for bs in sizes
    ]
    assert all(a >= b for a, b in zip(iops, iops[1:], strict=False)), iops


def test_an_aligned_full_stripe_write_moves_more_than_an_unaligned_larger_one() -> None:
    # bs a multiple of the full stripe: fio's offsets keep every write aligned, no reads;
    # 2 MiB on a 1.75 MiB stripe straddles stripes and read-modify-writes both ends.
    ds = load_profile("ds8800-like")
    state = ArrayState("raid5", "single_rank", 1, None, "wt-nora")
    full = ds.full_stripe_kib("raid5") * KIB

    def mib_s(bs: int) -> float:
        job = Job("randwrite", 0.0, bs, 32, 1, "libaio", 300, 5, 5000 * GIB)
        return predict(ds, state, job).iops * bs / MIB

    assert mib_s(full) > mib_s(2 * MIB)
    assert mib_s(2 * full) > mib_s(2 * MIB)
