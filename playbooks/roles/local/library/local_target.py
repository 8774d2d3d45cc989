#!/usr/bin/python
"""Ansible module: a local fio target (block device or file), created when asked, described.

One module run does what would otherwise take three (create the file, stat it, describe it):
each module run starts a Python interpreter on the host, and this play runs once per
configuration, before every sweep of the local platform.
"""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: local_target
short_description: Check a local fio target and describe it (create a sparse file if asked)
description:
  - Creates the target as a sparse file of O(file_size) bytes when it does not exist and a
    size is given (not in check mode); a target that exists is never changed.
  - The file it creates carries the extended attribute C(user.raidsweep.scratch), naming its
    inode, from before it has its name; raidsweep's checks (sweeper/target.py) take an
    existing file for raidsweep's own scratch file only with that mark.
  - Fails, naming the target, when it is not an existing block device or regular file
    (in check mode a file still to be created passes).
  - Describes a block device with lsblk and the filesystem holding a file with findmnt;
    these reads run in check mode too.
options:
  path:
    description: Absolute path of the block device or file fio writes to.
    type: path
    required: true
  file_size:
    description: Create the target as a sparse file of this many bytes when it does not exist.
    type: int
  state:
    description:
      - C(present) checks, creates (with O(file_size)) and describes the target.
      - C(absent) removes the target if it is raidsweep's scratch file (its mark names its
        own inode) and leaves anything else, the user's, as it is (teardown).
    type: str
    choices: [present, absent]
    default: present
author: raidsweep
"""

EXAMPLES = r"""
- name: Check the target and gather its facts
  local_target:
    path: /var/tmp/raidsweep-target.img
    file_size: 1073741824
  register: local_found

- name: Remove the scratch file raidsweep made (a user's file is left)
  local_target:
    path: /var/tmp/raidsweep-target.img
    state: absent
"""

RETURN = r"""
target:
  description:
    - C(exists), C(kind) (block or file), C(size_bytes) (the file's size; 0 for a device,
      whose size lsblk gives), C(realpath), C(device) (lsblk's columns, block devices) and
      C(filesystem) (findmnt's columns, files).
  type: dict
  returned: when state is present
left:
  description: Why the target was left where C(state=absent) found it (it is not raidsweep's).
  type: str
  returned: when state is absent and something was left
"""

import json
import os
import stat

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.raidsweep.scratch_file import (
    SCRATCH_XATTR,
    create_scratch_file,
    remove_scratch_file,
    scratch_mark,
)

LSBLK_COLUMNS = (
    "NAME,KNAME,PATH,SIZE,TYPE,ROTA,MODEL,SERIAL,WWN,LOG-SEC,PHY-SEC,MIN-IO,OPT-IO,SCHED,RA,"
    "RO,DISC-GRAN"
)
FINDMNT_COLUMNS = "SOURCE,TARGET,FSTYPE,OPTIONS,SIZE,AVAIL"


def first(module: AnsibleModule, argv: list[str], key: str) -> dict:
    """The first entry under ``key`` of a JSON-speaking tool's output (lsblk, findmnt)."""
    rc, out, err = module.run_command(argv)
    if rc != 0:
        module.fail_json(msg=f"{argv[0]} {argv[-1]} failed (exit {rc}): {(err or out).strip()}")
    return json.loads(out)[key][0]


def absent(module: AnsibleModule, path: str) -> None:
    """Teardown: the scratch file raidsweep made is removed; anything else is the user's."""
    if not os.path.lexists(path):
        module.exit_json(changed=False)
    if module.check_mode:
        left = _not_ours(path)
        module.exit_json(changed=left is None, **({"left": left} if left else {}))
    try:
        left = remove_scratch_file(path)
    except OSError as exc:
        module.fail_json(msg=f"{path} could not be removed: {exc}")
    module.exit_json(changed=left is None, **({"left": left} if left else {}))


def _not_ours(path: str) -> str | None:
    """Why ``path`` is not raidsweep's scratch file, without removing it (check mode)."""
    try:
        st = os.lstat(path)
        mark = os.getxattr(path, SCRATCH_XATTR, follow_symlinks=False)
    except OSError:
        return f"{path} lacks raidsweep's mark: it is not raidsweep's"
    if not stat.S_ISREG(st.st_mode) or mark != scratch_mark(st.st_ino):
        return f"{path} is not the scratch file raidsweep made"
    return None


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "path": {"type": "path", "required": True},
            "file_size": {"type": "int"},
            "state": {"type": "str", "choices": ["present", "absent"], "default": "present"},
        },
        supports_check_mode=True,
    )
    path, size = module.params["path"], module.params["file_size"]
    if not os.path.isabs(path):
        module.fail_json(msg=f"local_target must be an absolute path, not {path}")
    if module.params["state"] == "absent":
        absent(module, path)
    changed = False
    if size is not None and not os.path.lexists(path):
        if size <= 0:
            module.fail_json(msg=f"file_size must be positive, not {size}")
        changed = True
        if not module.check_mode:
            # A file someone creates meanwhile is theirs, not overwritten (the link fails).
            try:
                create_scratch_file(path, size)
            except OSError as exc:
                module.fail_json(msg=f"{path} could not be made raidsweep's scratch file: {exc}")
    try:
        st = os.stat(path)
    except OSError:
        st = None
    found = {
        "exists": st is not None,
        "kind": "block" if st is not None and stat.S_ISBLK(st.st_mode) else "file",
        "size_bytes": st.st_size if st is not None else 0,
        "realpath": os.path.realpath(path),
        "device": None,
        "filesystem": None,
    }
    if st is None:
        if not module.check_mode:
            module.fail_json(msg=f"{path} must be an existing block device or regular file")
    elif stat.S_ISBLK(st.st_mode):
        lsblk = ["lsblk", "--json", "--bytes", "--nodeps", "--output", LSBLK_COLUMNS, path]
        found["device"] = first(module, lsblk, "blockdevices")
    elif stat.S_ISREG(st.st_mode):
        findmnt = ["findmnt", "--json", "--bytes", "--output", FINDMNT_COLUMNS, "--target", path]
        found["filesystem"] = first(module, findmnt, "filesystems")
    else:
        module.fail_json(msg=f"{path} must be an existing block device or regular file")
    module.exit_json(changed=changed, target=found)


if __name__ == "__main__":
    main()
