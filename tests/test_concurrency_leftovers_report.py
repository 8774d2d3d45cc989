"""Two writers of one report's set at once take turns: the set in place is always one
writer's, whole, and neither fails; a writer that holds the set too long is named to the
other, which writes nothing (exit status 2 from ``raidsweep report``).

Real processes: a writer slowed at each rename (strace's ``delay_exit``) while a second writer
writes the same set in the middle of the first's renames; a writer held still while another
waits past its patience; and two real ``raidsweep report NAME -o same.html`` started at the
same moment.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from recommender import report_files
from sweeper.locking import LockHeld
from sweeper.processes import pid_alive
from tests.support.cli import invoke
from tests.support.locks import holding_process
from tests.support.paths import RAIDSWEEP, ROOT
from tests.support.reports import NAMES, set_aside

#: a writer of set ``argv[2]`` into folder ``argv[1]``, which writes once ``argv[3]`` exists
#: (imports done by then, so it writes at once)
WRITER = f"""
import sys, time
from pathlib import Path
from recommender.report_files import write_all
folder, tag, go = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
names = {NAMES!r}
files = {{
    folder / n: (f"# raidsweep report: {{tag}}\\n" if n.endswith(".md") else f"{{tag}} {{n}}\\n")
    .encode()
    for n in names
}}
print("ready", flush=True)
while not go.exists():
    time.sleep(0.005)
write_all(files)
"""


def _writer(folder: Path, tag: str, go: Path, delay_s: float = 0.0) -> subprocess.Popen[str]:
    """A writer process of set ``tag``, ready (imported) when this returns; ``delay_s``: each
    of its renames returns that much later."""
    slow = (
        [
            "strace",
            "-qq",
            "-o",
            os.devnull,
            "-e",
            "trace=rename",
            "-e",
            f"inject=rename:delay_exit={int(delay_s * 1e6)}",
        ]
        if delay_s
        else []
    )
    proc = subprocess.Popen(
        [*slow, sys.executable, "-c", WRITER, str(folder), tag, str(go)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


def _journalled(tmp_path: Path, delay_s: float) -> tuple[Path, subprocess.Popen[str]]:
    """A writer of set ``a`` into ``tmp_path/out`` (made for it), each of its renames
    ``delay_s`` late, once its journal is in place (it holds the set and renames its files
    now); the folder and the writer."""
    folder = tmp_path / "out"
    folder.mkdir()
    go = tmp_path / "go"
    writer = _writer(folder, "a", go, delay_s=delay_s)
    go.touch()
    _until(lambda: any(n.endswith(".json") for n in os.listdir(folder)), writer)
    return folder, writer


def _which(folder: Path) -> dict[str, str]:
    """Each file of the set: the tag of the writer whose file it is."""
    seen = {}
    for name in NAMES:
        words = (folder / name).read_text().split()
        seen[name] = words[3] if name.endswith(".md") else words[0]
    return seen


def _until(condition, proc: subprocess.Popen[str], timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "never"
        time.sleep(0.002)


def _gone(pid: int) -> None:
    """Until process ``pid`` (a writer strace ran, killed with it) is gone."""
    deadline = time.monotonic() + 30
    while pid_alive(pid):
        assert time.monotonic() < deadline, f"pid {pid} still runs"
        time.sleep(0.01)


def _in_place(folder: Path, name: str, tag: str) -> bool:
    try:
        return (folder / name).read_text().startswith(f"{tag} ") or (
            (folder / name).read_text() == f"# raidsweep report: {tag}\n"
        )
    except FileNotFoundError:
        return False


def test_a_second_writer_in_the_middle_of_the_firsts_renames_waits_its_turn(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    go_a, go_b = tmp_path / "go-a", tmp_path / "go-b"
    a = _writer(folder, "a", go_a, delay_s=0.4)  # its 7 renames take 3 s
    b = _writer(folder, "b", go_b)
    go_a.touch()
    # a has put its first file in place, and renames the rest: b writes the same set now
    _until(lambda: _in_place(folder, "r.md", "a"), a)
    go_b.touch()
    out_a, err_a = a.communicate(timeout=120)
    out_b, err_b = b.communicate(timeout=120)
    assert (a.returncode, b.returncode) == (0, 0), (err_a, err_b)
    # b waited for a, then put its whole set over a's: one writer's set, whole
    assert set(_which(folder).values()) == {"b"}, _which(folder)
    assert set_aside(folder) == []


def test_a_writer_is_refused_after_waiting_for_one_that_holds_the_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer stuck in its renames holds the set: the next waits LOCK_WAIT_S, then is told
    who holds it (LockHeld) and writes nothing; once the stuck one is killed, the next writer
    finishes what it committed and writes its own set whole."""
    folder, stuck = _journalled(tmp_path, delay_s=600)
    monkeypatch.setattr(report_files, "LOCK_WAIT_S", 0.5)
    files = {folder / n: f"b {n}\n".encode() for n in NAMES}
    files[folder / "r.md"] = b"# raidsweep report: b\n"
    before = sorted(os.listdir(folder))
    started = time.monotonic()
    with pytest.raises(LockHeld) as refused:
        report_files.write_all(files)
    assert time.monotonic() - started >= 0.5
    text = str(refused.value)
    assert f"report {folder / 'r.html'}" in text, text
    holder = re.search(r"in use by pid (\d+) on host", text)
    assert holder is not None and "for more than 0.5 s" in text, text
    assert os.getpgid(int(holder.group(1))) == stuck.pid, text  # the writer under strace
    assert sorted(os.listdir(folder)) == before  # nothing written, nothing settled
    os.killpg(stuck.pid, signal.SIGKILL)
    stuck.wait()
    _gone(int(holder.group(1)))
    report_files.write_all(files)
    assert set(_which(folder).values()) == {"b"}, _which(folder)
    assert set_aside(folder) == []


