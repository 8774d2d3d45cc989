"""fio's client/server mode: the same job on every host of the inventory's ``loadgen``
group at once, against a target they share; fio's own client output is the run."""

from __future__ import annotations

from pathlib import Path

from sweeper.ansible import run_playbook
from sweeper.fio.clients import check_hosts, parse_client_output, run_fio_clients
from sweeper.fio.parse import FioParseError, FioRunError, host_figures
from sweeper.fio.runner import Fio
from sweeper.load.local import LocalFio
from sweeper.load.transport import TransportRun


class FioClients(LocalFio):
    """Starts fio's servers on the load hosts (``loadgen.yml``) and runs each job through
    them; the target is the one this host sees, shared by every load host."""

    def __init__(self, inventory: Path | None):
        super().__init__()
        self.inventory = inventory
        #: (address, port) of every load host's fio server
        self.hosts: list[tuple[str, int]] = []
        self._started = False

    def start(self, fio_name: str) -> Fio:
        fio = super().start(fio_name)
        if self.inventory is None:
            raise RuntimeError("multi_host needs an inventory with a loadgen group")
        self._started = True  # some may start even if the play fails on another host
        play = run_playbook("loadgen.yml", self.inventory, {"loadgen_state": "started"})
        if not play.ok:
            raise RuntimeError(f"starting fio's servers failed: {play.failure()}")
        facts = sorted(play.host_facts.values(), key=lambda f: str(f["loadgen_bind"]))
        self.hosts = [(str(f["loadgen_bind"]), int(f["loadgen_port"])) for f in facts]
        if not self.hosts:
            raise RuntimeError(f"{self.inventory.name} has no hosts in its loadgen group")
        try:
            check_hosts(self.hosts)
        except ValueError as exc:
            raise RuntimeError(f"{self.inventory.name}, loadgen group: {exc}") from None
        self.load_hosts = [
            {k: f.get(k) for k in ("hostname", "os", "cpus", "fio_version")}
            | {"address": f"{f['loadgen_bind']}:{f['loadgen_port']}"}
            for f in facts
        ]
        return fio

    def stop(self) -> None:
        if self._started and self.inventory is not None:
            # Stops every server that did start, also when starting failed on another host.
            run_playbook("loadgen.yml", self.inventory, {"loadgen_state": "stopped"})
            self.hosts = []
            self._started = False

    def run(
        self, job: Path, timeout_s: float, *, fill: bool = False, concurrent_groups: bool = False
    ) -> TransportRun:
        assert self.fio is not None, "start() finds fio first"
        # One host fills the shared target: the others would only write the same blocks again.
        hosts = self.hosts[:1] if fill else self.hosts
        out = run_fio_clients(self.fio, hosts, job, timeout_s=timeout_s)
        if fill or out.exit_code != 0:
            return TransportRun(out)
        try:
            clients = parse_client_output(
                out.stdout, expected_hosts=hosts, concurrent_groups=concurrent_groups
            )
        except (FioParseError, FioRunError) as exc:
            return TransportRun(out, error=str(exc))
        per_host = {f"{h.host}:{h.port}": host_figures(h.result) for h in clients.hosts}
        return TransportRun(out, result=clients.aggregate, host_results=per_host)
