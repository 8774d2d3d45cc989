"""Several load hosts driving one array at once, through fio's own client/server mode.

Every load host runs ``fio --server=ADDRESS,PORT`` (``playbooks/loadgen.yml`` starts them);
``run_fio_clients`` runs one ``fio --client=HOST,PORT JOB_FILE ...`` that hands the job file to
every server, starts them together and collects what they report. ``parse_client_output`` reads
that report: fio's JSON then holds ``client_stats`` instead of ``jobs``, one entry per job per
host, each tagged with the ``hostname`` and ``port`` as given to ``--client``, and - when more
than one server reported - an extra entry named ``All clients`` that sums them all.

What fio's client mode does that stand-alone fio does not:

* It prints the servers' text output on stdout, each line prefixed with ``<NAME>`` (the name
  the server reports for itself, not the address given to ``--client``), before the JSON
  document, whatever ``--output-format`` says; ``--output=FILE`` gets the same text.
* It carries on without a server it cannot connect to, and exits 0 when the others ran: only
  stderr says ``fio: failed to connect to HOST:PORT``. Pass the hosts to ``parse_client_output``
  (``expected_hosts``) to have a missing host named as an error.
* ``global options`` repeats the job file's global section once per server, in one JSON object
  (duplicate keys; the last one wins when read).
* The ``All clients`` entry carries the ``hostname`` of whichever server reported last, and no
  latency percentiles: the aggregate's percentiles are computed here from the hosts' latency
  histograms (``json+`` bins), exactly as fio computes its own.
"""

from __future__ import annotations

import dataclasses
import re
import socket
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sweeper.fio.parse import (
    FioParseError,
    FioResult,
    FioRunError,
    check_directions,
    check_not_verified,
    check_one_group,
    check_version,
    cpu_pct,
    direction_stats,
    errno_name,
    find_document,
    group_streams,
    histogram_percentiles,
    job_options,
    sync_stats,
)
from sweeper.fio.results import DirectionStats
from sweeper.fio.runner import Fio, FioOutput, run_command

#: the job name fio gives the entry that sums every server's figures
ALL_CLIENTS = "All clients"
_NS_PER_MS = 1e6
_HOST_FORBIDDEN = re.compile(r"[\s,]")

Host = tuple[str, int]


class FioServerUnreachableError(RuntimeError):
    """No fio server answers at one or more HOST:PORT; the message names each of them."""


@dataclass(frozen=True)
class HostResult:
    host: str  # as given to --client (and as fio reports it back)
    port: int
    result: FioResult


@dataclass(frozen=True)
class ClientResults:
    """One client-mode run: the figures of every host, and of all of them together."""

    hosts: tuple[HostResult, ...]  # sorted by (host, port)
    aggregate: FioResult  # all hosts together
    #: "all clients": fio's own 'All clients' entry (percentiles from the merged histograms);
    #: "single host": the only host's figures; "hosts": summed here (fio wrote no sum)
    aggregate_source: str
    fio_version: str

    def host(self, host: str, port: int) -> FioResult:
        for entry in self.hosts:
            if (entry.host, entry.port) == (host, port):
                return entry.result
        raise KeyError(f"no results from {host}:{port}")


def check_hosts(hosts: Sequence[Host]) -> list[Host]:
    """The (host, port) pairs, checked: each a name or address fio accepts and a TCP port, no
    pair twice, one server per address. Raises ValueError naming the problem."""
    checked: list[Host] = []
    for item in hosts:
        if not isinstance(item, tuple | list) or len(item) != 2:
            raise ValueError(f"a host must be a (host, port) pair, not {item!r}")
        host, port = item
        if not isinstance(host, str) or not host or host.startswith("-"):
            raise ValueError(f"host {host!r} must be a non-empty name or address")
        if _HOST_FORBIDDEN.search(host):
            raise ValueError(f"host {host!r} contains a blank or ',' (fio's host,port separator)")
        if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
            raise ValueError(f"port of {host} must be a TCP port (1-65535), not {port!r}")
        if (host, port) in checked:
            raise ValueError(
                f"{host}:{port} is named twice; fio could not tell their results apart"
            )
        if any(host == other for other, _ in checked):
            raise ValueError(
                f"{host} is named twice (ports {dict(checked)[host]} and {port}): fio names "
                "the interval logs it brings back by address alone, so one server's would "
                "overwrite the other's; run one fio server per address"
            )
        checked.append((host, port))
    if not checked:
        raise ValueError("at least one (host, port) is needed")
    return checked


