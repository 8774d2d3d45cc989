"""The lab VM's root image, built once and cached.

The root image is a small Debian bookworm tree built with debootstrap (needs root) and cached under
``$RAIDSWEEP_CACHE/lab/image-<key>/`` (default ``~/.cache/raidsweep``), where ``<key>`` hashes the
build recipe below; the VM boots it through an overlay (``sweeper.lab.vm``), so the cached image
stays pristine.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from sweeper.errors import InputError
from sweeper.lab import mirror as _mirror
from sweeper.lab.errors import LabError
from sweeper.lab.tools import require_tools, run_tool
from sweeper.locking import exclusive_lock
from sweeper.untrusted import folder_text_problem

#: bump when the build steps change in a way the recipe below does not show
SCRIPT_VERSION = 1
SUITE = "bookworm"
HOSTNAME = "raidsweep-lab"
ROOT_LABEL = "raidsweep-root"
ROOT_SIZE = "2G"
PACKAGES = (
    "systemd-sysv",
    "udev",
    "kmod",
    "iproute2",
    "openssh-server",
    "python3",
    "mdadm",
    "lvm2",
    "fio",
    "linux-image-amd64",
    "initramfs-tools",
    "thin-provisioning-tools",  # cache_check, which lvmcache needs to activate a cached LV
    "e2fsprogs",
    "xfsprogs",  # linux_md's filesystem layer: mkfs.xfs and xfs_info
    "util-linux",
    "procps",  # mkfs, wipefs/blkid/lsblk, ps/pgrep
)
MODULES = (
    "raid0",
    "raid1",
    "raid10",
    "raid456",
    "dm_mod",
    "dm_snapshot",
    "dm_cache",
    "dm_cache_smq",
    "dm_mirror",
)
#: where the guest's Python finds Debian's packages (and processes ``.pth`` files)
GUEST_PYTHON = "usr/lib/python3/dist-packages"
#: files written into the guest's tree (path → content); part of the recipe key
TREE_FILES: dict[str, str] = {
    "etc/hostname": f"{HOSTNAME}\n",
    "etc/hosts": f"127.0.0.1 localhost\n127.0.1.1 {HOSTNAME}\n",
    "etc/fstab": f"LABEL={ROOT_LABEL} / ext4 errors=remount-ro 0 1\n",
    "etc/modules-load.d/raidsweep-lab.conf": "".join(f"{m}\n" for m in MODULES),
    "etc/systemd/network/20-en.network": "[Match]\nName=en*\n\n[Network]\nDHCP=yes\n",
    # QEMU's user network answers DNS here; the guest rarely needs it, but apt does
    "etc/resolv.conf": "nameserver 10.0.2.3\n",
    # Ansible's modules compiled once, not at every task (see the module's docstring)
    f"{GUEST_PYTHON}/raidsweep_lab_bytecode.py": (
        Path(__file__).with_name("guest_bytecode.py").read_text()
    ),
    f"{GUEST_PYTHON}/raidsweep-lab-bytecode.pth": (
        "import raidsweep_lab_bytecode; raidsweep_lab_bytecode.install()\n"
    ),
}
#: unit symlinks made in the tree (link → target): networkd on, and the timers that would
#: start work in the background of a measurement (apt, md's monthly check) masked
TREE_LINKS: dict[str, str] = {
    "etc/systemd/system/multi-user.target.wants/systemd-networkd.service": (
        "/lib/systemd/system/systemd-networkd.service"
    ),
    "etc/systemd/system/sockets.target.wants/systemd-networkd.socket": (
        "/lib/systemd/system/systemd-networkd.socket"
    ),
    "etc/systemd/system/apt-daily.timer": "/dev/null",
    "etc/systemd/system/apt-daily-upgrade.timer": "/dev/null",
    "etc/systemd/system/mdcheck_start.timer": "/dev/null",
    "etc/systemd/system/mdcheck_continue.timer": "/dev/null",
    "etc/systemd/system/mdmonitor-oneshot.timer": "/dev/null",
    "etc/systemd/system/e2scrub_all.timer": "/dev/null",
    "etc/systemd/system/fstrim.timer": "/dev/null",
}
#: the image's SSH key pair, beside it: the public half is root's only way into the guest
KEY_NAME = "id_ed25519"
#: the tools a build needs, and the Debian package each comes from
BUILD_TOOLS = {
    "debootstrap": "debootstrap",
    "mkfs.ext4": "e2fsprogs",
    "ssh-keygen": "openssh-client",
}


#: the environment variable that names the folder the lab keeps its image and VM in
CACHE_ENV = "RAIDSWEEP_CACHE"


def cache_root() -> Path:
    """Where the lab keeps its image and its VM: ``RAIDSWEEP_CACHE``, else ~/.cache/raidsweep;
    InputError naming the variable where it cannot name a folder (``cache_dir_problem``)."""
    given = os.environ.get(CACHE_ENV)
    if given is None:
        return Path.home() / ".cache" / "raidsweep"
    problem = cache_dir_problem(given)
    if problem is not None:
        raise InputError(CACHE_ENV, [problem])
    return Path(given)


def cache_dir_problem(value: str) -> str | None:
    """Why ``value`` cannot name the lab's cache folder, or None: empty (an unset shell
    variable must not choose a folder), not UTF-8, with template syntax or control characters
    (the folder is written into the lab's inventory and shown), or relative (each working
    folder would hold an image of its own)."""
    problem = folder_text_problem(value, "cache folder")
    if problem is not None:
        return problem
    if not os.path.isabs(value):
        return f"{value!r} is not an absolute path: name the cache folder from the root"
    return None


def recipe() -> dict:
    """Everything the image is built from, except the mirror (any Debian mirror gives the same
    suite); its hash names the cached image."""
    return {
        "script_version": SCRIPT_VERSION,
        "suite": SUITE,
        "variant": "minbase",
        "packages": sorted(PACKAGES),
        "files": TREE_FILES,
        "links": TREE_LINKS,
        "root_label": ROOT_LABEL,
        "root_size": ROOT_SIZE,
    }


def recipe_key() -> str:
    text = json.dumps(recipe(), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def image_dir(key: str | None = None) -> Path:
    return cache_root() / "lab" / f"image-{key or recipe_key()}"


def debian_mirror(apt_dir: Path = Path("/etc/apt")) -> str:
    """The Debian mirror the image's suite is built from (``sweeper.lab.mirror``)."""
    return _mirror.debian_mirror(SUITE, apt_dir)


