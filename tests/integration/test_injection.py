"""User data is never template text: a payload that would create a marker file, put into every
user string that reaches a play, never creates it.

Two layers, each tested on its own:
- through the CLI (``run --check``, ``plan``, ``run``, ``teardown``), every string field of the
  spec's models and of every platform's options model, enumerated from the models so that a
  new field is covered without touching this test: refused at validation, exit 2;
- behind validation, with real Ansible: every string raidsweep hands to a play (each extra
  var of each platform's reconfigure and teardown plays, and the inventory's host and group
  vars) reaches the play as data: the play may fail on the odd value, the marker never appears.
"""

from __future__ import annotations

import ast
import types
import typing
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import BaseModel
from typer.testing import CliRunner

from sweeper.ansible import run_playbook
from sweeper.cli import app
from sweeper.configuration import enumerate_configurations
from sweeper.platforms import PLATFORMS, get_platform
from sweeper.spec import SweepSpec
from tests.support.campaign import FIGURES
from tests.support.paths import ROOT
from tests.support.specs import quick_base

pytestmark = pytest.mark.integration
COMMANDS = (("run", "--check"), ("plan",), ("run", "-q"), ("teardown",))
SEEN: dict[str, int] = {}


def _payloads(marker: Path) -> list[str]:
    """A Jinja expression and a Jinja statement that would each create ``marker``."""
    return [
        f"{{{{ lookup('pipe', 'touch {marker}') }}}}",
        f"{{% if lookup('pipe', 'touch {marker}') %}}x{{% endif %}}",
    ]


def _is_str(annotation: Any) -> bool:
    if annotation is str:
        return True
    return any(_is_str(a) for a in typing.get_args(annotation))


def _model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        if (found := _model(arg)) is not None:
            return found
    return None


def _is_list(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    if origin is list:
        return True
    if origin in (typing.Union, types.UnionType) or origin is typing.Annotated:
        return any(_is_list(a) for a in typing.get_args(annotation))
    return False


def string_fields(model: type[BaseModel], prefix: tuple[str, ...] = ()) -> list[tuple]:
    """(path, is a list) of every string field of ``model`` and the models inside it."""
    out = []
    for name, field in model.model_fields.items():
        annotation = field.annotation
        inner = _model(annotation)
        if inner is not None:
            out += string_fields(inner, (*prefix, name))
        elif _is_str(annotation):
            out.append(((*prefix, name), _is_list(annotation)))
    return out


def _base_spec(platform: str, tmp_path: Path) -> dict[str, Any]:
    spec = quick_base()
    spec["name"] = f"inject-{platform}"
    spec["matrix"] |= {
        "patterns": ["randread"],
        "block_sizes": ["8k"],
        "concurrency": ["1x16"],
        "runtime": "2s",
        "ramp": "0s",
        "repetitions": 1,
    }
    spec["classes"] = ["data_file"]
    spec["config_space"] = {"raid_level": ["raid5"], "layout": ["single_rank"]}
    if platform == "local":
        spec["platform"] = "local"
        spec["inventory"] = str(ROOT / "inventories" / "local" / "hosts.yml")
        spec["platform_options"] = {"target": str(tmp_path / "t.img"), "file_size": "16m"}
        spec["matrix"]["working_set"] = "16m"
    elif platform == "linux_md":
        spec["platform"] = "linux_md"
        spec["inventory"] = str(ROOT / "tests" / "fixtures" / "linux_md" / "hosts.yml")
        spec["platform_options"] = {}
    elif platform == "vsan":
        spec["platform"] = "vsan"
        spec["inventory"] = str(ROOT / "inventories" / "vsan" / "hosts.yml")
        spec["platform_options"] = {}
    return spec


def _cases() -> list[tuple[str, tuple[str, ...], bool]]:
    cases = [("sim", path, many) for path, many in string_fields(SweepSpec)]
    for name, cls in PLATFORMS.items():
        if cls.options_model is not None:
            cases += [
                (name, ("platform_options", *path), many)
                for path, many in string_fields(cls.options_model)
            ]
    return cases


CASES = _cases()


def test_the_enumeration_finds_the_fields_it_must() -> None:
    paths = {".".join(p) for _, p, _ in CASES}
    for must in (
        "name",
        "description",
        "inventory",
        "classes",
        "study.storage",
        "study.seed_configurations",
        "platform_options.target",
        "platform_options.allow",
        "platform_options.fio",
    ):
        assert must in paths, sorted(paths)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}:{'.'.join(c[1])}")
def test_a_template_in_any_spec_field_is_refused_by_every_command(
    case: tuple[str, tuple[str, ...], bool], tmp_path: Path
) -> None:
    platform, path, many = case
    for i, payload in enumerate(_payloads(marker := tmp_path / "marker")):
        spec = _base_spec(platform, tmp_path)
        node = spec
        for part in path[:-1]:
            node = node.setdefault(part, {})
        node[path[-1]] = [payload] if many else payload
        spec_file = tmp_path / f"spec{i}.yaml"
        spec_file.write_text(yaml.safe_dump(spec))
        store = tmp_path / f"store{i}"
        for command in COMMANDS:
            result = CliRunner().invoke(
                app,
                [command[0], str(spec_file), "--store", str(store), *command[1:]],
                env={"COLUMNS": "300"},
            )
            out = " ".join(result.output.split())
            assert result.exit_code == 2, (command, out)
            assert "Traceback" not in out
            assert not marker.exists(), (command, path)
            assert not store.exists(), (command, path)
    SEEN["spec fields"] = SEEN.get("spec fields", 0) + 1
    _figures()


