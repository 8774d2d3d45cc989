"""platform: ansible with a user's role written only with stock modules (loop devices over
files, one per configuration): the contract checked before anything changes, --check and
plan in check mode, a sweep measured with real fio, the system's own view after it, the
idempotence check, and teardown."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from sweeper.lab import Lab
from sweeper.store import ParquetStore
from tests.support.cli import cli
from tests.support.lab import clean, guest_state
from tests.support.specs import class_measuring, quick_fio_matrix, write_spec

pytestmark = pytest.mark.integration

ROLE = Path(__file__).parent.parent / "fixtures" / "roles" / "loop_array"
MATRIX = quick_fio_matrix("randread", runtime="1s", working_set="16m")


def _attached(folder: Path) -> list[str]:
    """The loop devices over files in ``folder``, as losetup lists them."""
    out = subprocess.run(
        ["losetup", "--list", "--json", "--output", "NAME,BACK-FILE"],
        capture_output=True,
        text=True,
        check=True,
    )
    devices = json.loads(out.stdout or "{}").get("loopdevices") or []
    return sorted(
        d["back-file"] for d in devices if str(d.get("back-file", "")).startswith(f"{folder}/")
    )


def _setup(tmp_path: Path, role: Path = ROLE, **options: object) -> tuple[Path, Path]:
    files = tmp_path / "files"
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(
        yaml.safe_dump(
            {
                "all": {
                    "children": {
                        "storage": {
                            "hosts": {
                                "array-mgmt": {
                                    "ansible_connection": "local",
                                    "ansible_python_interpreter": "{{ ansible_playbook_python }}",
                                    "loop_array_dir": str(files),
                                }
                            }
                        }
                    }
                }
            }
        )
    )
    spec = write_spec(
        tmp_path,
        {
            "name": "own-role",
            "platform": "ansible",
            "inventory": str(inventory),
            "platform_options": {
                "role": str(role),
                "variables": {"raid_level": "loop_array_raid", "layout": "loop_array_layout"},
                "allow": ["/dev/loop*"],
            }
            | options,
            "config_space": {"raid_level": ["raid5", "raid10"], "layout": ["single_rank"]},
            "matrix": MATRIX,
            "classes": [class_measuring(tmp_path, MATRIX)],
        },
        "own-role",
    )
    return spec, files


def test_a_users_role_sweeps_end_to_end(tmp_path: Path) -> None:
    spec, files = _setup(tmp_path)
    store = tmp_path / "store"
    check = cli("run", spec, "--store", store, "--check")
    assert check.returncode == 0, check.stderr
    said = " ".join(check.stdout.split())
    assert "raid_level as loop_array_raid" in said and "layout as loop_array_layout" in said
    planned = cli("plan", spec, "--store", store)
    assert planned.returncode == 0, planned.stdout + planned.stderr
    assert not files.exists() and _attached(files) == []  # check mode changed nothing
    run = cli("run", spec, "--store", store, "-q")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "not idempotent" not in run.stderr
    results = ParquetStore(store)
    configs = results.configurations("own-role")
    assert set(configs["status"]) == {"successful"} and len(configs) == 2
    for row in configs.itertuples():
        facts = json.loads(row.facts)
        assert facts["target"].startswith("/dev/loop")
        level = row.config_key.split("/")[0]
        assert facts["backing_file"] == f"{files}/{level}-single_rank.img"
    runs = results.runs("own-role")
    assert len(runs) == 2 and set(runs["status"]) == {"ok"}
    # The system's own view: the last configuration's loop device only.
    last = configs.sort_values("finished_at")["config_key"].iloc[-1].split("/")[0]
    assert _attached(files) == [f"{files}/{last}-single_rank.img"]
    torn = cli("teardown", spec, "--store", store)
    assert torn.returncode == 0, torn.stdout + torn.stderr
    assert _attached(files) == [] and not files.exists()


def test_a_role_that_changes_on_every_apply_is_named(tmp_path: Path) -> None:
    role = tmp_path / "restless"
    shutil.copytree(ROLE, role)
    tasks = role / "tasks" / "main.yml"
    tasks.write_text(
        tasks.read_text()
        + "\n- name: Change something every time (check mode sees it too)\n"
        + "  ansible.builtin.copy:\n    content: '{{ now().timestamp() }}'\n"
        + "    dest: '{{ loop_array_dir }}/stamp'\n    mode: '0600'\n"
    )
    spec, files = _setup(tmp_path, role)
    spec_doc = yaml.safe_load(spec.read_text())
    spec_doc["config_space"]["raid_level"] = ["raid10"]
    spec.write_text(yaml.safe_dump(spec_doc))
    run = cli("run", spec, "--store", tmp_path / "store", "-q")
    try:
        assert run.returncode == 0, run.stdout + run.stderr
        said = " ".join(run.stderr.split())
        assert "is not idempotent: applying main again would change 1 task(s)" in said
    finally:
        cli("teardown", spec, "--store", tmp_path / "store")
    assert _attached(files) == []


@pytest.mark.parametrize(
    ("change", "place", "problem"),
    [
        (
            {"variables": {"raid_level": "loop_array_level"}},
            "variables.raid_level",
            "'loop_array_level' is not a variable the role's main declares",
        ),
        ({"variables": {"raid_level": "loop_array_raid", "ranks": "loop_array_mib"}}, "", ""),
        (
            {"variables": {"cache_policy": "loop_array_mib"}},
            "variables.cache_policy",
            "the role declares loop_array_mib of type int; cache_policy needs str",
        ),
        (
            {"variables": {"raid_level": "raidsweep_target"}},
            "variables",
            "is not a variable name of the role's",
        ),
        ({"role": "/nonexistent-role"}, "role", "is not a role (no tasks/main.yml)"),
    ],
)
def test_a_mapping_the_role_does_not_declare_is_refused(
    tmp_path: Path, change: dict, place: str, problem: str
) -> None:
    spec, files = _setup(tmp_path, **change)
    out = cli("run", spec, "--store", tmp_path / "store")
    if not problem:  # a declared int variable takes ranks: accepted
        assert out.returncode == 0 or "ranks" not in out.stderr
        cli("teardown", spec, "--store", tmp_path / "store")
        return
    said = " ".join(out.stderr.split())
    assert out.returncode == 2 and problem in said and place in said, said
    assert not files.exists() and not (tmp_path / "store").exists()


def test_a_role_that_reports_no_target_and_values_outside_its_choices_are_refused(
    tmp_path: Path,
) -> None:
    role = tmp_path / "silent"
    shutil.copytree(ROLE, role)
    tasks = role / "tasks" / "main.yml"
    tasks.write_text(tasks.read_text().replace("raidsweep_target:", "loop_array_target:"))
    spec, files = _setup(tmp_path, role)
    out = cli("run", spec, "--store", tmp_path / "store", "--check")
    said = " ".join(out.stderr.split())
    assert out.returncode == 2 and "no task sets the test target" in said, said
    spec, files = _setup(tmp_path)
    doc = yaml.safe_load(spec.read_text())
    doc["config_space"]["raid_level"] = ["raid5", "raid6"]
    spec.write_text(yaml.safe_dump(doc))
    out = cli("run", spec, "--store", tmp_path / "store")
    said = " ".join(out.stderr.split())
    # The role's choices are what the platform supports: the value is named where it stands.
    refused = "config_space.raid_level[1]: 'raid6' is not supported by platform 'ansible' "
    assert out.returncode == 2 and refused + "(supported: raid5, raid10)" in said, said
    assert not files.exists()


@pytest.mark.timeout(1200)
def test_a_users_md_lvm_role_in_the_lab(
    lab_vm: Lab, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The proof on real md and LVM: a role of stock modules and mdadm builds RAID 1 and RAID
    5 in the lab VM; --check changes nothing, the sweep measures each with fio over SSH, the
    guest shows the last array and volume, applying again changes nothing, and teardown
    leaves the guest as it was."""
    monkeypatch.setenv("ANSIBLE_TASK_TIMEOUT", "300")  # a hung task names itself
    clean(lab_vm)
    doc = yaml.safe_load(lab_vm.inventory_path.read_text())
    host = doc["all"]["children"]["storage"]["hosts"]["raidsweep-lab"]
    host["md_lvm_devices"] = host.pop("linux_md_devices")[:3]
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(yaml.safe_dump(doc))
    spec = write_spec(
        tmp_path,
        {
            "name": "md-lvm-role",
            "platform": "ansible",
            "inventory": str(inventory),
            "platform_options": {
                "role": str(ROLE.parent / "md_lvm"),
                "variables": {"raid_level": "md_lvm_raid"},
                "load": "storage",
            },
            "config_space": {"raid_level": ["raid1", "raid5"], "layout": ["single_rank"]},
            "matrix": MATRIX,
            "classes": [class_measuring(tmp_path, MATRIX)],
        },
        "md-lvm-role",
    )
    store = tmp_path / "store"
    before = guest_state(lab_vm)
    assert cli("run", spec, "--store", store, "--check").returncode == 0
    assert guest_state(lab_vm) == before
    run = cli("run", spec, "--store", store, "-q")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "not idempotent" not in run.stderr
    configs = ParquetStore(store).configurations("md-lvm-role")
    assert set(configs["status"]) == {"successful"} and len(configs) == 2
    runs = ParquetStore(store).runs("md-lvm-role")
    assert len(runs) == 2 and set(runs["status"]) == {"ok"}
    # The guest's own view: the last configuration's array, whole, and the volume on it.
    last = configs.sort_values("finished_at")["config_key"].iloc[-1].split("/")[0]
    view = "mdadm --detail --export /dev/md/rsbyo; lvs --noheadings -o lv_path"
    detail = lab_vm.ssh(view).stdout
    assert f"MD_LEVEL={last}" in detail and "/dev/rsbyo/vol" in detail
    members = {"raid1": 2, "raid5": 3}[last]
    assert f"MD_DEVICES={members}" in detail
    torn = cli("teardown", spec, "--store", store)
    assert torn.returncode == 0, torn.stdout + torn.stderr
    assert guest_state(lab_vm) == before
