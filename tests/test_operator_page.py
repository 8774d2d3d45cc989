"""The Operator page of a manual sweep that stopped while it waited for the operator: it
says the sweep is not running and how to resume it, and an answer is kept for then."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from sweeper import operator_room as operator
from sweeper.platforms import manual
from sweeper.store import ParquetStore
from sweeper.untrusted import markdown_prose
from tests.support.apptest import open_app
from tests.test_app_robust_pages import CURVES_A, _no_traceback, _page, two_flash_sweeps

KEY = "raid5/single_rank/wb-ra"


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> ParquetStore:
    return two_flash_sweeps(tmp_path_factory.mktemp("operator-page"))


def _interrupted(pristine: ParquetStore, folder: Path) -> tuple[Path, Path]:
    """CURVES_A as a manual sweep that stopped while it waited for KEY (1 of 9)."""
    root = folder / "store"
    shutil.copytree(pristine.root / CURVES_A, root / CURVES_A)
    path = root / CURVES_A / "sweep.json"
    record = json.loads(path.read_text())
    record["spec"]["platform"] = "manual"
    record["spec_file"] = "manual-array.yaml"
    path.write_text(json.dumps(record))
    progress = pristine.read_progress(CURVES_A) or {}
    ParquetStore(root).write_progress(CURVES_A, progress | {"state": "interrupted", "pid": 1})
    room = operator.room(root / CURVES_A / "array")
    waiting = operator.Waiting(KEY, 1, 9, ["build one RAID 5 rank"], datetime.now(UTC).isoformat())
    operator.post(room, waiting)
    return root, room


def test_an_interrupted_sweep_is_said_not_to_run_with_how_to_resume_it(
    monkeypatch: pytest.MonkeyPatch, pristine: ParquetStore, tmp_path: Path
) -> None:
    root, _ = _interrupted(pristine, tmp_path)
    at = _page(open_app(monkeypatch, root), "operator")
    said = " ".join(w.value for w in at.warning)
    assert "not running (interrupted)" in said
    assert markdown_prose("raidsweep run manual-array.yaml") in said
    assert not at.subheader[0].value.startswith("waiting for the operator")
    labels = [b.label for b in at.button]
    assert "Built: measure it" not in labels
    assert "Built: keep the answer for the resumed sweep" in labels


def test_an_answer_to_an_interrupted_sweep_is_kept_for_when_it_resumes(
    monkeypatch: pytest.MonkeyPatch, pristine: ParquetStore, tmp_path: Path
) -> None:
    root, _ = _interrupted(pristine, tmp_path)
    target = "/dev/disk/by-id/wwn-0x5000"

    def answer(*args: Any) -> tuple[operator.Waiting, list[tuple[str, str]]]:
        return operator.Waiting(KEY, 1, 9, [], "now"), []

    monkeypatch.setattr(manual, "answer_waiting_sweep", answer)
    at = _page(open_app(monkeypatch, root), "operator")
    at.text_input(key="op_target").set_value(target)
    next(b for b in at.button if b.label.startswith("Built:")).click().run()
    said = [s.value for s in _no_traceback(at).success]
    assert said and not any("as soon as it sees this" in s for s in said)
    assert any("kept for the sweep" in s and "once resumed" in s for s in said), said
