#!/usr/bin/python
"""Ansible module: put the simulated array into a configuration and report its state."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: sim_array
short_description: Configure raidsweep's simulated array
description:
  - Records the requested configuration as the simulated array's state (one JSON file,
    replaced atomically) and returns the state as the array reports it.
  - Idempotent; reports a change only when the configuration differs.
  - Check mode reports the change it would make and writes nothing.
options:
  state_dir:
    description: Directory that holds the simulated array's state.
    type: path
    required: true
  state:
    description: C(present) configures the array, C(absent) returns it to its empty state.
    type: str
    choices: [present, absent]
    default: present
  configuration:
    description: The array state to record (profile, RAID level, layout, ranks, stripe, cache).
    type: dict
    required: false
"""

RETURN = r"""
array_state:
  description: The simulated array's state after the call (empty when absent).
  type: dict
  returned: always
previous_state:
  description: The state before the call (empty when the array was unconfigured).
  type: dict
  returned: always
"""

import json  # noqa: E402
import os  # noqa: E402
import tempfile  # noqa: E402

from ansible.module_utils.basic import AnsibleModule  # noqa: E402


def _read(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        return {}


def _write_atomic(path: str, data: dict) -> None:
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


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "state_dir": {"type": "path", "required": True},
            "state": {"type": "str", "choices": ["present", "absent"], "default": "present"},
            "configuration": {"type": "dict", "required": False},
        },
        required_if=[("state", "present", ["configuration"])],
        supports_check_mode=True,
    )
    state_dir = module.params["state_dir"]
    if not os.path.isabs(state_dir):
        module.fail_json(msg=f"state_dir must be an absolute path, not {state_dir!r}")
    path = os.path.join(state_dir, "array.json")
    previous = _read(path)
    wanted = module.params["configuration"] if module.params["state"] == "present" else {}
    changed = previous != wanted
    result = {"changed": changed, "previous_state": previous, "array_state": wanted}
    if changed:
        result["diff"] = {"before": previous, "after": wanted}
    if changed and not module.check_mode:
        if wanted:
            os.makedirs(state_dir, mode=0o755, exist_ok=True)
            _write_atomic(path, wanted)
        else:
            os.unlink(path)
    if module.check_mode:
        result["array_state"] = previous
    module.exit_json(**result)


if __name__ == "__main__":
    main()
