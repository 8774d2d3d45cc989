"""The operator room's waiting file is read within bounds and only as raidsweep posts it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sweeper import operator_room as operator

WAITING = {"config_key": "raid5", "position": 1, "total": 2, "instructions": [], "since": "x"}


@pytest.mark.parametrize(
    "damage",
    ["fifo", "/dev/zero", "folder", "link loop", "esc", "position text", "instructions text"],
)
def test_a_waiting_file_that_is_not_one_is_not_read(tmp_path: Path, damage: str) -> None:
    """What a sweep waits for is read within bounds (a FIFO there hung ``status``) and only
    as raidsweep posts it: each value of its type, no control character."""
    room = tmp_path / "array" / "operator"
    room.mkdir(parents=True)
    path = room / operator.WAITING
    if damage == "fifo":
        os.mkfifo(path)
    elif damage == "/dev/zero":
        path.symlink_to("/dev/zero")
    elif damage == "folder":
        path.mkdir()
    elif damage == "link loop":
        path.symlink_to(path.name)
    else:
        changed = {
            "esc": {"config_key": "raid5\x1b[31m"},
            "position text": {"position": "x"},
            "instructions text": {"instructions": "abc"},
        }[damage]
        path.write_text(json.dumps(WAITING | changed))
    assert operator.waiting_in(room) is None
    assert operator.waiting_rooms(tmp_path) == []
