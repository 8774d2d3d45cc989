"""A throwaway Debian VM with real md and LVM, for the linux_md platform's tests.

The machine running raidsweep may have no md or device-mapper in its kernel (containers, CI).
The lab is a small Debian bookworm guest under QEMU (software emulation: TCG) with several small
virtual data disks, reached over SSH on a loopback port, with an Ansible inventory written beside
it. The root image is built once with debootstrap (needs root) and cached under
``$RAIDSWEEP_CACHE/lab/image-<key>/`` (default ``~/.cache/raidsweep``), where ``<key>`` hashes the
build recipe; every ``up`` boots it through a fresh qcow2 overlay, so the cached image stays
pristine and each lab starts clean.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from sweeper.locking import exclusive_lock

#: bump when the build steps change in a way the recipe below does not show
SCRIPT_VERSION = 1
SUITE = "bookworm"
HOSTNAME = "raidsweep-lab"
ROOT_LABEL = "raidsweep-root"
ROOT_SIZE = "2G"
PACKAGES = (
    "systemd-sysv", "udev", "kmod", "iproute2", "openssh-server", "python3", "mdadm", "lvm2",
    "fio", "linux-image-amd64", "initramfs-tools",
    "thin-provisioning-tools",  # cache_check, which lvmcache needs to activate a cached LV
    "e2fsprogs", "util-linux", "procps",  # mkfs, wipefs/blkid/lsblk, ps/pgrep
)  # fmt: skip
MODULES = (
    "raid0", "raid1", "raid10", "raid456",
    "dm_mod", "dm_snapshot", "dm_cache", "dm_cache_smq", "dm_mirror",
)  # fmt: skip
#: files written into the guest's tree (path → content); part of the recipe key
TREE_FILES: dict[str, str] = {
    "etc/hostname": f"{HOSTNAME}\n",
    "etc/hosts": f"127.0.0.1 localhost\n127.0.1.1 {HOSTNAME}\n",
    "etc/fstab": f"LABEL={ROOT_LABEL} / ext4 errors=remount-ro 0 1\n",
    "etc/modules-load.d/raidsweep-lab.conf": "".join(f"{m}\n" for m in MODULES),
    "etc/systemd/network/20-en.network": "[Match]\nName=en*\n\n[Network]\nDHCP=yes\n",
    # QEMU's user network answers DNS here; the guest rarely needs it, but apt does
    "etc/resolv.conf": "nameserver 10.0.2.3\n",
}
#: unit symlinks made in the tree (link → target): networkd on, and the timers that would
#: start work in the background of a measurement (apt, md's monthly check) masked
TREE_LINKS: dict[str, str] = {
    "etc/systemd/system/multi-user.target.wants/systemd-networkd.service":
        "/lib/systemd/system/systemd-networkd.service",
    "etc/systemd/system/sockets.target.wants/systemd-networkd.socket":
        "/lib/systemd/system/systemd-networkd.socket",
    "etc/systemd/system/apt-daily.timer": "/dev/null",
    "etc/systemd/system/apt-daily-upgrade.timer": "/dev/null",
    "etc/systemd/system/mdcheck_start.timer": "/dev/null",
    "etc/systemd/system/mdcheck_continue.timer": "/dev/null",
    "etc/systemd/system/mdmonitor-oneshot.timer": "/dev/null",
    "etc/systemd/system/e2scrub_all.timer": "/dev/null",
    "etc/systemd/system/fstrim.timer": "/dev/null",
}  # fmt: skip
KEY_NAME = "id_ed25519"
SSH_OPTIONS = (
    "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
    "-o", "BatchMode=yes", "-o", "LogLevel=ERROR", "-o", "IdentitiesOnly=yes",
)  # fmt: skip
MAX_DISKS = 24  # q35's root bus has about 28 free PCI slots: one each, plus root and network
MIN_DISK_MIB = 8
MIN_MEMORY_MIB = 512
BOOT_TIMEOUT_S = 180.0
#: the tools, and the Debian package each comes from
RUN_TOOLS = {
    "qemu-system-x86_64": "qemu-system-x86",
    "qemu-img": "qemu-utils",
    "ssh": "openssh-client",
}
BUILD_TOOLS = {
    "debootstrap": "debootstrap",
    "mkfs.ext4": "e2fsprogs",
    "ssh-keygen": "openssh-client",
}


class LabError(Exception):
    """The lab cannot be built, started or reached; the message says why."""


class LabConflict(LabError):
    """``up`` was asked for another shape than the lab already running in that folder."""


class LabCommandError(subprocess.CalledProcessError):
    """A command in the guest failed; the message carries its output's last lines."""

    def __str__(self) -> str:
        tail = "\n".join(((self.stderr or "") + (self.output or "")).strip().splitlines()[-15:])
        return f"{super().__str__()}\n{tail}" if tail else super().__str__()


