"""Secrets given to Ansible (inventory variables, Vault, environment) never reach the store,
the artifacts, the report, the logs or the terminal."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.campaign import FIGURES
from tests.specs import quick_base

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "Hunter2-Zq7x-secret"
TOKEN = "tok_9f8e7d6c5b4a-secret"
VAULT_PASSWORD = "vault-pass-Ww3"


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sweeper.cli", *args],
        capture_output=True, text=True, timeout=600, env=env,
    )  # fmt: skip


def test_no_secret_in_any_output(tmp_path: Path) -> None:
    # An inventory with a plain password variable, a Vault-encrypted one, and a token in the
    # environment, as a real commissioning inventory would have for its hosts.
    vault_file = tmp_path / "vault-pass"
    vault_file.write_text(VAULT_PASSWORD)
    encrypted = subprocess.run(
        [str(Path(sys.executable).parent / "ansible-vault"), "encrypt_string",
         "--vault-password-file", str(vault_file), PASSWORD, "--name", "vault_secret"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(
        "all:\n  children:\n    storage:\n      hosts:\n        sim-array:\n"
        "          ansible_connection: local\n"
        '          ansible_python_interpreter: "{{ ansible_playbook_python }}"\n'
        f"          ansible_password: {PASSWORD}\n"
        f"          api_token: {TOKEN}\n"
        "  vars:\n" + "".join(f"    {line}\n" for line in encrypted.splitlines())
    )
    spec = quick_base() | {"name": "secrets", "inventory": str(inventory)}
    spec["config_space"] |= {"raid_level": ["raid5"], "layout": ["single_rank", "host_stripe"]}
    path = tmp_path / "secrets.yaml"
    path.write_text(yaml.safe_dump(spec))
    store = tmp_path / "store"
    env = os.environ | {"RAIDSWEEP_TOKEN": TOKEN, "ANSIBLE_VAULT_PASSWORD_FILE": str(vault_file)}
    outputs = []
    for args in (
        ("run", str(path), "--store", str(store)),
        ("recommend", "secrets", "--store", str(store)),
        ("report", "secrets", "--store", str(store), "-o", str(tmp_path / "r.html")),
        ("disclose", "secrets", "--store", str(store)),
        ("status", "--store", str(store)),
    ):
        proc = _cli(*args, env=env)
        assert proc.returncode == 0, proc.stderr
        outputs += [proc.stdout, proc.stderr]
    run_id = next((store / "secrets" / "runs").rglob("*.parquet")).stem
    proc = _cli("disclose", run_id, "--store", str(store), "--fio-output", env=env)
    outputs += [proc.stdout, proc.stderr]
    files = [p for p in [*store.rglob("*"), *tmp_path.glob("r*")] if p.is_file()]
    assert len(files) > 100
    for secret in (PASSWORD, TOKEN, VAULT_PASSWORD):
        for text in outputs:
            assert secret not in text
        for f in files:
            data = f.read_bytes()
            # Parquet pages may be compressed: read the decoded columns too.
            assert secret.encode() not in data, f
            if f.suffix == ".parquet":
                import pyarrow.parquet as pq

                assert secret not in str(pq.read_table(f).to_pylist()), f
    FIGURES["fault campaign: secrets"] = [
        f"3 secrets (inventory password, Vault value, environment token) searched in "
        f"{len(files)} store and report files and {len(outputs)} command outputs: 0 found"
    ]
