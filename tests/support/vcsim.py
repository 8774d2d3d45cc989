"""vcsim, govmomi's vSphere API simulator, started on 127.0.0.1 for the vsan tests.

scripts/install-vcsim.sh (run by scripts/test.sh) installs the binary; ``RAIDSWEEP_VCSIM``
names another one.
"""

from __future__ import annotations

import os
import re
import shutil
import ssl
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from pyVim.connect import Disconnect, SmartConnect
from pyVmomi import SoapStubAdapter, VmomiSupport, pbm, vim, vmodl

from tests.support.processes import stop

VCSIM_VERSION = "v0.46.3"
USERNAME = "raidsweep"  # vcsim takes no "@" in its user name
#: distinctive, so a grep for it cannot match anything by chance
PASSWORD = "Vc-s1m!Pa55w0rd-7f3a9c"  # noqa: S105 - the simulator's test password


@dataclass(frozen=True)
class Vcsim:
    host: str
    port: int
    username: str
    password: str
    #: seconds from start to the API answering
    start_s: float
    cluster: str = "DC0_C0"
    #: the simulator's VMs in the cluster, and the label of each one's disk
    vms: tuple[str, ...] = ("DC0_C0_RP0_VM0", "DC0_C0_RP0_VM1")
    disk: str = "disk-202-0"


def vcsim_binary() -> str:
    named = os.environ.get("RAIDSWEEP_VCSIM")
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    default = Path(
        os.environ.get("RAIDSWEEP_VCSIM_DIR", cache / "raidsweep" / f"vcsim-{VCSIM_VERSION}")
    )
    for candidate in (named, str(default / "vcsim"), shutil.which("vcsim")):
        if candidate and Path(candidate).is_file():
            return candidate
    raise FileNotFoundError(
        f"vcsim {VCSIM_VERSION} is not installed: run scripts/install-vcsim.sh "
        "(scripts/test.sh does), or name it in RAIDSWEEP_VCSIM"
    )


@contextmanager
def running_vcsim(
    hosts: int = 6, timeout_s: float = 30.0, password: str = PASSWORD
) -> Iterator[Vcsim]:
    """A vcsim with one cluster of ``hosts`` hosts on a free loopback port, stopped after."""
    started = time.monotonic()
    proc = subprocess.Popen(
        [
            vcsim_binary(),
            "-l",
            "127.0.0.1:0",
            "-host",
            str(hosts),
            "-username",
            USERNAME,
            "-password",
            password,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        port = None
        deadline = started + timeout_s
        # vcsim prints its URL (port 0 lets the kernel choose a free one) once it listens.
        while port is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line and proc.poll() is not None:
                raise RuntimeError(f"vcsim exited with {proc.returncode} before listening")
            m = re.search(r"@127\.0\.0\.1:(\d+)/sdk", line)
            if m:
                port = int(m.group(1))
        if port is None:
            raise RuntimeError(f"vcsim did not listen within {timeout_s:.0f}s")
        # Keep reading what it prints, so a full pipe never blocks it.
        threading.Thread(target=proc.stdout.read, daemon=True).start()
        yield Vcsim("127.0.0.1", port, USERNAME, password, time.monotonic() - started)
    finally:
        stop(proc, 10)


def vcsim_fixture(scope: str = "function", hosts: int = 6) -> Callable[[], Iterator[Vcsim]]:
    """The ``vcsim`` fixture: a vcsim of ``hosts`` hosts for each test, or one for a module's
    tests (``scope="module"``, assigned to ``vcsim`` in that module)."""

    @pytest.fixture(scope=scope, name="vcsim")
    def vcsim() -> Iterator[Vcsim]:
        with running_vcsim(hosts=hosts) as sim:
            yield sim

    return vcsim


#: a vcsim for each test (tests/integration/conftest.py registers it)
vcsim = vcsim_fixture()


class Observer:
    """vcsim as seen through pyvmomi, not through the module under test."""

    def __init__(self, sim: Vcsim):
        self.sim = sim
        ctx = ssl._create_unverified_context()
        self.si = SmartConnect(
            host=sim.host, port=sim.port, user=sim.username, pwd=sim.password, sslContext=ctx
        )
        cookie = self.si._stub.cookie
        VmomiSupport.GetRequestContext()["vcSessionCookie"] = re.search(
            r'vmware_soap_session="?([^";]+)"?', cookie
        ).group(1)
        stub = SoapStubAdapter(
            host=sim.host,
            port=sim.port,
            path="/pbm",
            version="pbm.version.version11",
            sslContext=ctx,
        )
        stub.cookie = cookie
        self.pm = pbm.ServiceInstance("ServiceInstance", stub).PbmRetrieveServiceContent()
        self.pm = self.pm.profileManager
        self.content = self.si.RetrieveContent()

    def close(self) -> None:
        Disconnect(self.si)

    def policies(self) -> dict[str, dict[str, Any]]:
        """Every storage requirement policy: name -> its VSAN capabilities."""
        ids = self.pm.PbmQueryProfile(
            resourceType=pbm.profile.ResourceType(resourceType="STORAGE"),
            profileCategory="REQUIREMENT",
        )
        out: dict[str, dict[str, Any]] = {}
        for p in self.pm.PbmRetrieveContent(profileIds=ids):
            caps = {}
            for sub in getattr(p.constraints, "subProfiles", None) or []:
                for cap in sub.capability or []:
                    if cap.id.namespace == "VSAN":
                        for c in cap.constraint:
                            caps |= {pi.id: pi.value for pi in c.propertyInstance}
            assert p.name not in out, f"two policies named {p.name!r}"
            out[p.name] = caps
        return out

    def snapshots(self, vm_name: str) -> list[str]:
        vm = next(v for v in self._vms() if v.name == vm_name)
        spec = vmodl.query.PropertyCollector.FilterSpec(
            objectSet=[vmodl.query.PropertyCollector.ObjectSpec(obj=vm)],
            propSet=[
                vmodl.query.PropertyCollector.PropertySpec(
                    type=vim.VirtualMachine, pathSet=["snapshot"]
                )
            ],
        )
        found = self.content.propertyCollector.RetrieveContents([spec])
        props = {p.name: p.val for p in found[0].propSet}
        roots = props["snapshot"].rootSnapshotList if "snapshot" in props else []
        return [s.name for s in roots]

    def _vms(self) -> list[Any]:
        view = self.content.viewManager.CreateContainerView(
            self.content.rootFolder, [vim.VirtualMachine], True
        )
        return list(view.view)


def write_inventory(
    path: Path, sim: Vcsim, vms: tuple[str, ...] | None = None, **host: Any
) -> Path:
    """An inventory like inventories/vsan/hosts.yml, pointing at the simulator."""
    storage = {
        "ansible_connection": "local",
        "ansible_python_interpreter": "{{ ansible_playbook_python }}",
        "vsan_hostname": sim.host,
        "vsan_port": sim.port,
        "vsan_username": sim.username,
        "vsan_cluster": sim.cluster,
        "vsan_validate_certs": False,
    } | host
    workers = {vm: {"vsan_test_disks": [sim.disk]} for vm in (vms or sim.vms)}
    path.write_text(
        yaml.safe_dump(
            {
                "all": {
                    "children": {
                        "storage": {"hosts": {"vcenter": storage}},
                        "workers": {"hosts": workers},
                    }
                }
            }
        )
    )
    return path
