"""A user's role (platform: ansible) whose files are not what they claim: a FIFO, a link to a
device, YAML nested without end, a file too large, bytes that are not UTF-8, a folder. Each
is refused through the CLI with exit status 2, the file and its problem named, no traceback,
no wait, and nothing written; numbers and tags a role writes as Ansible reads them still pass."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from sweeper.cli import app
from sweeper.spec import load_spec
from sweeper.yamlsource import MAX_BYTES

ARGUMENT_SPECS = """\
argument_specs:
  main:
    short_description: Build one configuration
    options:
      my_raid: {type: str, choices: [raid5], required: true}
  teardown:
    short_description: Remove it
    options: {}
"""

#: the file of the role each case spoils: a task file besides main (which sets the target),
#: main's own task file, the argument spec
PLACES = ["tasks/extra.yml", "tasks/main.yml", "meta/argument_specs.yml"]

#: how a file is spoilt, and what the refusal says
KINDS = {
    "fifo": "is not a regular file (a FIFO, device or socket); refused without reading it",
    "dev_zero": "is not a regular file (a FIFO, device or socket); refused without reading it",
    "deep": "line 1: not valid YAML: nested deeper than 64 levels",
    "huge": f"is {MAX_BYTES + 3:,} bytes, more than the {MAX_BYTES:,} a role file may be",
    "not_utf8": "byte 11: not UTF-8 text",
    "directory": "is a directory, not a role file",
}


def role_spec(folder: Path, main_tasks: str | None = None) -> Path:
    """A spec of one configuration whose role (``folder/role``) sets the test target, a file
    in ``folder``, with the stock module set_fact, run on this host."""
    role = folder / "role"
    (role / "meta").mkdir(parents=True)
    (role / "tasks").mkdir()
    (role / "meta" / "argument_specs.yml").write_text(ARGUMENT_SPECS)
    target = folder / "t.img"
    (role / "tasks" / "main.yml").write_text(
        main_tasks
        or f"- name: Report the target\n  ansible.builtin.set_fact: {{raidsweep_target: {target}}}\n"
    )
    (role / "tasks" / "teardown.yml").write_text("[]\n")
    inventory = folder / "inv.yml"
    inventory.write_text(
        "all:\n  children:\n    storage:\n      hosts:\n        arr:\n"
        "          ansible_connection: local\n"
    )
    spec = {
        "name": "role-files",
        "platform": "ansible",
        "inventory": str(inventory),
        "platform_options": {
            "role": str(role),
            "variables": {"raid_level": "my_raid"},
            "load": "local",
            "allow": [str(target)],
        },
        "config_space": {"raid_level": ["raid5"], "layout": ["single_rank"]},
        "matrix": {
            "patterns": ["write"],
            "block_sizes": ["4k"],
            "concurrency": ["1x1"],
            "engine": "psync",
            "runtime": "2s",
            "ramp": "0s",
            "repetitions": 1,
            "working_set": "16m",
            "sync": ["dsync"],
        },
        "classes": ["redo_log"],
    }
    path = folder / "spec.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def spoil(path: Path, kind: str) -> None:
    path.unlink(missing_ok=True)
    if kind == "fifo":
        os.mkfifo(path)  # reading it would wait for a writer for ever
    elif kind == "dev_zero":
        path.symlink_to("/dev/zero")  # reading it would never end
    elif kind == "deep":
        opening = "argument_specs: " if path.name == "argument_specs.yml" else "- "
        path.write_text(opening + "[" * 5000 + "]" * 5000 + "\n")
    elif kind == "huge":
        path.write_text("# " + "x" * MAX_BYTES + "\n")
    elif kind == "not_utf8":
        path.write_bytes(b"- name: caf\xe9\n")
    else:
        path.mkdir()


@contextmanager
def unblocked(fifo: Path, after: float = 20.0) -> Iterator[list[bool]]:
    """Should anything open ``fifo`` to read and wait for a writer, open it to write after
    ``after`` seconds (and every time after), so the reader gets end of file and the test
    ends instead of hanging; yields a list that holds True if that was needed."""
    done = threading.Event()
    needed: list[bool] = []

    def watch() -> None:
        if done.wait(after):
            return
        while not done.is_set():
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # fails while no one reads
            except OSError:
                pass
            else:
                os.close(fd)
                needed.append(True)
            done.wait(0.1)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield needed
    finally:
        done.set()
        watcher.join()


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("place", PLACES)
def test_a_role_file_that_cannot_be_read_is_refused_naming_it(
    place: str, kind: str, tmp_path: Path
) -> None:
    spec = role_spec(tmp_path)
    spoilt = tmp_path / "role" / place
    spoil(spoilt, kind)
    store = tmp_path / "store"
    with unblocked(spoilt) if kind == "fifo" else nullcontext([]) as needed:
        result = CliRunner().invoke(
            app, ["run", str(spec), "--store", str(store)], env={"COLUMNS": "400"}
        )
    out = " ".join(result.output.split())
    assert not needed, "raidsweep opened the FIFO and waited for a writer"
    assert result.exit_code == 2, out
    assert f"platform_options.role: {spoilt}: {KINDS[kind]}" in out
    assert "Traceback" not in out
    assert not store.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["inv.yml", "role", "spec.yaml"]


def test_a_role_written_as_ansible_reads_it_meets_the_contract(tmp_path: Path) -> None:
    """YAML 1.1 numbers (``mode: 0644``, octal to Ansible) and Ansible's tags (``!unsafe``) in
    a role's files are the role's business: read as Ansible reads them, not refused as a
    raidsweep setting would be."""
    target = tmp_path / "t.img"
    main = (
        "- name: A file of the role's own\n"
        "  ansible.builtin.file: {path: /srv/x, state: touch, mode: 0644}\n"
        "- name: Text never templated\n"
        "  ansible.builtin.debug: {msg: !unsafe '{{ not a template }}'}\n"
        f"- name: Report the target\n  ansible.builtin.set_fact: {{raidsweep_target: {target}}}\n"
    )
    spec, _ = load_spec(role_spec(tmp_path, main))
    assert spec.platform_options["variables"] == {"raid_level": "my_raid"}
