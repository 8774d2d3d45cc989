"""The linux_md platform without a host: the SSH connection read from the inventory as
Ansible reads it, what a reconfiguration costs, and what each configuration asks of the role.
(The role itself is proven in the lab VM: tests/integration/test_linux_md.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from sweeper.configuration import Configuration
from sweeper.platforms.linux_md import LinuxMdPlatform, _options, devices_needed
from sweeper.remote import RemoteHostError, inventory_host


def _inventory(tmp_path: Path, **host: object) -> Path:
    doc = {"all": {"children": {"storage": {"hosts": {"jbod-head": host}}}}}
    path = tmp_path / "hosts.yml"
    path.write_text(yaml.safe_dump(doc))
    return path


def test_ssh_connection_is_the_inventorys(tmp_path: Path) -> None:
    inv = _inventory(
        tmp_path,
        ansible_host="192.0.2.10",
        ansible_port=2222,
        ansible_user="root",
        ansible_ssh_private_key_file="/keys/lab",
        ansible_ssh_common_args="-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null",
    )
    host = inventory_host(inv)
    argv = host.argv("fio --version")
    assert argv[0] == "ssh" and argv[-1] == "fio --version"  # one argument: no local shell
    assert argv[argv.index("-p") + 1] == "2222" and argv[argv.index("-i") + 1] == "/keys/lab"
    assert argv[-2] == "root@192.0.2.10" and argv[-3] == "--"
    assert "StrictHostKeyChecking=no" in argv and "BatchMode=yes" in argv


def test_group_vars_apply_and_local_connection_runs_here(tmp_path: Path) -> None:
    doc = {
        "all": {
            "children": {
                "storage": {"hosts": {"here": {}}, "vars": {"ansible_connection": "local"}}
            }
        }
    }
    (tmp_path / "hosts.yml").write_text(yaml.safe_dump(doc))
    host = inventory_host(tmp_path / "hosts.yml")
    assert host.local and host.argv("true") == ["sh", "-c", "true"]
    assert host.check("echo $((6 * 7))").strip() == "42"


@pytest.mark.parametrize(
    ("host", "message"),
    [
        ({"ansible_password": "hunter2"}, "not a password"),
        ({"ansible_host": "{{ lookup('env', 'X') }}"}, "ansible_host is a template"),
        (
            {"ansible_user": "{% if lookup('pipe', 'id') %}root{% endif %}"},
            "ansible_user is a template",
        ),
        ({"ansible_ssh_common_args": "-o X={# c #}"}, "ssh args is a template"),
    ],
)
def test_connections_fio_cannot_use_are_refused(tmp_path: Path, host: dict, message: str) -> None:
    with pytest.raises(RemoteHostError, match=message) as info:
        inventory_host(_inventory(tmp_path, **host))
    assert "hunter2" not in str(info.value)


def test_one_storage_host(tmp_path: Path) -> None:
    doc = {"all": {"children": {"storage": {"hosts": {"a": {}, "b": {}}}}}}
    (tmp_path / "hosts.yml").write_text(yaml.safe_dump(doc))
    with pytest.raises(RemoteHostError, match="exactly one host"):
        inventory_host(tmp_path / "hosts.yml")


def test_devices_and_reconfiguration_cost(tmp_path: Path) -> None:
    opts = _options({"rank_devices": 4})
    key = Configuration.from_key
    assert devices_needed(key("raid5/host_stripe/ranks2/stripe64k/wb-ra"), opts) == 8
    assert devices_needed(key("raid1/pool_stripe/ranks3/stripe4m/wb-ra"), opts) == 6
    p = LinuxMdPlatform({"rank_devices": 4, "resync_mib_s": 100}, tmp_path)
    p.preflight_facts = {"devices": {"d": {"size_bytes": 100 * 1024**3}}}
    a = key("raid5/host_stripe/ranks2/stripe64k/wb-ra")
    rebuild = p.reconfiguration_time(a, key("raid6/host_stripe/ranks2/stripe64k/wb-ra"))
    relayout = p.reconfiguration_time(a, key("raid5/pool_stripe/ranks2/stripe4m/wb-ra"))
    knob = p.reconfiguration_time(a, key("raid5/host_stripe/ranks2/stripe64k/wt-nora"))
    assert rebuild == pytest.approx(1024 + 20)  # 100 GiB at 100 MiB/s, then LVM
    assert knob < relayout < rebuild
    # RAID 0 has no initial resync
    assert p.reconfiguration_time(a, key("raid0/host_stripe/ranks2/stripe64k/wb-ra")) == 20


def test_extravars_are_the_configuration_in_the_roles_terms(tmp_path: Path) -> None:
    p = LinuxMdPlatform({"chunk_kib": 128, "bitmap": True}, tmp_path)
    v = p.extravars(Configuration.from_key("raid10/pool_stripe/ranks2/stripe4m/wt-nora/snap"))
    assert v["raid_level"] == "raid10" and v["layout"] == "pool_stripe"
    assert v["ranks"] == 2 and v["stripe_kib"] == 4096 and v["snapshots"] is True
    assert v["linux_md_chunk_kib"] == 128 and v["linux_md_bitmap"] is True
    v = p.extravars(Configuration.from_key("raid5/single_rank/wb-ra"))
    assert v["ranks"] is None and v["stripe_kib"] is None and v["snapshots"] is False
    assert "data_reduction" not in v


def test_hardware_facts_for_the_trade_offs(tmp_path: Path) -> None:
    p = LinuxMdPlatform({"rank_devices": 6, "resync_mib_s": 150}, tmp_path)
    assert "drive_gb" not in p.hardware()  # nothing reported yet: the spec's to say
    p.preflight_facts = {
        "devices": {"a": {"size_bytes": 4 * 10**12}, "b": {"size_bytes": 3 * 10**12}}
    }
    facts = p.hardware()
    assert facts["drive_gb"] == 3000 and facts["rebuild_mib_s"] == 150
    assert facts["raid_groups"]["raid6"] == {"data": 4, "redundancy": 2}
    assert facts["raid_groups"]["raid10"] == {"data": 3, "redundancy": 3}
    assert facts["raid_groups"]["raid0"] == {"data": 6, "redundancy": 0}
