"""Faults in the parts: fio prints garbage or nothing, hangs, dies; the store's disk fills.

fio runs for real; for the faults, a wrapper in front of it misbehaves on the random-read
jobs only, so each sweep shows both sides: the faulty run failed with its cause stored, the
other runs measured, the sweep finished (or, with a full disk, stopped cleanly) and nothing
already stored lost.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from sweeper.store import ParquetStore
from tests.support.campaign import FIGURES
from tests.support.cli import cli
from tests.support.paths import ROOT
from tests.support.specs import local_spec, quick_fio_matrix

pytestmark = pytest.mark.integration
FAULTS = {
    "garbage": ("echo 'fio: this is not JSON {'; exit 0", "contains no JSON object"),
    "nothing": ("exit 0", "fio output is empty"),
    "non-zero": (
        "echo 'fio: engine failed' >&2; exit 3",
        "exited with status 3: fio: engine failed",
    ),
    "hang": ("sleep 600", "did not finish within 4 s; killed"),
    "killed": ("kill -KILL $$", "fio was killed by SIGKILL"),
}
HANDLED: dict[str, str] = {}


def _wrapper(tmp_path: Path, fault: str) -> Path:
    fio = shutil.which("fio")
    assert fio, "fio is installed by the README's test command"
    path = tmp_path / "fio-with-faults"
    path.write_text(
        "#!/bin/sh\n"
        f'case "$*" in *--version*) exec {fio} "$@";; esac\n'
        'for a in "$@"; do case "$a" in *.fio) job="$a";; esac; done\n'
        f'if grep -q "^rw=randread" "$job"; then {FAULTS[fault][0]}; fi\n'
        f'exec {fio} "$@"\n'
    )
    path.chmod(0o755)
    return path


def _spec(tmp_path: Path, options: dict, name: str = "faults") -> Path:
    target = {"target": str(tmp_path / "t.img"), "file_size": "16m", "fill": False}
    matrix = quick_fio_matrix(
        "randread", "write", engine="psync", runtime="1s", repetitions=2, working_set="16m"
    ) | {"sync": ["dsync"]}  # redo_log's log writes
    return local_spec(
        tmp_path, name, target | {"hang_grace_s": 3} | options, matrix, classes=["redo_log"]
    )


def _run(spec: Path, store: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return cli("run", spec, "--store", store, "-q", *extra)


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_faulty_run_fails_with_its_cause_and_the_sweep_goes_on(
    tmp_path: Path, fault: str
) -> None:
    spec = _spec(tmp_path, {"fio": str(_wrapper(tmp_path, fault))})
    proc = _run(spec, tmp_path / "s")
    assert proc.returncode == 0, proc.stderr
    runs = ParquetStore(tmp_path / "s").runs("faults", include_failed=True)
    bad = runs[runs["pattern"] == "randread"]
    good = runs[runs["pattern"] == "write"]
    assert len(good) == 2 and (good["status"] == "ok").all() and good["iops"].gt(0).all()
    assert len(bad) == 2 and (bad["status"] == "failed").all() and bad["iops"].isna().all()
    cause = FAULTS[fault][1]
    assert bad["error"].str.contains(cause, case=False).all(), bad["error"].tolist()
    assert "2 failed" in " ".join(proc.stdout.split())
    HANDLED[fault] = "failed run, cause stored: " + str(bad["error"].iloc[0]).splitlines()[0][:80]
    FIGURES["fault campaign: faults in the parts"] = [f"{f}: {c}" for f, c in HANDLED.items()]


def test_a_full_store_disk_stops_cleanly_and_resumes(tmp_path: Path) -> None:
    """The store on a 4 MiB tmpfs: the sweep stops with the cause, exit status 1, every run
    stored so far whole; with room again it resumes and completes, nothing lost or doubled."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mnt)], check=True)
    try:
        quick = ROOT / "examples" / "quick.yaml"
        proc = _run(quick, mnt)
        assert proc.returncode == 1, proc.stderr
        err = " ".join(proc.stderr.split())
        assert f"stopped: cannot write to the store at {mnt}: No space left on device" in err
        stored = ParquetStore(mnt).runs("quick")
        assert 0 < len(stored) < 1134 and not list(mnt.rglob(".*.tmp"))
        before = set(stored["run_id"])
        subprocess.run(["mount", "-o", "remount,size=64m", str(mnt)], check=True)
        proc = _run(quick, mnt)
        assert proc.returncode == 0, proc.stderr
        runs = ParquetStore(mnt).runs("quick", include_failed=True)
        assert len(runs) == 1134 and before <= set(runs["run_id"])
        assert not runs.duplicated(["config_key", "cell_key", "repetition"]).any()
    finally:
        subprocess.run(["umount", str(mnt)], check=False)
    HANDLED["store disk full"] = f"stopped cleanly after {len(before)} runs, resumed to 1134"
    FIGURES["fault campaign: faults in the parts"] = [f"{f}: {c}" for f, c in HANDLED.items()]


