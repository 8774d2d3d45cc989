"""The ``local`` platform: real fio on this host against a block device, loop, zram or file.

Nothing can be reconfigured there, so the config space is one point that describes the
target as it was built (a LUN configured by hand, a single disk). Ansible checks the target
and gathers its facts; fio measures.
"""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path
from typing import Any

from pydantic import Field, field_validator

from sweeper.ansible import run_playbook
from sweeper.configuration import Configuration, space_size
from sweeper.fio import render_job
from sweeper.fio.clients import parse_client_output, run_fio_clients
from sweeper.fio.jobfile import check_filename
from sweeper.fio.parse import FioParseError, FioRunError, host_figures
from sweeper.fio.runner import Fio, FioMissingError, FioOutput, exit_reason, find_fio, run_fio
from sweeper.fio.steady import merge_job_logs, parse_interval_log, rounds, snia_steady_state
from sweeper.models import StrictModel
from sweeper.platforms.base import Platform, RunOutput, WorkloadRunner
from sweeper.platforms.target import inspect_target, target_problems
from sweeper.units import format_size, parse_duration, parse_size
from sweeper.vocabulary import CACHE_POLICIES, LAYOUTS, RAID_LEVELS
from sweeper.workload import WorkloadCell

#: fio is given this long beyond ramp + runtime before it counts as hung
TIMEOUT_GRACE_S = 60.0
FILL_BLOCK = 1024**2


class Precondition(StrictModel):
    """SNIA PTS preconditioning, for flash: fill passes, then each cell until steady."""

    #: workload-independent: sequential 128 KiB writes over the working set, this many times
    passes: int = Field(default=2, ge=1, le=10)
    #: workload-dependent: each cell runs before its first measured run until fio finds it
    #: steady (max deviation from the mean within 10% over the judged window), at most this
    #: long; the measured runs then judge steady state by the PTS rule themselves
    limit_s: float = Field(default=1800.0, gt=0, alias="limit")

    @field_validator("limit_s", mode="before")
    @classmethod
    def _duration(cls, v: Any) -> Any:
        return parse_duration(v)


class LocalOptions(StrictModel):
    """``platform_options`` of the local platform."""

    target: str
    #: paths (any spelling: /dev/disk/by-id/… works) fio may overwrite; compared by realpath
    allow: list[str] = Field(default_factory=list)
    #: create the target as a file of this size when it does not exist
    file_size: int | None = None
    overwrite_signatures: bool = False
    #: write the working set once before any read, so reads reach the medium
    fill: bool = True
    fio: str = "fio"
    #: run fio on every host of the inventory's ``loadgen`` group at once (fio client/server)
    multi_host: bool = False
    precondition: Precondition | None = None
    #: how long fio may run beyond ramp + runtime before it counts as hung and is killed
    hang_grace_s: float = Field(default=TIMEOUT_GRACE_S, gt=0, le=86400)

    @field_validator("hang_grace_s", mode="before")
    @classmethod
    def _grace(cls, v: Any) -> Any:
        return parse_duration(v) if isinstance(v, str) else v

    @field_validator("file_size", mode="before")
    @classmethod
    def _size(cls, v: Any) -> Any:
        return None if v is None else parse_size(v)


def _options(options: dict[str, Any]) -> LocalOptions:
    return LocalOptions.model_validate(options)


