"""The Ansible inventory of a running lab VM: its one storage host, reached over SSH on a loopback
port, with the data disks the linux_md platform may use."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

import yaml

from sweeper.lab.image import HOSTNAME

if TYPE_CHECKING:
    from sweeper.lab.vm import LabStatus


def inventory_text(status: LabStatus, disk_files: Sequence[str]) -> str:
    """The inventory (YAML) of the lab ``status`` describes; ``disk_files`` names the file
    behind each of its data disks, in order. The inventory is written by a YAML dumper (a
    path with ``#``, ``:`` or quotes is a value, never YAML of its own), and the comments
    show paths as quoted text."""
    disks = "\n".join(
        f"#   {d}  ({json.dumps(name, ensure_ascii=False)}, {status.disk_mib} MiB)"
        for d, name in zip(status.disks, disk_files, strict=True)
    )
    host = {
        "ansible_host": "127.0.0.1",
        "ansible_port": status.port,
        "ansible_user": "root",
        "ansible_ssh_private_key_file": str(status.key_path),
        "ansible_ssh_common_args": "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null",
        "ansible_python_interpreter": "/usr/bin/python3",
        # one SSH round trip per task instead of several: tasks are slow enough under TCG
        "ansible_pipelining": True,
        "linux_md_devices": list(status.disks),
    }
    inventory = {"all": {"children": {"storage": {"hosts": {HOSTNAME: host}}}}}
    folder = json.dumps(str(status.folder), ensure_ascii=False)
    return (
        f"# Written by `raidsweep lab up` for the lab VM in {folder}\n"
        f"# (QEMU pid {status.pid}, SSH on 127.0.0.1:{status.port}); `raidsweep lab down` "
        "stops it.\n"
        "# The lab's data disks, which linux_md_devices allows the linux_md platform to use:\n"
        f"{disks}\n" + yaml.safe_dump(inventory, sort_keys=False, allow_unicode=True)
    )
