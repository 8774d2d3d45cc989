#!/usr/bin/python
"""Ansible module: a vSAN storage policy on the worker VMs' test disks, through pyvmomi.

The community modules manage only tag-based policies; this one writes vSAN rules (SPBM),
applies the policy to named virtual disks, sets the cluster's deduplication and compression
(vSAN cluster configuration service) and holds a VM snapshot on each worker during the runs.
"""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: vsan_policy
short_description: A vSAN storage policy on the worker VMs' test disks
description:
  - Creates or updates a vSAN storage policy (SPBM) with the rules failures to tolerate,
    failure tolerance method, number of disk stripes per object, object space reservation
    and flash read cache reservation; applies it to the named disks of the worker VMs; sets
    the cluster's deduplication and compression; holds (or releases) a snapshot of each worker.
  - Everything is checked before anything changes (vCenter reachable, login accepted, cluster,
    VMs and disks present, every rule offered by the cluster); a problem fails with a message
    that names the host, rule, VM or disk, never the password, and nothing is changed.
  - Check mode reports the planned changes and changes nothing.
  - C(state=query) changes nothing and reports what the cluster, VMs and policy are now.
options:
  hostname:
    description: vCenter server name or address.
    type: str
    required: true
  port:
    description: vCenter HTTPS port.
    type: int
    default: 443
  username:
    description: vCenter user; from C(VSAN_USERNAME) or C(VMWARE_USER) when not given.
    type: str
  password:
    description:
      - vCenter password; from Ansible Vault, or C(VSAN_PASSWORD) or C(VMWARE_PASSWORD).
      - Never logged, never returned.
    type: str
  validate_certs:
    description: Verify vCenter's TLS certificate.
    type: bool
    default: true
  cluster:
    description: Name of the vSAN cluster (compute resource) the workers run on.
    type: str
    required: true
  vms:
    description: The worker VMs, each with the labels of its test disks (C(Hard disk 2)).
    type: list
    elements: dict
    required: true
  policy:
    description:
      - The storage policy, in vSphere's terms, for C(state=present).
      - Keys C(name), C(failures_to_tolerate), C(failure_tolerance_method)
        (C(RAID-1 (Mirroring)) or C(RAID-5/6 (Erasure Coding))), C(stripe_width),
        C(object_space_reservation) and C(flash_read_cache_reservation) (percent).
    type: dict
  policy_name:
    description: Name of the policy for C(state=absent) and C(state=query).
    type: str
    default: raidsweep
  data_reduction:
    description: Deduplication and compression on the cluster; omitted leaves them as they are.
    type: bool
  snapshots:
    description: Hold a snapshot of every worker VM; omitted leaves snapshots as they are.
    type: bool
  snapshot_name:
    description: Name of the snapshot this module holds and removes (no other is touched).
    type: str
    default: raidsweep-hold
  task_timeout:
    description: Seconds to wait for one vCenter task.
    type: int
    default: 900
  check_policies:
    description:
      - With C(state=query), policies (keys as in I(policy)) to check against what the
        cluster offers; the problems are returned per policy, in order.
    type: list
    elements: dict
    default: []
  state:
    description: C(present) applies, C(absent) removes the snapshot, the disks' policy and
      the policy itself, C(query) only reports.
    type: str
    choices: [present, absent, query]
    default: present
"""

EXAMPLES = r"""
- name: RAID-5 erasure coding, each component striped over 4 capacity devices
  vsan_policy:
    hostname: vcenter.example.com
    username: sweep@vsphere.local
    password: "{{ vsan_password }}"
    cluster: vsan-cluster
    vms: [{name: worker-1, disks: [Hard disk 2]}]
    policy:
      name: raidsweep
      failures_to_tolerate: 1
      failure_tolerance_method: RAID-5/6 (Erasure Coding)
      stripe_width: 4
    data_reduction: false
    snapshots: true