def test_settling_leaves_a_set_being_written_to_its_writer(tmp_path: Path) -> None:
    """A reader's (or another report's) settling finds the journal of a set whose writer
    holds its lock: it leaves the journal and the files aside alone."""
    folder, slow = _journalled(tmp_path, delay_s=1.0)
    seen = set_aside(folder)
    report_files.settle_reports(folder)
    assert set_aside(folder) == seen
    _, errs = slow.communicate(timeout=120)
    assert slow.returncode == 0, errs
    assert set(_which(folder).values()) == {"a"} and set_aside(folder) == []


# the real command: two at once over one report, and one refused while the set is held


def test_two_raidsweep_reports_of_one_set_at_once(quick_store: object, tmp_path: Path) -> None:
    root = quick_store.root  # type: ignore[attr-defined]
    html = tmp_path / "out" / "same.html"
    command = [str(RAIDSWEEP), "report", "quick", "--store", str(root), "-o", str(html)]
    procs = [
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=600) for p in procs]
    for proc, (out, errs) in zip(procs, outs, strict=True):
        assert proc.returncode == 0, out + errs
        assert "Traceback" not in out + errs
        assert f"report written: {html}" in " ".join(out.split()), out
    assert (tmp_path / "out" / "same.md").read_bytes().startswith(b"# raidsweep report: quick")
    assert set_aside(tmp_path / "out") == []


def test_raidsweep_report_refused_while_the_set_is_held(
    quick_store: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = quick_store.root  # type: ignore[attr-defined]
    folder = tmp_path / "out"
    folder.mkdir()
    html = folder / "same.html"
    holder = holding_process(
        "import time\n"
        "from pathlib import Path\n"
        "from recommender.report_files import _journal_name, _set_lock\n"
        f"html = Path({str(html)!r})\n"
        "with _set_lock(html.with_name(_journal_name(html)), html, 0):\n"
        "    print('held', flush=True)\n"
        "    time.sleep(600)\n"
    )
    try:
        monkeypatch.setattr(report_files, "LOCK_WAIT_S", 0.5)
        code, out = invoke("report", "quick", "--store", root, "-o", html)
        assert code == 2, out
        assert f"error: report {html}: 1 problem(s)" in out, out
        assert f"in use by pid {holder.pid}" in out and "for more than 0.5 s" in out, out
        assert not html.exists() and not (folder / "same.md").exists()
    finally:
        holder.kill()
        holder.wait()
    code, out = invoke("report", "quick", "--store", root, "-o", html)
    assert code == 0, out
    assert html.is_file() and set_aside(folder) == []