def test_a_study_locked_too_long_stops_cleanly(tmp_path: Path, monkeypatch) -> None:
    """Another process holds the study's lock (a hung sweeper): this one waits, then stops
    with the cause and changes nothing; once the lock is free the sweep runs."""
    import fcntl

    from sweeper.spec import load_spec
    from sweeper.study import locks as study_module
    from sweeper.sweep import run_sweep
    from tests.support.specs import quick_base

    monkeypatch.setattr(study_module, "LOCK_TIMEOUT_S", 1.0)
    spec = quick_base() | {"name": "locked"}
    spec["config_space"] |= {"raid_level": ["raid5"], "layout": ["single_rank"]}
    path = tmp_path / "locked.yaml"
    path.write_text(yaml.safe_dump(spec))
    loaded, inventory = load_spec(path)
    store = ParquetStore(tmp_path / "s")
    lock_file = store.sweep_dir("locked") / "study.lock"
    lock_file.parent.mkdir(parents=True)
    with open(lock_file, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        outcome = run_sweep(loaded, inventory, store, spec_path=path)
    assert outcome.stopped and "is locked by another process" in outcome.stopped
    assert not outcome.complete and store.runs("locked").empty
    outcome = run_sweep(loaded, inventory, store, spec_path=path)
    assert outcome.complete and len(store.runs("locked")) == (32 + 2) * 3  # + redo_log sync cells
    HANDLED["study storage locked"] = "stopped cleanly after 1 s of waiting, then resumed"
    FIGURES["fault campaign: faults in the parts"] = [f"{f}: {c}" for f, c in HANDLED.items()]


def test_an_unreachable_load_host_fails_the_configuration_with_its_name(tmp_path: Path) -> None:
    """Two load hosts, one behind a port nobody listens on: the configuration fails naming
    that host, no run is stored as if it had measured, and the fio server started on the
    reachable host is stopped again."""
    from tests.support.net import LOOPBACK_HOSTS, free_port

    port, dead = free_port(*LOOPBACK_HOSTS), free_port(*LOOPBACK_HOSTS)
    inventory = yaml.safe_load((ROOT / "inventories" / "local" / "hosts.yml").read_text())
    inventory["all"]["children"]["loadgen"] = {
        "hosts": {
            "load-ok": {
                "ansible_connection": "local",
                "ansible_host": "127.0.0.1",
                "ansible_python_interpreter": "{{ ansible_playbook_python }}",
                "loadgen_port": port,
                "loadgen_state_dir": str(tmp_path / "ok"),
            },
            "load-gone": {
                "ansible_connection": "ssh",
                "ansible_host": "127.0.0.1",
                "ansible_port": dead,
                "ansible_ssh_common_args": "-o ConnectTimeout=3 -o BatchMode=yes",
            },
        }
    }
    inv = tmp_path / "hosts.yml"
    inv.write_text(yaml.safe_dump(inventory))
    spec = _spec(tmp_path, {"multi_host": True}, name="lost-host")
    data = yaml.safe_load(spec.read_text()) | {"inventory": str(inv)}
    spec.write_text(yaml.safe_dump(data))
    proc = _run(spec, tmp_path / "s")
    out = " ".join(proc.stdout.split())
    # the sweep's one configuration failed: nothing measured, exit 1
    assert proc.returncode == 1, proc.stderr
    assert "configuration failed: raid0/single_rank/wb-ra" in out and "load-gone" in out, out
    runs = ParquetStore(tmp_path / "s").runs("lost-host", include_failed=True)
    assert (runs["status"] != "ok").all()
    listening = subprocess.run(["ss", "-ltn", f"sport = :{port}"], capture_output=True, text=True)
    assert f":{port}" not in listening.stdout  # the reachable host's fio server is stopped
    HANDLED["load host unreachable"] = "configuration failed naming the host, servers stopped"
    FIGURES["fault campaign: faults in the parts"] = [f"{f}: {c}" for f, c in HANDLED.items()]
