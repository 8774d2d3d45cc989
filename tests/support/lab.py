"""The lab VM (sweeper.lab) as a session fixture: one Debian guest with real md and LVM and ten
data disks of 256 MiB, booted once per pytest session and stopped at its end, or by a watcher
when the session is killed (``watch``).

Integration tests take it as a ``lab_vm`` argument (tests/integration/conftest.py provides
it): every module shares the same guest, so a test leaves the data disks as it found them.

Nothing is skipped: without QEMU or debootstrap the fixture fails (scripts/test.sh installs
them). The first run builds the cached image (about 75 s, as root), later ones only boot.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from sweeper.lab import Lab, image_dir
from tests.support.campaign import FIGURES

DISKS = 10
DISK_MIB = 256
_shared: Lab | None = None
#: the watcher that stops the shared lab if the session dies (tests/support/lab_watch.py)
_watcher: subprocess.Popen[bytes] | None = None
ROOT = Path(__file__).resolve().parents[2]


def record(what: str, seconds: float) -> None:
    """One timing of the lab, printed at the end of the test run (tests/conftest.py)."""
    FIGURES.setdefault("raidsweep lab", []).append(f"{what}: {seconds:.1f} s")


def shared_lab(factory: pytest.TempPathFactory) -> Lab:
    """The session's running lab, started on the first call; watched from before it boots
    (``watch``), so that a session killed at any moment leaves no VM behind."""
    global _shared, _watcher
    if _shared is None or not _shared.status().running:
        lab = Lab(factory.mktemp("lab-vm"))
        if _watcher is not None:
            unwatch(_watcher)
        _watcher = watch(lab.folder)
        cached = (image_dir() / "recipe.json").is_file()
        started = time.monotonic()
        lab.up(disks=DISKS, disk_mib=DISK_MIB)
        what = "up, image cached" if cached else "up, building the image first"
        record(f"{what} ({DISKS} disks of {DISK_MIB} MiB)", time.monotonic() - started)
        _shared = lab
    return _shared


def watch(folder: Path) -> subprocess.Popen[bytes]:
    """Start the watcher that stops the lab of ``folder`` when this process ends, however it
    ends: a pytest session killed by a timeout left its daemonized QEMU running. The watcher
    is in its own session (a signal to the test's process group does not reach it) and waits
    for the end of a pipe only this process holds (``unwatch`` closes it; the kernel does
    when this process dies), then stops the lab (tests/support/lab_watch.py)."""
    return subprocess.Popen(
        [sys.executable, "-m", "tests.support.lab_watch", str(folder)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        cwd=ROOT,
        start_new_session=True,
    )


def unwatch(watcher: subprocess.Popen[bytes]) -> None:
    """Close the watcher's pipe: it stops the lab (a no-op where it is down) and exits."""
    if watcher.stdin is not None:
        watcher.stdin.close()
    watcher.wait(timeout=60)


@contextmanager
def watched(folder: Path) -> Iterator[None]:
    """A lab a test starts itself in ``folder``, stopped at the end even if the test session
    is killed meanwhile."""
    watcher = watch(folder)
    try:
        yield
    finally:
        unwatch(watcher)


@pytest.fixture(scope="session")
def lab_vm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """A running lab VM (sweeper.lab.Lab): ``lab_vm.ssh(...)`` runs commands in the guest as
    root, ``lab_vm.inventory_path`` is its Ansible inventory, ``lab_vm.status().disks`` its
    data disks (/dev/disk/by-id/virtio-data0 … 9)."""
    lab = shared_lab(tmp_path_factory)
    yield lab
    started = time.monotonic()
    if lab.down():
        record("down", time.monotonic() - started)
    global _watcher
    if _watcher is not None:
        unwatch(_watcher)
        _watcher = None


def guest_state(lab: Lab) -> str:
    """Everything a change to the test disks would show: arrays, signatures, mounts, LVM.

    A stopped md array's block device (size 0) is removed by the kernel's work queue after
    ``mdadm --stop`` returns, and while udev or lsblk still holds it open. One whose ``md``
    folder is already gone is on its way out and is waited for (at most 10 s).

    An *empty* md device (size 0, ``array_state`` clear, no member disks) is left out of the
    listing. The kernel makes one whenever anything opens ``/dev/mdN`` while no array has that
    number (``create_on_open``), and keeps it until an ioctl: udev probing the node in the
    moment after a stop is enough. It holds no disk and no data, so it is no change to the test
    disks; an array that stays assembled, active or inactive, still shows (in /proc/mdstat, and
    in the listing by its members).
    """
    return lab.ssh(
        "udevadm settle; for i in $(seq 100); do empty=; going=; for b in /sys/block/md*; do "
        '[ "$(cat "$b/size" 2>/dev/null)" = 0 ] || continue; '
        'if [ -e "$b/md/array_state" ]; then '
        '[ "$(cat "$b/md/array_state" 2>/dev/null)" = clear ] && [ -z "$(ls "$b/slaves")" ] && '
        'empty="$empty ${b##*/}"; else going=1; fi; done; '
        '[ -z "$going" ] && break; sleep 0.1; done; '
        "cat /proc/mdstat; lsblk -rno NAME,FSTYPE,LABEL,MOUNTPOINT | "
        """awk -v empty="$empty" 'BEGIN { split(empty, e, " "); for (i in e) skip[e[i]] = 1 } """
        """!($1 in skip)'; """
        "for d in /dev/vd?; do echo $d; wipefs --no-act $d; done; vgs; lvs",
        check=False,
    ).stdout


def clean(lab: Lab) -> None:
    """Back to ten blank data disks, whatever a test left."""
    # wipefs erases every signature blkid knows (md superblocks of any version, LVM labels,
    # filesystems, partition tables) in one process; LVM's tools start slowly under TCG, so
    # they run only for a volume group that exists.
    lab.ssh(
        "umount /mnt/raidsweep /mnt 2>/dev/null; vgs raidsweep >/dev/null 2>&1 && vgremove -ff -y raidsweep; "
        "for md in /dev/md/* $(awk '/^md/ {print \"/dev/\" $1}' /proc/mdstat) "
        "$(cd /sys/block && ls -d md* 2>/dev/null | sed 's,^,/dev/,'); do "
        '[ -e "$md" ] && mdadm --stop "$md" 2>/dev/null; done; '
        "dmsetup remove_all; wipefs -a -q /dev/vd[a-j]; "
        "for d in /dev/vd[a-j]; do blockdev --rereadpt $d 2>/dev/null; done; udevadm settle",
        check=False,
    )
