"""Hostile input: files that are not what they claim, YAML that expands without end, and
template text in every string a spec can hold. Each is refused with exit status 2, its file
named, and nothing written."""

from __future__ import annotations

import os
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import pytest
import yaml
from pydantic import BaseModel
from typer.testing import CliRunner

from sweeper.cli import app
from sweeper.errors import InputError
from sweeper.yamlsource import MAX_BYTES, YamlSource
from tests.support.paths import ROOT, SIM_INVENTORY


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
        # a character's UTF-16 escape without its other half stands for no character
        ('a: "\\ud83d"', "line 1: holds '\\ud83d' (half of a UTF-16"),
        ('a:\n  - "x\\ude80y"', "line 2: holds '\\ude80'"),
        ('"\\udbff": 1', "without its other half"),
        # Python reads no more than 4,300 digits, and YAML 1.1's base 60 in quadratic time
        ("seed: " + "9" * 5000, "line 1: a number of 5,000 characters: more than any setting"),
        ("? " + "9" * 5000 + "\n: 1", "a number of 5,000 characters"),  # as a key
        ("seed: " + ":".join(["1"] * 50_000), "a number of 99,999 characters"),
        # one merge key per mapping: PyYAML would apply the second over the first silently
        ("s: {<<: {mode: grid}, <<: {mode: optimize}}", "s: '<<' twice (first at line 1)"),
    ],
)
def test_yaml_shapes_are_clean_problems(text: str, problem: str) -> None:
    with pytest.raises(InputError) as info:
        YamlSource(text, "doc.yaml")
    assert problem in info.value.render()


@pytest.mark.parametrize("tag", ["!!int", "!!float", "!!bool", "!!timestamp", "!!null"])
@pytest.mark.parametrize("where", ["a: {tag} Hunter2Secret", "- [1, {{p: {tag} Hunter2Secret}}]"])
def test_a_value_its_tag_does_not_fit_is_refused_unshown(tag: str, where: str) -> None:
    """PyYAML reads ``!!int x`` with Python's int(), whose ValueError quotes the value: an
    inventory's password so tagged was printed. It is refused naming the line and the tag."""
    with pytest.raises(InputError) as info:
        YamlSource(where.format(tag=tag), "doc.yaml")
    said = info.value.render()
    assert f"line 1: a value tagged {tag} that is not one" in said, said
    assert "Hunter2Secret" not in said and "hunter2secret" not in said.lower()


@pytest.mark.parametrize(
    "text", ["repetitions: 1:30", "max: 1:30.5", "seed: -1:00:00", "x: [2:00]"]
)
def test_a_base_60_number_is_refused(text: str) -> None:
    """YAML 1.1 reads 1:30 as 90: ``repetitions: 1:30`` would have run 90 repetitions."""
    with pytest.raises(InputError) as info:
        YamlSource(text, "doc.yaml")
    assert "line 1: a base-60 number to YAML 1.1 (1:30 reads as 90)" in info.value.render()


@pytest.mark.parametrize(("text", "digits"), [("repetitions: 010", "010"), ("x: [-007]", "-007")])
def test_an_octal_number_is_refused(text: str, digits: str) -> None:
    """YAML 1.1 reads 010 as 8: ``repetitions: 010`` would have run 8 repetitions."""
    with pytest.raises(InputError) as info:
        YamlSource(text, "doc.yaml")
    said = f"line 1: {digits} is an octal number to YAML 1.1 (010 reads as 8)"
    assert said in info.value.render()


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("t: '1:30'", "1:30"),
        ("t: !!str 1:30", "1:30"),
        ("t: at 1:30", "at 1:30"),
        ("n: 0x10", 16),
        ("n: 0", 0),
        ("n: '010'", "010"),
        ("n: 10", 10),
    ],
)
def test_text_with_a_colon_and_other_numbers_still_read(text: str, value: object) -> None:
    assert YamlSource(text, "doc.yaml").data == {text.split(":")[0]: value}


def test_a_character_written_as_its_utf16_escapes_is_that_character(tmp_path: Path) -> None:
    """JSON writers spell a character beyond the BMP as two escapes ("\\ud83d\\ude80"), and
    JSON is YAML: a class file written so loads with the character whole, and the ranking
    and the report print it (PyYAML alone keeps two halves no UTF-8 text can hold)."""
    import json

    source = YamlSource('{"name": "go \\ud83d\\ude80", "k\\ud83d\\ude80": 1}', "doc.json")
    assert source.data == {"name": "go \U0001f680", "k\U0001f680": 1}
    from recommender.classes import load_class

    path = tmp_path / "rocket.yaml"
    path.write_text(
        json.dumps(
            {
                "name": "rocket",
                "description": "fast \U0001f680",
                "cells": [{"cell": "randread/8k/qd1x1"}],
            }
        )
    )
    assert "\\ud83d" in path.read_text()  # as json.dumps writes it
    assert load_class(path).description == "fast \U0001f680"


