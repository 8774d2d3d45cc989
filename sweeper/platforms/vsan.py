"""The ``vsan`` platform: vSAN storage policies (SPBM) as the configurations of a sweep.

On a hyperconverged cluster the "RAID level and layout" is a storage policy applied per
virtual disk. The ``vsan`` role (module ``playbooks/library/vsan_policy.py``, pyvmomi) puts
the worker VMs' test disks under one policy per configuration. raidsweep's dimensions map
onto the policy's rules, named as in the vSphere Client:

- ``raid_level``: ``raid1`` is *Failure tolerance method* RAID-1 (Mirroring) with *Failures
  to tolerate* ``mirror_failures_to_tolerate`` (default 1); ``raid5`` is RAID-5/6 (Erasure
  Coding) with failures to tolerate 1 (3 data + 1 parity); ``raid6`` the same with 2 (4 + 2).
- ``layout`` and ``ranks``: *Number of disk stripes per object* is vSAN's striping. raidsweep
  already says "the storage spreads the volume over N units, round-robin, in stripes of S"
  as ``pool_stripe`` with ``ranks`` N and ``stripe_kib`` S, so ``single_rank`` is one disk
  stripe per object and ``pool_stripe`` with ``ranks: [2, 4, 8]`` is 2, 4 or 8 (at most 12).
  vSAN's stripe unit is fixed at 1 MiB: ``stripe_kib`` is 1024. The key
  ``raid5/pool_stripe/ranks4/stripe1m/wb-ra`` reads "RAID-5, 4 disk stripes per object".
- ``cache_policy``: vSAN has its own write buffer and read cache and nothing to choose:
  ``wb-ra`` only.
- ``snapshots``: a VM snapshot of every worker held during the runs (writes go to the
  snapshot's delta disk, as on a production VM being backed up).
- ``data_reduction``: the cluster's deduplication and compression. Turning them on or off
  rewrites every disk group of the cluster, so it is refused unless
  ``platform_options.allow_data_reduction_change`` is true; without it the cluster's
  setting is left as it is.

*Object space reservation* and *flash read cache reservation* are fixed for a sweep
(``platform_options``). The vCenter, its cluster and the worker VMs with their test disks
come from the inventory (``inventories/vsan/hosts.yml``); the password from Ansible Vault
or the environment (``VSAN_PASSWORD``), never from the spec.

The load: ``load: fio`` runs fio in every worker VM at once, over SSH with the connection
the inventory gives each worker, on its test disk ``worker_device`` (checked before the sweep:
reachable, fio present, the disk not mounted, held or formatted); the workers' jobs together
are the run. ``load: sim`` answers each run with the simulated array's model (profile
``sim_profile``, the hyperconverged ``hybrid-hci`` by default) in the configuration that
vCenter read back, for rehearsing a sweep against a test vCenter or vcsim, whose VMs cannot
run fio.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from sweeper.configuration import Configuration
from sweeper.errors import InputError
from sweeper.load import FioDriver, FioLoad, LoadDriver, SimDriver, SshFio
from sweeper.locking import canonical_host
from sweeper.platforms.base import Platform, option_vars
from sweeper.platforms.sim import checked_profile
from sweeper.platforms.vsan_policy import (
    EC_FTT,
    EC_GROUPS,
    ERASURE_CODING,
    MAX_STRIPE_WIDTH,
    MIRRORING,
    STRIPE_UNIT_KIB,
    VsanOptions,
    configuration_of,
    policy_of,
    raid_level_of,
    vsan_options,
)
from sweeper.remote import RemoteHost, RemoteHostError, group_hosts, host_vars
from sweeper.sim.model import ArrayState
from sweeper.sim.profile import list_profiles, load_profile
from sweeper.yamlsource import read_text

__all__ = [
    "DATA_REDUCTION_CHANGE_S",
    "EC_FTT",
    "EC_GROUPS",
    "ERASURE_CODING",
    "MAX_STRIPE_WIDTH",
    "MIRRORING",
    "POLICY_CHANGE_S",
    "SNAPSHOT_S",
    "STRIPE_UNIT_KIB",
    "VsanOptions",
    "VsanPlatform",
    "read_vsan_state",
    "configuration_of",
    "policy_of",
    "raid_level_of",
]

# Array time of a reconfiguration on a real cluster, for ordering the grid and for budgets:
# a policy change resyncs every component of the test disks to the new layout, deduplication
# and compression are a rolling reformat of every disk group, a snapshot takes seconds.
POLICY_CHANGE_S = 900.0
DATA_REDUCTION_CHANGE_S = 4 * 3600.0
SNAPSHOT_S = 10.0
#: the options the role reads, as ``vsan_<option>``
ROLE_OPTIONS = (
    "policy_name",
    "mirror_failures_to_tolerate",
    "object_space_reservation",
    "flash_read_cache_reservation",
)


class VsanPlatform(Platform):
    name = "vsan"
    # configuration_problems reads no cache policy: a large space is checked at one
    checks_ignore = ("cache_policy",)
    options_model = VsanOptions
    supported = {
        "raid_level": ("raid1", "raid5", "raid6"),
        "layout": ("single_rank", "pool_stripe"),
        "cache_policy": ("wb-ra",),
    }

    def __init__(self, options: dict[str, Any], state_dir: Path, inventory: Path | None = None):
        super().__init__(options, state_dir, inventory)
        self.opts = vsan_options(options)
        #: the model that answers the runs with ``load: sim``; with ``load: fio`` nothing of
        #: the simulated array is consulted (facts come from vCenter and the spec)
        self.profile = load_profile(self.opts.sim_profile) if self.opts.load == "sim" else None
        #: what vCenter reported before the sweep (cluster, workers, policy), if asked
        self.preflight_facts: dict[str, Any] = {}
        self.workers: list[RemoteHost] = []
        #: each worker's ``fio --version``, as the preflight read it
        self.worker_fio: dict[str, str] = {}

    def preflight(self, space: Any) -> None:
        """Ask vCenter, changing nothing, whether the sweep can run: reachable, login
        accepted, cluster, worker VMs and test disks present. A problem is an input error
        (exit status 2) before anything changes."""
        if self.inventory is None:
            return
        self.preflight_facts = self.preflight_facts_of("reconfigure.yml", self._query_vars(space))
        self._check_offer(space)
        if self.opts.load == "fio":
            self.workers = self._check_workers()

    def _space_policies(self, space: Any) -> list[tuple[str, dict[str, Any]]]:
        """(RAID level, policy in vSphere's terms) for every distinct policy of the space."""
        single = [1] if "single_rank" in space.layout else []
        pooled = "pool_stripe" in space.layout
        return [
            (level, policy_of(level, width, self.opts))
            for level in space.raid_level
            for width in single
            + [w for w in (space.values("ranks", "pool_stripe", level) if pooled else []) if w != 1]
        ]

    def _query_vars(self, space: Any) -> dict[str, Any]:
        policies = [policy for _, policy in self._space_policies(space)] if space else []
        return self._vars() | {"vsan_state": "query", "vsan_check_policies": policies}

    def _check_offer(self, space: Any) -> None:
        """Every policy the space asks for is one the cluster offers (rule values, SPBM's
        capabilities where the server lists them, hosts enough for the RAID level, all-flash
        for erasure coding where vSAN reports disk groups), and so is deduplication and
        compression if the sweep turns them on. Refused here, before the first policy,
        rather than when its configuration comes up; each problem named once per level."""
        facts = self.preflight_facts
        if space is None or facts.get("policy_problems") is None:
            return
        policies = self._space_policies(space)
        # dict keys: one line per problem and level, though several stripe widths share it
        named = {
            f"config_space.raid_level {level}: {p}": None
            for (level, _), found in zip(policies, facts["policy_problems"], strict=True)
            for p in found
        }
        problems = list(named)
        if True in space.data_reduction and self.opts.allow_data_reduction_change:
            problems += [
                f"config_space.data_reduction true: {p}"
                for p in facts.get("data_reduction_problems") or []
            ]
        if problems:
            assert self.inventory is not None
            raise InputError(str(self.inventory), problems)

    def _check_workers(self) -> list[RemoteHost]:
        """Every worker reachable over SSH with fio, and its test disk a block device that
        nothing uses: not mounted, no holders, no filesystem or partition table on it."""
        assert self.inventory is not None and self.opts.worker_device is not None
        device = self.opts.worker_device
        try:
            workers = group_hosts(self.inventory, "workers")
        except RemoteHostError as exc:
            raise InputError(str(self.inventory), [str(exc)]) from None
        problems = []
        for w in workers:
            try:
                self.worker_fio[w.name] = w.check(f"{shlex.quote(self.opts.fio)} --version").strip()
                dev_q = shlex.quote(device)
                info = w.check(
                    f"lsblk --json --nodeps -o NAME,TYPE,MOUNTPOINT,FSTYPE,PTTYPE {dev_q} && "
                    f'ls "/sys/class/block/$(basename "$(readlink -f {dev_q})")/holders"'
                )
            except RemoteHostError as exc:
                problems.append(f"worker {w.name}: {exc}")
                continue
            doc, end = json.JSONDecoder().raw_decode(info)
            dev, holders = doc["blockdevices"][0], info[end:]
            used = [
                f"mounted on {dev['mountpoint']}" if dev.get("mountpoint") else "",
                f"carries a {dev['fstype']} filesystem" if dev.get("fstype") else "",
                f"carries a {dev['pttype']} partition table" if dev.get("pttype") else "",
                f"in use by {holders.split()}" if holders.split() else "",
            ]
            for why in filter(None, used):
                problems.append(f"worker {w.name}: {device} {why}; fio would overwrite it")
        if problems:
            raise InputError(str(self.inventory), problems)
        return workers

    def fio_versions(self) -> dict[str, str]:
        return dict(self.worker_fio) if self.opts.load == "fio" else {}

    @classmethod
    def option_problems(cls, options: dict[str, Any]) -> list[tuple[list[str | int], str]]:
        problems = super().option_problems(options)
        if problems:
            return problems
        opts = vsan_options(options)
        if opts.sim_profile not in list_profiles():
            return [
                (
                    ["platform_options", "sim_profile"],
                    f"unknown array profile {opts.sim_profile!r} "
                    f"(shipped: {', '.join(list_profiles())})",
                )
            ]
        return []

    @classmethod
    def configuration_problems(
        cls, config: Configuration, options: dict[str, Any], matrix: Any = None
    ) -> list[str]:
        opts = vsan_options(options)
        problems = []
        if config.layout == "pool_stripe":
            if config.rank_count > MAX_STRIPE_WIDTH:
                problems.append(
                    f"vSAN stripes an object over at most {MAX_STRIPE_WIDTH} disk stripes "
                    f"(ranks {config.rank_count})"
                )
            if config.stripe_kib != STRIPE_UNIT_KIB:
                problems.append(
                    f"vSAN's stripe unit is fixed at 1 MiB: stripe_kib must be "
                    f"{STRIPE_UNIT_KIB}, not {config.stripe_kib}"
                )
        if config.data_reduction and not opts.allow_data_reduction_change:
            problems.append(
                "data_reduction turns the cluster's deduplication and compression on and off, "
                "which rewrites every disk group: set "
                "platform_options.allow_data_reduction_change: true to allow it"
            )
        profile = checked_profile(opts.sim_profile) if opts.load == "sim" else None
        if profile is not None and config.raid_level not in profile.raid_groups:
            problems.append(
                f"the load model's profile {profile.name} has no {config.raid_level} "
                f"(it has {', '.join(profile.raid_groups)})"
            )
        return problems

    def _vars(self) -> dict[str, Any]:
        return {
            "raidsweep_platform": "vsan",
            "vsan_state_dir": str(self.state_dir),
        } | option_vars("vsan_", self.opts, ROLE_OPTIONS)

    def extravars(self, config: Configuration) -> dict[str, Any]:
        params = config.params()
        params["snapshots"] = config.snapshots
        # Without the explicit allowance the cluster's setting is left as found (null).
        params["data_reduction"] = (
            config.data_reduction if self.opts.allow_data_reduction_change else None
        )
        return self._vars() | {"vsan_state": "present"} | params

    def teardown_extravars(self) -> dict[str, Any]:
        v = self._vars()
        return {k: v[k] for k in ("raidsweep_platform", "vsan_state_dir", "vsan_policy_name")}

    def load_driver(self, config: Configuration, matrix: Any, seed: int) -> LoadDriver:
        """``load: fio``: fio in every worker VM at once, over SSH, each on its test disk;
        ``load: sim``: the model, in the configuration vCenter read back."""
        o = self.opts
        if o.load == "fio":
            if not self.workers or o.worker_device is None:
                raise RuntimeError("load: fio needs the inventory's worker VMs (preflight)")
            load = FioLoad(o.worker_device, o.fio, o.fill, None, o.hang_grace_s)
            return FioDriver(load, self.state_dir, matrix, SshFio(self.workers))
        assert self.profile is not None, "load: sim has a profile"
        state_dir = self.state_dir
        return SimDriver(self.profile, matrix, seed, lambda: read_vsan_state(state_dir))

    def target_identity(self) -> list[str]:
        """The storage policy on its vCenter (policy names are vCenter-wide), and with
        ``load: fio`` each worker's test disk."""
        if self.inventory is None:
            return super().target_identity()
        try:
            hv = host_vars(self.inventory)
        except (RemoteHostError, OSError, ValueError):  # the preflight names the problem
            return super().target_identity()
        vcenter = f"{canonical_host(str(hv.get('vsan_hostname')))}:{hv.get('vsan_port', 443)}"
        ids = [f"vsan:{vcenter}:policy:{self.opts.policy_name}"]
        ids += [
            f"ssh:{canonical_host(w.address)}:{w.port}:{self.opts.worker_device}"
            for w in self.workers
        ]
        return ids

    def plan_lines(self, matrix: Any) -> list[str]:
        facts = self.preflight_facts
        where = f"vCenter {facts.get('vcenter', '?')}, cluster {facts.get('cluster', '?')}"
        disks = ", ".join(f"{d['vm']} {d['disk']}" for d in facts.get("disks") or [])
        lines = [
            f"creates or updates storage policy {self.opts.policy_name!r} on {where} and "
            f"applies it to the test disks ({disks or 'none found'}) once per configuration",
            f"holds VM snapshot {facts.get('snapshot_name', 'raidsweep-hold')!r} of every "
            "worker in the configurations with snapshots, and removes it in the others",
        ]
        flash = facts.get("flash") or {}
        if flash.get("all_flash") is None and facts:
            lines.append(
                "vCenter reports no vSAN disk groups, so whether the cluster is all-flash "
                "(which erasure coding and deduplication need) is not checked"
            )
        elif flash:
            kind = "all-flash" if flash["all_flash"] else "hybrid"
            lines.append(f"the cluster is {kind} ({flash.get('architecture')}), as vSAN reports")
        if self.opts.allow_data_reduction_change:
            lines.append(
                "turns the cluster's deduplication and compression on or off as each "
                "configuration asks (a rolling reformat of every disk group on a real cluster)"
            )
        if self.opts.load == "fio":
            names = ", ".join(w.name for w in self.workers) or "the inventory's workers"
            lines.append(
                f"fio writes to {self.opts.worker_device} in every worker VM ({names}) at "
                "once; its contents there are destroyed"
            )
        elif self.profile is not None:
            lines.append(
                f"the runs are answered by the simulated array's model ({self.profile.name}), "
                "not measured in the worker VMs"
            )
        return lines

    def hardware(self) -> dict[str, Any]:
        """The objects' make-up from the policies; the capacity tier as vSAN reported it in
        the preflight (all-flash or hybrid, the smallest capacity device). With ``load: sim``
        the model's drives fill in what vCenter did not report (vcsim reports no disk
        groups); with ``load: fio`` the spec's ``hardware`` does."""
        groups = dict(EC_GROUPS)
        groups["raid1"] = {"data": 1, "redundancy": self.opts.mirror_failures_to_tolerate}
        facts: dict[str, Any] = {"raid_groups": groups}
        all_flash = (self.preflight_facts.get("flash") or {}).get("all_flash")
        devices = self.preflight_facts.get("capacity_devices") or {}
        p = self.profile
        if p is not None:
            facts["drive_gb"] = p.drives.capacity_gb
            facts["rebuild_mib_s"] = p.timing.rebuild_mib_s
            if all_flash is None:
                all_flash = p.drives.type != "hdd"
        if devices.get("smallest_gb"):
            facts["drive_gb"] = devices["smallest_gb"]
        if all_flash is not None:
            facts["media"] = "flash" if all_flash else "hdd"
        return facts

    def reconfiguration_time(self, previous: Configuration | None, new: Configuration) -> float:
        seconds = 0.0
        if previous is None or (previous.raid_level, previous.layout, previous.ranks) != (
            new.raid_level,
            new.layout,
            new.ranks,
        ):
            seconds += POLICY_CHANGE_S
        if (
            self.opts.allow_data_reduction_change
            and previous is not None
            and previous.data_reduction != new.data_reduction
        ):
            seconds += DATA_REDUCTION_CHANGE_S
        if new.snapshots:
            seconds += SNAPSHOT_S
        return seconds


def read_vsan_state(state_dir: Path) -> tuple[dict[str, Any], ArrayState]:
    """The configuration vCenter read back (not the one the sweeper asked for): the role
    writes that read-back to ``vsan.json``; its record for the disclosure and the model's
    state."""
    readback = json.loads(read_text(state_dir / "vsan.json", kind="vSAN read-back"))
    params = configuration_of(readback)
    record = params | {
        "ranks": params.get("ranks", 1),
        "stripe_kib": params.get("stripe_kib"),
        "health": "optimal",
        "vsan": {
            k: readback.get(k)
            for k in ("vcenter", "cluster", "policy", "disks", "data_reduction", "snapshots")
        },
    }
    state = ArrayState(
        raid_level=params["raid_level"],
        layout=params["layout"],
        ranks=int(params.get("ranks", 1)),
        stripe_kib=params.get("stripe_kib"),
        cache_policy="wb-ra",
        snapshots=params["snapshots"],
        data_reduction=params["data_reduction"],
        health="optimal",
    )
    return record, state
