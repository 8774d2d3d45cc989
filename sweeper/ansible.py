"""Runs the project's playbooks through ansible-runner, one fresh private data dir per call."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ansible_runner

from sweeper.ansible_vars import (
    VAULT_ID,
    VAULT_PROMPT,
    Sealer,
    blanked_environment,
    environment_secrets,
    inventory_copy,
    role_secret_env,
    unsafe_yaml,
)
from sweeper.inventory import Inventory, load_inventory
from sweeper.processes import pid_alive

PLAYBOOK_DIR = Path(__file__).resolve().parent.parent / "playbooks"
_ANSI = "\x1b["
#: raidsweep's private runner folders: <tmp>/raidsweep-ansible-<pid>-<random>
PRIVATE_PREFIX = "raidsweep-ansible-"
#: the reconfiguration play that starts ahead and waits for its configuration
HANDOVER_PLAYBOOK = "handover.yml"
#: the vars file a play started ahead (``handover.yml``) waits for, in its private folder
HANDOVER_FILE = "handover.yml"
#: beside it: no configuration will be handed over (the play's wait task checks for it)
ABANDON_SUFFIX = ".abandon"


@dataclass
class PlayResult:
    """The outcome of one playbook run, kept with the configuration it built."""

    status: str  # successful | failed | canceled | timeout
    rc: int
    changed: int
    failed_task: str | None
    error: str | None
    stdout: str
    duration_s: float
    facts: dict[str, Any] = field(default_factory=dict)
    #: per host, the ``raidsweep_facts`` it published (``facts`` merges them)
    host_facts: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: the inventory host the failure happened on, and whether it could not be reached at all
    failed_host: str | None = None
    unreachable: bool = False

    @property
    def ok(self) -> bool:
        return self.status == "successful"

    def failure(self) -> str:
        """The failure in one line: task, host and Ansible's message."""
        where = f" on host {self.failed_host}" if self.failed_host else ""
        what = " (unreachable)" if self.unreachable else ""
        return f"Ansible task {self.failed_task!r} failed{where}{what}: {self.error}"


def _strip_ansi(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text) if _ANSI in text else text


def _roles(extravars: dict[str, Any]) -> list[Path]:
    """The roles a play with ``extravars`` applies: the user's (``raidsweep_role``, the
    ``ansible`` platform) and the platform's own."""
    roles = []
    role = extravars.get("raidsweep_role")
    if isinstance(role, str) and role:
        roles.append(Path(role))
    platform = extravars.get("raidsweep_platform")
    if isinstance(platform, str) and platform and "/" not in platform and platform[0] != ".":
        roles.append(PLAYBOOK_DIR / "roles" / platform)
    return [r for r in roles if r.is_dir()]


def _secrets(extravars: dict[str, Any], inventory: Inventory) -> dict[str, str]:
    """The secrets of the environment a play with ``extravars`` is handed, sealed."""
    return environment_secrets(roles=_roles(extravars), inventory=inventory)


def remove_stale_private_dirs() -> int:
    """Remove the private runner folders of raidsweep processes that no longer run (a kill -9
    leaves its folder behind); returns how many were removed."""
    removed = 0
    for folder in Path(tempfile.gettempdir()).glob(f"{PRIVATE_PREFIX}*"):
        pid_text = folder.name[len(PRIVATE_PREFIX) :].split("-", 1)[0]
        try:
            mine = folder.stat().st_uid == os.getuid()
        except OSError:
            continue
        if mine and pid_text.isdigit() and not pid_alive(int(pid_text)):
            shutil.rmtree(folder, ignore_errors=True)
            removed += 1
    return removed


def run_playbook(
    playbook: str,
    inventory: Path,
    extravars: dict[str, Any],
    *,
    cancel: Callable[[], bool] | None = None,
    timeout_s: int | None = None,
    check: bool = False,
) -> PlayResult:
    """Run ``playbooks/<playbook>`` against ``inventory`` with ``extravars``.

    The cancel callback is ours, so Ctrl-C stops the play through ansible-runner instead of
    killing the sweeper mid-write.
    """
    return start_playbook(
        playbook, inventory, extravars, cancel=cancel, timeout_s=timeout_s, check=check
    ).result()