def test_merge_keys_and_shared_anchors_still_load() -> None:
    """What YAML users rightly write: merges overridden by explicit keys, an anchor reused."""
    source = YamlSource(
        "base: &b {runtime: 60s, ramp: 5s}\nm: {<<: *b, ramp: 10s}\nl: [*b, *b]\n", "ok.yaml"
    )
    assert source.data["m"] == {"runtime": "60s", "ramp": "10s"}
    assert YamlSource("a: &a {x: 1}\nb: &b {y: 2}\nc: {<<: [*a, *b]}\n", "ok.yaml").data["c"] == {
        "x": 1,
        "y": 2,
    }
    assert source.line_of(["m", "ramp"]) == 2


# --- template text in every field -------------------------------------------------------------

KEY = object()  # a leaf that is a mapping's key


def _leaves(tp: Any, path: tuple) -> Iterator[tuple]:
    """Every place of a value of type ``tp`` at ``path``: itself, and what it holds."""
    origin, args = get_origin(tp), get_args(tp)
    if origin is Annotated:
        yield from _leaves(args[0], path)
        return
    yield path
    if origin in (Union, types.UnionType):
        for arg in args:
            if arg is not type(None):
                yield from (p for p in _leaves(arg, path) if p != path)
    elif isinstance(tp, type) and issubclass(tp, BaseModel):
        yield (*path, KEY)  # a key of its own (unknown, but still never a template)
        for name, field in tp.model_fields.items():
            yield from _leaves(field.annotation, (*path, field.alias or name))
    elif origin is list:
        yield from _leaves(args[0], (*path, 0))
    elif origin is dict:
        yield (*path, KEY)
        key_args = get_args(args[0])
        key = key_args[0] if get_origin(args[0]) is Literal else "some_key"
        yield from _leaves(args[1], (*path, key))


def _platform_leaves() -> Iterator[tuple[str, tuple]]:
    from sweeper.platforms import PLATFORMS
    from sweeper.platforms.sim import OPTION_KEYS

    for name, cls in PLATFORMS.items():
        if cls.options_model is not None:
            for leaf in _leaves(cls.options_model, ("platform_options",)):
                yield name, leaf
    for key in sorted(OPTION_KEYS):  # sim checks its options itself
        yield "sim", ("platform_options", key)
    yield "sim", ("platform_options", KEY)


def _spec_leaves() -> list[tuple[str, tuple]]:
    from sweeper.spec import SweepSpec

    seen: dict[tuple, str] = {}
    for leaf in _leaves(SweepSpec, ()):
        seen.setdefault(leaf, "sim")
    for platform, leaf in _platform_leaves():
        seen.setdefault(leaf, platform)
    return [(platform, leaf) for leaf, platform in seen.items() if leaf]


def _inject(data: dict, path: tuple, payload: str) -> None:
    node: Any = data
    for i, part in enumerate(path):
        last = i == len(path) - 1
        if part is KEY:
            assert last and isinstance(node, dict)
            node[payload] = 1
            return
        if isinstance(part, int):
            if not isinstance(node, list) or not node:
                raise AssertionError(f"{path}: not a list at {i}")
            if last:
                node[0] = payload
            elif not isinstance(node[0], dict | list):
                node[0] = ["x"] if isinstance(path[i + 1], int) else {}
            node = node[0] if not last else node
            continue
        if last:
            node[part] = payload
            return
        child = node.get(part)
        want_list = isinstance(path[i + 1], int)
        if want_list and not (isinstance(child, list) and child):
            node[part] = [{}] if i + 2 < len(path) and not isinstance(path[i + 2], int) else ["x"]
        elif not want_list and not isinstance(child, dict):
            node[part] = {}
        node = node[part]


INVENTORY_OF = {
    "sim": ROOT / "inventories" / "sim" / "hosts.yml",
    "local": ROOT / "inventories" / "local" / "hosts.yml",
    "manual": ROOT / "inventories" / "local" / "hosts.yml",
    "ansible": ROOT / "inventories" / "local" / "hosts.yml",
    "linux_md": ROOT / "tests" / "fixtures" / "linux_md" / "hosts.yml",
    "vsan": ROOT / "inventories" / "vsan" / "hosts.yml",
}
LEAVES = _spec_leaves()


