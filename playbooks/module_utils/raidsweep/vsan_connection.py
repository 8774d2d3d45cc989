"""One login to vCenter, with the SPBM and vSAN endpoints bound to its session: every read
and every change the vsan_policy module makes goes through it (pyvmomi)."""

from __future__ import annotations

import re
import ssl
import time
from http.client import HTTPException
from typing import Any

from ansible.module_utils.raidsweep.vsan_rules import (
    VsanError,
    capability_values,
    rules_from_capabilities,
)

try:
    from pyVim.connect import Disconnect, SmartConnect
    from pyVmomi import SoapStubAdapter, VmomiSupport, pbm, vim, vmodl

    HAS_PYVMOMI = True
    #: a fault a vSphere server answered with
    MethodFault: type[Exception] = vmodl.MethodFault
except ImportError:  # pragma: no cover - reported by the module as a clear failure
    HAS_PYVMOMI = False

    class MethodFault(Exception):  # type: ignore[no-redef]
        """Stands in for pyVmomi's fault where pyvmomi is missing (nothing raises it)."""


PBM_VERSION = "pbm.version.version11"
VSAN_VERSION = "vim.version.version10"


class Connection:
    """One login to vCenter, with the SPBM and vSAN endpoints bound to its session."""

    def __init__(
        self,
        hostname: str,
        port: int,
        username: str,
        password: str,
        validate_certs: bool = True,
        timeout_s: int = 30,
    ):
        self.hostname = hostname
        self.port = port
        self.where = f"vCenter {hostname}:{port}"
        self._password = password
        if validate_certs:
            self.ssl = ssl.create_default_context()
        else:
            self.ssl = ssl._create_unverified_context()  # noqa: S323 - asked for explicitly
        try:
            self.si = SmartConnect(
                host=hostname,
                port=port,
                user=username,
                pwd=password,
                sslContext=self.ssl,
                httpConnectionTimeout=timeout_s,
                disableSslCertValidation=not validate_certs,
            )
        except vim.fault.InvalidLogin:
            raise VsanError(f"{self.where} refused the login of user {username!r}") from None
        except ssl.SSLCertVerificationError as exc:
            raise VsanError(
                f"{self.where}: its TLS certificate is not trusted ({exc.verify_message}); "
                "install its CA, or set validate_certs: false for a test server"
            ) from None
        except (OSError, HTTPException) as exc:  # refused, timed out, no route, TLS
            raise VsanError(f"cannot reach {self.where}: {self.scrub(str(exc))}") from None
        except vmodl.MethodFault as exc:
            raise VsanError(f"{self.where} refused the login: {self.scrub(exc.msg)}") from None
        self.content = self.si.RetrieveContent()
        self._pbm: Any = None
        self.pbm_path: str | None = None
        self._vsan_stub: Any = None

    def scrub(self, text: str) -> str:
        """Text with the password replaced, for any message that might echo a request."""
        # A very short password would mask letters of host names, not hide a secret.
        if self._password and len(self._password) >= 4:
            return text.replace(self._password, "********")
        return text

    def close(self) -> None:
        try:
            Disconnect(self.si)
        except Exception:  # noqa: BLE001,S110 - logging out is a courtesy
            pass

    def _session_cookie(self) -> str:
        cookie = self.si._stub.cookie
        # vCenter quotes the session id, vcsim does not: accept both.
        m = re.search(r'vmware_soap_session="?([^";]+)"?', cookie or "")
        if not m:
            raise VsanError(f"{self.where} gave no session cookie for the SPBM endpoint")
        return m.group(1)

    def _stub(self, path: str, version: str) -> Any:
        stub = SoapStubAdapter(
            host=self.hostname, port=self.port, path=path, version=version, sslContext=self.ssl
        )
        stub.cookie = self.si._stub.cookie
        return stub

    @property
    def pbm(self) -> Any:
        """SPBM's service content. vCenter serves it at /pbm/sdk, vcsim at /pbm: the path
        follows the server, tried in that order."""
        if self._pbm is None:
            # SPBM authenticates by the vCenter session, given both as the HTTP cookie and
            # as the vcSessionCookie request context.
            VmomiSupport.GetRequestContext()["vcSessionCookie"] = self._session_cookie()
            last: Exception | None = None
            for path in ("/pbm/sdk", "/pbm"):
                try:
                    si = pbm.ServiceInstance("ServiceInstance", self._stub(path, PBM_VERSION))
                    self._pbm = si.PbmRetrieveServiceContent()
                    self.pbm_path = path
                    break
                except HTTPException as exc:  # 404: not served at this path
                    last = exc
            if self._pbm is None:
                raise VsanError(f"{self.where} serves no SPBM endpoint ({last})")
        return self._pbm

    @property
    def cluster_config(self) -> Any:
        """The vSAN cluster configuration service (/vsanHealth)."""
        if self._vsan_stub is None:
            self._vsan_stub = self._stub("/vsanHealth", VSAN_VERSION)
        return vim.cluster.VsanVcClusterConfigSystem("vsan-cluster-config-system", self._vsan_stub)

    # ------------------------------------------------------------------ inventory

    def _view(self, kind: Any) -> list[Any]:
        view = self.content.viewManager.CreateContainerView(self.content.rootFolder, [kind], True)
        try:
            return list(view.view)
        finally:
            view.Destroy()

    def properties(self, obj: Any, kind: Any, paths: list[str]) -> dict[str, Any]:
        """Properties read through the PropertyCollector: an unset one is simply absent
        (reading it as an attribute fails on some servers, e.g. vm.snapshot on vcsim)."""
        spec = vmodl.query.PropertyCollector.FilterSpec(
            objectSet=[vmodl.query.PropertyCollector.ObjectSpec(obj=obj)],
            propSet=[vmodl.query.PropertyCollector.PropertySpec(type=kind, pathSet=paths)],
        )
        found = self.content.propertyCollector.RetrieveContents([spec])
        return {p.name: p.val for p in found[0].propSet} if found else {}

    def cluster(self, name: str) -> Any:
        clusters = {c.name: c for c in self._view(vim.ClusterComputeResource)}
        if name not in clusters:
            known = ", ".join(sorted(clusters)) or "none"
            raise VsanError(f"cluster {name!r} does not exist in {self.where} (it has: {known})")
        return clusters[name]

    def usable_hosts(self, cluster: Any) -> list[str]:
        """Hosts that hold vSAN components now: connected and not in maintenance mode."""
        names = []
        for host in cluster.host:
            p = self.properties(
                host,
                vim.HostSystem,
                ["name", "runtime.connectionState", "runtime.inMaintenanceMode"],
            )
            if p.get("runtime.connectionState") == "connected" and not p.get(
                "runtime.inMaintenanceMode"
            ):
                names.append(p["name"])
        return names

    def host_storage(self, cluster: Any) -> dict[str, Any]:
        """Each host's vSAN storage (its disk groups), None where it reports none."""
        out = {}
        for host in cluster.host:
            p = self.properties(host, vim.HostSystem, ["name", "config.vsanHostConfig"])
            if "name" in p:
                out[p["name"]] = getattr(p.get("config.vsanHostConfig"), "storageInfo", None)
        return out

    def esa_enabled(self, cluster: Any) -> bool | None:
        """vSAN Express Storage Architecture on the cluster; None where unreported (or where
        the vSAN service does not answer: this only informs the all-flash check)."""
        try:
            info = self.cluster_config.VsanClusterGetConfig(cluster=cluster)
        except (HTTPException, OSError, vmodl.MethodFault):
            return None
        return getattr(info, "vsanEsaEnabled", None)

    def vms(self, wanted: list[dict[str, Any]]) -> list[tuple[Any, list[Any]]]:
        """(VM, its test disks) per worker; every missing VM or disk named at once."""
        by_name: dict[str, Any] = {}
        for vm in self._view(vim.VirtualMachine):
            by_name.setdefault(vm.name, vm)
        problems, out = [], []
        for entry in wanted:
            name = entry["name"]
            vm = by_name.get(name)
            if vm is None:
                problems.append(f"worker VM {name!r} does not exist in {self.where}")
                continue
            devices = self.properties(vm, vim.VirtualMachine, ["config.hardware.device"])
            disks = {
                d.deviceInfo.label: d
                for d in devices.get("config.hardware.device", [])
                if isinstance(d, vim.vm.device.VirtualDisk)
            }
            chosen = []
            for label in entry.get("disks") or []:
                if label not in disks:
                    have = ", ".join(sorted(disks)) or "no disks"
                    problems.append(f"worker VM {name!r} has no disk {label!r} (it has: {have})")
                else:
                    chosen.append(disks[label])
            if not entry.get("disks"):
                problems.append(f"worker VM {name!r}: no test disks named")
            out.append((vm, chosen))
        if problems:
            raise VsanError("; ".join(problems))
        return out

    def wait(self, task: Any, what: str, timeout_s: float) -> None:
        """Poll a task's info.state through the PropertyCollector of vCenter's own endpoint
        (the vSAN service's tasks live there too; info.entity may be a type that pyvmomi
        cannot place, so only state and error are read)."""
        task = vim.Task(task._moId, self.si._stub)
        deadline = time.monotonic() + timeout_s
        delay = 0.05
        while True:
            p = self.properties(task, vim.Task, ["info.state", "info.error"])
            state = p.get("info.state")
            if state == "success":
                return
            if state == "error":
                err = p.get("info.error")
                msg = getattr(err, "msg", None) or type(err).__name__
                raise VsanError(f"{what} failed in {self.where}: {self.scrub(msg)}")
            if time.monotonic() > deadline:
                raise VsanError(f"{what} did not finish within {timeout_s:.0f}s in {self.where}")
            time.sleep(delay)
            delay = min(delay * 2, 2.0)

    # ------------------------------------------------------------------ SPBM

    def _resource_type(self) -> Any:
        return pbm.profile.ResourceType(resourceType="STORAGE")

    def policies(self) -> list[Any]:
        pm = self.pbm.profileManager
        ids = pm.PbmQueryProfile(resourceType=self._resource_type(), profileCategory="REQUIREMENT")
        return list(pm.PbmRetrieveContent(profileIds=ids)) if ids else []

    def find_policy(self, name: str) -> Any:
        matches = [p for p in self.policies() if p.name == name]
        if len(matches) > 1:
            raise VsanError(f"{self.where} has {len(matches)} storage policies named {name!r}")
        return matches[0] if matches else None

    @staticmethod
    def vsan_capabilities(profile: Any) -> dict[str, Any]:
        caps: dict[str, Any] = {}
        constraints = getattr(profile, "constraints", None)
        for sub in getattr(constraints, "subProfiles", None) or []:
            for cap in sub.capability or []:
                if cap.id.namespace != "VSAN":
                    continue
                for inst in cap.constraint or []:
                    for prop in inst.propertyInstance or []:
                        caps[prop.id] = prop.value
        return caps

    def offered_capabilities(self) -> set[str] | None:
        """vSAN capability ids the server's SPBM offers, or None where it cannot say
        (vcsim does not implement PbmFetchCapabilityMetadata)."""
        try:
            meta = self.pbm.profileManager.PbmFetchCapabilityMetadata(
                resourceType=self._resource_type()
            )
        except (vmodl.fault.MethodNotFound, vmodl.fault.NotImplemented):
            return None
        ids: set[str] = set()
        for category in meta or []:
            for cap in category.capabilityMetadata or []:
                if cap.id.namespace == "VSAN":
                    ids.add(cap.id.id)
        return ids

    def _constraints(self, rules: dict[str, Any]) -> Any:
        def instance(cap_id: str, value: Any) -> Any:
            return pbm.capability.CapabilityInstance(
                id=pbm.capability.CapabilityMetadata.UniqueId(namespace="VSAN", id=cap_id),
                constraint=[
                    pbm.capability.ConstraintInstance(
                        propertyInstance=[pbm.capability.PropertyInstance(id=cap_id, value=value)]
                    )
                ],
            )

        return pbm.profile.SubProfileCapabilityConstraints(
            subProfiles=[
                pbm.profile.SubProfileCapabilityConstraints.SubProfile(
                    name="VSAN sub-profile",
                    capability=[instance(k, v) for k, v in capability_values(rules).items()],
                )
            ]
        )

    def create_policy(self, name: str, rules: dict[str, Any]) -> str:
        spec = pbm.profile.CapabilityBasedProfileCreateSpec(
            name=name,
            description="raidsweep: the configuration under test",
            category="REQUIREMENT",
            resourceType=self._resource_type(),
            constraints=self._constraints(rules),
        )
        return self.pbm.profileManager.PbmCreate(createSpec=spec).uniqueId

    def update_policy(self, profile: Any, rules: dict[str, Any]) -> tuple[str, str]:
        """(policy id, how): PbmUpdate where the server has it; a server without it (vcsim)
        gets the policy deleted and created again under the same name."""
        pm = self.pbm.profileManager
        spec = pbm.profile.CapabilityBasedProfileUpdateSpec(
            description="raidsweep: the configuration under test",
            constraints=self._constraints(rules),
        )
        try:
            pm.PbmUpdate(profileId=profile.profileId, updateSpec=spec)
            return profile.profileId.uniqueId, "updated"
        except (vmodl.fault.MethodNotFound, vmodl.fault.NotImplemented):
            pm.PbmDelete(profileId=[profile.profileId])
            return self.create_policy(profile.name, rules), "recreated"

    def delete_policy(self, profile: Any) -> None:
        results = self.pbm.profileManager.PbmDelete(profileId=[profile.profileId])
        for r in results or []:
            if getattr(r, "fault", None) is not None:
                raise VsanError(
                    f"{self.where} kept storage policy {profile.name!r}: "
                    f"{self.scrub(getattr(r.fault, 'msg', '') or type(r.fault).__name__)}"
                )

    def disk_policy(self, vm: Any, disk: Any) -> str | None:
        """The policy vCenter reports for a virtual disk; None where it reports none
        (vcsim accepts an assignment but does not keep it)."""
        ref = pbm.ServerObjectRef(
            objectType="virtualDiskId",
            key=f"{vm._moId}:{disk.key}",
            serverUuid=self.content.about.instanceUuid,
        )
        ids = self.pbm.profileManager.PbmQueryAssociatedProfile(entity=ref)
        return ids[0].uniqueId if ids else None

    def assign(self, vm: Any, disks: list[Any], policy_id: str | None, timeout_s: float) -> None:
        """Give ``disks`` the policy (None: the datastore's default policy)."""
        profile = (
            vim.vm.DefinedProfileSpec(profileId=policy_id)
            if policy_id
            else vim.vm.DefaultProfileSpec()
        )
        changes = [
            vim.vm.device.VirtualDeviceSpec(operation="edit", device=d, profile=[profile])
            for d in disks
        ]
        task = vm.ReconfigVM_Task(spec=vim.vm.ConfigSpec(deviceChange=changes))
        self.wait(task, f"applying the storage policy to VM {vm.name!r}", timeout_s)

    # ------------------------------------------------------------------ vSAN cluster

    def data_efficiency(self, cluster: Any) -> bool | None:
        """Deduplication and compression as the cluster reports them; None where the server
        does not report them (vcsim accepts a change but keeps none)."""
        info = self.cluster_config.VsanClusterGetConfig(cluster=cluster)
        de = getattr(info, "dataEfficiencyConfig", None)
        if de is None:
            return None
        return bool(de.dedupEnabled) and bool(de.compressionEnabled)

    def set_data_efficiency(self, cluster: Any, enabled: bool, timeout_s: float) -> None:
        spec = vim.vsan.ReconfigSpec(
            modify=True,
            dataEfficiencyConfig=vim.vsan.DataEfficiencyConfig(
                dedupEnabled=enabled, compressionEnabled=enabled
            ),
        )
        task = self.cluster_config.VsanClusterReconfig(cluster=cluster, vsanReconfigSpec=spec)
        what = f"turning deduplication and compression {'on' if enabled else 'off'}"
        self.wait(task, f"{what} on cluster {cluster.name!r}", timeout_s)

    # ------------------------------------------------------------------ snapshots

    def snapshot(self, vm: Any, name: str) -> Any:
        """The VM's snapshot called ``name`` (a tree walk), or None."""
        p = self.properties(vm, vim.VirtualMachine, ["snapshot"])
        todo = list(getattr(p.get("snapshot"), "rootSnapshotList", None) or [])
        while todo:
            node = todo.pop()
            if node.name == name:
                return node.snapshot
            todo.extend(node.childSnapshotList or [])
        return None

    def take_snapshot(self, vm: Any, name: str, timeout_s: float) -> None:
        task = vm.CreateSnapshot_Task(
            name=name,
            description="raidsweep: held during the runs of a configuration",
            memory=False,
            quiesce=False,
        )
        self.wait(task, f"taking snapshot {name!r} of VM {vm.name!r}", timeout_s)

    def remove_snapshot(self, vm: Any, snap: Any, name: str, timeout_s: float) -> None:
        task = snap.RemoveSnapshot_Task(removeChildren=False)
        self.wait(task, f"removing snapshot {name!r} of VM {vm.name!r}", timeout_s)


def policy_view(conn: Connection, profile: Any) -> dict[str, Any] | None:
    """A storage policy as SPBM reads it back: name, id, rules and vSAN capabilities."""
    if profile is None:
        return None
    return {
        "name": profile.name,
        "id": profile.profileId.uniqueId,
        "rules": rules_from_capabilities(conn.vsan_capabilities(profile)),
        "capabilities": conn.vsan_capabilities(profile),
    }