#: How often ansible-runner's thread looks at the play between its outputs (and asks the
#: cancel callback): the first look also says the play's process has been started.
_POLL_S = 0.02
#: Plays past their recap whose ``ansible-playbook`` is still exiting (``result(at_recap=True)``).
_EXITING: set[StartedPlay] = set()
_EXITING_LOCK = threading.Lock()


def finish_exiting_plays() -> None:
    """Wait for every play still exiting. A play is started by a fork in ansible-runner's
    thread; in CPython 3.11 a fork while another thread ends can leave the child stuck before
    it runs anything (the runtime's thread list is locked in the child, never unlocked)."""
    with _EXITING_LOCK:
        plays = list(_EXITING)
    for play in plays:
        play.finish()


class StartedPlay:
    """One ``ansible-playbook`` run under way in ansible-runner's thread, in its own private
    folder; ``result()`` waits for it and removes the folder."""

    def __init__(
        self,
        playbook: str,
        inventory: Path,
        extravars: dict[str, Any],
        *,
        cancel: Callable[[], bool] | None,
        timeout_s: int | None,
        check: bool,
    ) -> None:
        self.started = time.monotonic()
        #: every event of the play as ansible-runner reads it, and whether its recap came
        self._events: list[dict[str, Any]] = []
        self._recap = threading.Event()
        #: the outcome once the process has ended (its folder is gone then)
        self._final: PlayResult | None = None
        #: set once ansible-runner's thread has started the play's process and looks at it
        self._spawned = threading.Event()
        finish_exiting_plays()
        remove_stale_private_dirs()
        #: the play's private folder, removed once the play is over
        self.private = Path(tempfile.mkdtemp(prefix=f"{PRIVATE_PREFIX}{os.getpid()}-"))
        #: seals secrets for this play only; a play started ahead has its key (and answers the
        #: vault prompt) from the start, for the secrets its handed-over vars may hold
        self.sealer = Sealer()
        try:
            if playbook == HANDOVER_PLAYBOOK:
                self.sealer.ensure_key()
            self._thread, self._runner = self._start(
                playbook, inventory, extravars, cancel, timeout_s, check
            )
        except BaseException:
            shutil.rmtree(self.private, ignore_errors=True)
            raise

    def _start(
        self,
        playbook: str,
        inventory: Path,
        extravars: dict[str, Any],
        cancel: Callable[[], bool] | None,
        timeout_s: int | None,
        check: bool,
    ) -> tuple[Any, Any]:
        # The one reading of the inventory: checked, copied for the play, and what the
        # secrets handed over are weighed against (a file raidsweep would not read is refused).
        self.inventory = load_inventory(Path(inventory))
        # The environment variables the play's roles declare they read a secret from are
        # blanked like every secret-looking one, and handed over sealed instead.
        declared = [n for r in _roles(extravars) for n in role_secret_env(r)]
        # ansible-runner starts ansible-playbook from PATH: make it the one beside this Python.
        bindir = str(Path(sys.executable).parent)
        env = blanked_environment(names=declared) | {
            "PATH": bindir + os.pathsep + os.environ.get("PATH", ""),
            "ANSIBLE_NOCOLOR": "1",
            "ANSIBLE_FORCE_COLOR": "0",
            "ANSIBLE_RETRY_FILES_ENABLED": "0",
            "ANSIBLE_LOCALHOST_WARNING": "0",
            "ANSIBLE_INVENTORY_UNPARSED_WARNING": "0",
            # Modules reach the host through a pipe, never as files holding their arguments.
            "ANSIBLE_PIPELINING": "1",
            "ANSIBLE_KEEP_REMOTE_FILES": "0",
            "ANSIBLE_ROLES_PATH": str(PLAYBOOK_DIR / "roles"),
            "ANSIBLE_LIBRARY": str(PLAYBOOK_DIR / "library"),
            # The code our modules share (``ansible.module_utils.raidsweep``).
            "ANSIBLE_MODULE_UTILS": str(PLAYBOOK_DIR / "module_utils"),
        }
        # Every value as data (``!unsafe``), secrets sealed with a key only the runner's answer
        # to the vault prompt carries; nothing of it on the command line.
        vars_file = self.private / "vars.yml"
        if playbook == HANDOVER_PLAYBOOK:
            extravars = dict(extravars) | {
                "raidsweep_handover_file": str(self.handover_file),
                "raidsweep_handover_pid": os.getpid(),
            }
        secrets = _secrets(extravars, self.inventory)
        vars_file.write_text(unsafe_yaml(dict(extravars) | secrets, self.sealer))
        # ansible-runner's settings (read from this file only: it drops those given as an
        # argument when the file is missing)
        (self.private / "env").mkdir(exist_ok=True)
        (self.private / "env" / "settings").write_text(f"pexpect_timeout: {_POLL_S}\n")
        hosts = inventory_copy(self.inventory, self.private, self.sealer)
        key = self.sealer.key
        args = ["-e", f"@{vars_file}"]
        if key is not None:
            args += ["--vault-id", f"{VAULT_ID}@prompt"]
        if check:
            args += ["--check", "--diff"]
        return ansible_runner.run_async(
            private_data_dir=str(self.private),
            project_dir=str(PLAYBOOK_DIR),
            playbook=playbook,
            inventory=str(hosts),
            envvars=env,
            passwords={VAULT_PROMPT: key} if key is not None else None,
            suppress_env_files=True,
            cancel_callback=self._polled(cancel),
            event_handler=self._on_event,
            quiet=True,
            timeout=timeout_s,
            cmdline=shlex.join(args),
        )

    @property
    def handover_file(self) -> Path:
        """Where ``handover.yml`` waits for its configuration's vars."""
        return self.private / HANDOVER_FILE

    def hand_over(self, extravars: dict[str, Any]) -> None:
        """Give a ``handover.yml`` play its vars, written whole and sealed with its key; the
        play's time counts from here."""
        text = unsafe_yaml(dict(extravars) | _secrets(extravars, self.inventory), self.sealer)
        partial = self.private / f".{HANDOVER_FILE}"
        partial.write_text(text)
        os.replace(partial, self.handover_file)
        self.started = time.monotonic()

    def abandon(self) -> None:
        """Tell a ``handover.yml`` play that no configuration will come; it ends at once."""
        (self.private / f"{HANDOVER_FILE}{ABANDON_SUFFIX}").touch()

    def done(self) -> bool:
        return not self._thread.is_alive()

    def wait_spawned(self, timeout_s: float = 30.0) -> None:
        """Wait until the play's process runs ``ansible-playbook`` (or the play has ended).

        The process is started by a fork in ansible-runner's thread. A fork while another
        thread creates or ends a Python thread state (pyarrow's and DuckDB's workers do, as
        they convert a table) leaves the child stuck in CPython 3.11 before it can run
        ``ansible-playbook``; a caller that waits here does none of that meanwhile."""
        self._wait_while_running(self._spawned, timeout_s)

    def _wait_while_running(self, event: threading.Event, timeout_s: float | None) -> None:
        """Wait until ``event`` is set, the play's thread has ended, or ``timeout_s``."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while not event.wait(0.005) and self._thread.is_alive():
            if deadline is not None and time.monotonic() > deadline:
                return

    def _polled(self, cancel: Callable[[], bool] | None) -> Callable[[], bool]:
        def polled() -> bool:
            self._spawned.set()  # asked first once the process has started
            return bool(cancel()) if cancel is not None else False

        return polled

    def result(self, *, at_recap: bool = False) -> PlayResult:
        """Wait for the play to end; what it did (asked again: the same).

        ``at_recap``: return as soon as the play's recap comes, while ``ansible-playbook``
        is still exiting (about 0.2 s on a fast target: the interpreter's shutdown and
        ansible-runner's close of its terminal). The play touches no host after its recap;
        its outcome and output are those the recap gives. ``finish()`` then waits for the
        process and removes the play's folder. A play that ends without a recap (it could not
        start, was cancelled or timed out) is waited for as without ``at_recap``.
        """
        if at_recap:
            self._wait_while_running(self._recap, None)
            if self._thread.is_alive():
                with _EXITING_LOCK:
                    _EXITING.add(self)
                events = list(self._events)
                recap = next(ev for ev in events if ev.get("event") == "playbook_on_stats")
                status, rc = _recap_status(recap)
                duration_s = time.monotonic() - self.started
                return _outcome(events, _event_stdout(events), status, rc, duration_s)
        if self._final is not None:
            return self._final
        try:
            self._thread.join()
            runner = self._runner
            stdout = _strip_ansi(runner.stdout.read()) if runner.stdout else ""
            rc = int(runner.rc if runner.rc is not None else -1)
            duration_s = time.monotonic() - self.started
            self._final = _outcome(list(runner.events), stdout, runner.status, rc, duration_s)
            return self._final
        finally:
            self.finish()

    def finish(self) -> None:
        """Wait until the play's process has ended and remove its folder (again: nothing)."""
        self._thread.join()
        shutil.rmtree(self.private, ignore_errors=True)
        with _EXITING_LOCK:
            _EXITING.discard(self)

    def _on_event(self, event: dict[str, Any]) -> bool:
        self._events.append(event)
        if event.get("event") == "playbook_on_stats":
            self._recap.set()
        return True  # ansible-runner keeps it, as without a handler


