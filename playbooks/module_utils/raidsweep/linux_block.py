"""What the linux_md role's modules read of a host's block devices, md arrays and LVM
alike, and how they run a command that must succeed."""

from __future__ import annotations

import os
import re

from ansible.module_utils.basic import AnsibleModule


def run_checked(module: AnsibleModule, argv: list[str]) -> str:
    """The command's output; a failing command fails the module, naming it."""
    rc, out, err = module.run_command(argv)
    if rc != 0:
        module.fail_json(msg=f"{' '.join(argv)} failed (exit {rc}): {(err or out).strip()}")
    return out


def kernel_name(path: str) -> str:
    """Kernel name of a block device node, through any link (``/dev/disk/by-id/x`` -> ``vdb``)."""
    return os.path.basename(os.path.realpath(path))


def read_text(path: str) -> str:
    """A sysfs or proc file's contents, stripped; '' where it cannot be read."""
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return ""


def md_name(module: AnsibleModule, md: str) -> str | None:
    """The name an md device (``md127``) was created with (``host:name`` -> ``name``)."""
    rc, out, _ = module.run_command(["mdadm", "--detail", "--export", f"/dev/{md}"])
    if rc != 0:
        return None
    m = re.search(r"^MD_NAME=(.*)$", out, re.M)
    return m.group(1).split(":")[-1] if m else None


def vg_of(module: AnsibleModule, node: str) -> str:
    """The volume group a physical volume belongs to ('' if none)."""
    rc, out, _ = module.run_command(["pvs", "--noheadings", "-o", "vg_name", node])
    return out.strip() if rc == 0 else ""


def release_mounts(module: AnsibleModule, vg: str) -> list[str]:
    """Unmount every filesystem on a volume of ``vg`` (raidsweep's own group: the optional
    filesystem layer), so its volumes can be removed; the mount points released."""
    released = []
    for line in read_text("/proc/self/mounts").splitlines():
        source, target = (line.split() + ["", ""])[:2]
        if not source.startswith("/dev/"):
            continue
        dm = kernel_name(source)
        if read_text(f"/sys/block/{dm}/dm/name").startswith(f"{vg}-"):
            run_checked(module, ["umount", target.encode().decode("unicode_escape")])
            released.append(target)
    return released
