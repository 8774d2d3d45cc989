"""The manual platform's parts that need no device: the operator's instructions, the files
a waiting sweep and its operator exchange, and the answers refused before any device is
looked at."""

from __future__ import annotations

import threading
from pathlib import Path

from sweeper import operator_room as operator
from sweeper.configuration import Configuration
from sweeper.platforms import get_platform
from sweeper.platforms.instructions import build_instructions
from sweeper.platforms.manual import ManualOptions, answer_problems

R5 = Configuration.from_key("raid5/single_rank/wb-ra")
R5_POOL = Configuration.from_key("raid5/pool_stripe/ranks4/stripe1g/wt-nora/snap")
R5_POOL_RA = Configuration.from_key("raid5/pool_stripe/ranks4/stripe1g/wt-ra/snap")
R10 = Configuration.from_key("raid10/single_rank/wb-ra")


def test_instructions_say_what_to_remove_and_what_to_build() -> None:
    first = build_instructions(R5_POOL, None)
    assert not any(line.startswith(("remove", "keep")) for line in first)
    assert "4 RAID groups of RAID 5 (single parity)" in first[0] and "1 GiB" in first[0]
    assert "write cache off (write-through), read-ahead off" in first[1]
    assert "hold one snapshot" in first[2]
    assert build_instructions(R10, R5)[0] == (
        "remove: the LUN(s) and RAID group(s) of raid5/single_rank/wb-ra"
    )
    assert build_instructions(R5_POOL, R5)[0].startswith("remove: the LUN(s) and RAID group")
    assert build_instructions(R5_POOL_RA, R5_POOL)[0].startswith("keep: the LUN of")


def test_the_waiting_room_keeps_every_answer(tmp_path: Path) -> None:
    room = tmp_path / "operator"
    waiting = operator.Waiting(R5.key, 3, 9, ["build: x"], "now")
    operator.post(room, waiting)
    assert operator.waiting_in(room) == waiting
    assert waiting.headline == f"waiting for the operator: build {R5.key} (3 of 9)"
    assert operator.take(room) is None
    operator.give(room, operator.Answer(R5.key, "/dev/sdc", "LUN 7"))
    operator.give(room, operator.Answer(R5.key, "/dev/sdd", "LUN 8"))  # the newer one counts
    answer = operator.take(room)
    assert answer is not None and (answer.target, answer.note) == ("/dev/sdd", "LUN 8")
    assert answer.answered_at and operator.take(room) is None
    assert len(list((room / operator.HISTORY).iterdir())) == 1
    (room / operator.ANSWER).write_text('{"unexpected": 1}')
    assert operator.take(room) is None and not (room / operator.ANSWER).exists()
    operator.clear(room)
    assert operator.waiting_in(room) is None


def test_answers_that_name_no_disk_are_refused(tmp_path: Path) -> None:
    opts = ManualOptions()
    afile = tmp_path / "lun.img"
    afile.write_bytes(b"\0" * 4096)
    cases = {
        "relative/path": "is not an absolute path",
        str(tmp_path / "missing"): "does not exist",
        str(afile): "is a file",
        "/dev/null": "is no disk",
        "/dev/disk/by-id/wwn-0x5000c500;x": "fio's job-file syntax",
    }
    for target, why in cases.items():
        problems = answer_problems(target, opts, 1024)
        assert problems and why in problems[0], (target, problems)


def test_a_sweep_asked_to_stop_while_waiting_stops_and_leaves_the_question(
    tmp_path: Path,
) -> None:
    platform = get_platform("manual", {}, tmp_path / "array")
    stop = threading.Event()
    stop.set()
    ready = platform.await_configuration(
        R5, matrix=None, position=1, total=2, previous=None, stop=stop
    )
    assert ready is False
    assert platform.pending_configuration() == R5.key
    # The answer to another configuration is refused and kept out; the sweep waits on.
    operator.give(platform.room, operator.Answer(R10.key, "/dev/null"))
    stop.clear()
    timer = threading.Timer(1.5, stop.set)
    timer.start()
    assert not platform.await_configuration(
        R5, matrix=None, position=1, total=2, previous=None, stop=stop
    )
    waiting = operator.waiting_in(platform.room)
    assert waiting is not None
    assert waiting.refused == [f"the answer is for {R10.key}, but the sweep waits for {R5.key}"]