def _unmount_under(tree: Path) -> None:
    """debootstrap mounts /proc and /sys in the tree and unmounts them; if it was killed, they may
    still be there, and removing the tree must never reach into them."""
    prefix = str(tree.resolve()) + "/"
    with open("/proc/mounts") as fh:
        points = [line.split()[1] for line in fh]
    for point in sorted((p for p in points if p.startswith(prefix)), key=len, reverse=True):
        subprocess.run(["umount", "-l", point], check=False, capture_output=True)


def _remove_build(path: Path) -> None:
    tree = path / "tree"
    if tree.exists():
        _unmount_under(tree)
    shutil.rmtree(path, ignore_errors=True)


def ensure_image(progress: Callable[[str], None] = lambda _: None) -> Path:
    """The cached image folder (root.img, vmlinuz, initrd.img, the SSH key), built if absent."""
    key = recipe_key()
    target = image_dir(key)
    if (target / "recipe.json").is_file():
        return target
    mirror = debian_mirror()  # a mirror that cannot be used is refused before anything is made
    require_tools(BUILD_TOOLS)
    if os.geteuid() != 0:
        raise LabError(
            f"the lab image ({target}) is not built yet, and building it needs root "
            "(debootstrap): run `raidsweep lab up` once as root"
        )
    with exclusive_lock(target.parent / f".build-{key}.lock"):
        if (target / "recipe.json").is_file():  # another process built it while we waited
            return target
        # Under the lock no other build of this key runs: what a killed build left is debris.
        for stale in target.parent.glob(f".build-{key}-*"):
            _remove_build(stale)
        work = Path(tempfile.mkdtemp(prefix=f".build-{key}-", dir=target.parent))
        try:
            _build(work, mirror, progress)
            _remove_build(work / "tree")
            os.rename(work, target)  # atomic: the image appears whole or not at all
        except BaseException:
            _remove_build(work)
            raise
    return target


def _build(work: Path, mirror: str, progress: Callable[[str], None]) -> None:
    started = time.monotonic()
    tree = work / "tree"
    progress(f"debootstrap {SUITE} from {mirror} (a few minutes)")
    run_tool(
        [
            "debootstrap",
            "--variant=minbase",
            f"--include={','.join(PACKAGES)}",
            SUITE,
            str(tree),
            mirror,
        ],
        "debootstrap",
    )
    for rel, content in TREE_FILES.items():
        path = tree / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink():
            path.unlink()
        path.write_text(content)
    for rel, target in TREE_LINKS.items():
        link = tree / rel
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(target)
    # One key pair per image, kept beside it: the public half is root's only way in.
    run_tool(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", HOSTNAME, "-f", str(work / KEY_NAME)],
        "ssh-keygen",
    )
    ssh_dir = tree / "root" / ".ssh"
    ssh_dir.mkdir(mode=0o700, exist_ok=True)
    (ssh_dir / "authorized_keys").write_text((work / f"{KEY_NAME}.pub").read_text())
    (ssh_dir / "authorized_keys").chmod(0o600)
    # Downloaded packages are of no use in the guest and would only make the image bigger.
    for deb in (tree / "var" / "cache" / "apt" / "archives").glob("*.deb"):
        deb.unlink()
    kernels = sorted((tree / "boot").glob("vmlinuz-*"))
    initrds = sorted((tree / "boot").glob("initrd.img-*"))
    if not kernels or not initrds:
        raise LabError(f"the guest tree has no kernel or initrd in {tree / 'boot'}")
    shutil.copyfile(kernels[-1], work / "vmlinuz")
    shutil.copyfile(initrds[-1], work / "initrd.img")
    progress("building the root filesystem (mkfs.ext4 -d)")
    _unmount_under(tree)
    run_tool(
        ["mkfs.ext4", "-q", "-L", ROOT_LABEL, "-d", str(tree), str(work / "root.img"), ROOT_SIZE],
        "mkfs.ext4",
    )
    meta = recipe() | {
        "key": recipe_key(),
        "mirror": mirror,
        "kernel": kernels[-1].name,
        "built_s": round(time.monotonic() - started, 1),
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    (work / "recipe.json").write_text(json.dumps(meta, indent=2) + "\n")
