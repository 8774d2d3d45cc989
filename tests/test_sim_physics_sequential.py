"""Sequential reads without read-ahead: many streams interleaved on a drive make each access
a move to another stream, which command queueing shortens as it does a random read's; one
stream alone never positions."""

from __future__ import annotations

from sweeper.sim import ArrayState, Job, load_profile, predict

KIB = 1024
GIB = 1024**3


def test_interleaved_streams_read_at_least_as_fast_as_random_reads_at_the_drives() -> None:
    ds = load_profile("ds8800-like")
    state = ArrayState("raid5", "single_rank", 1, None, "wt-nora")

    def run(rw: str):
        return predict(ds, state, Job(rw, 1.0, 64 * KIB, 1, 256, "psync", 300, 5, 1000 * GIB))

    seq, rand = run("read"), run("randread")
    # random reads that hit the cache never reach the drives: compare the drives' reads
    drive_reads = seq.iops * (1 - seq.explain["read_hit"])
    assert drive_reads >= 0.99 * rand.iops * (1 - rand.explain["read_hit"])


def test_one_stream_reads_faster_than_random_reads() -> None:
    # one stream at QD1 waits for its sector (half a rotation) but never positions
    ds = load_profile("ds8800-like")
    state = ArrayState("raid5", "single_rank", 1, None, "wt-nora")

    def lat(rw: str) -> float:
        return predict(
            ds, state, Job(rw, 1.0, 64 * KIB, 1, 1, "psync", 300, 5, 1000 * GIB)
        ).read_lat_s

    assert lat("read") < lat("randread")
