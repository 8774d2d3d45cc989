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
from sweeper.fio.runner import (
    Fio,
    FioMissingError,
    FioOutput,
    version_of,
    version_problems,
    versions_problems,
)
from sweeper.load.local import PURGE_TIMEOUT_S
from sweeper.load.purge import NVME_NAMESPACE_RE
from sweeper.load.telemetry import (
    Snapshot,
    combine,
    measured_window,
    parse_cpu,
    parse_disk,
    safe_device_name,
    series_figures,
    with_other_work,
)
from sweeper.load.transport import FioTransport, TransportRun
from sweeper.remote import RemoteHost, RemoteHostError

_LOG_MARK = "\n@@raidsweep-log "

#: While fio (``$fp``) runs, once a second: is this shell still the child of the process that
#: started it (``$p``, the SSH session there)? When raidsweep ends, however it ends, its ssh
#: dies with it, the session there ends and the shell is handed to another parent: fio is then
#: stopped, instead of driving the target to the end of its run while a resumed sweep measures
#: it. (A shell without a terminal gets no hang-up signal when its connection drops.)
_WATCH = (
    "( while kill -0 $fp 2>/dev/null; do "
    "read -r _ _ _ pp _ 2>/dev/null </proc/$$/stat || pp=; "
    '[ "$pp" = "$p" ] || { kill $fp; exit; }; sleep 1; done ) & w=$!; '
)


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
            versions = {h.name: h.check(f"{self.fio_name} --version").strip() for h in self.remote}
        except RemoteHostError as exc:
            raise RuntimeError(f"not ready for fio: {exc}") from None
        # every host's fio, not the first one's: a run's figures are all of theirs
        problems = versions_problems(versions)
        if problems:
            raise FioMissingError("; ".join(problems))
        names = ",".join(h.name for h in self.remote)
        self.fio = Fio(f"{names}:{fio_name}", _versions_shown(versions))
        self.load_hosts = (
            [{"hostname": h.name, "address": f"{h.address}:{h.port}"} for h in self.remote]
            if len(self.remote) > 1
            else []
        )
        return self.fio

    def target_size(self, target: str) -> int:
        quoted = shlex.quote(check_filename(target))
        try:
            # a device, or a file on a filesystem the platform built (its allocated size)
            size = (
                f"if [ -b {quoted} ]; then blockdev --getsize64 {quoted}; "
                f"else stat -Lc %s {quoted}; fi"
            )
            return min(int(h.check(size)) for h in self.remote)
        except (RemoteHostError, ValueError) as exc:
            raise RuntimeError(f"not ready for fio: {exc}") from None

    def identity(self, target: str) -> dict[str, Any]:
        return {"target": target, "hosts": [h.name for h in self.remote]}

    def purge(self, target: str, method: str) -> str | None:
        quoted = shlex.quote(check_filename(target))
        name = f'"$(basename "$(readlink -f {quoted})")"'
        try:
            if method == "nvme-format":
                for h in self.remote:
                    found = h.check(f'basename "$(readlink -f {quoted})"').strip()
                    if not NVME_NAMESPACE_RE.fullmatch(found) or not h.check(
                        f"[ -b {quoted} ] && echo block || echo none"
                    ).startswith("block"):
                        raise RuntimeError(
                            f"purge: nvme-format needs an NVMe namespace; {target} on "
                            f"{h.name} is {found or 'not a device'}"
                        )
                command = f"nvme format --ses=1 --force {quoted}"
            else:
                # The device's own queue, or for a partition its disk's.
                probe = (
                    f"n={name}; q=/sys/class/block/$n/queue; "
                    '[ -d "$q" ] || q=$(readlink -f /sys/class/block/$n/..)/queue; '
                    f'[ -b {quoted} ] && cat "$q/discard_max_bytes" || echo 0'
                )
                for h in self.remote:
                    if int(h.check(probe).strip() or 0) <= 0:
                        return f"{target} on {h.name} does not accept discards"
                command = f"blkdiscard {quoted}"
            for h in self.remote:
                h.check(command, timeout_s=PURGE_TIMEOUT_S)
        except (RemoteHostError, ValueError) as exc:
            raise RuntimeError(f"purge: {exc}") from None
        return None

    def _one(
        self, host: RemoteHost, job: str, path: Path, timeout_s: float, watch: bool
    ) -> tuple[FioOutput, dict[str, Any]]:
        # In a fresh folder there; fio's interval logs follow its JSON on stdout, each after
        # a marker line, and are written back beside the job file (tagged with the host when
        # there are several) for the steady-state rule. The CPU and block-layer counters are
        # read there before fio starts, each second while it runs (a shell loop that ends
        # with the run) and after it ends, and travel back the same way. fio stops when the
        # connection drops (``_WATCH``); what it prints then goes nowhere (SIGPIPE ignored, so
        # the folder is still removed).
        limit = int(timeout_s) + 1
        snap = sample = ""
        if watch and self.watched is not None:
            quoted = shlex.quote(check_filename(self.watched))
            snap = (
                "snap() { "
                '{ date +%s.%N; grep "^cpu" /proc/stat; cat /proc/diskstats; } > "$1" '
                "2>/dev/null; }; "
                f'{{ basename "$(readlink -f {quoted})"; [ -b {quoted} ] && echo block; }} '
                "> device.tel 2>/dev/null; snap 0.tel; "
                # ends with the run, and also when this shell or its folder is gone (a
                # dropped connection): it never samples on alone
                "( i=1; while [ ! -e done ] && [ -e job.fio ] && kill -0 $$ 2>/dev/null; do "
                'sleep 1; i=$((i+1)); snap "$i.tel"; done ) & '
                # at the lowest CPU priority: on a host with few cores fio comes first
                "renice -n 19 -p $! >/dev/null 2>&1; "
            )
            # One sample the moment fio ends: the loop's next may come a second later, and
            # the window's end is read between the samples around it.
            sample = "snap 99998.tel; touch done; wait; snap 99999.tel; "
        script = (
            'd=$(mktemp -d) && cd "$d" && cat > job.fio && '
            + snap
            + f"p=$PPID; timeout -k 10 {limit} {self.fio_name} --output-format=json+ job.fio "
            + "& fp=$!; "
            + _WATCH
            + "wait $fp; rc=$?; kill $w 2>/dev/null; trap '' PIPE; "
            + sample
            + 'for f in *.log *.tel; do [ -e "$f" ] && printf \''
            + _LOG_MARK.replace("\n", "\\n")
            + '%s\\n\' "$f" && cat "$f"; done; cd / && rm -rf "$d"; exit $rc'
        )
        out = host.run(script, input_text=job, timeout_s=timeout_s + 30)
        stdout, *logs = out.stdout.split(_LOG_MARK)
        tel: dict[str, str] = {}
        for part in logs:
            name, _, body = part.partition("\n")
            if "/" not in name and name.endswith(".tel"):
                tel[name] = body
            elif "/" not in name and name.endswith(".log"):
                suffix = f".{host.name}" if len(self.remote) > 1 else ""
                (path.parent / f"{name}{suffix}").write_text(body)
        telemetry = _telemetry(host.name, tel, stdout)
        if out.exit_code == 124:  # timeout(1): fio hung past ramp + runtime + grace
            return FioOutput(
                stdout,
                out.stderr + f"\nfio did not finish within {limit} s; killed",
                -9,
                out.wall_s,
                timed_out=True,
            ), telemetry
        return FioOutput(stdout, out.stderr, out.exit_code, out.wall_s, out.timed_out), telemetry

    def run(
        self, job: Path, timeout_s: float, *, fill: bool = False, concurrent_groups: bool = False
    ) -> TransportRun:
        text = job.read_text()
        with ThreadPoolExecutor(max_workers=len(self.remote)) as pool:
            done = list(
                pool.map(lambda h: self._one(h, text, job, timeout_s, not fill), self.remote)
            )
        outs = [o for o, _ in done]
        per_host = {h.name: t for h, (_, t) in zip(self.remote, done, strict=True) if t}
        telemetry = combine(per_host) if per_host else {}
        if len(outs) == 1:
            return TransportRun(outs[0], telemetry=telemetry)
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
            # Each host's own version (its fio may have changed since start): the merged
            # document carries one, and a host's too old output must not pass under another's.
            old = version_problems(str(docs[host.name].get("fio version", "")), (), host.name)
            if old:
                return TransportRun(FioOutput("", out.stderr, 0, wall), error=old[0])
        # One document whose jobs are every host's jobs: fio's own aggregation over jobs then
        # gives the sum of IOPS and the percentiles of the merged latency histograms; its
        # version is the oldest host's.
        merged = dict(
            min(docs.values(), key=lambda d: version_of(str(d.get("fio version", ""))) or (0, 0))
        )
        merged["jobs"] = [
            {**j, "jobname": f"{j.get('jobname', 'job')}@{name}", "hostname": name}
            for name, d in docs.items()
            for j in d.get("jobs", [])
        ]
        output = FioOutput(json.dumps(merged), "".join(o.stderr for o in outs), 0, wall)
        if fill:
            return TransportRun(output)
        return TransportRun(output, host_results=_shares(docs), telemetry=telemetry)