def cache_root() -> Path:
    return Path(os.environ.get("RAIDSWEEP_CACHE") or Path.home() / ".cache" / "raidsweep")


def default_vm_dir() -> Path:
    return cache_root() / "lab" / "vm"


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


def _require(tools: dict[str, str]) -> None:
    missing = {tool: pkg for tool, pkg in tools.items() if not shutil.which(tool)}
    if missing:
        names = ", ".join(missing)
        packages = " ".join(sorted(set(missing.values())))
        raise LabError(
            f"{names} not found: install the Debian package(s) {packages} "
            f"(apt-get install {packages}; scripts/bootstrap-system.sh does)"
        )


def _deb822_stanzas(text: str) -> Iterator[dict[str, str]]:
    for block in re.split(r"\n\s*\n", text):
        fields: dict[str, str] = {}
        for line in block.splitlines():
            if line.startswith("#") or ":" not in line or line[:1].isspace():
                continue
            name, _, value = line.partition(":")
            fields[name.strip().lower()] = value.strip()
        if fields:
            yield fields


def debian_mirror(apt_dir: Path = Path("/etc/apt")) -> str:
    """The Debian mirror this machine's apt uses (its main suite's entry, not -security or
    -updates), never a hard-coded one that this machine may not reach;
    ``RAIDSWEEP_LAB_MIRROR`` overrides it."""
    if os.environ.get("RAIDSWEEP_LAB_MIRROR"):
        return os.environ["RAIDSWEEP_LAB_MIRROR"]
    candidates: list[tuple[str, list[str]]] = []  # (uri, suites)
    for path in sorted(glob.glob(str(apt_dir / "sources.list.d" / "*.sources"))):
        for st in _deb822_stanzas(Path(path).read_text(errors="replace")):
            if "deb" in st.get("types", "").split() and st.get("enabled", "yes") != "no":
                for uri in st.get("uris", "").split():
                    candidates.append((uri, st.get("suites", "").split()))
    lists = [apt_dir / "sources.list", *sorted((apt_dir / "sources.list.d").glob("*.list"))]
    for path in lists:
        if not path.is_file():
            continue
        for line in path.read_text(errors="replace").splitlines():
            words = re.sub(r"\[[^\]]*\]", "", line.split("#", 1)[0]).split()
            if len(words) >= 3 and words[0] == "deb":
                candidates.append((words[1], [words[2]]))
    # A main suite is one without a dash (bookworm, not bookworm-security); ours first.
    main = [(u, s) for u, s in candidates if any("-" not in x and "/" not in x for x in s)]
    main.sort(key=lambda c: (SUITE not in c[1], "debian" not in c[0]))
    if not main:
        raise LabError(
            f"no Debian mirror found in {apt_dir}/sources.list(.d): "
            "name one in RAIDSWEEP_LAB_MIRROR"
        )
    return main[0][0]


def _run(args: list[str], what: str, timeout: float | None = None, **kw) -> str:
    try:
        proc = subprocess.run(
            args, capture_output=True, text=True, timeout=timeout, check=False, **kw
        )
    except subprocess.TimeoutExpired as exc:
        raise LabError(f"{what}: no answer within {timeout:.0f}s") from exc
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-20:])
        raise LabError(f"{what} failed (exit {proc.returncode}):\n{tail}")
    return proc.stdout


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
    _require(BUILD_TOOLS)
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
            _build(work, progress)
            _remove_build(work / "tree")
            os.rename(work, target)  # atomic: the image appears whole or not at all
        except BaseException:
            _remove_build(work)
            raise
    return target


