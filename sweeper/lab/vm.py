"""The lab VM's lifecycle: up, status, SSH into the guest, down.

The machine running raidsweep may have no md or device-mapper in its kernel (containers, CI).
The lab is a small Debian bookworm guest under QEMU (software emulation: TCG) with several small
virtual data disks, reached over SSH on a loopback port, with an Ansible inventory written beside
it. Every ``up`` boots the cached root image (``sweeper.lab.image``) through a fresh qcow2
overlay, so the cached image stays pristine and each lab starts clean.
"""

from __future__ import annotations

import glob
import json
import os
import shlex
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sweeper.lab.errors import LabCommandError, LabConflict, LabError
from sweeper.lab.image import HOSTNAME, KEY_NAME, ROOT_LABEL, cache_root, ensure_image
from sweeper.lab.inventory import inventory_text
from sweeper.lab.shape import check_fits, check_shape
from sweeper.lab.tools import require_tools, run_tool

SSH_OPTIONS = (
    "-o",
    "StrictHostKeyChecking=no",
    "-o",
    "UserKnownHostsFile=/dev/null",
    "-o",
    "BatchMode=yes",
    "-o",
    "LogLevel=ERROR",
    "-o",
    "IdentitiesOnly=yes",
)
BOOT_TIMEOUT_S = 180.0
#: the tools the VM needs, and the Debian package each comes from
RUN_TOOLS = {
    "qemu-system-x86_64": "qemu-system-x86",
    "qemu-img": "qemu-utils",
    "ssh": "openssh-client",
}


def default_vm_dir() -> Path:
    return cache_root() / "lab" / "vm"


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


class _InFolder:
    """A file of the lab's folder, read as an attribute (``lab.pidfile``)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, lab: Lab, owner: type | None = None) -> Path:
        return lab.folder / self.name


class Lab:
    """The lab VM whose files live in ``folder`` (default ``~/.cache/raidsweep/lab/vm``)."""

    def __init__(self, folder: Path | str | None = None):
        self.folder = Path(folder).expanduser().absolute() if folder else default_vm_dir()

    # Files of the running VM; all inside the folder, all removed by down() but the console log.
    inventory_path = _InFolder("hosts.yml")
    pidfile = _InFolder("qemu.pid")
    state_path = _InFolder("lab.json")
    console_log = _InFolder("console.log")
    overlay = _InFolder("overlay.qcow2")

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
        check_fits(disks, disk_mib, memory_mib, self.folder)
        require_tools(RUN_TOOLS)
        image = ensure_image(progress)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._remove_files()  # what a lab that died without `down` left
        progress("booting the VM (20 to 30 s under software emulation)")
        run_tool(
            [
                "qemu-img",
                "create",
                "-q",
                "-f",
                "qcow2",
                "-b",
                str(image / "root.img"),
                "-F",
                "raw",
                str(self.overlay),
            ],
            "qemu-img create",
        )
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
                "qemu-system-x86_64",
                "-name",
                HOSTNAME,
                # KVM is there on some machines but does not boot a standard kernel on all of
                # them: software emulation everywhere, so the lab behaves the same.
                "-accel",
                "tcg,thread=multi",
                "-cpu",
                "max",
                "-machine",
                "q35",
                "-m",
                str(memory_mib),
                "-smp",
                "2",
                "-nodefaults",
                "-display",
                "none",
                "-no-reboot",
                "-kernel",
                str(image / "vmlinuz"),
                "-initrd",
                str(image / "initrd.img"),
                "-append",
                f"root=LABEL={ROOT_LABEL} rw console=ttyS0 panic=1",
                "-serial",
                f"file:{self.console_log}",
                "-daemonize",
                "-pidfile",
                str(self.pidfile),
            ]
            # Data disks first, so they take the first names (vda, vdb, ...); the serial gives
            # each a stable /dev/disk/by-id/virtio-dataN whatever the order.
            for i in range(disks):
                drive = f"if=none,id=d{i},file={self.disk_file(i)},format=raw,cache=unsafe"
                args += ["-drive", drive, "-device", f"virtio-blk-pci,drive=d{i},serial=data{i}"]
            args += [
                "-drive",
                f"if=none,id=root,file={self.overlay},format=qcow2,cache=unsafe",
                "-device",
                "virtio-blk-pci,drive=root,serial=root",
                "-netdev",
                f"user,id=n0,hostfwd=tcp:127.0.0.1:{port}-:22",
                "-device",
                "virtio-net-pci,netdev=n0",
            ]
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
        files = [self.disk_file(i).name for i in range(len(status.disks))]
        self.inventory_path.write_text(inventory_text(status, files))

    def ssh(
        self, command: str | list[str], check: bool = True, timeout: float | None = 120.0
    ) -> subprocess.CompletedProcess[str]:
        """Run ``command`` in the guest as root (a list is quoted for the guest's shell)."""
        state = self._state()
        if not state:
            raise LabError(f"no lab in {self.folder}: run `raidsweep lab up` first")
        remote = command if isinstance(command, str) else shlex.join(command)
        args = [
            "ssh",
            *SSH_OPTIONS,
            "-o",
            "ConnectTimeout=10",
            "-i",
            state["key_path"],
            "-p",
            str(state["port"]),
            "root@127.0.0.1",
            remote,
        ]
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