def start_playbook(
    playbook: str,
    inventory: Path,
    extravars: dict[str, Any],
    *,
    cancel: Callable[[], bool] | None = None,
    timeout_s: int | None = None,
    check: bool = False,
) -> StartedPlay:
    """Start ``playbooks/<playbook>`` and return at once; ``result()`` waits for it."""
    return StartedPlay(
        playbook,
        inventory,
        extravars,
        cancel=cancel,
        timeout_s=timeout_s,
        check=check,
    )


def _event_stdout(events: list[dict[str, Any]]) -> str:
    """The play's output as ansible-runner writes it to its stdout file: each event's text."""
    texts = (str(ev.get("stdout") or "") for ev in events)
    text = "".join(text + "\n" for text in texts if text and text != "{}")
    # the file is read as text: the terminal's line ends come back as newlines
    return _strip_ansi(text.replace("\r\n", "\n").replace("\r", "\n"))


def _recap_status(stats: dict[str, Any]) -> tuple[str, int]:
    """The status and exit code ``ansible-playbook`` ends with, from its recap's counts:
    4 when a host was unreachable, 2 when a task failed on one (rescued and ignored
    failures are not counted there), else 0."""
    data = stats.get("event_data", {})
    if any(data.get("dark") or {}):
        return "failed", 4
    if any(data.get("failures") or {}):
        return "failed", 2
    return "successful", 0


