"""Which files Ansible reads for an inventory: the YAML files of an inventory folder (or the
one file), and the files and folders of ``group_vars/`` and ``host_vars/`` beside it.

A file in an inventory folder that Ansible would read and raidsweep would not is refused,
naming it: an INI file (a leftover ``hosts`` beside the YAML is the usual one), a JSON file,
an executable (Ansible runs it as an inventory script), a subfolder (Ansible reads the files
in it). Taking it silently would let ``ansible-playbook -i FOLDER`` and raidsweep act on
different hosts; reading it would mean running it. Files Ansible itself skips there (hidden
ones, ``README.md``, ``*.bak``, ``*~`` …) are skipped alike.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from pathlib import Path

#: an inventory file is YAML by its name: the only files of an inventory folder raidsweep reads
YAML_SUFFIXES = (".yml", ".yaml")
#: what Ansible itself skips in an inventory folder (hidden names, the vars folders, and the
#: endings of its ``INVENTORY_IGNORE_EXTS`` default): nobody reads these
_ANSIBLE_SKIPS = re.compile(
    r"^\.|^(?:host_vars|group_vars|vars_plugins)$"
    r"|(?:\.pyc|\.pyo|\.swp|\.bak|~|\.rpm|\.md|\.txt|\.rst|\.orig|\.cfg|\.retry)$"
)


def _executable(path: Path) -> list[str]:
    try:
        st = path.stat()
    except OSError:
        return []  # reading it names the problem
    if stat.S_ISREG(st.st_mode) and st.st_mode & 0o111:
        return [
            f"{path}: is executable: Ansible would run it as an inventory script; raidsweep "
            "never runs one and reads it as YAML, so the two would act on different hosts "
            f"(remove its execute permission: chmod a-x {path.name})"
        ]
    return []


def inventory_files(path: Path) -> tuple[list[Path], list[str]]:
    """The inventory files raidsweep reads at ``path`` (the file, or the folder's YAML files
    in Ansible's order), and a problem for each other file there that Ansible would read."""
    if not path.is_dir():
        return [path], _executable(path)
    files: list[Path] = []
    problems: list[str] = []
    for entry in sorted(path.iterdir()):
        if _ANSIBLE_SKIPS.search(entry.name):
            continue
        if entry.is_dir():
            problems.append(
                f"{entry}: a folder in the inventory folder: Ansible would read the inventory "
                "files in it, raidsweep reads only the folder's own *.yml and *.yaml files "
                "(move it out of the inventory folder)"
            )
        elif entry.suffix not in YAML_SUFFIXES and _executable(entry):
            problems.append(
                f"{entry}: an executable file in the inventory folder: Ansible would run it as "
                "an inventory script, raidsweep never runs one (nor reads a file that is not "
                "*.yml or *.yaml), so the two would act on different hosts; move it out of the "
                "inventory folder"
            )
        elif entry.suffix not in YAML_SUFFIXES:
            problems.append(
                f"{entry}: not a YAML inventory file (*.yml, *.yaml): Ansible would read it too "
                "(as an INI inventory; a leftover INI 'hosts' file is the usual one), raidsweep "
                "never reads it, so the plays and raidsweep would act on other hosts than "
                "ansible-playbook -i with this folder would; convert it to YAML, or move it out "
                "of the inventory folder"
            )
        else:
            files.append(entry)
            problems += _executable(entry)
    return files, problems


#: the folders of variables Ansible reads beside an inventory, and the files it reads there
VARS_DIRS = ("group_vars", "host_vars")
VARS_SUFFIXES = ("", ".yml", ".yaml", ".json")


def _skipped_part(part: str) -> bool:
    """A name Ansible skips in a vars folder: hidden, or a backup (``~``)."""
    return part.startswith(".") or part.endswith("~")


def vars_files(path: Path) -> list[Path]:
    """The files of ``group_vars/`` and ``host_vars/`` beside the inventory, which Ansible
    reads with it (no extension, .yml, .yaml or .json; folders per group or host too; hidden
    files and backups, which Ansible skips, left out)."""
    return _vars_entries(path, lambda p: p.suffix in VARS_SUFFIXES and not p.is_dir())


def vars_folders(path: Path) -> list[Path]:
    """The folders under ``group_vars/`` and ``host_vars/`` beside the inventory (hidden ones,
    which Ansible skips, left out)."""
    return _vars_entries(path, Path.is_dir)


def _vars_entries(path: Path, wanted: Callable[[Path], bool]) -> list[Path]:
    """The ``wanted`` entries under ``group_vars/`` and ``host_vars/`` beside the inventory,
    each folder's sorted, none under a part Ansible skips."""
    base = path if path.is_dir() else path.parent
    out = []
    for sub in VARS_DIRS:
        folder = base / sub
        if folder.is_dir():
            out += sorted(
                p
                for p in folder.rglob("*")
                if wanted(p) and not any(_skipped_part(s) for s in p.relative_to(folder).parts)
            )
    return out


def read_in_folder(rel: Path) -> bool:
    """Whether Ansible reads the file ``rel`` of a group's or host's vars folder: no hidden
    name or backup on the way, folders without an extension, a file with none or a known one."""
    parts = rel.parts[1:]
    if any(_skipped_part(p) for p in parts):
        return False
    if any(os.path.splitext(p)[1] for p in parts[:-1]):
        return False
    return os.path.splitext(parts[-1])[1] in VARS_SUFFIXES
