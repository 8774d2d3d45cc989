#!/usr/bin/python
"""Ansible module: put the simulated array into a configuration and report its state.

Documentation only: the work is done by the role's action plugin of the same name
(``action_plugins/sim_array.py``), which runs in the controller like ``set_fact``.
"""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: sim_array
short_description: Configure raidsweep's simulated array
description:
  - Records the requested configuration as the simulated array's state (one JSON file,
    replaced atomically) and returns the state as the array reports it.
  - Refuses a relative I(state_dir), and a multi-rank layout without its ranks (at least 2)
    and stripe, before anything changes.
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

EXAMPLES = r"""
- name: Put the simulated array into one configuration
  sim_array:
    state_dir: /var/tmp/raidsweep-sim
    configuration:
      profile: ds8800-like
      raid_level: raid5
      layout: pool_stripe
      ranks: 4
      stripe_kib: 1048576
      cache_policy: wb-ra

- name: Return the simulated array to its empty state
  sim_array:
    state_dir: /var/tmp/raidsweep-sim
    state: absent
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
ansible_facts:
  description: The array's state as the configuration's facts.
  type: dict
  returned: with I(state=present)
  contains:
    raidsweep_facts:
      description: Same as RV(array_state).
      type: dict
      returned: with I(state=present)
"""