def _string_leaves(data: Any, loc: tuple = ()) -> list[tuple]:
    if isinstance(data, str):
        return [loc]
    if isinstance(data, dict):
        return [p for k, v in data.items() for p in _string_leaves(v, (*loc, k))]
    if isinstance(data, list):
        return [p for i, v in enumerate(data) for p in _string_leaves(v, (*loc, i))]
    return []


def _replace(data: Any, loc: tuple, value: str) -> Any:
    if not loc:
        return value
    if isinstance(data, dict):
        return data | {loc[0]: _replace(data[loc[0]], loc[1:], value)}
    return [(_replace(v, loc[1:], value) if i == loc[0] else v) for i, v in enumerate(data)]


def _platform_vars(name: str, tmp_path: Path) -> tuple[Path, dict, dict]:
    if name == "sim":
        inventory = ROOT / "inventories" / "sim" / "hosts.yml"
        options: dict[str, Any] = {}
    else:
        inventory = ROOT / "inventories" / "local" / "hosts.yml"
        options = {"target": str(tmp_path / "t.img"), "file_size": "16m"}
    spec = SweepSpec.model_validate(_base_spec(name, tmp_path))
    platform = get_platform(name, spec.platform_options | options, tmp_path / "state", inventory)
    config = enumerate_configurations(spec.config_space)[0]
    return inventory, platform.extravars(config), platform.teardown_extravars()


@pytest.mark.parametrize("platform", ["sim", "local"])
def test_every_extra_var_reaches_the_play_as_data(platform: str, tmp_path: Path) -> None:
    """Behind validation: each string extra var of the reconfigure and teardown plays, in
    turn, holds a payload (an absolute path stays absolute, so it passes the roles' checks and
    reaches their commands); the real play and the check-mode play run, the marker never."""
    inventory, reconfigure, teardown = _platform_vars(platform, tmp_path)
    plays = 0
    for playbook, extravars in (("reconfigure.yml", reconfigure), ("teardown.yml", teardown)):
        leaves = _string_leaves(extravars)
        assert leaves, extravars
        for n, loc in enumerate(leaves):
            marker = tmp_path / f"marker-{playbook}-{n}"
            value = extravars
            for part in loc:
                value = value[part]
            lead = str(tmp_path / "x") + "/" if str(value).startswith("/") else ""
            payload = lead + _payloads(marker)[n % 2]
            play = run_playbook(playbook, inventory, _replace(extravars, loc, payload))
            plays += 1
            assert not marker.exists(), (playbook, loc, play.stdout[-2000:])
        # Check mode, with every field holding a payload at once.
        marker = tmp_path / f"marker-{playbook}-check"
        hostile = extravars
        for loc in leaves:
            hostile = _replace(hostile, loc, _payloads(marker)[0])
        run_playbook(playbook, inventory, hostile, check=True)
        plays += 1
        assert not marker.exists(), playbook
    SEEN[f"{platform} plays"] = plays
    _figures()


def _inventory(tmp_path: Path, host_vars: dict[str, Any], group_vars: dict[str, Any]) -> Path:
    folder = tmp_path / "inv"
    folder.mkdir()
    host = {"ansible_connection": "local", "ansible_host": "127.0.0.1"} | host_vars
    (folder / "hosts.yml").write_text(
        yaml.safe_dump({"all": {"children": {"storage": {"hosts": {"sim-array": host}}}}})
    )
    (folder / "group_vars").mkdir()
    (folder / "group_vars" / "storage.yml").write_text(yaml.safe_dump(group_vars))
    return folder / "hosts.yml"


@pytest.mark.parametrize("where", ["host var", "group_vars"])
def test_inventory_vars_reach_the_play_as_data(where: str, tmp_path: Path) -> None:
    """Behind validation: the inventory Ansible reads is raidsweep's marked copy, so a host
    var or a group_vars file that Ansible uses (the Python interpreter of the local role's
    modules) is taken literally."""
    marker = tmp_path / "marker"
    payload = _payloads(marker)[0]
    hostile = {"ansible_python_interpreter": payload, "note": _payloads(marker)[1]}
    host_vars, group_vars = (hostile, {}) if where == "host var" else ({}, hostile)
    inventory = _inventory(tmp_path, host_vars, group_vars)
    _, extravars, _ = _platform_vars("local", tmp_path)  # its role runs modules on the host
    for check in (True, False):
        play = run_playbook("reconfigure.yml", inventory, extravars, check=check)
        assert not play.ok  # the interpreter named by the payload does not exist
        assert not marker.exists(), play.stdout[-2000:]
    SEEN["inventory plays"] = SEEN.get("inventory plays", 0) + 2
    _figures()


def test_the_one_sanctioned_inventory_template_still_works(tmp_path: Path) -> None:
    """The shipped inventories' ``ansible_python_interpreter: "{{ ansible_playbook_python }}"``
    is the one fixed expression passed on as a template: the play runs with raidsweep's
    Python."""
    inventory = _inventory(
        tmp_path, {"ansible_python_interpreter": "{{ ansible_playbook_python }}"}, {}
    )
    _, extravars, _ = _platform_vars("local", tmp_path)
    play = run_playbook("reconfigure.yml", inventory, extravars)
    assert play.ok, play.error


def test_every_play_goes_through_the_one_runner() -> None:
    """Only sweeper/ansible.py starts ansible-runner, so every play gets the marking."""
    users = []
    for path in [*ROOT.glob("sweeper/**/*.py"), *ROOT.glob("recommender/**/*.py")]:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            if any(n.split(".")[0] == "ansible_runner" for n in names):
                users.append(str(path.relative_to(ROOT)))
    assert users == ["sweeper/ansible.py"], users


def _figures() -> None:
    FIGURES["fault campaign: template injection"] = [
        "payloads that would create a marker file, marker never created: "
        + ", ".join(f"{k} {v}" for k, v in sorted(SEEN.items()))
    ]
