"""Commands on an inventory host over SSH, with the connection Ansible would use.

fio runs on the storage host itself (the lab VM, a JBOD's head), not through an Ansible task
per run: a task costs seconds of start-up, a run must not. The host, port, user, key and SSH
options are read from the same inventory the playbooks use, so there is one place to say
how the host is reached: the very files the inventory's checks read and the plays get a copy
of, settled as Ansible settles a host's variables (``sweeper.inventory``). No Ansible inventory
plugin reads it here, so nothing in an inventory folder is ever run, and a file the plays
would not see (an INI file, a script) is refused, not read. Nothing here goes through a local
shell; the remote command is built from fixed text and ``shlex.quote``.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sweeper.errors import InputError
from sweeper.fio.runner import FioOutput
from sweeper.inventory import Sealed, group_settings, load_inventory
from sweeper.processes import dies_with
from sweeper.untrusted import control_problem, template_problem


class RemoteHostError(RuntimeError):
    """The inventory does not say how to reach the host, or the host does not answer."""


@dataclass(frozen=True)
class RemoteHost:
    """How to run a command on one inventory host."""

    name: str
    address: str
    port: int
    user: str | None
    key_file: str | None
    ssh_args: tuple[str, ...]
    local: bool = False

    def argv(self, command: str) -> list[str]:
        """The local argv that runs ``command`` (one shell line, already quoted) there."""
        if self.local:
            return ["sh", "-c", command]
        argv = ["ssh", "-p", str(self.port), "-o", "BatchMode=yes", "-o", "ConnectTimeout=20"]
        if self.key_file:
            argv += ["-i", self.key_file]
        argv += [*self.ssh_args, "--", f"{self.user}@{self.address}" if self.user else self.address]
        return [*argv, command]

    def run(
        self, command: str, *, input_text: str | None = None, timeout_s: float = 60.0
    ) -> FioOutput:
        """Run ``command`` there; a timeout kills the local ssh and says so."""
        started = time.monotonic()
        try:
            proc = subprocess.run(
                self.argv(command),
                input=input_text if input_text is not None else "",
                capture_output=True,
                text=True,
                errors="replace",
                timeout=timeout_s,
                start_new_session=True,  # Ctrl-C stops the sweep after the run, not the run
                preexec_fn=dies_with(os.getpid()),  # and a killed sweep's ssh ends with it
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else ""
            return FioOutput(
                out,
                f"no answer from {self.name} within {timeout_s:.0f} s; killed",
                -9,
                time.monotonic() - started,
                timed_out=True,
            )
        return FioOutput(proc.stdout, proc.stderr, proc.returncode, time.monotonic() - started)

    def check(self, command: str, timeout_s: float = 60.0) -> str:
        """Run ``command`` there and return its stdout; a failure raises RemoteHostError."""
        out = self.run(command, timeout_s=timeout_s)
        if out.exit_code != 0:
            # ssh's own failures (255) name the host; the command's name what it ran.
            raise RemoteHostError(
                f"{self.name}: {command.split()[0]} failed (exit {out.exit_code}): "
                f"{out.stderr.strip()[-400:]}"
            )
        return out.stdout


def _literal(value: Any, key: str, host: str) -> Any:
    if isinstance(value, Sealed):
        raise RemoteHostError(
            f"host {host}: {key} is sealed with Ansible Vault; raidsweep connects to the host "
            "for fio without your vault password: give it in clear"
        )
    problem = template_problem(value) if isinstance(value, str) else None
    if problem is not None:
        raise RemoteHostError(
            f"host {host}: {key} is a template ({value!r} {problem}); give it as a plain value"
        )
    problem = control_problem(value) if isinstance(value, str) else None
    if problem is not None:
        raise RemoteHostError(f"host {host}: {key} {problem}")
    return value


def inventory_host(inventory: Path, group: str = "storage") -> RemoteHost:
    """The one host of ``group`` in ``inventory``, as Ansible would connect to it."""
    return remote_host(host_vars(inventory, group))


def group_hosts(inventory: Path, group: str) -> list[RemoteHost]:
    """Every host of ``group`` (at least one), as Ansible would connect to it."""
    hosts = [remote_host(v) for v in _group_vars(inventory, group)]
    if not hosts:
        raise RemoteHostError(f"{inventory}: the {group} group has no hosts")
    return hosts


def remote_host(v: dict[str, Any]) -> RemoteHost:
    """A host, from its variables as ``host_vars`` reads them."""
    name = str(v["inventory_hostname"])
    if any(k in v for k in ("ansible_password", "ansible_ssh_pass")):
        raise RemoteHostError(
            f"host {name}: fio runs over SSH with a key (ansible_ssh_private_key_file), "
            "not a password"
        )
    return RemoteHost(
        name=name,
        address=str(_literal(v.get("ansible_host", name), "ansible_host", name)),
        port=int(_literal(v.get("ansible_port", 22), "ansible_port", name)),
        user=_literal(v.get("ansible_user"), "ansible_user", name),
        key_file=_literal(
            v.get("ansible_ssh_private_key_file"), "ansible_ssh_private_key_file", name
        ),
        ssh_args=tuple(
            shlex.split(str(_literal(v.get("ansible_ssh_common_args", ""), "ssh args", name)))
        ),
        local=v.get("ansible_connection", "ssh") == "local",
    )


def _group_vars(inventory: Path, group: str) -> list[dict[str, Any]]:
    """The variables of every host of ``group``, as Ansible settles them from the inventory
    (its YAML files, group vars, host vars, ``group_vars/`` and ``host_vars/``): the files and
    the parsed data the inventory's checks and the plays' copy use, without connecting to any
    host and without running anything."""
    try:
        inv = load_inventory(inventory)
    except InputError as exc:
        raise RemoteHostError("; ".join(exc.problems)) from None
    out = []
    for host in group_settings(inv, group):
        if host.sealed:
            raise RemoteHostError(
                f"host {host.name}: {', '.join(map(str, host.sealed))} is sealed whole with "
                "Ansible Vault, and raidsweep reads the host's connection for fio without your "
                "vault password: seal only the secret values in it (ansible-vault "
                "encrypt_string)"
            )
        out.append(_plain(host.vars))
    return out


def _plain(value: Any) -> Any:
    """``value`` with its strings as plain ``str`` (``!unsafe`` ones too), mappings and lists
    copied; a value sealed with Vault stays sealed (``Sealed``), never opened."""
    if isinstance(value, Sealed):
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def host_vars(inventory: Path, group: str = "storage") -> dict[str, Any]:
    """The variables of the one host of ``group``."""
    hosts = _group_vars(inventory, group)
    if len(hosts) != 1:
        raise RemoteHostError(
            f"{inventory}: the {group} group must have exactly one host ({len(hosts)} found)"
        )
    return hosts[0]
