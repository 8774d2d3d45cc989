"""fio on hosts reached over SSH: the storage host of linux_md, the worker VMs of vsan.

The job file goes on stdin, fio's JSON and its interval logs come back on stdout. With
several hosts (worker VMs, each on its own test disk) every host runs the same job at once;
their job entries together are the run, so the sum of their IOPS and the percentiles of
their merged latency histograms are the cluster's, computed exactly as fio does for several
jobs of one run.
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
from sweeper.load.transport import FioTransport, TransportRun
from sweeper.remote import RemoteHost, RemoteHostError

_LOG_MARK = "\n@@raidsweep-log "


class SshFio(FioTransport):
    """Runs each job file with real fio on ``hosts`` (all at once), each on its own copy of
    the target (the same path on every host)."""

    def __init__(self, hosts: list[RemoteHost]):
        super().__init__()
        self.remote = hosts
        self.fio_name = "fio"

    def start(self, fio_name: str) -> Fio:
        self.fio_name = shlex.quote(fio_name)
        try:
            versions = {h.check(f"{self.fio_name} --version").strip() for h in self.remote}
        except RemoteHostError as exc:
            raise RuntimeError(f"not ready for fio: {exc}") from None
        names = ",".join(h.name for h in self.remote)
        self.fio = Fio(f"{names}:{fio_name}", " ".join(sorted(versions)))
        self.load_hosts = (
            [{"hostname": h.name, "address": f"{h.address}:{h.port}"} for h in self.remote]
            if len(self.remote) > 1
            else []
        )
        return self.fio

    def target_size(self, target: str) -> int:
        quoted = shlex.quote(check_filename(target))
        try:
            return min(int(h.check(f"blockdev --getsize64 {quoted}")) for h in self.remote)
        except (RemoteHostError, ValueError) as exc:
            raise RuntimeError(f"not ready for fio: {exc}") from None

    def identity(self, target: str) -> dict[str, Any]:
        return {"target": target, "hosts": [h.name for h in self.remote]}

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

    def run(self, job: Path, timeout_s: float, *, fill: bool = False) -> TransportRun:
        text = job.read_text()
        with ThreadPoolExecutor(max_workers=len(self.remote)) as pool:
            outs = list(pool.map(lambda h: self._one(h, text, job, timeout_s), self.remote))
        if len(outs) == 1:
            return TransportRun(outs[0])
        wall = max(o.wall_s for o in outs)
        for host, out in zip(self.remote, outs, strict=True):
            if out.exit_code != 0:
                return TransportRun(
                    FioOutput(
                        out.stdout,
                        f"on {host.name}: {out.stderr}",
                        out.exit_code,
                        wall,
                        out.timed_out,
                    )
                )
        docs = {}
        for host, out in zip(self.remote, outs, strict=True):
            try:
                docs[host.name] = find_document(out.stdout)
            except FioParseError as exc:
                # fio exited 0 there: the run fails with the host and the parse error as
                # its cause, not as an empty output of the whole run.
                unreadable = f"fio's output on {host.name} is unreadable: {exc}"
                return TransportRun(FioOutput("", out.stderr, 0, wall), error=unreadable)
        # One document whose jobs are every host's jobs: fio's own aggregation over jobs then
        # gives the sum of IOPS and the percentiles of the merged latency histograms.
        merged = dict(next(iter(docs.values())))
        merged["jobs"] = [
            {**j, "jobname": f"{j.get('jobname', 'job')}@{name}", "hostname": name}
            for name, d in docs.items()
            for j in d.get("jobs", [])
        ]
        output = FioOutput(json.dumps(merged), "".join(o.stderr for o in outs), 0, wall)
        if fill:
            return TransportRun(output)
        return TransportRun(output, host_results=_shares(docs))


def _shares(docs: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each host's own figures, for its share in the disclosure."""
    shares: dict[str, dict[str, Any]] = {}
    for name, doc in docs.items():
        try:
            shares[name] = host_figures(parse_fio_output(json.dumps(doc)))
        except (FioParseError, FioRunError, ValueError) as exc:
            shares[name] = {"error": str(exc)}
    return shares
