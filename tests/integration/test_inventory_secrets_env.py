"""The password an example vendor role documents it may take from the environment
(``ESERIES_API_PASSWORD`` for examples/roles/netapp_eseries) reaches the role, handed over
sealed: ``raidsweep plan`` gets past the role's assert that the password is given, and no file
the play's runner writes (searched while it runs and after), nor the store, nor the output,
holds the password. A play started ahead (``handover.yml``) gets it sealed the same way."""

from __future__ import annotations

import secrets
import tempfile
import time
from pathlib import Path

import pytest
import yaml

from tests.integration.test_secrets import TEMP_AREAS, _files_holding
from tests.support.cli import finish, start
from tests.support.paths import ROOT

pytestmark = pytest.mark.integration
ROLE = ROOT / "examples" / "roles" / "netapp_eseries"
#: the role's first assert says this when the password is missing
NO_PASSWORD = "the API password (eseries_api_password or ESERIES_API_PASSWORD) must be given"
#: the task after that assert: the role asks the array's API (nothing answers on port 9)
API_TASK = "Read the array's pools and volumes"
INVENTORY = """\
all:
  children:
    storage:
      hosts:
        eseries-mgmt:
          ansible_connection: local
          ansible_python_interpreter: "{{ ansible_playbook_python }}"
          eseries_api_url: https://127.0.0.1:9/devmgr/v2
          eseries_ssid: "1"
          eseries_host: loadhost1
          eseries_drive_count: 10
          eseries_drive_type: hdd
          eseries_volume_size_gb: 200
"""


def _spec(tmp_path: Path) -> Path:
    """examples/ansible-eseries.yaml narrowed to one configuration a 10-drive array can
    build, against an inventory whose API address refuses at once."""
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(INVENTORY)
    spec = yaml.safe_load((ROOT / "examples" / "ansible-eseries.yaml").read_text())
    spec |= {"name": "eseries-env", "inventory": str(inventory)}
    spec["platform_options"]["role"] = str(ROLE)
    spec["config_space"] = {
        "raid_level": ["raid5"],
        "layout": ["single_rank"],
        "stripe_kib": [128],
        "cache_policy": ["wb-ra"],
    }
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


def _watched_plan(spec: Path, store: Path, password: str) -> tuple[int, str, int, bool, list]:
    """``raidsweep plan`` with ``ESERIES_API_PASSWORD``, its runner folders read over and over
    while it runs: (exit status, output, files read, whether a sealed handover of the
    password was seen, the files that held it in clear)."""
    from sweeper.ansible import PRIVATE_PREFIX

    proc = start("plan", spec, "--store", store, env={"ESERIES_API_PASSWORD": password})
    pattern = f"{PRIVATE_PREFIX}{proc.pid}-*"
    read, sealed, hits = 0, False, []
    while proc.poll() is None:
        for path in Path(tempfile.gettempdir()).glob(f"{pattern}/**/*"):
            try:
                if not path.is_file():
                    continue
                data = path.read_bytes()
            except OSError:
                continue  # the play ended and its folder went meanwhile
            read += 1
            sealed = sealed or b"eseries_api_password: !vault" in data
            if password.encode() in data:
                hits.append(path)
        time.sleep(0.02)
    code, out = finish(proc)
    return code, out, read, sealed, hits


def test_the_documented_environment_password_reaches_the_role_sealed(tmp_path: Path) -> None:
    began = time.time() - 1  # a file system's times may be coarser than the clock's
    password = f"Pw-{secrets.token_hex(12)}"
    spec, store = _spec(tmp_path), tmp_path / "store"
    code, out, read, sealed, hits = _watched_plan(spec, store, password)
    assert NO_PASSWORD not in out, out
    assert API_TASK in out and "Connection refused" in out, out  # past the assert, at the API
    assert password not in out
    assert read > 0 and sealed, (read, sealed)  # the handover was seen, sealed
    assert hits == []
    left = _files_holding(password.encode(), [*TEMP_AREAS, store, tmp_path], began)
    assert left == [], left
    # The control: without the variable the role's own assert stops it, as before the fix.
    code, out, *_ = _watched_plan(spec, store, "")
    assert NO_PASSWORD in " ".join(out.split()), out


def test_a_play_started_ahead_gets_the_password_sealed(tmp_path: Path, monkeypatch) -> None:
    from sweeper.ansible import HANDOVER_PLAYBOOK, start_playbook

    password = f"Pw-{secrets.token_hex(12)}"
    monkeypatch.setenv("ESERIES_API_PASSWORD", password)
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(INVENTORY)
    play = start_playbook(HANDOVER_PLAYBOOK, inventory, {})
    play.wait_spawned()
    play.hand_over(
        {
            "raidsweep_platform": "ansible",
            "raidsweep_role": str(ROLE),
            "raidsweep_role_entry": "main",
            "eseries_raid_level": "raid5",
            "eseries_layout": "single_rank",
            "eseries_cache_policy": "wb-ra",
            "eseries_segment_kib": 128,
        }
    )
    handed = play.handover_file.read_text()
    result = play.result()
    assert "eseries_api_password: !vault" in handed and password not in handed
    assert result.failed_task == API_TASK, result.failure()
    assert password not in result.stdout