"""

RETURN = r"""
policy:
  description: The policy as vCenter reads it back (name, id, rules in vSphere's terms).
  type: dict
  returned: always
policies:
  description: Names of every storage requirement policy on the server after the call.
  type: list
  returned: always
disks:
  description: Per test disk, the policy vCenter reports for it (null where it reports none).
  type: list
  returned: always
data_reduction:
  description: Deduplication and compression as requested and as the cluster reports them.
  type: dict
  returned: always
snapshots:
  description: Per worker VM, whether the module's snapshot exists after the call.
  type: dict
  returned: always
flash:
  description:
    - With C(state=query), whether the cluster is all-flash (C(all_flash), null where vSAN
      reports no disk groups), its architecture (ESA or OSA) and each host's disk groups.
  type: dict
  returned: when state is query
policy_problems:
  description: Per policy of I(check_policies), what the cluster does not offer of it.
  type: list
  returned: when state is query
data_reduction_problems:
  description: Why the cluster cannot turn deduplication and compression on, if it cannot.
  type: list
  returned: when state is query
changes:
  description: What was changed, or in check mode what would be.
  type: list
  returned: always
"""

import re  # noqa: E402 - the documentation blocks come first in an Ansible module
import ssl  # noqa: E402
import time  # noqa: E402
from http.client import HTTPException  # noqa: E402
from typing import Any  # noqa: E402

from ansible.module_utils.basic import AnsibleModule, env_fallback  # noqa: E402

try:
    from pyVim.connect import Disconnect, SmartConnect
    from pyVmomi import SoapStubAdapter, VmomiSupport, pbm, vim, vmodl

    HAS_PYVMOMI = True
except ImportError:  # pragma: no cover - reported by the module as a clear failure
    HAS_PYVMOMI = False

MIRRORING = "RAID-1 (Mirroring)"
ERASURE_CODING = "RAID-5/6 (Erasure Coding)"
#: vSAN's own value strings of the replicaPreference capability
REPLICA_PREFERENCE = {
    MIRRORING: "RAID-1 (Mirroring) - Performance",
    ERASURE_CODING: "RAID-5/6 (Erasure Coding) - Capacity",
}
#: rule (vSphere UI name) -> vSAN capability id
RULE_IDS = {
    "failures_to_tolerate": "hostFailuresToTolerate",
    "failure_tolerance_method": "replicaPreference",
    "stripe_width": "stripeWidth",
    "object_space_reservation": "proportionalCapacity",
    "flash_read_cache_reservation": "cacheReservation",
}
RULE_TITLES = {
    "failures_to_tolerate": "Failures to tolerate",
    "failure_tolerance_method": "Failure tolerance method",
    "stripe_width": "Number of disk stripes per object",
    "object_space_reservation": "Object space reservation",
    "flash_read_cache_reservation": "Flash read cache reservation",
}
#: vSAN keeps the flash read cache reservation in ten-thousandths of a percent
CACHE_RESERVATION_SCALE = 10000
PBM_VERSION = "pbm.version.version11"
VSAN_VERSION = "vim.version.version10"


class VsanError(Exception):
    """A problem stated for the engineer: names the host, rule, VM or disk; never a secret."""


# ---------------------------------------------------------------------------- the rules


def policy_rules(policy: dict[str, Any]) -> dict[str, Any]:
    """The policy's rules in vSphere's terms, defaults filled in."""
    return {
        "failures_to_tolerate": int(policy.get("failures_to_tolerate", 1)),
        "failure_tolerance_method": policy.get("failure_tolerance_method", MIRRORING),
        "stripe_width": int(policy.get("stripe_width", 1)),
        "object_space_reservation": int(policy.get("object_space_reservation", 0)),
        "flash_read_cache_reservation": float(policy.get("flash_read_cache_reservation", 0)),
    }


def hosts_needed(rules: dict[str, Any]) -> int:
    """Hosts (fault domains) vSAN needs for the rules: 2n+1 mirrored, 4 RAID-5, 6 RAID-6."""
    ftt = rules["failures_to_tolerate"]
    if rules["failure_tolerance_method"] == ERASURE_CODING:
        return 4 if ftt == 1 else 6
    return 2 * ftt + 1


def rule_problems(rules: dict[str, Any]) -> list[str]:
    """Values vSAN does not accept for a rule, whatever the cluster."""
    problems = []
    method = rules["failure_tolerance_method"]
    if method not in REPLICA_PREFERENCE:
        problems.append(
            f"rule {RULE_TITLES['failure_tolerance_method']!r}: {method!r} is not "
            f"{MIRRORING!r} or {ERASURE_CODING!r}"
        )
    ftt = rules["failures_to_tolerate"]
    allowed = (1, 2) if method == ERASURE_CODING else (0, 1, 2, 3)
    if ftt not in allowed:
        problems.append(
            f"rule {RULE_TITLES['failures_to_tolerate']!r}: {ftt} is not offered with "
            f"{method} (offered: {', '.join(map(str, allowed))})"
        )
    if not 1 <= rules["stripe_width"] <= 12:
        problems.append(
            f"rule {RULE_TITLES['stripe_width']!r}: {rules['stripe_width']} is outside 1..12"
        )
    for key in ("object_space_reservation", "flash_read_cache_reservation"):
        if not 0 <= rules[key] <= 100:
            problems.append(f"rule {RULE_TITLES[key]!r}: {rules[key]}% is outside 0..100")
    return problems


def capability_values(rules: dict[str, Any]) -> dict[str, Any]:
    """vSAN capability id -> value, as SPBM stores it."""
    return {
        "hostFailuresToTolerate": rules["failures_to_tolerate"],
        "replicaPreference": REPLICA_PREFERENCE[rules["failure_tolerance_method"]],
        "stripeWidth": rules["stripe_width"],
        "proportionalCapacity": rules["object_space_reservation"],
        "cacheReservation": round(rules["flash_read_cache_reservation"] * CACHE_RESERVATION_SCALE),
    }


def rules_from_capabilities(caps: dict[str, Any]) -> dict[str, Any]:
    """The inverse of :func:`capability_values`, for a policy read back from SPBM."""
    method = {v: k for k, v in REPLICA_PREFERENCE.items()}.get(
        caps.get("replicaPreference", REPLICA_PREFERENCE[MIRRORING]),
        caps.get("replicaPreference"),
    )
    return {
        "failures_to_tolerate": int(caps.get("hostFailuresToTolerate", 1)),
        "failure_tolerance_method": method,
        "stripe_width": int(caps.get("stripeWidth", 1)),
        "object_space_reservation": int(caps.get("proportionalCapacity", 0)),
        "flash_read_cache_reservation": int(caps.get("cacheReservation", 0))
        / CACHE_RESERVATION_SCALE,
    }


# ---------------------------------------------------------------------------- sessions


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


# ---------------------------------------------------------------------------- the plan


def _policy_view(conn: Connection, profile: Any) -> dict[str, Any] | None:
    if profile is None:
        return None
    return {
        "name": profile.name,
        "id": profile.profileId.uniqueId,
        "rules": rules_from_capabilities(conn.vsan_capabilities(profile)),
        "capabilities": conn.vsan_capabilities(profile),
    }


def flash_of(esa: bool | None, host_storage: dict[str, Any]) -> dict[str, Any]:
    """Whether the cluster is all-flash, from what vSAN reports: an ESA cluster is (NVMe
    only); an OSA host is all-flash when every disk group's capacity devices are flash.
    ``host_storage`` maps a host's name to its ``vsanHostConfig.storageInfo`` (or None).
    ``all_flash`` is None where no host reports disk groups (vcsim reports none)."""
    if esa:
        return {"architecture": "ESA", "all_flash": True, "hosts": {}}
    hosts: dict[str, str] = {}
    for name, storage in sorted(host_storage.items()):
        mappings = list(getattr(storage, "diskMapping", None) or [])
        capacity = [d for m in mappings for d in (m.nonSsd or [])]
        if not capacity:
            hosts[name] = "no disk groups reported"
        elif all(getattr(d, "ssd", False) for d in capacity):
            hosts[name] = "all-flash"
        else:
            hosts[name] = "hybrid"
    known = [v for v in hosts.values() if v != "no disk groups reported"]
    return {
        "architecture": "OSA" if known else None,
        "all_flash": all(v == "all-flash" for v in known) if known else None,
        "hosts": hosts,
    }


class Offer:
    """What the cluster offers, read once: usable hosts, SPBM's capability metadata where the
    server serves it, and whether the cluster is all-flash where vSAN reports it."""

    def __init__(self, conn: Connection, cluster: Any):
        self.conn = conn
        self.cluster = cluster
        self.hosts = conn.usable_hosts(cluster)
        self.capabilities = conn.offered_capabilities()
        self.flash = flash_of(conn.esa_enabled(cluster), conn.host_storage(cluster))

    def _hybrid(self) -> str:
        hybrid = [h for h, v in self.flash["hosts"].items() if v == "hybrid"]
        return f"hybrid disk groups (flash cache, magnetic capacity) on {', '.join(hybrid)}"

    def problems(self, rules: dict[str, Any]) -> list[str]:
        """Everything about ``rules`` that the cluster does not offer, each naming the
        cluster and the rule."""
        name = self.cluster.name
        problems = [f"cluster {name!r}: {p}" for p in rule_problems(rules)]
        if problems:
            return problems
        if self.capabilities is not None:
            problems += [
                f"cluster {name!r} does not offer the rule {RULE_TITLES[key]!r} "
                f"(vSAN capability {cap_id}) in {self.conn.where}"
                for key, cap_id in RULE_IDS.items()
                if cap_id not in self.capabilities
            ]
        method = rules["failure_tolerance_method"]
        ftt = rules["failures_to_tolerate"]
        level = {1: "RAID-5", 2: "RAID-6"}.get(ftt) if method == ERASURE_CODING else "RAID-1"
        rule = (
            f"the rule {RULE_TITLES['failure_tolerance_method']!r} = {method} with failures "
            f"to tolerate {ftt} ({level})"
        )
        need = hosts_needed(rules)
        if len(self.hosts) < need:
            problems.append(
                f"cluster {name!r} does not offer {rule}: that needs {need} hosts, the "
                f"cluster has {len(self.hosts)} usable"
            )
        if method == ERASURE_CODING and self.flash["all_flash"] is False:
            problems.append(
                f"cluster {name!r} does not offer {rule}: erasure coding needs an all-flash "
                f"cluster, and it has {self._hybrid()}"
            )
        return problems

    def data_reduction_problems(self) -> list[str]:
        """Deduplication and compression need an all-flash cluster (where it is known)."""
        if self.flash["all_flash"] is not False:
            return []
        return [
            f"cluster {self.cluster.name!r} does not offer deduplication and compression: "
            f"they need an all-flash cluster, and it has {self._hybrid()}"
        ]

    def checked(self, rules: dict[str, Any]) -> dict[str, Any]:
        return {
            "usable_hosts": len(self.hosts),
            "hosts_needed": hosts_needed(rules),
            "capability_metadata": self.capabilities is not None,
            "all_flash": self.flash["all_flash"],
        }


def run(conn: Connection, params: dict[str, Any], check_mode: bool) -> dict[str, Any]:
    """Check everything, then (unless in check mode) make the changes; returns the result."""
    timeout = float(params.get("task_timeout") or 900)
    state = params.get("state") or "present"
    cluster = conn.cluster(params["cluster"])
    workers = conn.vms(params["vms"])
    snap_name = params.get("snapshot_name") or "raidsweep-hold"
    policy_spec = params.get("policy") or {}
    name = policy_spec.get("name") or params.get("policy_name") or "raidsweep"
    result: dict[str, Any] = {"changed": False, "changes": [], "cluster": cluster.name}
    changes: list[str] = result["changes"]

    rules = None
    if state == "present":
        if not policy_spec:
            raise VsanError("state=present needs a policy")
        rules = policy_rules(policy_spec)
        offer = Offer(conn, cluster)
        problems = offer.problems(rules)
        if params.get("data_reduction"):
            problems += offer.data_reduction_problems()
        if problems:
            raise VsanError("; ".join(problems))
        result["checked"] = offer.checked(rules)

    profile = conn.find_policy(name)
    before = _policy_view(conn, profile)
    snaps = {vm.name: conn.snapshot(vm, snap_name) for vm, _ in workers}
    want_snap = params.get("snapshots")
    want_dr = params.get("data_reduction")
    dr_now = conn.data_efficiency(cluster) if (want_dr is not None or state == "query") else None

    policy_changes = False
    # Per worker, whether its snapshot is held once the call is done (None: leave as is).
    keep = {vm.name: (snaps[vm.name] is not None) if want_snap is None else want_snap
            for vm, _ in workers}  # fmt: skip
    to_assign: list[tuple[Any, list[Any]]] = []
    if state == "present":
        assert rules is not None
        policy_changes = before is None or before["capabilities"] != capability_values(rules)
        if before is None:
            changes.append(f"create storage policy {name!r}: {_describe(rules)}")
        elif policy_changes:
            changes.append(f"update storage policy {name!r}: {_describe(rules)}")
        for vm, disks in workers:
            # Where vCenter reports every disk on the policy already, there is nothing to
            # apply; vcsim reports none, so there the policy is applied every time.
            current = {conn.disk_policy(vm, d) for d in disks}
            if policy_changes or before is None or current != {before["id"]}:
                to_assign.append((vm, disks))
        for vm, _ in workers:
            # A snapshot taken before a policy change would hold the old layout: release
            # it first, take it again afterwards.
            if snaps[vm.name] is not None and (policy_changes or not keep[vm.name]):
                changes.append(f"remove snapshot {snap_name!r} of VM {vm.name!r}")
        for vm, disks in to_assign:
            labels = ", ".join(d.deviceInfo.label for d in disks)
            changes.append(f"apply storage policy {name!r} to VM {vm.name!r} disks {labels}")
        if want_dr is not None and dr_now is not want_dr:
            changes.append(
                f"turn deduplication and compression {'on' if want_dr else 'off'} on cluster "
                f"{cluster.name!r}"
            )
        for vm, _ in workers:
            if keep[vm.name] and (snaps[vm.name] is None or policy_changes):
                changes.append(f"take snapshot {snap_name!r} of VM {vm.name!r}")
    elif state == "absent":
        for vm, _ in workers:
            if snaps[vm.name] is not None:
                changes.append(f"remove snapshot {snap_name!r} of VM {vm.name!r}")
        if before is not None:
            for vm, disks in workers:
                labels = ", ".join(d.deviceInfo.label for d in disks)
                changes.append(f"give VM {vm.name!r} disks {labels} the datastore's default policy")
            changes.append(f"delete storage policy {name!r}")

    # What the change does, in the terms of the vSphere Client, for --check --diff.
    result["diff"] = {
        "before": {
            "policy": before["rules"] if before else None,
            "snapshots": {vm: snap is not None for vm, snap in snaps.items()},
            "data_reduction": dr_now,
        },
        "after": {
            "policy": rules if state == "present" else None,
            "snapshots": dict(keep) if state == "present" else dict.fromkeys(snaps, False),
            "data_reduction": want_dr if want_dr is not None else dr_now,
        },
    }
    if state == "query":
        result["diff"]["after"] = result["diff"]["before"]
    result["disks"] = []
    if state == "query" or check_mode or not changes:
        result["changed"] = bool(changes) and state != "query"
        if state == "query":
            result["changes"] = []
            offer = Offer(conn, cluster)
            result["usable_hosts"] = offer.hosts
            result["flash"] = offer.flash
            result["capability_metadata"] = offer.capabilities is not None
            # Every policy the caller will ask for, checked now (a sweep's preflight).
            result["policy_problems"] = [
                offer.problems(policy_rules(p)) for p in params.get("check_policies") or []
            ]
            result["data_reduction_problems"] = offer.data_reduction_problems()
        _report(conn, result, workers, profile, snaps, snap_name, want_dr, dr_now)
        return result

    # From here on the changes are made, in the order planned.
    result["changed"] = True
    policy_id = before["id"] if before else None
    if state == "present":
        assert rules is not None
        if before is None:
            policy_id = conn.create_policy(name, rules)
            result["policy_action"] = "created"
        elif policy_changes:
            policy_id, result["policy_action"] = conn.update_policy(profile, rules)
        for vm, _ in workers:
            if snaps[vm.name] is not None and (policy_changes or not keep[vm.name]):
                conn.remove_snapshot(vm, snaps[vm.name], snap_name, timeout)
                snaps[vm.name] = None
        for vm, disks in to_assign:
            conn.assign(vm, disks, policy_id, timeout)
        if want_dr is not None and dr_now is not want_dr:
            conn.set_data_efficiency(cluster, want_dr, timeout)
        for vm, _ in workers:
            if keep[vm.name] and snaps[vm.name] is None:
                conn.take_snapshot(vm, snap_name, timeout)
    else:
        for vm, _ in workers:
            if snaps[vm.name] is not None:
                conn.remove_snapshot(vm, snaps[vm.name], snap_name, timeout)
        if profile is not None:
            for vm, disks in workers:
                conn.assign(vm, disks, None, timeout)
            conn.delete_policy(profile)
    profile = conn.find_policy(name)
    snaps = {vm.name: conn.snapshot(vm, snap_name) for vm, _ in workers}
    _report(conn, result, workers, profile, snaps, snap_name, want_dr, None)
    if state == "present":
        _verify(result, rules, name, keep)
    return result


def _describe(rules: dict[str, Any]) -> str:
    return ", ".join(f"{RULE_TITLES[k]} {v}" for k, v in rules.items())


def _report(
    conn: Connection,
    result: dict[str, Any],
    workers: list[tuple[Any, list[Any]]],
    profile: Any,
    snaps: dict[str, Any],
    snap_name: str,
    want_dr: bool | None,
    dr_now: bool | None,
) -> None:
    """The state as the servers read it back."""
    result["policy"] = _policy_view(conn, profile)
    result["policies"] = sorted(p.name for p in conn.policies())
    result["pbm_path"] = conn.pbm_path
    result["disks"] = [
        {"vm": vm.name, "disk": d.deviceInfo.label, "policy_id": conn.disk_policy(vm, d)}
        for vm, disks in workers
        for d in disks
    ]
    result["snapshots"] = {name: snap is not None for name, snap in snaps.items()}
    result["snapshot_name"] = snap_name
    cluster = conn.cluster(result["cluster"])
    reported = dr_now if dr_now is not None else conn.data_efficiency(cluster)
    result["data_reduction"] = {"requested": want_dr, "reported": reported}


def _verify(
    result: dict[str, Any], rules: dict[str, Any] | None, name: str, keep: dict[str, bool]
) -> None:
    """Compare what the servers read back with what was asked. Where a server reports a
    fact (real vCenter: the disks' policy, dedup and compression) it must match; where it
    reports none (vcsim keeps neither) the result says so instead."""
    assert rules is not None
    policy = result["policy"]
    if policy is None or policy["capabilities"] != capability_values(rules):
        raise VsanError(f"storage policy {name!r} reads back as {policy}, not as asked")
    reported = [d for d in result["disks"] if d["policy_id"] is not None]
    for d in reported:
        if d["policy_id"] != policy["id"]:
            raise VsanError(
                f"VM {d['vm']!r} disk {d['disk']!r} reports policy {d['policy_id']}, "
                f"not {name!r} ({policy['id']})"
            )
    result["disk_policy_verified"] = bool(reported) and len(reported) == len(result["disks"])
    dr = result["data_reduction"]
    if dr["requested"] is not None and dr["reported"] is not None:
        if dr["requested"] != dr["reported"]:
            raise VsanError(
                f"cluster {result['cluster']!r} reports deduplication and compression "
                f"{'on' if dr['reported'] else 'off'} after asking for "
                f"{'on' if dr['requested'] else 'off'}"
            )
    for vm, held in result["snapshots"].items():
        if held != keep[vm]:
            raise VsanError(f"VM {vm!r}: snapshot {result['snapshot_name']!r} is not as asked")


# ---------------------------------------------------------------------------- Ansible


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "hostname": {"type": "str", "required": True},
            "port": {"type": "int", "default": 443},
            "username": {
                "type": "str",
                "fallback": (env_fallback, ["VSAN_USERNAME", "VMWARE_USER"]),
            },
            "password": {
                "type": "str",
                "no_log": True,
                "fallback": (env_fallback, ["VSAN_PASSWORD", "VMWARE_PASSWORD"]),
            },
            "validate_certs": {"type": "bool", "default": True},
            "cluster": {"type": "str", "required": True},
            "vms": {"type": "list", "elements": "dict", "required": True},
            "policy": {"type": "dict"},
            "policy_name": {"type": "str", "default": "raidsweep"},
            "data_reduction": {"type": "bool"},
            "snapshots": {"type": "bool"},
            "snapshot_name": {"type": "str", "default": "raidsweep-hold"},
            "task_timeout": {"type": "int", "default": 900},
            "check_policies": {"type": "list", "elements": "dict", "default": []},
            "state": {
                "type": "str",
                "choices": ["present", "absent", "query"],
                "default": "present",
            },
        },
        supports_check_mode=True,
    )
    if not HAS_PYVMOMI:
        module.fail_json(msg="the vsan_policy module needs pyvmomi on the controller")
    p = module.params
    for key, where in (("username", "vsan_username, VSAN_USERNAME"),
                       ("password", "vsan_password in Ansible Vault, VSAN_PASSWORD")):  # fmt: skip
        if not p[key]:
            module.fail_json(
                msg=f"no {key} for vCenter {p['hostname']}: give it in {where} or "
                f"VMWARE_{'USER' if key == 'username' else 'PASSWORD'}"
            )
    conn = None
    try:
        conn = Connection(
            p["hostname"], p["port"], p["username"], p["password"], p["validate_certs"]
        )
        result = run(conn, p, module.check_mode)
    except VsanError as exc:
        module.fail_json(msg=str(exc))
    except vmodl.MethodFault as exc:
        text = conn.scrub(exc.msg or type(exc).__name__) if conn else type(exc).__name__
        where = conn.where if conn else f"vCenter {p['hostname']}"
        module.fail_json(msg=f"{where} refused a request: {text}")
    finally:
        if conn is not None:
            conn.close()
    module.exit_json(**result)


if __name__ == "__main__":
    main()