def _outcome(
    events: list[dict[str, Any]], stdout: str, status: str, rc: int, duration_s: float
) -> PlayResult:
    """What a play's events say it did."""
    failed_task, error, facts, changed = None, None, {}, 0
    failed_host, unreachable = None, False
    host_facts: dict[str, dict[str, Any]] = {}
    for ev in events:
        data = ev.get("event_data", {})
        if ev.get("event") in ("runner_on_failed", "runner_on_unreachable") and not data.get(
            "ignore_errors"
        ):
            failed_task = data.get("task")
            failed_host = data.get("host")
            unreachable = ev.get("event") == "runner_on_unreachable"
            res = data.get("res", {})
            error = res.get("msg") or res.get("stderr") or str(res)[:2000]
        elif ev.get("event") == "runner_on_ok":
            res = data.get("res", {})
            if res.get("changed"):
                changed += 1
            published = res.get("ansible_facts", {}).get("raidsweep_facts", {}) or {}
            facts |= published
            if published:
                host_facts.setdefault(str(data.get("host")), {}).update(published)
    if status == "failed" and error is None:
        error = stdout.strip().splitlines()[-1] if stdout.strip() else "the play failed"
    return PlayResult(
        status=status,
        rc=rc,
        changed=changed,
        failed_task=failed_task,
        error=error,
        stdout=stdout,
        duration_s=duration_s,
        facts=facts,
        host_facts=host_facts,
        failed_host=failed_host,
        unreachable=unreachable,
    )