def _build(work: Path, progress: Callable[[str], None]) -> None:
    started = time.monotonic()
    tree = work / "tree"
    mirror = debian_mirror()
    progress(f"debootstrap {SUITE} from {mirror} (a few minutes)")
    _run(
        ["debootstrap", "--variant=minbase", f"--include={','.join(PACKAGES)}",
         SUITE, str(tree), mirror],
        "debootstrap",
    )  # fmt: skip
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
    _run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", HOSTNAME,
          "-f", str(work / KEY_NAME)], "ssh-keygen")  # fmt: skip
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
    _run(["mkfs.ext4", "-q", "-L", ROOT_LABEL, "-d", str(tree), str(work / "root.img"),
          ROOT_SIZE], "mkfs.ext4")  # fmt: skip
    meta = recipe() | {
        "key": recipe_key(),
        "mirror": mirror,
        "kernel": kernels[-1].name,
        "built_s": round(time.monotonic() - started, 1),
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    (work / "recipe.json").write_text(json.dumps(meta, indent=2) + "\n")


@dataclass
class LabStatus:
    """What ``status`` knows of a lab folder."""

    folder: Path
    running: bool
    pid: int | None = None
    port: int | None = None
    #: the data disks as the guest names them (stable: /dev/disk/by-id/virtio-dataN)
    disks: list[str] = field(default_factory=list)
    disk_mib: int | None = None
    memory_mib: int | None = None
    inventory_path: Path | None = None
    image_key: str | None = None
    key_path: Path | None = None
    console_log: Path | None = None
    #: set by ``up``: it found this lab already running and left it as it was
    already_running: bool = False


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Lab:
    """The lab VM whose files live in ``folder`` (default ``~/.cache/raidsweep/lab/vm``)."""

    def __init__(self, folder: Path | str | None = None):
        self.folder = Path(folder).expanduser().absolute() if folder else default_vm_dir()

    # Files of the running VM; all inside the folder, all removed by down() but the console log.
    @property
    def inventory_path(self) -> Path:
        return self.folder / "hosts.yml"

    @property
    def pidfile(self) -> Path:
        return self.folder / "qemu.pid"

    @property
    def state_path(self) -> Path:
        return self.folder / "lab.json"

    @property
    def console_log(self) -> Path:
        return self.folder / "console.log"

    @property
    def overlay(self) -> Path:
        return self.folder / "overlay.qcow2"

    def disk_file(self, index: int) -> Path:
        return self.folder / f"data{index}.img"

    def _state(self) -> dict:
        try:
            return json.loads(self.state_path.read_text())
        except (OSError, ValueError):
            return {}

    def _pid(self) -> int | None:
        """The pid in the pidfile if it is really this folder's QEMU (a pid is reused after a
        reboot or a crash: never signal a stranger)."""
        try:
            pid = int(self.pidfile.read_text().strip())
        except (OSError, ValueError):
            return None
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            return None
        if not argv or not os.path.basename(argv[0].decode(errors="replace")).startswith(
            "qemu-system"
        ):
            return None
        return pid if str(self.pidfile).encode() in argv else None

    def status(self) -> LabStatus:
        pid = self._pid()
        state = self._state() if pid else {}
        if not pid or not state:
            return LabStatus(folder=self.folder, running=False, console_log=self.console_log)
        return LabStatus(
            folder=self.folder,
            running=True,
            pid=pid,
            port=state["port"],
            disks=[f"/dev/disk/by-id/virtio-data{i}" for i in range(state["disks"])],
            disk_mib=state["disk_mib"],
            memory_mib=state["memory_mib"],
            inventory_path=self.inventory_path,
            image_key=state["image_key"],
            key_path=Path(state["key_path"]),
            console_log=self.console_log,
        )

    def up(
        self,
        disks: int = 10,
        disk_mib: int = 256,
        memory_mib: int = 1024,
        *,
        progress: Callable[[str], None] = lambda _: None,
        timeout_s: float = BOOT_TIMEOUT_S,
    ) -> LabStatus:
        """Boot the lab (building its image first if needed) and return once SSH answers and
        the data disks are in /dev/disk/by-id; if it already runs with this shape, return it."""
        check_shape(disks, disk_mib, memory_mib)
        current = self.status()
        if current.running:
            wanted = (disks, disk_mib, memory_mib)
            have = (len(current.disks), current.disk_mib, current.memory_mib)
            if wanted != have:
                raise LabConflict(
                    f"the lab in {self.folder} already runs with {have[0]} disk(s) of "
                    f"{have[1]} MiB and {have[2]} MiB of memory, not {disks} of {disk_mib} MiB "
                    f"and {memory_mib} MiB: take it down first (raidsweep lab down)"
                )
            current.already_running = True
            return current
        _require(RUN_TOOLS)
        image = ensure_image(progress)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._remove_files()  # what a lab that died without `down` left
        progress("booting the VM (20 to 30 s under software emulation)")
        _run(
            ["qemu-img", "create", "-q", "-f", "qcow2", "-b", str(image / "root.img"),
             "-F", "raw", str(self.overlay)],
            "qemu-img create",
        )  # fmt: skip
        for i in range(disks):
            # Sparse and zeroed: a fresh disk every time, costing no space until written.
            with open(self.disk_file(i), "wb") as fh:
                fh.truncate(disk_mib * 1024 * 1024)
        self.console_log.write_text("")
        started = time.monotonic()
        try:
            port = self._start_qemu(image, disks, memory_mib)
        except BaseException:
            self._remove_files()
            raise
        state = {
            "port": port,
            "disks": disks,
            "disk_mib": disk_mib,
            "memory_mib": memory_mib,
            "image_key": image.name.removeprefix("image-"),
            "key_path": str(image / KEY_NAME),
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }
        self.state_path.write_text(json.dumps(state, indent=2) + "\n")
        try:
            self._wait_ready(disks, started + timeout_s)
        except BaseException:
            self.down()
            raise
        state["boot_s"] = round(time.monotonic() - started, 1)
        self.state_path.write_text(json.dumps(state, indent=2) + "\n")
        status = self.status()
        self._write_inventory(status)
        return status

    def _start_qemu(self, image: Path, disks: int, memory_mib: int) -> int:
        # The port is free when asked, but another process could take it before QEMU binds it:
        # QEMU then exits at once, and another port is tried.
        last = ""
        for _ in range(5):
            port = _free_port()
            args = [
                "qemu-system-x86_64", "-name", HOSTNAME,
                # KVM is there on some machines but does not boot a standard kernel on all of
                # them: software emulation everywhere, so the lab behaves the same.
                "-accel", "tcg,thread=multi", "-cpu", "max", "-machine", "q35",
                "-m", str(memory_mib), "-smp", "2",
                "-nodefaults", "-display", "none", "-no-reboot",
                "-kernel", str(image / "vmlinuz"), "-initrd", str(image / "initrd.img"),
                "-append", f"root=LABEL={ROOT_LABEL} rw console=ttyS0 panic=1",
                "-serial", f"file:{self.console_log}",
                "-daemonize", "-pidfile", str(self.pidfile),
            ]  # fmt: skip
            # Data disks first, so they take the first names (vda, vdb, ...); the serial gives
            # each a stable /dev/disk/by-id/virtio-dataN whatever the order.
            for i in range(disks):
                drive = f"if=none,id=d{i},file={self.disk_file(i)},format=raw,cache=unsafe"
                args += ["-drive", drive, "-device", f"virtio-blk-pci,drive=d{i},serial=data{i}"]
            args += [
                "-drive", f"if=none,id=root,file={self.overlay},format=qcow2,cache=unsafe",
                "-device", "virtio-blk-pci,drive=root,serial=root",
                "-netdev", f"user,id=n0,hostfwd=tcp:127.0.0.1:{port}-:22",
                "-device", "virtio-net-pci,netdev=n0",
            ]  # fmt: skip
            # QEMU's own messages go to a file: a pipe held open by the daemon would block us.
            with open(self.folder / "qemu.log", "w") as log:
                proc = subprocess.run(
                    args, stdin=subprocess.DEVNULL, stdout=log, stderr=log, check=False
                )
            if proc.returncode == 0 and self._pid():
                return port
            last = (self.folder / "qemu.log").read_text().strip()
            if "hostfwd" not in last and "Could not set up host forwarding" not in last:
                break
        raise LabError(f"QEMU did not start:\n{last}")

    def _wait_ready(self, disks: int, deadline: float) -> None:
        # Ready means: sshd answers with our key, udev has made the by-id links of every data
        # disk, and md is loaded; that is what Ansible and the linux_md role need.
        last = f"/dev/disk/by-id/virtio-data{disks - 1}"
        probe = f"udevadm settle --timeout=30; test -e {last} && test -e /proc/mdstat"
        while True:
            if not self._pid():
                raise LabError(f"the VM stopped while booting:\n{self._console_tail()}")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise LabError(
                    f"the lab did not answer on SSH within the timeout; the console's last "
                    f"lines ({self.console_log}):\n{self._console_tail()}"
                )
            try:
                proc = self.ssh(probe, check=False, timeout=min(60.0, max(remaining, 5.0)))
            except subprocess.TimeoutExpired:
                continue
            if proc.returncode == 0:
                return
            time.sleep(1.0)

    def _console_tail(self, lines: int = 30) -> str:
        try:
            text = self.console_log.read_text(errors="replace")
        except OSError:
            return "(no console log)"
        return "\n".join(text.replace("\r", "").splitlines()[-lines:])

    def _write_inventory(self, status: LabStatus) -> None:
        disks = "\n".join(f"#   {d}  ({self.disk_file(i).name}, {status.disk_mib} MiB)"
                          for i, d in enumerate(status.disks))  # fmt: skip
        devices = "\n".join(f"            - {d}" for d in status.disks)
        text = f"""\
# Written by `raidsweep lab up` for the lab VM in {self.folder}
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
        self.inventory_path.write_text(text)

    def ssh(
        self, command: str | list[str], check: bool = True, timeout: float | None = 120.0
    ) -> subprocess.CompletedProcess[str]:
        """Run ``command`` in the guest as root (a list is quoted for the guest's shell)."""
        state = self._state()
        if not state:
            raise LabError(f"no lab in {self.folder}: run `raidsweep lab up` first")
        remote = command if isinstance(command, str) else shlex.join(command)
        args = [
            "ssh", *SSH_OPTIONS, "-o", "ConnectTimeout=10", "-i", state["key_path"],
            "-p", str(state["port"]), "root@127.0.0.1", remote,
        ]  # fmt: skip
        proc = subprocess.run(
            args, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
        )
        if check and proc.returncode != 0:
            raise LabCommandError(proc.returncode, remote, proc.stdout, proc.stderr)
        return proc

    def down(self) -> bool:
        """Stop the VM and remove its disks and overlay; False if it was not running."""
        pid = self._pid()
        if pid:
            os.kill(pid, signal.SIGTERM)  # the disks are thrown away: no clean shutdown needed
            deadline = time.monotonic() + 15
            while self._pid() == pid and time.monotonic() < deadline:
                time.sleep(0.1)
            if self._pid() == pid:
                os.kill(pid, signal.SIGKILL)
                while self._pid() == pid:
                    time.sleep(0.1)
        self._remove_files()
        return pid is not None

    def _remove_files(self) -> None:
        # The console log stays, for a look at how the last lab ended.
        paths = [self.overlay, self.pidfile, self.state_path, self.inventory_path]
        paths += [Path(p) for p in glob.glob(str(self.folder / "data*.img"))]
        for path in paths:
            path.unlink(missing_ok=True)


def check_shape(disks: int, disk_mib: int, memory_mib: int) -> None:
    """ValueError naming the parameter when the lab's shape is out of range."""
    if not 1 <= disks <= MAX_DISKS:
        raise ValueError(f"disks: {disks} is not between 1 and {MAX_DISKS}")
    if disk_mib < MIN_DISK_MIB:
        raise ValueError(f"disk_mib: {disk_mib} MiB is less than {MIN_DISK_MIB} MiB")
    if memory_mib < MIN_MEMORY_MIB:
        raise ValueError(f"memory_mib: {memory_mib} MiB is less than {MIN_MEMORY_MIB} MiB")