def test_the_field_walk_finds_every_section() -> None:
    tops = {leaf[0] for _, leaf in LEAVES if leaf[0] is not KEY}
    assert tops == {
        "name",
        "description",
        "platform",
        "inventory",
        "platform_options",
        "config_space",
        "matrix",
        "classes",
        "study",
        "hardware",
        "prices",
        "acceptance",
        "environment",
    }
    assert {p for p, _ in LEAVES} == {"sim", "local", "manual", "ansible", "linux_md", "vsan"}
    assert len(LEAVES) > 80


@pytest.mark.parametrize(
    ("platform", "leaf"),
    LEAVES,
    ids=[f"{p}:" + ".".join("<key>" if x is KEY else str(x) for x in leaf) for p, leaf in LEAVES],
)
def test_template_text_in_any_field_is_refused(platform: str, leaf: tuple, tmp_path: Path) -> None:
    """A payload that would create a marker file, in every field of the spec models and the
    platforms' option models (found by walking the models, so a new field is covered without
    touching this test): refused with exit 2 naming the place, by ``run`` and ``run --check``,
    and the marker is never created."""
    marker = tmp_path / "MARKER"
    payload = "{{ lookup('pipe', 'touch " + str(marker) + "') }}"
    data = good_spec(platform=platform, inventory=str(INVENTORY_OF[platform]))
    data["platform_options"] = {
        "sim": {"profile": "ds8800-like"},
        "local": {"target": str(tmp_path / "t.img"), "file_size": "16m"},
        "manual": {},
        "ansible": {
            "role": str(ROOT / "tests" / "fixtures" / "roles" / "loop_array"),
            "variables": {"raid_level": "loop_array_raid", "layout": "loop_array_layout"},
        },
        "linux_md": {},
        "vsan": {"load": "sim"},
    }[platform]
    _inject(data, leaf, payload)
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(data))
    where = ".".join(str(p) for p in leaf if p is not KEY and not isinstance(p, int))
    for args in ((), ("--check",)):
        out = refused(spec, tmp_path, "spec.yaml", "holds template syntax '{{'", args=args)
        assert where.split(".")[0] in out
    assert not marker.exists()


def test_opaque_inventory_values_pass_and_var_files_are_checked(tmp_path: Path) -> None:
    """``!unsafe`` and ``!vault`` values are opaque (Ansible never templates them); the
    group_vars and host_vars Ansible reads beside an inventory are checked like it."""
    from sweeper.inventory import inventory_problems

    inventory = tmp_path / "hosts.yml"
    inventory.write_text(
        SIM_INVENTORY.read_text()
        + "          note: !unsafe '{{ not templated }}'\n"
        + "          secret: !vault |\n            $ANSIBLE_VAULT;1.1;AES256\n            6162\n"
    )
    assert inventory_problems(inventory) == []
    (tmp_path / "group_vars").mkdir()
    (tmp_path / "group_vars" / "storage.yml").write_text("x: \"{{ lookup('pipe', 'id') }}\"\n")
    (problem,) = inventory_problems(inventory)
    assert "group_vars/storage.yml: line 1: x: holds template syntax '{{'" in problem


def test_connection_settles_as_ansible_would(tmp_path: Path) -> None:
    """A host's own ansible_connection beats its groups', a child group's beats its
    parent's: only what Ansible would use decides whether sim can run there."""
    from sweeper.inventory import platform_inventory_problems

    inventory = tmp_path / "hosts.yml"
    inventory.write_text(
        "all:\n  vars: {ansible_connection: ssh}\n  children:\n    storage:\n"
        "      vars: {ansible_connection: local}\n      hosts:\n        a:\n"
        "        b: {ansible_connection: ssh}\n"
    )
    (problem,) = platform_inventory_problems(inventory, "sim")
    assert "line 8: all.children.storage.hosts.b.ansible_connection" in problem
    assert "storage host b" in problem
    assert platform_inventory_problems(inventory, "linux_md") == []


# --- large config spaces ----------------------------------------------------------------------


def _space(**dims: Any) -> Any:
    from sweeper.spec import ConfigSpace

    return ConfigSpace.model_validate(dims)


@pytest.mark.parametrize(
    "dims",
    [
        {"raid_level": ["raid5"]},
        {
            "raid_level": ["raid5", "raid10"],
            "layout": ["single_rank", "host_stripe"],
            "ranks": [2, 4, 8],
            "stripe_kib": [16, 64],
            "cache_policy": ["wb-ra", "wt-nora"],
        },
        {
            "raid_level": ["raid6"],
            "layout": ["host_stripe", "pool_stripe"],
            "ranks": {"host_stripe": [2, 3], "pool_stripe": [4]},
            "stripe_kib": {"host_stripe": [16], "pool_stripe": [1024, 16384, 1048576]},
            "snapshots": [False, True],
            "data_reduction": [False, True],
        },
    ],
)
def test_space_size_is_what_enumeration_gives(dims: dict) -> None:
    from sweeper.configuration import enumerate_configurations, in_space, space_size

    space = _space(**dims)
    configs = enumerate_configurations(space)
    assert space_size(space) == len(configs)
    assert all(in_space(c, space) for c in configs)


