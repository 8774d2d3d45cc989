"""Action plugin: wait, in the controller, until the sweeper hands over a configuration.

A reconfiguration play is started ahead of time, while the previous configuration is still
being measured, so that Ansible's own start (its imports, the inventory, the playbook) is
done by the time the configuration is chosen. This task holds the play until the sweeper
writes the configuration's vars file whole (renamed into place), gives up at once when the
sweeper says it will not need the play, has exited, or the play's folder is gone (a sweeper
that lives on, such as the app's, whose folder was cleaned away), and never touches a host.
``library/raidsweep_handover.py`` holds the documentation.
"""

from __future__ import annotations

import os
import time
from typing import Any

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

ARGUMENT_SPEC: dict[str, Any] = {
    "path": {"type": "path", "required": True},
    "sweeper_pid": {"type": "int", "required": True},
    "poll_s": {"type": "float", "default": 0.005},
}
#: beside the vars file: the sweeper will not hand over a configuration to this play
ABANDON_SUFFIX = ".abandon"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True

    def run(self, tmp: Any = None, task_vars: dict[str, Any] | None = None) -> dict[str, Any]:
        result = super().run(tmp, task_vars)
        del tmp  # unused: nothing is transferred
        _, args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)
        path, pid, poll_s = args["path"], args["sweeper_pid"], max(0.001, args["poll_s"])
        waited = time.monotonic()
        while not os.path.exists(path):
            if os.path.exists(path + ABANDON_SUFFIX):
                raise AnsibleActionFail("the sweeper handed over no configuration to this play")
            if not _alive(pid):
                raise AnsibleActionFail(f"the sweeper (pid {pid}) exited before handing over")
            if not os.path.isdir(os.path.dirname(path)):
                raise AnsibleActionFail("the play's folder was removed: no configuration comes")
            time.sleep(poll_s)
        result.update(changed=False, waited_s=round(time.monotonic() - waited, 3))
        return result
