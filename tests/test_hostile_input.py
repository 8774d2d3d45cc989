"""Hostile input: files that are not what they claim, YAML that expands without end, and
template text in every string a spec can hold. Each is refused with exit status 2, its file
named, and nothing written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from sweeper.cli import app
from sweeper.errors import InputError
from sweeper.yamlsource import MAX_BYTES, YamlSource

ROOT = Path(__file__).resolve().parent.parent
SIM_INVENTORY = ROOT / "inventories" / "sim" / "hosts.yml"


def good_spec(**change: object) -> dict:
    spec = {
        "name": "hostile",
        "platform": "sim",
        "inventory": str(SIM_INVENTORY),
        "platform_options": {"profile": "ds8800-like"},
        "config_space": {"raid_level": ["raid5", "raid10"]},
        "matrix": {
            "patterns": ["randread", "randrw70"],
            "block_sizes": ["8k", "16k"],
            "concurrency": ["1x16"],
            "runtime": "60s",
            "ramp": "5s",
            "repetitions": 1,
        },
        "classes": ["data_file"],
    }
    return spec | change


def refused(spec: Path, tmp_path: Path, *names: str, args: tuple[str, ...] = ()) -> str:
    """Run the spec through the CLI: exit 2, the named files and problems in the output,
    no traceback, nothing written."""
    store = tmp_path / "store"
    result = CliRunner().invoke(
        app, ["run", str(spec), "--store", str(store), *args], env={"COLUMNS": "300"}
    )
    out = " ".join(result.output.split())
    assert result.exit_code == 2, out
    for name in names:
        assert name in out, out
    assert "Traceback" not in out
    assert not store.exists()
    return out


# --- files that are not plain files ----------------------------------------------------------


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "directory", "symlink_loop", "too_large"])
def test_a_spec_that_is_not_a_plain_file_is_refused_unread(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "spec.yaml"
    if kind == "fifo":
        os.mkfifo(path)  # reading it would wait for a writer for ever
        expect = "not a regular file"
    elif kind == "dev_zero":
        path.symlink_to("/dev/zero")  # reading it would never end
        expect = "not a regular file"
    elif kind == "directory":
        path.mkdir()
        expect = "is a directory"
    elif kind == "symlink_loop":
        path.symlink_to(tmp_path / "other.yaml")
        (tmp_path / "other.yaml").symlink_to(path)
        expect = "symbolic links"
    else:
        path.write_text("description: '" + "x" * MAX_BYTES + "'\n")
        expect = "more than the 1,048,576"
    refused(path, tmp_path, str(path), expect)


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "symlink_loop"])
def test_an_inventory_or_class_file_that_is_not_a_plain_file_is_refused(
    kind: str, tmp_path: Path
) -> None:
    for what in ("inventory", "class"):
        path = tmp_path / f"{what}.yml"
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "dev_zero":
            path.symlink_to("/dev/zero")
        else:
            path.symlink_to(tmp_path / f"{what}2.yml")
            (tmp_path / f"{what}2.yml").symlink_to(path)
        change = {"inventory": str(path)} if what == "inventory" else {"classes": [str(path)]}
        spec = tmp_path / f"spec-{what}.yaml"
        spec.write_text(yaml.safe_dump(good_spec(**change)))
        refused(spec, tmp_path, f"{what}.yml")


# --- YAML that expands ------------------------------------------------------------------------

BOMB = "".join(
    f"l{n}: &l{n} [" + ", ".join([f"*l{n - 1}" if n else '"lol"'] * 9) + "]\n" for n in range(10)
)


def test_billion_laughs_is_refused_without_expanding(tmp_path: Path) -> None:
    """796 bytes that expand to 9^9 strings: refused at once (the walk counts each anchored
    collection once), never handed on."""
    assert len(BOMB) < 1000
    with pytest.raises(InputError) as info:
        YamlSource(BOMB, "bomb.yaml")
    assert "aliases expand the document beyond 100,000 values" in info.value.render()
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(good_spec()) + "x-bomb:\n  " + BOMB.replace("\n", "\n  "))
    refused(spec, tmp_path, "spec.yaml", "aliases expand")
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(SIM_INVENTORY.read_text() + "  vars:\n    " + BOMB.replace("\n", "\n    "))
    spec.write_text(yaml.safe_dump(good_spec(inventory=str(inventory))))
    refused(spec, tmp_path, "hosts.yml", "aliases expand")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested deeper than 64 levels"),
        ("a: " + "{b: " * 5000 + "1" + "}" * 5000, "nested deeper than 64 levels"),
        ("- " * 3000 + "x", "nested deeper than 64 levels"),
        ("a: &a [*a]", "an alias refers to the collection that holds it"),
        ("a: &a {b: {c: *a}}", "an alias refers to the collection that holds it"),
        ("a: 1\nb: 2\na: 3\n", "line 3: a: duplicate key 'a' (first at line 1)"),
        ("x: {1: a, 0x1: b}", "duplicate key '0x1'"),
        ("x: {~: a, null: b}", "duplicate key 'null'"),
    ],
)
def test_yaml_shapes_are_clean_problems(text: str, problem: str) -> None:
    with pytest.raises(InputError) as info:
        YamlSource(text, "doc.yaml")
    assert problem in info.value.render()


def test_merge_keys_and_shared_anchors_still_load() -> None:
    """What YAML users rightly write: merges overridden by explicit keys, an anchor reused."""
    source = YamlSource(
        "base: &b {runtime: 60s, ramp: 5s}\nm: {<<: *b, ramp: 10s}\nl: [*b, *b]\n", "ok.yaml"
    )
    assert source.data["m"] == {"runtime": "60s", "ramp": "10s"}
    assert source.line_of(["m", "ramp"]) == 2