def test_checking_one_cache_policy_counts_as_checking_them_all() -> None:
    """platform_problems checks the configurations at one cache policy (no platform's
    checks read it) and counts each problem for all: the same figures as checking all."""
    from sweeper.configuration import enumerate_configurations
    from sweeper.platforms import platform_problems
    from sweeper.platforms.sim import SimPlatform
    from sweeper.spec import SweepSpec

    data = good_spec()
    data["config_space"] = {
        "raid_level": ["raid5", "raid6", "raid10"],
        "layout": ["single_rank", "host_stripe", "pool_stripe"],
        "ranks": [2, 8, 12],
        "stripe_kib": {"host_stripe": [16], "pool_stripe": [16, 16384]},
        "cache_policy": ["wb-ra", "wb-nora", "wt-ra"],
        "snapshots": [False, True],
        "data_reduction": [False, True],
    }
    spec = SweepSpec.model_validate(data)
    brute: dict[str, int] = {}
    for config in enumerate_configurations(spec.config_space):
        for reason in SimPlatform.configuration_problems(config, spec.platform_options):
            brute[reason] = brute.get(reason, 0) + 1
    found = {msg.rsplit(" (", 1)[0]: msg for _, msg in platform_problems(spec)}
    assert set(found) == set(brute)
    for reason, count in brute.items():
        assert f"({count} configuration(s)" in found[reason]


def test_a_grid_too_large_is_refused_with_its_size_and_the_way_out(tmp_path: Path) -> None:
    data = good_spec()
    data["config_space"] = {
        "raid_level": ["raid5", "raid6", "raid10"],
        "layout": ["single_rank", "host_stripe", "pool_stripe"],
        "ranks": list(range(2, 65)),
        "stripe_kib": [2**i for i in range(2, 25)],
        "cache_policy": ["wb-ra", "wb-nora", "wt-ra", "wt-nora"],
        "snapshots": [False, True],
        "data_reduction": [False, True],
    }
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(data))
    refused(
        spec,
        tmp_path,
        "139,152 configurations are more than grid mode takes (10,000)",
        "mode: optimize",
    )


# --- stores and outputs that cannot be folders or files -------------------------------------


@pytest.mark.parametrize(
    ("where", "said"),
    [
        ("afile", "afile is not a folder"),
        ("afile/store", "lies in"),
        ("x" * 300, "is longer than a file name can be (255 bytes)"),
        ("/dev/null", "/dev/null is not a folder"),
    ],
)
def test_a_store_that_cannot_be_a_folder_is_refused(tmp_path: Path, where: str, said: str) -> None:
    """Every command that takes --store (reading or writing, --check too) refuses a store
    where a file stands, or a name no file system takes, before it reads or writes."""
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(good_spec()))
    (tmp_path / "afile").write_text("mine\n")
    store = where if where.startswith("/") else str(tmp_path / where)
    before = sorted(p.name for p in tmp_path.iterdir())
    for args in (
        ["run", str(spec), "-q"],
        ["run", str(spec), "--check"],
        ["status"],
        ["sql", "SELECT 1"],
        ["recommend"],
    ):
        result = CliRunner().invoke(app, [*args, "--store", store], env={"COLUMNS": "300"})
        out = " ".join(result.output.split())
        assert result.exit_code == 2, (args, out)
        assert said in out and "Invalid value for '--store'" in out, (args, out)
        assert "Traceback" not in out
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert (tmp_path / "afile").read_text() == "mine\n"


def test_a_store_this_user_cannot_write_is_refused_before_the_sweep(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(good_spec()))
    result = CliRunner().invoke(app, ["run", str(spec), "-q", "--store", "/proc/self/store"])
    out = " ".join(result.output.split())
    assert result.exit_code == 2 and "cannot be made a folder" in out, out
    result = CliRunner().invoke(app, ["run", str(spec), "-q", "--store", "/proc/self"])
    out = " ".join(result.output.split())
    assert result.exit_code == 2 and "the store at /proc/self cannot be written" in out, out


def test_a_message_quoting_a_huge_value_shows_its_start() -> None:
    result = CliRunner().invoke(app, ["disclose", "q" * 100_000, "--store", "/nonexistent"])
    assert result.exit_code == 2
    assert len(result.output) < 3000 and "characters more)" in result.output, result.output[:300]