class LocalPlatform(Platform):
    name = "local"
    # configuration_problems reads no cache policy: a large space is checked at one
    checks_ignore = ("cache_policy",)
    options_model = LocalOptions
    supported = {"raid_level": RAID_LEVELS, "layout": LAYOUTS, "cache_policy": CACHE_POLICIES}

    def __init__(self, options: dict[str, Any], state_dir: Path, inventory: Path | None = None):
        super().__init__(options, state_dir, inventory)
        self.opts = _options(options)

    @classmethod
    def option_problems(cls, options: dict[str, Any]) -> list[tuple[list[str | int], str]]:
        problems = super().option_problems(options)
        if problems:
            return problems
        opts = _options(options)
        try:
            # The target goes into fio's job files: refuse, before anything is created, a
            # name whose characters fio would read as syntax.
            check_filename(opts.target)
        except ValueError as exc:
            return [(["platform_options", "target"], str(exc))]
        problems = [
            (["platform_options", key], msg)
            for key, msg in target_problems(
                opts.target,
                allow=opts.allow,
                file_size=opts.file_size,
                overwrite_signatures=opts.overwrite_signatures,
            )
        ]
        try:
            find_fio(opts.fio)
        except FioMissingError as exc:
            problems.append((["platform_options", "fio"], str(exc)))
        return problems

    @classmethod
    def space_problems(cls, space: Any, options: dict[str, Any]) -> list[str]:
        n = space_size(space)
        if n > 1:
            return [
                f"the local platform cannot reconfigure its target, so the config space must "
                f"be one point that describes the target as it was built ({n} given)"
            ]
        return []

    @classmethod
    def configuration_problems(
        cls, config: Configuration, options: dict[str, Any], matrix: Any = None
    ) -> list[str]:
        opts = _options(options)
        working_set = getattr(matrix, "working_set", None)
        target = inspect_target(opts.target)
        capacity = target.size if target.kind != "missing" else (opts.file_size or 0)
        if working_set and capacity and working_set > capacity:
            return [
                f"the working set ({working_set} bytes) is larger than {opts.target} "
                f"({capacity} bytes)"
            ]
        return []

    def extravars(self, config: Configuration) -> dict[str, Any]:
        return {
            "raidsweep_platform": "local",
            "local_target": self.opts.target,
            "local_file_size": self.opts.file_size,
        }

    def teardown_extravars(self) -> dict[str, Any]:
        return {"raidsweep_platform": "local", "local_target": self.opts.target}

    def runner(self, config: Configuration, matrix: Any, seed: int) -> WorkloadRunner:
        return LocalRunner(self.opts, self.state_dir, matrix, self.inventory)

    def target_identity(self) -> list[str]:
        """The target by what it is, not how it is spelled: a block device by its device
        number (a /dev/disk/by-id link and /dev/sdb are one), a file by its real path."""
        path = os.path.realpath(self.opts.target)
        try:
            st = os.stat(path)
        except OSError:
            return [f"local:path:{path}"]
        if stat.S_ISBLK(st.st_mode):
            return [f"local:dev:{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"]
        return [f"local:path:{path}"]

    def plan_lines(self, matrix: Any) -> list[str]:
        t = inspect_target(self.opts.target)
        size = t.size if t.kind != "missing" else (self.opts.file_size or 0)
        ws = matrix.working_set or size
        lines = []
        if t.kind == "missing":
            lines.append(f"creates {self.opts.target} as a file of {format_size(size)}")
        what = {"block": "block device", "file": "file"}.get(t.kind, "file")
        lines.append(
            f"fio writes to {self.opts.target} ({what}, {format_size(size)}), "
            f"bytes 0 to {format_size(ws)}; its contents there are destroyed"
        )
        if self.opts.fill and any(p.reads for p in matrix.patterns):
            lines.append(f"fills those {format_size(ws)} sequentially once before any read")
        return lines


