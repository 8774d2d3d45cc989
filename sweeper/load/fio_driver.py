"""The fio load driver: purge, fill, precondition, run each cell, judge steady state, over any
transport (this host, fio's client/server mode, SSH to one or several hosts)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sweeper.fio import FioParseError, FioRunError, parse_fio_output, render_job
from sweeper.fio.jobfile import RatePlan, check_filename
from sweeper.fio.runner import exit_reason
from sweeper.load.base import LoadDriver, RunOutput
from sweeper.load.purge import zero_job, zero_size
from sweeper.load.settings import FioLoad
from sweeper.load.steady import judge_steady_state
from sweeper.load.transport import FioTransport, TransportRun
from sweeper.workload import WorkloadCell

FILL_BLOCK = 1024**2


class FioDriver(LoadDriver):
    """Runs each cell's job file with real fio on the target through ``transport``
    (prepare fills the working set once, or preconditions it as SNIA PTS asks).

    ``identity``: what the target is, for the fill marker, where the storage side knows it
    better than the transport (a volume built again is a new target); by default the
    transport's view of the target.
    """

    def __init__(
        self,
        load: FioLoad,
        state_dir: Path,
        matrix: Any,
        transport: FioTransport,
        identity: Callable[[], dict[str, Any]] | None = None,
    ):
        self.load = load
        self.state_dir = state_dir
        self.matrix = matrix
        self.transport = transport
        self._identity = identity or (lambda: transport.identity(load.target))
        self.working_set = 0
        self._pinned: dict[str, Any] = {}
        self.fill_record: dict[str, Any] = {}
        self.purge_record: dict[str, Any] = {}
        self._preconditioned: set[str] = set()
        #: per closed-loop curve, the most IOPS a run of this configuration gave
        self._max_iops: dict[str, float] = {}

    @property
    def fio(self) -> Any:
        """The fio the transport runs (None before ``prepare``)."""
        return self.transport.fio

    def prepare(self) -> None:
        self._max_iops = {}
        self.transport.start(self.load.fio)
        size = self.transport.target_size(self.load.target)
        self.working_set = self.matrix.working_set or size
        if self.working_set > size:
            raise RuntimeError(
                f"the working set ({self.working_set} bytes) is larger than "
                f"{self.load.target} ({size} bytes)"
            )
        (self.state_dir / "jobs").mkdir(parents=True, exist_ok=True)
        self.transport.watched = self.load.target
        # what the target is now, checked and locked: every fio start is to this one
        self._pinned = self.transport.identity(self.load.target)
        if self.load.purge is not None:
            self.purge_record = self._purge(self.load.purge, size)
        if self.load.precondition is not None:
            self.fill_record = self._fill(self.load.precondition.passes, "128k")
        elif self.load.fill and any(p.reads for p in self.matrix.patterns):
            self.fill_record = self._fill()

    def _same_target(self) -> None:
        """Refuse to start fio where the target's name now leads elsewhere (a symlink or a
        by-path link pointed at another device, a device renumbered, the file replaced):
        that device was never allowed, checked nor locked."""
        try:
            now = self.transport.identity(self.load.target)
        except OSError as exc:
            raise RuntimeError(f"{self.load.target} cannot be looked at: {exc.strerror}") from None
        if now != self._pinned:
            raise RuntimeError(
                f"{self.load.target} now leads to {now.get('target')}, not to the "
                f"{self._pinned.get('target')} checked and locked when this configuration "
                "began: fio is not started"
            )

    def _fio(self, job: Path, timeout_s: float, **options: Any) -> TransportRun:
        """``transport.run``, once the target is still the one checked and locked."""
        self._same_target()
        return self.transport.run(job, timeout_s, **options)

    def cleanup(self) -> None:
        self.transport.stop()

    def _purge(self, method: str, size: int) -> dict[str, Any]:
        """Purge the whole target (SNIA PTS, before preconditioning): on the device where it
        can (discard, nvme format), else a zero fill with fio. A fill made before is void."""
        (self.state_dir / "filled.json").unlink(missing_ok=True)
        t0 = time.monotonic()
        self._same_target()
        fallback = self.transport.purge(self.load.target, method) if method != "zero" else None
        record: dict[str, Any] = {"asked": method, "target": self.load.target}
        if method == "zero" or fallback is not None:
            covered = zero_size(size)
            path = self.state_dir / "jobs" / "purge.fio"
            path.write_text(zero_job(self.load.target, covered))
            out = self._fio(path, 24 * 3600, fill=True).output
            if out.exit_code != 0:
                raise RuntimeError(
                    f"purging {self.load.target} failed: {out.stderr.strip()[-500:]}"
                )
            record |= {"method": "zero", "bytes": covered}
            if fallback is not None:
                record["why"] = fallback
        else:
            record |= {"method": method, "bytes": size}
        return record | {"seconds": round(time.monotonic() - t0, 3)}

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
        size = self.working_set - self.working_set % FILL_BLOCK or self.working_set
        job = (
            f"; raidsweep fill: write the working set {passes} time(s) before the runs\n"
            "[fill]\n"
            f"filename={check_filename(self.load.target)}\n"
            f"rw=write\nbs={bs}\niodepth=16\nioengine=libaio\ndirect=1\nthread=1\n"
            f"size={size}\nloops={passes}\nrefill_buffers=1\n"
        )
        path = self.state_dir / "jobs" / "fill.fio"
        path.write_text(job)
        t0 = time.monotonic()
        out = self._fio(path, 24 * 3600, fill=True).output
        if out.exit_code != 0:
            raise RuntimeError(f"filling {self.load.target} failed: {out.stderr.strip()[-500:]}")
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
        assert self.load.precondition is not None
        m = self.matrix
        rule = m.steady_state
        limit = self.load.precondition.limit_s
        job_text = render_job(
            cell,
            filename=self.load.target,
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
        out = self._fio(path, limit + self.load.hang_grace_s).output
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

    def _measured_iops(self, done: TransportRun) -> float | None:
        """The IOPS of a finished run, both directions (None when it gave none)."""
        if done.output.exit_code != 0 or done.error:
            return None
        try:
            parsed = done.result or parse_fio_output(done.output.stdout)
        except (FioParseError, FioRunError):
            return None
        return sum(d.iops for d in (parsed.read, parsed.write) if d is not None)

    def _rate_plan(self, cell: WorkloadCell) -> tuple[RatePlan, dict[str, Any], float]:
        """A rate cell's maximum: the highest IOPS its closed loop's curve gave in this
        configuration, else a saturating run of the closed-loop cell made now (kept in the
        disclosure, not stored as a run). The plan, its record and the extra array time."""
        closed = cell.closed
        best = self._max_iops.get(closed.curve)
        if best is not None:
            return RatePlan(best, "curve"), {}, 0.0
        stem = f"{closed.key.replace('/', '_')}-saturating"
        done, _ = self._run_job(closed, stem)
        iops = self._measured_iops(done)
        if not iops:
            why = exit_reason(done.output.exit_code, done.output.stderr, 300)
            raise RuntimeError(f"the saturating run of {closed.key} gave no IOPS: {why}")
        self._max_iops[closed.curve] = iops
        record = {
            "saturating_run": {"cell": closed.key, "iops": iops, "seconds": done.output.wall_s}
        }
        return RatePlan(iops, "saturating run"), record, done.output.wall_s

    def _run_job(
        self, cell: WorkloadCell, stem: str, rate: RatePlan | None = None
    ) -> tuple[TransportRun, str]:
        """Run ``cell``'s job file (named ``stem``): fio's outcome and the job file."""
        m = self.matrix
        job_text = render_job(
            cell,
            filename=self.load.target,
            engine=m.engine,
            runtime_s=m.runtime,
            ramp_s=m.ramp,
            size=cell.active_bytes(self.working_set),
            iops_log=stem,
            rate=rate,
        )
        path = self.state_dir / "jobs" / f"{stem}.fio"
        path.write_text(job_text)
        limit = m.ramp + m.runtime + self.load.hang_grace_s
        return self._fio(path, limit, concurrent_groups=bool(cell.others)), job_text

    def run(self, cell: WorkloadCell, repetition: int) -> RunOutput:
        fio = self.transport.fio
        assert fio is not None, "prepare() starts the transport first"
        m = self.matrix
        precondition: dict[str, Any] = {}
        if self.load.precondition is not None and cell.key not in self._preconditioned:
            precondition = self._precondition_cell(cell)
            self._preconditioned.add(cell.key)
        plan, rate, extra_s = None, {}, 0.0
        if cell.rate_pct is not None:
            plan, rate, extra_s = self._rate_plan(cell)
            rate |= plan.record(cell)
        stem = f"{cell.key.replace('/', '_')}-r{repetition}"
        done, job_text = self._run_job(cell, stem, plan)
        out = done.output
        result, error = done.result, done.error
        if cell.others and result is None and out.exit_code == 0 and error is None:
            # A composite's job groups ran together: read as one run, each group kept.
            try:
                result = parse_fio_output(out.stdout, concurrent_groups=True)
            except (FioParseError, FioRunError) as exc:
                error = str(exc)
        elif cell.rate_pct is None:
            iops = self._measured_iops(done)
            if iops:
                curve = cell.curve
                self._max_iops[curve] = max(iops, self._max_iops.get(curve, 0.0))
        return RunOutput(
            stdout=out.stdout,
            stderr=out.stderr,
            exit_code=out.exit_code,
            array_time_s=out.wall_s + precondition.get("seconds", 0.0) + extra_s,
            tool="fio",
            tool_version=fio.version,
            job_file=job_text,
            result=result,
            error=error,
            fill={k: v for k, v in self.fill_record.items() if k != "job_file"},
            steady_state=judge_steady_state(
                self.state_dir / "jobs", stem, m.steady_state, m.runtime
            ),
            host_results=done.host_results,
            load_hosts=self.transport.load_hosts,
            precondition=precondition,
            purge=self.purge_record,
            telemetry=done.telemetry,
            rate=rate,
        )
