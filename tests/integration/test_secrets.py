"""Secrets given to Ansible (inventory variables, Vault, environment) never reach the store,
the artifacts, the report, the logs or the terminal."""

from __future__ import annotations

import os
import secrets
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import yaml

from tests.support.campaign import FIGURES
from tests.support.cli import cli, start
from tests.support.specs import quick_base

pytestmark = pytest.mark.integration
PASSWORD = "Hunter2-Zq7x-secret"
TOKEN = "tok_9f8e7d6c5b4a-secret"
VAULT_PASSWORD = "vault-pass-Ww3"
#: secrets under the other spellings of their names (``_pw``, ``pin``, ``community``)
SPELLED = {"eseries_api_pw": "Pw-spelled-8Kq", "snmp_community": "Community-3Jv"}
PIN = "Pin-4417-zq"


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return cli(*args, env=env, inherit_env=False)


def test_no_secret_in_any_output(tmp_path: Path) -> None:
    # An inventory with a plain password variable, a Vault-encrypted one, and a token in the
    # environment, as a real commissioning inventory would have for its hosts.
    vault_file = tmp_path / "vault-pass"
    vault_file.write_text(VAULT_PASSWORD)
    encrypted = subprocess.run(
        [
            str(Path(sys.executable).parent / "ansible-vault"),
            "encrypt_string",
            "--vault-password-file",
            str(vault_file),
            PASSWORD,
            "--name",
            "vault_secret",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(
        "all:\n  children:\n    storage:\n      hosts:\n        sim-array:\n"
        "          ansible_connection: local\n"
        '          ansible_python_interpreter: "{{ ansible_playbook_python }}"\n'
        f"          ansible_password: {PASSWORD}\n"
        f"          api_token: {TOKEN}\n"
        + "".join(f"          {name}: {value}\n" for name, value in SPELLED.items())
        + f"          array_login: {{user: admin, pin: {PIN}}}\n"
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
    for secret in (PASSWORD, TOKEN, VAULT_PASSWORD, PIN, *SPELLED.values()):
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


#: where a play could leave a file: the temporary folders and Ansible's own working folders
TEMP_AREAS = [
    Path(tempfile.gettempdir()),
    Path("/var/tmp"),
    Path("/dev/shm"),
    Path.home() / ".ansible",
]


def _files_holding(secret: bytes, roots: list[Path], since: float) -> list[Path]:
    """The files under ``roots`` that hold ``secret``, among those changed since ``since``: a
    file's change time (ctime) is set by the kernel whenever the file is written, created,
    renamed or has its times set, so a file older than the secret cannot hold it."""
    hits = []
    for root in roots:
        for folder, _, names in os.walk(root):
            for name in names:
                path = Path(folder) / name
                try:
                    st = path.lstat()
                    if not stat.S_ISREG(st.st_mode) or st.st_ctime < since or st.st_size > 2**26:
                        continue
                    if secret in path.read_bytes():
                        hits.append(path)
                except OSError:
                    continue
    return hits


def _contents(folders: list[Path]) -> dict[Path, bytes]:
    """Every file under ``folders`` with its bytes (one that goes meanwhile left out)."""
    out = {}
    for folder in folders:
        for path in folder.rglob("*"):
            try:
                if path.is_file():
                    out[path] = path.read_bytes()
            except OSError:
                continue
    return out


def test_a_sweep_killed_mid_play_leaves_no_secret_on_disk(tmp_path: Path) -> None:
    """vsan with the vCenter password in VSAN_PASSWORD: kill -9 while a play talks to vCenter,
    then search every temporary area and the store for the password: no file holds it, and
    the next raidsweep removes the dead sweeper's private runner folder."""
    from sweeper.ansible import PRIVATE_PREFIX
    from tests.support.specs import vsan_spec as _spec
    from tests.support.vcsim import running_vcsim, write_inventory

    # A password made for this test, so no file older than the test can hold it: the search
    # below reads every file changed since it began.
    began = time.time() - 1  # a file system's times may be coarser than the clock's
    # Secrets of other tools in the environment, under the names they use: none is raidsweep's
    # to hand over, and none may reach a file either.
    others = {
        name: f"{name.lower()}-{secrets.token_hex(8)}"
        for name in ("SSHPASS", "MYSQL_PWD", "ARRAY_API_KEY", "DB_PASSPHRASE", "MY_CREDENTIALS")
    } | {"https_proxy": f"http://me:Px-{secrets.token_hex(8)}@proxy.invalid:3128"}
    # Secrets in the inventory under other spellings of their names: the play's inventory
    # copy, which a kill -9 leaves behind, holds them sealed.
    pw, pin = f"Pw-{secrets.token_hex(8)}", f"Pin-{secrets.token_hex(8)}"
    spelled = {"eseries_api_pw": pw, "array_login": {"user": "admin", "pin": pin}}
    with running_vcsim(hosts=6, password=f"Pw-{secrets.token_hex(12)}") as sim:
        inventory = write_inventory(tmp_path / "hosts.yml", sim, **spelled)
        spec = _spec(tmp_path, inventory)
        store = tmp_path / "store"
        proc = start(
            "run",
            spec,
            "--store",
            store,
            "-q",
            env={"VSAN_PASSWORD": sim.password} | others,
            columns=None,
            output=False,
        )
        pattern = f"{PRIVATE_PREFIX}{proc.pid}-*"
        deadline = time.monotonic() + 120
        commands: list[Path] = []
        # Wait for a play of the sweep itself (the preflight's comes first): a configuration's.
        while time.monotonic() < deadline and proc.poll() is None:
            commands = list(Path(tempfile.gettempdir()).glob(f"{pattern}/artifacts/*/command"))
            if commands and (store / "vsan-test").exists():
                break
            time.sleep(0.05)
        assert commands and proc.poll() is None, "no play was seen running"
        time.sleep(0.3)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        left = list(Path(tempfile.gettempdir()).glob(pattern))
        assert left, "the killed sweeper's runner folder is what this test searches"
        # Read at once what it left (another raidsweep on the machine that starts a play
        # removes a dead sweeper's folder, maybe before the search of every area below).
        kept = _contents(left)
        assert any(p.name == "000-hosts.yml" for p in kept), sorted(kept)  # the inventory copy
        in_env = [v.rsplit("@", 1)[0].rsplit(":", 1)[-1] for v in others.values()]
        for secret in (sim.password, pw, pin, *in_env):
            assert [p for p, data in kept.items() if secret.encode() in data] == [], secret
        # The search finds a file written during the test (and nothing else may hold it).
        canary = Path(tempfile.gettempdir()) / f"raidsweep-canary-{os.getpid()}"
        canary.write_bytes(b"..." + sim.password.encode())
        try:
            hits = _files_holding(sim.password.encode(), [*TEMP_AREAS, store, tmp_path], began)
            for value in others.values():
                secret = value.rsplit("@", 1)[0].rsplit(":", 1)[-1].encode()
                assert _files_holding(secret, [*TEMP_AREAS, store, tmp_path], began) == []
            for secret in (pw, pin):  # but in the user's own inventory
                found = _files_holding(secret.encode(), [*TEMP_AREAS, store, tmp_path], began)
                assert set(found) == {inventory}, found
        finally:
            canary.unlink()
        assert hits == [canary], hits
        # The next play removes what the killed process left.
        from sweeper.ansible import remove_stale_private_dirs

        remove_stale_private_dirs()  # another raidsweep on the machine may have done it first
        assert not [p for p in left if p.exists()], left
        assert not list(Path(tempfile.gettempdir()).glob(pattern))
    FIGURES["fault campaign: secrets after kill -9"] = [
        f"vCenter password searched in {', '.join(str(p) for p in TEMP_AREAS)} and the store "
        "after a kill -9 mid-play: 0 files; the dead sweeper's runner folder removed"
    ]
