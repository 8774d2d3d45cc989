"""Several sweepers share one study on a real PostgreSQL server; optuna-dashboard reads it.

The server is Debian's PostgreSQL, started for the module on a loopback port in a scratch
directory (as the postgres user: the server refuses to run as root) and stopped after.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import optuna
import pytest
import yaml
from optuna.trial import TrialState

from sweeper.store import ParquetStore
from tests.support.cli import cli, start
from tests.support.net import free_port
from tests.support.paths import ROOT
from tests.support.specs import quick_base

pytestmark = pytest.mark.integration


def _spec(tmp_path: Path, url: str, name: str) -> Path:
    spec = quick_base()
    spec |= {"name": name, "inventory": str(ROOT / "inventories/sim/hosts.yml")}
    spec["matrix"] |= {"block_sizes": ["4k", "8k", "16k", "32k", "64k", "128k"], "repetitions": 2}
    spec["study"] |= {"storage": url}
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def test_two_workers_evaluate_every_configuration_once(tmp_path: Path, postgres: str) -> None:
    spec = _spec(tmp_path, postgres, "shared")
    store = tmp_path / "store"
    workers = [
        start("run", spec, "--store", store, "-q", "--worker", name, columns=None)
        for name in ("array-a", "array-b")
    ]
    for w in workers:
        out, err = w.communicate(timeout=600)
        assert w.returncode == 0, out + err
    study = optuna.load_study(study_name="shared", storage=postgres)
    done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    keys = [t.user_attrs["config_key"] for t in done]
    assert len(keys) == len(set(keys)) == 9
    assert {t.user_attrs["worker"] for t in done} == {"array-a", "array-b"}
    runs = ParquetStore(store).runs("shared")
    # configurations × (patterns × sizes × qd + redo_log's two sync cells) × reps
    assert len(runs) == 9 * (4 * 6 * 2 + 2) * 2
    assert not runs.duplicated(["config_key", "cell_key", "repetition"]).any()
    # Each worker drove its own (simulated) array.
    assert (store / "shared" / "array-array-a" / "array.json").is_file()
    assert (store / "shared" / "array-array-b" / "array.json").is_file()


def test_optuna_dashboard_reads_the_study(tmp_path: Path, postgres: str) -> None:
    spec = _spec(tmp_path, postgres, "dash")
    data = yaml.safe_load(spec.read_text())
    data["config_space"]["raid_level"] = ["raid10"]
    spec.write_text(yaml.safe_dump(data))
    cli("run", spec, "--store", tmp_path / "s", "-q", check=True, timeout=None)
    port = free_port()
    dashboard = Path(sys.executable).parent / "optuna-dashboard"
    proc = subprocess.Popen(
        [str(dashboard), postgres, "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=os.environ | {"PGCONNECT_TIMEOUT": "5"},
    )
    try:
        studies = None
        for _ in range(100):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/studies", timeout=2) as r:
                    studies = json.load(r)["study_summaries"]
                break
            except OSError:
                time.sleep(0.2)
        assert studies is not None, "optuna-dashboard did not answer"
        dash = next(s for s in studies if s["study_name"] == "dash")
        with urllib.request.urlopen(
            f"http://127.0.0.1:{port}/api/studies/{dash['study_id']}", timeout=5
        ) as r:
            detail = json.load(r)
        complete = [t for t in detail["trials"] if t["state"] == "Complete"]
        assert len(complete) == 3  # raid10 × three layouts
        assert {t["user_attrs"][0]["key"] for t in complete} >= {"config_key"}
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://raidsweep:s3cret@127.0.0.1:5/raidsweep",
        # libpq takes it as a query parameter too, and a client key's password
        "postgresql://raidsweep@127.0.0.1:5/raidsweep?password=s3cret",
        "postgresql://raidsweep@127.0.0.1:5/raidsweep?sslmode=require&sslpassword=s3cret",
    ],
)
def test_a_password_in_the_storage_url_is_refused(tmp_path: Path, url: str) -> None:
    spec = _spec(tmp_path, url, "pw")
    proc = cli("run", spec, "--store", tmp_path / "s", timeout=None)
    assert proc.returncode == 2
    assert "give it in PGPASSWORD or ~/.pgpass" in proc.stderr
    assert "study.storage" in proc.stderr
    assert "s3cret" not in proc.stderr + proc.stdout
    assert not (tmp_path / "s").exists()


def test_a_driver_that_is_not_installed_is_refused(tmp_path: Path) -> None:
    spec = _spec(tmp_path, "postgresql+psycopg2://raidsweep@127.0.0.1:5/raidsweep", "drv")
    proc = cli("run", spec, "--check", "--store", tmp_path / "s", timeout=None)
    assert proc.returncode == 2, proc.stderr
    assert "'postgresql+psycopg2' is not installed" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize("command", [("run", "-q"), ("run", "--check"), ("plan",)])
def test_an_unreachable_study_database_is_refused_before_anything(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    """Nothing listens on the port: exit 2 naming study.storage and the reason, no traceback,
    nothing in the store."""
    spec = quick_base() | {
        "name": "nodb",
        "study": {"storage": f"postgresql://rs@127.0.0.1:{free_port()}/db"},
    }
    spec["config_space"] |= {"raid_level": ["raid5"], "layout": ["single_rank"]}
    path = tmp_path / "nodb.yaml"
    path.write_text(yaml.safe_dump(spec))
    store = tmp_path / "store"
    proc = cli(command[0], path, "--store", store, *command[1:], columns=300, timeout=120)
    out = " ".join((proc.stdout + proc.stderr).split())
    assert proc.returncode == 2, out
    assert "nodb.yaml" in out and "study.storage: cannot use the study database" in out, out
    assert "Connection refused" in out and "Traceback" not in out
    assert not store.exists()
