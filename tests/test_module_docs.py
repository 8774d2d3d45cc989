"""Our Ansible modules document themselves: ansible-doc shows each one with its examples, and
each DOCUMENTATION block states the options the module's argument_spec takes (names, types,
required, defaults, choices)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.paths import ROOT

PLAYBOOKS = ROOT / "playbooks"
ANSIBLE_DOC = Path(sys.executable).parent / "ansible-doc"
#: what an option is, as both sides state it; absent means Ansible's default
FIELDS = {"type": "str", "required": False, "default": None, "choices": None, "elements": None}


def _modules() -> list[Path]:
    """Every module file of ours: the playbooks' library and each role's (a role's library
    that links to the playbooks' is the same files, counted once)."""
    found: dict[Path, Path] = {}
    for path in [*PLAYBOOKS.glob("library/*.py"), *PLAYBOOKS.glob("roles/*/library/*.py")]:
        found.setdefault(path.resolve(), path)
    return sorted(found.values(), key=lambda p: p.stem)


MODULES = _modules()


def _assigned(tree: ast.Module, name: str) -> Any:
    """The value of a module-level assignment ``name = <literal>``, or None."""
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return node.value
    return None


def _blocks(path: Path) -> dict[str, Any]:
    """DOCUMENTATION, EXAMPLES and RETURN, each parsed as YAML (None where missing)."""
    tree = ast.parse(path.read_text())
    out = {}
    for name in ("DOCUMENTATION", "EXAMPLES", "RETURN"):
        node = _assigned(tree, name)
        out[name] = yaml.safe_load(ast.literal_eval(node)) if node is not None else None
    return out


def _spec_node(path: Path) -> ast.Dict:
    """The argument_spec dict of a module: the one it hands AnsibleModule, or, for a module
    that only documents a role's action plugin, the plugin's ARGUMENT_SPEC."""
    sources = [path, path.parent.parent / "action_plugins" / path.name]
    for source in sources:
        if not source.is_file():
            continue
        tree = ast.parse(source.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "AnsibleModule":
                for kw in node.keywords:
                    if kw.arg == "argument_spec" and isinstance(kw.value, ast.Dict):
                        return kw.value
        node = _assigned(tree, "ARGUMENT_SPEC")
        if isinstance(node, ast.Dict):
            return node
    raise AssertionError(f"no argument_spec found for {path} (looked in {sources})")


def _argument_spec(path: Path) -> dict[str, dict[str, Any]]:
    """Per option, its fields as the code states them (a field that is not a literal, such
    as an env fallback, is not one of FIELDS and is left out)."""
    spec = {}
    node = _spec_node(path)
    for key, value in zip(node.keys, node.values, strict=True):
        assert isinstance(key, ast.Constant) and isinstance(value, ast.Dict), ast.unparse(key)
        fields = {
            ast.literal_eval(k): v
            for k, v in zip(value.keys, value.values, strict=True)
            if isinstance(k, ast.Constant) and k.value in FIELDS
        }
        spec[key.value] = {f: ast.literal_eval(v) for f, v in fields.items()}
    return spec


def _stated(option: dict[str, Any]) -> dict[str, Any]:
    return {field: option.get(field, default) for field, default in FIELDS.items()}


def test_every_module_of_ours_is_found() -> None:
    names = {p.stem for p in MODULES}
    assert {"vsan_policy", "mdadm_array", "lvm_volume", "device_guard", "drive_cache"} <= names
    assert "sim_array" in names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.stem)
def test_ansible_doc_shows_the_module_with_its_examples(path: Path) -> None:
    env = os.environ | {"ANSIBLE_NOCOLOR": "1", "ANSIBLE_FORCE_COLOR": "0"}
    shown = subprocess.run(
        [str(ANSIBLE_DOC), "-M", str(path.parent), path.stem],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert shown.returncode == 0, shown.stderr
    assert "[ERROR]" not in shown.stderr and "[WARNING]" not in shown.stderr, shown.stderr
    assert f"MODULE {path.stem} " in shown.stdout
    assert "EXAMPLES:" in shown.stdout
    assert "RETURN VALUES:" in shown.stdout


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.stem)
def test_the_blocks_are_valid_and_the_examples_call_the_module(path: Path) -> None:
    blocks = _blocks(path)
    doc = blocks["DOCUMENTATION"]
    assert doc["module"] == path.stem
    assert doc["short_description"] and doc["description"]
    assert isinstance(blocks["RETURN"], dict) and blocks["RETURN"]
    for name, value in blocks["RETURN"].items():
        assert {"description", "type", "returned"} <= set(value), name
    examples = blocks["EXAMPLES"]
    assert isinstance(examples, list) and examples
    for task in examples:
        assert task["name"] and path.stem in task, task


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.stem)
def test_the_documented_options_are_the_argument_spec(path: Path) -> None:
    documented = _blocks(path)["DOCUMENTATION"].get("options") or {}
    spec = _argument_spec(path)
    assert sorted(documented) == sorted(spec)
    for name, option in spec.items():
        assert _stated(documented[name]) == _stated(option), name