def _versions_shown(versions: dict[str, str]) -> str:
    """The hosts' fio versions as recorded with each run: as fio prints it when every host
    has the same; else each with the hosts that have it, oldest first (``Fio.version_tuple``
    reads the first)."""
    if len(set(versions.values())) == 1:
        return next(iter(versions.values()))
    hosts: dict[str, list[str]] = {}
    for name, version in versions.items():
        hosts.setdefault(version, []).append(name)
    ordered = sorted(hosts, key=lambda v: version_of(v) or (0, 0))
    return "; ".join(f"{v} on {', '.join(hosts[v])}" for v in ordered)


def _telemetry(host: str, files: dict[str, str], fio_stdout: str) -> dict[str, Any]:
    """One host's telemetry from its snapshots (empty when they did not come back)."""
    device_lines = files.pop("device.tel", "").splitlines()
    device = safe_device_name(device_lines[0]) if device_lines else None
    try:
        ordered = sorted(files.items(), key=lambda kv: int(kv[0].removesuffix(".tel")))
        # in time order: the loop may take one more sample after the one at fio's end
        samples = sorted((_snapshot(text, device) for _, text in ordered), key=lambda s: s.t)
    except (ValueError, IndexError):
        return {}
    if len(samples) < 2:
        return {}
    first = ordered[0][1].splitlines()
    cpus = sum(1 for line in first if line[:3] == "cpu" and line[3:4].isdigit())
    record = {
        "host": host,
        "cpus": cpus,
        "device": device,
        "target_is_device": device is not None and "block" in device_lines[1:],
        "interval_s": 1.0,
    } | series_figures(samples, measured_window(fio_stdout))
    return with_other_work(record, fio_stdout)


def _snapshot(text: str, device: str | None) -> Snapshot:
    first, _, rest = text.partition("\n")
    return Snapshot(float(first), parse_cpu(rest), parse_disk(rest, device))


def _shares(docs: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each host's own figures, for its share in the disclosure."""
    shares: dict[str, dict[str, Any]] = {}
    for name, doc in docs.items():
        try:
            shares[name] = host_figures(parse_fio_output(json.dumps(doc)))
        except (FioParseError, FioRunError, ValueError) as exc:
            shares[name] = {"error": str(exc)}
    return shares
