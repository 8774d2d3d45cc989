#!/usr/bin/python
"""Ansible module: wait until the sweeper hands a play started ahead its configuration.

Documentation only: the work is done by the action plugin of the same name
(``playbooks/action_plugins/raidsweep_handover.py``), which runs in the controller.
"""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: raidsweep_handover
short_description: Wait for the sweeper to hand over a configuration
description:
  - Holds a reconfiguration play started ahead of time (C(handover.yml)) until the sweeper
    writes the chosen configuration's vars file, renamed into place whole.
  - Runs in the controller and touches no host.
  - Fails at once when a file named like the vars file with C(.abandon) appended appears
    (the sweeper will hand over no configuration), when the sweeper's process has exited, or
    when the folder that holds the vars file is gone (nothing can be handed over there).
options:
  path:
    description: The vars file to wait for.
    type: path
    required: true
  sweeper_pid:
    description: The process id of the sweeper that will write it.
    type: int
    required: true
  poll_s:
    description: Seconds between two looks at the file.
    type: float
    default: 0.005
"""

EXAMPLES = r"""
- name: Wait until the configuration's vars file is in place
  raidsweep_handover:
    path: /tmp/raidsweep-ansible-1234-abcd/handover.yml
    sweeper_pid: 1234
"""

RETURN = r"""
waited_s:
  description: Seconds the play waited for the configuration.
  type: float
  returned: success
"""
