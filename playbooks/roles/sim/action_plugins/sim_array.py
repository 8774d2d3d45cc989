"""Action plugin: the simulated array's management interface, run where Ansible runs.

The simulated array is embedded in raidsweep, so its management interface runs in the
controller like ``set_fact`` does, not as a module shipped to a host: a sweep reconfigures
the array hundreds of times, and a module subprocess per call would cost more than the
simulated runs themselves. ``library/sim_array.py`` holds the documentation.
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

ARGUMENT_SPEC: dict[str, Any] = {
    "state_dir": {"type": "path", "required": True},
    "state": {"type": "str", "choices": ["present", "absent"], "default": "present"},
    "configuration": {"type": "dict", "required": False},
}


def read_state(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        return {}


def write_atomic(path: str, data: dict[str, Any]) -> None:
    # The runner must never read a half-written state: write beside, fsync, rename.
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".array-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, sort_keys=True)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def check_configuration(configuration: dict[str, Any]) -> None:
    """A volume over several ranks needs their number and the stripe across them."""
    layout = configuration.get("layout")
    if layout == "single_rank":
        return
    try:
        ranks, stripe = (
            int(configuration.get("ranks") or 0),
            int(configuration.get("stripe_kib") or 0),
        )
    except (TypeError, ValueError):
        ranks, stripe = 0, 0
    if ranks < 2 or stripe <= 0:
        raise AnsibleActionFail(f"layout {layout} needs ranks >= 2 and a stripe_kib")


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True

    def run(self, tmp: Any = None, task_vars: dict[str, Any] | None = None) -> dict[str, Any]:
        result = super().run(tmp, task_vars)
        del tmp  # unused: nothing is transferred
        # The array state lives beside the controller: a remote connection would write it
        # to the wrong machine without anyone noticing.
        if self._connection.transport != "local":
            raise AnsibleActionFail(
                "sim_array drives the embedded simulated array and needs "
                f"ansible_connection: local, not {self._connection.transport!r}"
            )
        _, args = self.validate_argument_spec(
            argument_spec=ARGUMENT_SPEC,
            required_if=[("state", "present", ["configuration"])],
        )
        state_dir = args["state_dir"]
        if not os.path.isabs(state_dir):
            raise AnsibleActionFail(f"state_dir must be an absolute path, not {state_dir!r}")
        if args["state"] == "present":
            check_configuration(args["configuration"])
        path = os.path.join(state_dir, "array.json")
        previous = read_state(path)
        # A JSON round trip gives plain values, compared like the ones read back from the file.
        wanted = json.loads(json.dumps(args["configuration"])) if args["state"] == "present" else {}
        changed = previous != wanted
        check = bool(self._task.check_mode)
        result.update(changed=changed, previous_state=previous)
        result["array_state"] = previous if check else wanted
        if args["state"] == "present":
            # the configuration's facts, as the array reports them (the sweeper reads these)
            result["ansible_facts"] = {"raidsweep_facts": result["array_state"]}
        if changed:
            result["diff"] = {"before": previous, "after": wanted}
            if not check:
                if wanted:
                    os.makedirs(state_dir, mode=0o755, exist_ok=True)
                    write_atomic(path, wanted)
                else:
                    os.unlink(path)
        return result
