"""A NUL in any of a spec's platform options (written ``"\\0"`` in a quoted YAML string) is
refused naming its line and its place, exit status 2, nothing written. Control characters in
platform options were left to after the platform's own checks, and those look paths up (the
simulated array's profile file, the ansible platform's role folder): a NUL there ended in
``error: embedded null byte``, naming neither the file nor the field."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.cli import cli
from tests.support.paths import EXAMPLES, INVENTORIES


def _listing(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def _spec(tmp_path: Path, example: str, field: str, value: str) -> Path:
    """The example spec with its inventory named from the repository and ``field`` (a line
    under platform_options, indented two spaces) set to the quoted YAML ``value``."""
    text = (EXAMPLES / example).read_text()
    text = re.sub(r"(?m)^inventory: \.\./inventories/", f"inventory: {INVENTORIES}/", text)
    line = f'  {field}: "{value}"'
    text, count = re.subn(rf"(?m)^  {field}: .*$", lambda _: line, text)
    if not count:  # an option the example leaves to its default
        text = text.replace("platform_options:\n", f"platform_options:\n{line}\n")
    if example == "ansible-eseries.yaml":
        text = text.replace("role: roles/", f"role: {EXAMPLES}/roles/", 1)
    spec = tmp_path / "spec.yaml"
    spec.write_text(text)
    return spec


@pytest.mark.parametrize(
    ("example", "field", "value"),
    [
        ("quick.yaml", "profile", "ds8800\\0-like"),
        ("ansible-eseries.yaml", "role", "roles/netapp\\0eseries"),
        ("local-lun.yaml", "target", "/tmp/raidsweep\\0.img"),
    ],
)
@pytest.mark.parametrize("command", [["run", "--check"], ["plan"], ["teardown", "--check"]])
def test_a_nul_in_a_platform_option_is_named(
    tmp_path: Path, example: str, field: str, value: str, command: list[str]
) -> None:
    spec = _spec(tmp_path, example, field, value)
    store = tmp_path / "store"
    before = _listing(tmp_path)
    done = cli(command[0], spec, *command[1:], "--store", store, cwd=tmp_path, columns=400)
    said = " ".join(done.stderr.split())
    assert done.returncode == 2, done.stdout + done.stderr
    assert re.search(rf"line \d+: platform_options\.{field}: .*'\\x00'", said), said
    assert "Traceback" not in said
    assert _listing(tmp_path) == before