def wait_for_servers(hosts: Sequence[Host], timeout_s: float, *, interval_s: float = 0.2) -> None:
    """Return once every HOST:PORT accepts a TCP connection; raise when one does not in time.

    A bare connection is harmless to a fio server: it forks a handler that sees the
    connection close and exits. Raises FioServerUnreachableError naming every host that
    still does not answer at the deadline, with the last error for each.
    """
    pending = {host: "not tried" for host in check_hosts(hosts)}
    deadline = time.monotonic() + max(0.0, timeout_s)
    while True:
        for host, port in list(pending):
            remaining = deadline - time.monotonic()
            try:
                with socket.create_connection((host, port), timeout=max(0.1, min(2.0, remaining))):
                    pass
            except OSError as exc:
                pending[(host, port)] = exc.strerror or str(exc) or type(exc).__name__
            else:
                del pending[(host, port)]
        if not pending:
            return
        if time.monotonic() >= deadline:
            named = "; ".join(f"{h}:{p} ({why})" for (h, p), why in pending.items())
            raise FioServerUnreachableError(
                f"no fio server answers at {named} within {timeout_s:g} s"
                " (is `fio --server` running there? playbooks/loadgen.yml starts it)"
            )
        time.sleep(min(interval_s, max(0.0, deadline - time.monotonic())))


def run_fio_clients(
    fio: Fio,
    hosts: list[tuple[str, int]],
    job_file: Path,
    *,
    timeout_s: float,
    output_format: str = "json+",
    connect_timeout_s: float = 5.0,
    extra_args: tuple[str, ...] = (),
) -> FioOutput:
    """Run ``fio --output-format=FORMAT --client=H1,P1 JOB --client=H2,P2 JOB ...``.

    Every server receives the same job file (read here, sent over the connection); file names
    in it are opened on each server, relative ones in the server's working directory. The
    servers are first checked to accept connections (``wait_for_servers`` with
    ``connect_timeout_s``), because fio itself drops a server it cannot reach and carries on.
    As in ``run_fio``: fio runs in its own session, stdout and stderr are kept apart, and a
    timeout returns a FioOutput with ``timed_out`` (killing the client; each server finishes
    the job's runtime on its own).
    """
    checked = check_hosts(hosts)
    wait_for_servers(checked, connect_timeout_s)
    job = str(job_file.resolve())
    cmd = [fio.path, f"--output-format={output_format}", *extra_args]
    for host, port in checked:
        cmd += [f"--client={host},{port}", job]
    return run_command(cmd, cwd=job_file.resolve().parent, timeout_s=timeout_s)


def _host_of(entry: Mapping[str, Any]) -> Host:
    host, port = entry.get("hostname"), entry.get("port")
    if not isinstance(host, str) or isinstance(port, bool) or not isinstance(port, int):
        raise FioParseError(
            f"fio client_stats entry {entry.get('jobname', '?')!r} has no hostname and port"
        )
    return host, port


def _with_percentiles(
    stats: DirectionStats | None, entries: Sequence[Mapping[str, Any]], name: str
) -> DirectionStats | None:
    if stats is None:
        return None
    pcts = histogram_percentiles(entries, name)
    return dataclasses.replace(stats, **{f"lat_{key}_ms": value for key, value in pcts.items()})