class LocalRunner(WorkloadRunner):
    """Runs each cell's job file with real fio against the target (prepare fills it once)."""

    def __init__(
        self, opts: LocalOptions, state_dir: Path, matrix: Any, inventory: Path | None = None
    ):
        self.opts = opts
        self.state_dir = state_dir
        self.matrix = matrix
        self.inventory = inventory
        self.fio: Fio | None = None
        self.working_set = 0
        self.fill_record: dict[str, Any] = {}
        #: (address, port) of every load host's fio server, in multi-host mode
        self.hosts: list[tuple[str, int]] = []
        self._servers_started = False
        self._preconditioned: set[str] = set()
        #: what each load host is (OS, kernel, CPUs, fio), as its loadgen play found it
        self.load_hosts: list[dict[str, Any]] = []

    def prepare(self) -> None:
        self.fio = find_fio(self.opts.fio)
        if self.opts.multi_host:
            self.hosts = self._start_servers()
        target = inspect_target(self.opts.target)
        if target.kind not in ("block", "file"):
            raise RuntimeError(f"{self.opts.target} is not a block device or file")
        self.working_set = self.matrix.working_set or target.size
        (self.state_dir / "jobs").mkdir(parents=True, exist_ok=True)
        if self.opts.precondition is not None:
            self.fill_record = self._fill(self.opts.precondition.passes, "128k")
        elif self.opts.fill and any(p.reads for p in self.matrix.patterns):
            self.fill_record = self._fill()

    def _start_servers(self) -> list[tuple[str, int]]:
        if self.inventory is None:
            raise RuntimeError("multi_host needs an inventory with a loadgen group")
        self._servers_started = True  # some may start even if the play fails on another host
        play = run_playbook("loadgen.yml", self.inventory, {"loadgen_state": "started"})
        if not play.ok:
            raise RuntimeError(f"starting fio's servers failed: {play.failure()}")
        hosts = sorted(
            (str(f["loadgen_bind"]), int(f["loadgen_port"])) for f in play.host_facts.values()
        )
        if not hosts:
            raise RuntimeError(f"{self.inventory.name} has no hosts in its loadgen group")
        self.load_hosts = [
            {k: f.get(k) for k in ("hostname", "os", "cpus", "fio_version")}
            | {"address": f"{f['loadgen_bind']}:{f['loadgen_port']}"}
            for f in sorted(play.host_facts.values(), key=lambda f: str(f["loadgen_bind"]))
        ]
        return hosts

    def cleanup(self) -> None:
        if self._servers_started and self.inventory is not None:
            # Stops every server that did start, also when starting failed on another host.
            run_playbook("loadgen.yml", self.inventory, {"loadgen_state": "stopped"})
            self.hosts = []
            self._servers_started = False

    def _fio(self, path: Path, timeout_s: float, hosts: list[tuple[str, int]]) -> FioOutput:
        assert self.fio is not None
        if not hosts:
            return run_fio(self.fio, path, timeout_s=timeout_s)
        return run_fio_clients(self.fio, hosts, path, timeout_s=timeout_s)

    def _identity(self) -> dict[str, Any]:
        st = os.stat(self.opts.target)
        return {
            "target": os.path.realpath(self.opts.target),
            "dev": st.st_dev,
            "ino": st.st_ino,
            "rdev": st.st_rdev,
        }

    def _fill(self, passes: int = 1, bs: str = "1m") -> dict[str, Any]:
        """Write the working set sequentially once: a read of never-written blocks (a sparse
        file, a fresh loop or zram device, thin LUNs) never reaches the medium. With
        preconditioning, ``passes`` times in 128 KiB writes, as SNIA PTS's workload-independent
        preconditioning does (twice the capacity)."""
        marker = self.state_dir / "filled.json"
        identity = self._identity()
        try:
            done = json.loads(marker.read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            done = {}
        if (
            done.get("identity") == identity
            and done.get("bytes", 0) >= self.working_set
            and done.get("passes", 1) >= passes
        ):
            return done | {"reused": True}
        assert self.fio is not None
        size = self.working_set - self.working_set % FILL_BLOCK or self.working_set
        job = (
            f"; raidsweep fill: write the working set {passes} time(s) before the runs\n"
            "[fill]\n"
            f"filename={check_filename(self.opts.target)}\n"
            f"rw=write\nbs={bs}\niodepth=16\nioengine=libaio\ndirect=1\n"
            f"size={size}\nloops={passes}\nrefill_buffers=1\n"
        )
        path = self.state_dir / "jobs" / "fill.fio"
        path.write_text(job)
        t0 = time.monotonic()
        # One host fills a shared target: the others would only write the same blocks again.
        out = self._fio(path, 24 * 3600, self.hosts[:1])
        if out.exit_code != 0:
            raise RuntimeError(f"filling {self.opts.target} failed: {out.stderr.strip()[-500:]}")
        record = {
            "identity": identity,
            "bytes": size,
            "passes": passes,
            "seconds": time.monotonic() - t0,
            "job_file": job,
        }
        marker.write_text(json.dumps(record))
        return record

    def _precondition_cell(self, cell: WorkloadCell) -> dict[str, Any]:
        """Run ``cell`` until fio's own steady-state detector is satisfied, or the limit."""
        assert self.fio is not None and self.opts.precondition is not None
        m = self.matrix
        rule = m.steady_state
        limit = self.opts.precondition.limit_s
        job_text = render_job(
            cell,
            filename=self.opts.target,
            engine=m.engine,
            runtime_s=limit,
            ramp_s=0,
            size=cell.active_bytes(self.working_set),
            steadystate=(
                "iops:" + f"{rule.max_range_pct / 2:g}%",
                rule.window * rule.round_s(m.runtime),
                m.ramp,
            ),
        )
        path = self.state_dir / "jobs" / f"{cell.key.replace('/', '_')}-precondition.fio"
        path.write_text(job_text)
        out = self._fio(path, limit + self.opts.hang_grace_s, self.hosts)
        record: dict[str, Any] = {"seconds": out.wall_s, "limit_s": limit, "job_file": job_text}
        try:
            doc = json.loads(out.stdout[out.stdout.index("{") :])
            jobs = doc.get("jobs") or doc.get("client_stats") or []
            ss = [j["steadystate"] for j in jobs if "steadystate" in j]
            record["attained"] = bool(ss) and all(int(x.get("attained", 0)) for x in ss)
            record["criterion"] = ss[0].get("criterion") if ss else None
        except (ValueError, KeyError, TypeError) as exc:
            record |= {"attained": None, "error": f"fio output unreadable: {exc}"}
        if out.exit_code != 0:
            record["error"] = exit_reason(out.exit_code, out.stderr, 300)
        return record

    def run(self, cell: WorkloadCell, repetition: int) -> RunOutput:
        assert self.fio is not None, "prepare() finds fio first"
        m = self.matrix
        precondition: dict[str, Any] = {}
        if self.opts.precondition is not None and cell.key not in self._preconditioned:
            precondition = self._precondition_cell(cell)
            self._preconditioned.add(cell.key)
        job_text = render_job(
            cell,
            filename=self.opts.target,
            engine=m.engine,
            runtime_s=m.runtime,
            ramp_s=m.ramp,
            size=cell.active_bytes(self.working_set),
            iops_log=f"{cell.key.replace('/', '_')}-r{repetition}",
        )
        stem = f"{cell.key.replace('/', '_')}-r{repetition}"  # the iops_log name above
        path = self.state_dir / "jobs" / f"{stem}.fio"
        path.write_text(job_text)
        out = self._fio(path, m.ramp + m.runtime + self.opts.hang_grace_s, self.hosts)
        steady = judge_steady_state(path.parent, stem, m.steady_state, m.runtime)
        result, error, per_host = None, None, {}
        if self.hosts and out.exit_code == 0:
            try:
                clients = parse_client_output(out.stdout, expected_hosts=self.hosts)
            except (FioParseError, FioRunError) as exc:
                error = str(exc)
            else:
                result = clients.aggregate
                per_host = {f"{h.host}:{h.port}": host_figures(h.result) for h in clients.hosts}
        return RunOutput(
            stdout=out.stdout,
            stderr=out.stderr,
            exit_code=out.exit_code,
            array_time_s=out.wall_s + precondition.get("seconds", 0.0),
            tool="fio",
            tool_version=self.fio.version,
            job_file=job_text,
            extra={
                "fill": {k: v for k, v in self.fill_record.items() if k != "job_file"},
                "steady_state": steady,
                "hosts": per_host,
                "load_hosts": self.load_hosts,
                "precondition": precondition,
            },
            result=result,
            error=error,
        )


def judge_steady_state(folder: Path, stem: str, rule: Any, runtime_s: float) -> dict[str, Any]:
    """The SNIA PTS rule over the last ``rule.window`` rounds of fio's IOPS interval logs.

    The logs are read and removed; the rounds themselves are kept in the run's disclosure.
    """
    # One log per job; in client mode fio sends each host's back as ``….log.<host>``. Summed
    # over all of them, the rounds are the target's total IOPS.
    logs = sorted(folder.glob(f"{stem}_iops.*.log")) + sorted(folder.glob(f"{stem}_iops.*.log.*"))
    round_s = rule.round_s(runtime_s)
    record: dict[str, Any] = {
        "rule": "SNIA PTS",
        "round_s": round_s,
        "window": rule.window,
        "max_range_pct": rule.max_range_pct,
        "max_slope_pct": rule.max_slope_pct,
    }
    try:
        merged = merge_job_logs([parse_interval_log(p.read_text()) for p in logs])
        values = rounds(merged, round_s, None)
    except (OSError, ValueError) as exc:
        return record | {"steady": None, "reason": f"interval logs unusable: {exc}"}
    finally:
        for p in logs:
            p.unlink(missing_ok=True)
    record["rounds_iops"] = [round(v, 1) for v in values]
    if len(values) < rule.window:
        reason = f"{len(values)} round(s) of {round_s}s, fewer than the window of {rule.window}"
        return record | {"steady": None, "reason": reason}
    verdict = snia_steady_state(
        values[-rule.window :],
        rule.window,
        rule.max_range_pct / 100,
        rule.max_slope_pct / 100,
    )
    return record | {
        "steady": verdict.steady,
        "range_pct": verdict.range_pct,
        "slope_pct": verdict.slope_pct,
        "window_average_iops": verdict.average,
    }
