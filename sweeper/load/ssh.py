"""fio on hosts reached over SSH: the storage host of linux_md, the worker VMs of vsan.

The local platform's runner (fill before reads, steady state from interval logs, fio's JSON
kept verbatim) with fio started over SSH: the job file goes on stdin, fio's JSON and its
interval logs come back on stdout. With several hosts (worker VMs, each on its own test
disk) every host runs the same job at once; their job entries together are the run, so the
sum of their IOPS and the percentiles of their merged latency histograms are the
cluster's, computed exactly as fio does for several jobs of one run.
"""

from __future__ import annotations

import json
import shlex
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from sweeper.fio.jobfile import check_filename
from sweeper.fio.parse import (
    FioParseError,
    FioRunError,
    find_document,
    host_figures,
    parse_fio_output,
)
from sweeper.fio.runner import Fio, FioOutput
from sweeper.platforms.base import RunOutput
from sweeper.platforms.local import LocalOptions, LocalRunner
from sweeper.remote import RemoteHost, RemoteHostError
from sweeper.workload import WorkloadCell

_LOG_MARK = "\n@@raidsweep-log "


class RemoteFioRunner(LocalRunner):
    """Runs each cell's job file with real fio on ``hosts`` (all at once), on ``target``."""

    def __init__(
        self,
        opts: LocalOptions,
        state_dir: Path,
        matrix: Any,
        hosts: list[RemoteHost],
    ):
        super().__init__(opts, state_dir, matrix, None)
        self.remote = hosts
        self.fio_name = shlex.quote(opts.fio)
        #: each host's fio document of the last run, for its share in the disclosure
        self._documents: dict[str, dict[str, Any]] = {}
        #: why the last run failed although fio exited 0 on every host
        self._unreadable: str | None = None

    def prepare(self) -> None:
        target = check_filename(self.opts.target)
        versions, sizes = set(), []
        try:
            for host in self.remote:
                versions.add(host.check(f"{self.fio_name} --version").strip())
                sizes.append(int(host.check(f"blockdev --getsize64 {shlex.quote(target)}")))
        except (RemoteHostError, ValueError) as exc:
            raise RuntimeError(f"not ready for fio: {exc}") from None
        names = ",".join(h.name for h in self.remote)
        self.fio = Fio(f"{names}:{self.opts.fio}", " ".join(sorted(versions)))
        self.working_set = self.matrix.working_set or min(sizes)
        if self.working_set > min(sizes):
            raise RuntimeError(
                f"the working set ({self.working_set} bytes) is larger than {target} "
                f"({min(sizes)} bytes)"
            )
        self.load_hosts = (
            [{"hostname": h.name, "address": f"{h.address}:{h.port}"} for h in self.remote]
            if len(self.remote) > 1
            else []
        )
        (self.state_dir / "jobs").mkdir(parents=True, exist_ok=True)
        if self.opts.fill and any(p.reads for p in self.matrix.patterns):
            self.fill_record = self._fill()

    def _identity(self) -> dict[str, Any]:
        return {"target": self.opts.target, "hosts": [h.name for h in self.remote]}

    def _one(self, host: RemoteHost, job: str, path: Path, timeout_s: float) -> FioOutput:
        # In a fresh folder there; fio's interval logs follow its JSON on stdout, each after
        # a marker line, and are written back beside the job file (tagged with the host when
        # there are several) for the steady-state rule.
        limit = int(timeout_s) + 1
        script = (
            'd=$(mktemp -d) && cd "$d" && cat > job.fio && '
            f"timeout -k 10 {limit} {self.fio_name} --output-format=json+ job.fio; rc=$?; "
            'for f in *.log; do [ -e "$f" ] && printf \''
            + _LOG_MARK.replace("\n", "\\n")
            + '%s\\n\' "$f" && cat "$f"; done; cd / && rm -rf "$d"; exit $rc'
        )
        out = host.run(script, input_text=job, timeout_s=timeout_s + 30)
        stdout, *logs = out.stdout.split(_LOG_MARK)
        for part in logs:
            name, _, body = part.partition("\n")
            if "/" not in name and name.endswith(".log"):
                suffix = f".{host.name}" if len(self.remote) > 1 else ""
                (path.parent / f"{name}{suffix}").write_text(body)
        if out.exit_code == 124:  # timeout(1): fio hung past ramp + runtime + grace
            return FioOutput(
                stdout,
                out.stderr + f"\nfio did not finish within {limit} s; killed",
                -9,
                out.wall_s,
                timed_out=True,
            )
        return FioOutput(stdout, out.stderr, out.exit_code, out.wall_s, out.timed_out)

    def _fio(self, path: Path, timeout_s: float, hosts: list[tuple[str, int]]) -> FioOutput:
        job = path.read_text()
        with ThreadPoolExecutor(max_workers=len(self.remote)) as pool:
            outs = list(pool.map(lambda h: self._one(h, job, path, timeout_s), self.remote))
        self._documents = {}
        if len(outs) == 1:
            return outs[0]
        wall = max(o.wall_s for o in outs)
        for host, out in zip(self.remote, outs, strict=True):
            if out.exit_code != 0:
                return FioOutput(
                    out.stdout, f"on {host.name}: {out.stderr}", out.exit_code, wall, out.timed_out
                )
        docs = {}
        for host, out in zip(self.remote, outs, strict=True):
            try:
                docs[host.name] = find_document(out.stdout)
            except FioParseError as exc:
                # fio exited 0 there: the run fails with the host and the parse error as
                # its cause (run() stores it), not as an empty output of the whole run.
                self._unreadable = f"fio's output on {host.name} is unreadable: {exc}"
                return FioOutput("", out.stderr, 0, wall)
        self._documents = docs
        # One document whose jobs are every host's jobs: fio's own aggregation over jobs then
        # gives the sum of IOPS and the percentiles of the merged latency histograms.
        first = next(iter(docs.values()))
        merged = dict(first)
        merged["jobs"] = [
            {**j, "jobname": f"{j.get('jobname', 'job')}@{name}", "hostname": name}
            for name, d in docs.items()
            for j in d.get("jobs", [])
        ]
        return FioOutput(json.dumps(merged), "".join(o.stderr for o in outs), 0, wall)

    def run(self, cell: WorkloadCell, repetition: int) -> RunOutput:
        self._unreadable = None
        out = super().run(cell, repetition)
        if self._unreadable is not None:
            out.error = self._unreadable
        elif len(self.remote) > 1 and out.exit_code == 0:
            per_host = {}
            for name, doc in self._documents.items():
                try:
                    per_host[name] = host_figures(parse_fio_output(json.dumps(doc)))
                except (FioParseError, FioRunError, ValueError) as exc:
                    per_host[name] = {"error": str(exc)}
            out.extra["hosts"] = per_host
        return out