def parse_client_output(
    text: str, *, expected_hosts: Sequence[Host] | None = None, concurrent_groups: bool = False
) -> ClientResults:
    """Parse the stdout of ``fio --output-format=json(+) --client=... [--client=...]``.

    Returns every host's figures (its job entries aggregated as ``parse_fio_output`` does) and
    the aggregate: fio's ``All clients`` entry when there is one (its total I/O must equal the
    hosts' sum), the host's own figures when only one host reported. Raises FioParseError when
    there is no complete client-mode document, and FioRunError naming the host when a job on it
    reports an error, or - with ``expected_hosts`` - when an expected host reported nothing.
    Several job groups are refused as ``parse_fio_output`` refuses them (they ran one after
    another), unless ``concurrent_groups`` (a composite cell's job file): then the aggregate
    keeps each group's figures over every host in ``streams``.
    """
    document = find_document(text)
    check_version(document.get("fio version", ""), document.get("client_stats"))
    stats = document.get("client_stats")
    if stats is None and "jobs" in document:
        raise FioParseError(
            "fio JSON output has 'jobs', not 'client_stats': it is a stand-alone run"
            " (use parse_fio_output)"
        )
    if not isinstance(stats, list) or not stats:
        raise FioParseError("fio JSON output has no 'client_stats' list (or it is empty)")
    per_host: dict[Host, list[dict[str, Any]]] = {}
    all_clients: list[dict[str, Any]] = []
    failures: list[str] = []
    for entry in stats:
        if not isinstance(entry, dict):
            raise FioParseError("fio JSON 'client_stats' holds a non-object entry")
        if entry.get("jobname") == ALL_CLIENTS:
            all_clients.append(entry)
            continue
        host, port = _host_of(entry)
        per_host.setdefault((host, port), []).append(entry)
        error = entry.get("error", 0)
        if error:
            failures.append(
                f"job {entry.get('jobname', '?')!r} on {host}:{port} failed with error {error}"
                f" ({errno_name(error)})"
            )
    if failures:
        raise FioRunError("fio " + "; ".join(failures))
    if not per_host:
        raise FioParseError("fio JSON 'client_stats' holds no host's entries, only sums")
    if expected_hosts is not None:
        missing = [f"{h}:{p}" for h, p in check_hosts(expected_hosts) if (h, p) not in per_host]
        if missing:
            raise FioRunError(
                f"fio reported no results from {', '.join(missing)}: the client could not"
                " connect there or the server dropped out (fio carries on without it)"
            )
    if len(all_clients) > 1:
        raise FioParseError(f"fio JSON 'client_stats' holds {len(all_clients)} {ALL_CLIENTS!r}")
    version = str(document.get("fio version", ""))
    host_entries = [e for key in sorted(per_host) for e in per_host[key]]
    if not concurrent_groups:
        check_one_group(host_entries)
    for (host, port), entries in sorted(per_host.items()):
        check_not_verified(document, entries, f" on {host}:{port}")
    try:
        check_directions(host_entries)
        streams = group_streams(host_entries) if concurrent_groups else ()
        hosts = tuple(
            HostResult(
                host=host,
                port=port,
                result=FioResult(
                    read=direction_stats(entries, "read"),
                    write=direction_stats(entries, "write"),
                    job_options=job_options(document, entries[0]),
                    fio_version=version,
                    jobs=len(entries),
                    sync=sync_stats(entries),
                    usr_cpu_pct=cpu_pct(entries, "usr_cpu", document),
                    sys_cpu_pct=cpu_pct(entries, "sys_cpu", document),
                ),
            )
            for (host, port), entries in sorted(per_host.items())
        )
        if all_clients:
            summed = all_clients[0]
            source = "all clients"
            read = _with_percentiles(direction_stats([summed], "read"), host_entries, "read")
            write = _with_percentiles(direction_stats([summed], "write"), host_entries, "write")
        elif len(hosts) == 1:
            source = "single host"
            read, write = hosts[0].result.read, hosts[0].result.write
        else:
            source = "hosts"
            read = _with_percentiles(direction_stats(host_entries, "read"), host_entries, "read")
            write = _with_percentiles(direction_stats(host_entries, "write"), host_entries, "write")
        if source == "all clients":
            for name, summed_stats in (("read", read), ("write", write)):
                total = summed_stats.total_ios if summed_stats else 0
                by_hosts = sum(int(e[name]["total_ios"]) for e in host_entries)
                if total != by_hosts:
                    raise FioParseError(
                        f"fio's {ALL_CLIENTS!r} entry counts {total} {name} I/Os but the hosts'"
                        f" entries sum to {by_hosts}"
                    )
    except (KeyError, TypeError, ValueError, AttributeError, ZeroDivisionError) as exc:
        raise FioParseError(
            f"fio JSON client entry is missing or has a bad field: {exc!r}"
        ) from exc
    aggregate = FioResult(
        read=read,
        write=write,
        job_options=job_options(document, host_entries[0]),
        fio_version=version,
        jobs=len(host_entries),
        sync=sync_stats(host_entries),
        # every host's fio together, in percent of one CPU
        usr_cpu_pct=cpu_pct(host_entries, "usr_cpu", document),
        sys_cpu_pct=cpu_pct(host_entries, "sys_cpu", document),
        streams=streams,
    )
    return ClientResults(
        hosts=hosts, aggregate=aggregate, aggregate_source=source, fio_version=version
    )
