"""The Ansible inventory of a running lab VM: its one storage host, reached over SSH on a loopback
port, with the data disks the linux_md platform may use."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sweeper.lab.image import HOSTNAME

if TYPE_CHECKING:
    from sweeper.lab.vm import LabStatus


def inventory_text(status: LabStatus, disk_files: Sequence[str]) -> str:
    """The inventory (YAML) of the lab ``status`` describes; ``disk_files`` names the file
    behind each of its data disks, in order."""
    disks = "\n".join(
        f"#   {d}  ({name}, {status.disk_mib} MiB)"
        for d, name in zip(status.disks, disk_files, strict=True)
    )
    devices = "\n".join(f"            - {d}" for d in status.disks)
    return f"""\
# Written by `raidsweep lab up` for the lab VM in {status.folder}
# (QEMU pid {status.pid}, SSH on 127.0.0.1:{status.port}); `raidsweep lab down` stops it.
# The lab's data disks, which linux_md_devices allows the linux_md platform to use:
{disks}
all:
  children:
    storage:
      hosts:
        {HOSTNAME}:
          ansible_host: 127.0.0.1
          ansible_port: {status.port}
          ansible_user: root
          ansible_ssh_private_key_file: {status.key_path}
          ansible_ssh_common_args: "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null"
          ansible_python_interpreter: /usr/bin/python3
          # one SSH round trip per task instead of several: tasks are slow enough under TCG
          ansible_pipelining: true
          linux_md_devices:
{devices}
"""
