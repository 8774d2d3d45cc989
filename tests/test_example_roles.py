"""The example roles for real arrays (examples/roles/) hold to the installed collections and to
the contract of a bring-your-own role, without an array or a network.

Every module call of every task is checked against the module's own argument spec as the
installed collection documents it (``ansible-doc --json``, fetched once per test session for
every module at once): each option exists (aliases count), each literal value (not a Jinja
expression) fits its option's type and choices, and each required option is given. Each role's
``meta/argument_specs.yml`` declares entry points ``main`` and ``teardown``, validates the
role's sample variables with ansible-core's own ArgumentSpecValidator, and declares every
variable a task uses that the role does not set itself. The negative cases feed mutated copies
of real tasks through the same checker, so the check is seen to fail where an example is wrong.
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
import pytest
import yaml
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.parsing.mod_args import ModuleArgsParser
from ansible.plugins.loader import init_plugin_loader
from jinja2 import nodes

from tests.support.paths import BIN, EXAMPLES

ROLES_DIR = EXAMPLES / "roles"
ROLE_PATHS = sorted(p for p in ROLES_DIR.iterdir() if (p / "tasks").is_dir())
ENTRY_POINTS = {"main.yml": "main", "teardown.yml": "teardown"}
#: task keys whose values are bare Jinja expressions (no braces)
EXPRESSION_KEYS = ("when", "changed_when", "failed_when", "until")
#: names every play has, and Jinja's and Ansible's global functions
KNOWN_NAMES = frozenset(
    "ansible_check_mode ansible_diff_mode ansible_facts ansible_loop inventory_hostname hostvars "
    "groups group_names omit item playbook_dir role_path ansible_play_hosts "
    "range lookup query q dict lipsum cycler joiner namespace undef now".split()
)
#: option names of modules that take free-form keys (set_fact) or a free-form command
FREE_FORM = ("free_form", "key_value")
LABEL = "NOT RUN AGAINST HARDWARE"
#: options that carry a secret (ansible-doc does not show no_log, so their names tell)
SECRET_RE = re.compile(r"password|passphrase|secret|token")

_PARSER = jinja2.Environment()


@dataclass
class Role:
    """One example role as files: its task lists by file name and its variables."""

    name: str
    tasks: dict[str, list[dict[str, Any]]]
    specs: dict[str, Any]
    defaults: dict[str, Any]
    vars: dict[str, Any]
    sample: dict[str, Any]
    readme: str = field(repr=False)


def _yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text()) if path.is_file() else None


def load_role(path: Path) -> Role:
    return Role(
        name=path.name,
        tasks={p.name: _yaml(p) or [] for p in sorted((path / "tasks").glob("*.yml"))},
        specs=(_yaml(path / "meta" / "argument_specs.yml") or {}).get("argument_specs", {}),
        defaults=_yaml(path / "defaults" / "main.yml") or {},
        vars=_yaml(path / "vars" / "main.yml") or {},
        sample=_yaml(path / "tests" / "sample_vars.yml") or {},
        readme=(path / "README.md").read_text() if (path / "README.md").is_file() else "",
    )


def flat_tasks(items: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Every task of a task list, blocks opened."""
    for item in items:
        if any(k in item for k in ("block", "rescue", "always")):
            for key in ("block", "rescue", "always"):
                yield from flat_tasks(item.get(key) or [])
        else:
            yield item


_DOCS: dict[str, dict[str, Any] | None] = {}


def module_docs(names: set[str]) -> dict[str, dict[str, Any] | None]:
    """Each module's documentation as the installed collection gives it (None where no module
    of that name is installed); fetched once per session, every missing name in one call."""
    missing = sorted(names - _DOCS.keys())
    if missing:
        out = subprocess.run(
            [str(BIN / "ansible-doc"), "--json", "-t", "module", *missing],
            capture_output=True,
            text=True,
            check=True,
        )
        found = json.loads(out.stdout)
        for name in missing:
            _DOCS[name] = found[name]["doc"] if name in found else None
    return {name: _DOCS[name] for name in names}


def _action(task: dict[str, Any]) -> tuple[str, dict[str, Any]] | str:
    """The task's module and arguments, as Ansible parses them, or why it could not."""
    try:
        action, args, _ = ModuleArgsParser(task).parse()
    except Exception as exc:  # Ansible's own parser names the problem
        return str(exc).splitlines()[0]
    return action, args


def _templated(value: Any) -> bool:
    return isinstance(value, str) and ("{{" in value or "{%" in value)


def _value_problems(value: Any, opt: dict[str, Any], where: str) -> list[str]:
    if _templated(value):
        return []
    kind = opt.get("type", "str")
    if kind == "list":
        if isinstance(value, list):
            element = {"type": opt.get("elements", "str"), "choices": opt.get("choices")}
            if opt.get("suboptions"):
                element["suboptions"] = opt["suboptions"]
            return [
                p for i, v in enumerate(value) for p in _value_problems(v, element, f"{where}[{i}]")
            ]
        return [] if isinstance(value, str) else [f"{where}: {value!r} is not a list"]
    if kind == "dict" and isinstance(value, dict) and opt.get("suboptions"):
        return option_problems(value, opt["suboptions"], where)
    if kind == "bool" and not isinstance(value, bool):
        return [f"{where}: {value!r} is not a boolean"]
    if kind == "int" and (isinstance(value, bool) or not isinstance(value, int)):
        return [f"{where}: {value!r} is not an integer"]
    if kind in ("str", "path") and isinstance(value, bool):
        return [f"{where}: the YAML boolean {value!r} where a string belongs (quote it)"]
    choices = opt.get("choices")
    if choices and value not in choices:
        return [f"{where}: {value!r} is not one of {choices}"]
    return []


def option_problems(args: dict[str, Any], options: dict[str, Any], where: str) -> list[str]:
    """What is wrong with a module's arguments against its documented options."""
    if any(name in options for name in FREE_FORM):
        return []
    canonical = {name: name for name in options}
    for name, opt in options.items():
        canonical.update({alias: name for alias in opt.get("aliases") or []})
    problems = []
    for key, value in args.items():
        if key not in canonical:
            problems.append(f"{where}: {key!r} is not an option")
            continue
        problems += _value_problems(value, options[canonical[key]], f"{where}.{key}")
        secret = options[canonical[key]].get("no_log") or SECRET_RE.search(canonical[key])
        if secret and isinstance(value, str) and not _templated(value):
            problems.append(
                f"{where}.{key}: a literal secret (give it as a variable from vault or env)"
            )
    given = {canonical[k] for k in args if k in canonical}
    problems += [
        f"{where}: the required option {name!r} is missing"
        for name, opt in options.items()
        if opt.get("required") and name not in given
    ]
    return problems


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def jinja_names(text: str, *, expression: bool = False) -> set[str]:
    """The variables a template (or a bare expression such as ``when``) reads."""
    tree = _PARSER.parse("{{ " + text + " }}" if expression else text)
    names = list(tree.find_all(nodes.Name))
    return {n.name for n in names if n.ctx == "load"} - {n.name for n in names if n.ctx != "load"}


def _task_reads(task: dict[str, Any], action: str, args: dict[str, Any]) -> set[str]:
    reads = set().union(*(jinja_names(s) for s in _strings(task)))
    for key in EXPRESSION_KEYS:
        value = task.get(key)
        for expr in [value] if isinstance(value, str) else value if isinstance(value, list) else []:
            reads |= jinja_names(str(expr), expression=True)
    if action == "ansible.builtin.assert":
        that = args.get("that")
        for expr in [that] if isinstance(that, str) else that or []:
            reads |= jinja_names(expr, expression=True)
    return reads


def _role_sets(role: Role) -> set[str]:
    """The variables the role gives itself: defaults, vars, set_fact, register, task vars."""
    names = set(role.defaults) | set(role.vars) | {"raidsweep_target", "raidsweep_facts"}
    for items in role.tasks.values():
        for task in flat_tasks(items):
            names |= set(task.get("vars") or {})
            names.add(task.get("register", "")) if "register" in task else None
            names.add((task.get("loop_control") or {}).get("loop_var", "item"))
            parsed = _action(task)
            if isinstance(parsed, tuple) and parsed[0] == "ansible.builtin.set_fact":
                names |= set(parsed[1])
    return names


def _declared(role: Role, entry: str | None) -> set[str]:
    entries = [entry] if entry else list(role.specs)
    return {name for e in entries for name in (role.specs.get(e) or {}).get("options", {})}


def role_problems(role: Role) -> list[str]:
    """Everything that breaks a module's spec or the contract, each with its place."""
    problems = [
        f"{role.name}: no entry point {e!r}" for e in ENTRY_POINTS.values() if e not in role.specs
    ]
    problems += [f"{role.name}: no tasks/{f}" for f in ENTRY_POINTS if f not in role.tasks]
    own = _role_sets(role) | KNOWN_NAMES
    calls = []
    for file, items in role.tasks.items():
        for i, task in enumerate(flat_tasks(items)):
            where = f"{role.name}/tasks/{file}[{i}] {task.get('name', '')!r}"
            parsed = _action(task)
            if isinstance(parsed, str):
                problems.append(f"{where}: {parsed}")
                continue
            calls.append((where, *parsed))
            undeclared = _task_reads(task, *parsed) - own - _declared(role, ENTRY_POINTS.get(file))
            problems += [f"{where}: uses the undeclared variable {n!r}" for n in sorted(undeclared)]
    docs = module_docs({action for _, action, _ in calls})
    for where, action, args in calls:
        doc = docs[action]
        if doc is None:
            problems.append(f"{where}: no module {action!r} is installed")
        else:
            problems += option_problems(args, doc.get("options") or {}, f"{where} {action}")
    for source, values in (("defaults", role.defaults), ("vars", role.vars)):
        for key, value in values.items():
            unknown = (
                set().union(*(jinja_names(s) for s in _strings(value)))
                - own
                - _declared(role, None)
            )
            problems += [
                f"{role.name}/{source}: {key} uses the undeclared variable {n!r}"
                for n in sorted(unknown)
            ]
    return problems


def spec_problems(role: Role) -> list[str]:
    """The sample variables against each entry point, with ansible-core's own validator (given
    only the variables the entry point declares, as Ansible's role validation does)."""
    problems = [
        f"{role.name}: sample variable {n!r} is declared by no entry point"
        for n in sorted(set(role.sample) - _declared(role, None))
    ]
    for entry, spec in role.specs.items():
        options = spec.get("options", {})
        given = {k: v for k, v in role.sample.items() if k in options}
        result = ArgumentSpecValidator(options).validate(given)
        problems += [f"{role.name} {entry}: {m}" for m in result.error_messages]
    return problems


ROLES = {p.name: load_role(p) for p in ROLE_PATHS}


@pytest.fixture(scope="module", autouse=True)
def _plugin_loader() -> None:
    init_plugin_loader()


def test_there_is_an_example_for_every_array() -> None:
    assert set(ROLES) >= {
        "netapp_eseries",
        "ibm_storage_virtualize",
        "dell_idrac_redfish",
        "netapp_ontap",
    }


@pytest.mark.parametrize("name", sorted(ROLES))
def test_every_task_fits_the_installed_collection_and_the_contract(name: str) -> None:
    assert role_problems(ROLES[name]) == []


@pytest.mark.parametrize("name", sorted(ROLES))
def test_the_argument_specs_validate_the_sample_variables(name: str) -> None:
    role = ROLES[name]
    assert role.sample, f"{name}: tests/sample_vars.yml is missing"
    assert spec_problems(role) == []


@pytest.mark.parametrize("name", sorted(ROLES))
def test_the_role_reports_its_target_and_says_it_was_not_run_on_hardware(name: str) -> None:
    role = ROLES[name]
    set_facts = [
        parsed[1]
        for task in flat_tasks(role.tasks["main.yml"])
        if isinstance(parsed := _action(task), tuple) and parsed[0] == "ansible.builtin.set_fact"
    ]
    assert any("raidsweep_target" in args and "raidsweep_facts" in args for args in set_facts)
    head = (ROLES_DIR / name / "tasks" / "main.yml").read_text().split("- name:")[0]
    assert LABEL in head and LABEL in role.readme.upper()


def _task(role: Role, action: str) -> dict[str, Any]:
    """The first task of main.yml that calls the action (its arguments in place)."""
    for task in flat_tasks(role.tasks["main.yml"]):
        if action in task:
            return task
    raise AssertionError(f"{role.name} has no {action} task")


def _set(key: str, value: Any) -> Any:
    return lambda args: args.__setitem__(key, value)


MUTATIONS = {
    "unknown option": (
        "netapp_eseries",
        "netapp_eseries.santricity.na_santricity_volume",
        _set("segment_size", 128),
        "'segment_size' is not an option",
    ),
    "value not a choice": (
        "ibm_storage_virtualize",
        "ibm.storage_virtualize.ibm_svc_mdiskgrp",
        _set("easytier", "sometimes"),
        "'sometimes' is not one of",
    ),
    "unquoted off": (
        "ibm_storage_virtualize",
        "ibm.storage_virtualize.ibm_svc_mdiskgrp",
        _set("easytier", False),
        "the YAML boolean False",
    ),
    "bool of the wrong type": (
        "netapp_eseries",
        "netapp_eseries.santricity.na_santricity_volume",
        _set("read_cache_enable", "maybe"),
        "'maybe' is not a boolean",
    ),
    "int of the wrong type": (
        "netapp_ontap",
        "netapp.ontap.na_ontap_aggregate",
        _set("raid_size", "sixteen"),
        "'sixteen' is not an integer",
    ),
    "required option missing": (
        "netapp_ontap",
        "netapp.ontap.na_ontap_lun",
        lambda args: args.pop("vserver"),
        "required option 'vserver' is missing",
    ),
    "undeclared variable": (
        "dell_idrac_redfish",
        "dellemc.openmanage.redfish_storage_volume",
        _set("name", "{{ idrac_volume_nam }}"),
        "undeclared variable 'idrac_volume_nam'",
    ),
    "literal secret": (
        "netapp_ontap",
        "netapp.ontap.na_ontap_volume",
        _set("password", "hunter2"),
        "a literal secret",
    ),
    "choice inside a list": (
        "ibm_storage_virtualize",
        "ibm.storage_virtualize.ibm_svc_info",
        _set("gather_subset", ["pool", "pools"]),
        "'pools' is not one of",
    ),
}


@pytest.mark.parametrize("case", sorted(MUTATIONS))
def test_the_check_fails_on_a_wrong_example(case: str) -> None:
    name, action, mutate, expected = MUTATIONS[case]
    role = copy.deepcopy(ROLES[name])
    mutate(_task(role, action)[action])
    problems = role_problems(role)
    assert any(expected in p for p in problems), problems


def test_the_check_fails_on_a_module_that_is_not_installed() -> None:
    role = copy.deepcopy(ROLES["netapp_ontap"])
    task = _task(role, "netapp.ontap.na_ontap_aggregate")
    task["netapp.ontap.na_ontap_aggregat"] = task.pop("netapp.ontap.na_ontap_aggregate")
    assert any("na_ontap_aggregat" in p for p in role_problems(role))


@pytest.mark.parametrize(
    ("name", "key", "value", "expected"),
    [
        ("netapp_eseries", "eseries_raid_level", "raid7", "eseries_raid_level must be one of"),
        ("dell_idrac_redfish", "idrac_stripe_kib", 48, "idrac_stripe_kib must be one of"),
        ("netapp_ontap", "ontap_hostname", None, "ontap_hostname"),
        ("ibm_storage_virtualize", "svc_extent_kib", "big", "svc_extent_kib"),
    ],
)
def test_the_argument_specs_refuse_a_wrong_sample(
    name: str, key: str, value: Any, expected: str
) -> None:
    role = copy.deepcopy(ROLES[name])
    if value is None:
        role.sample.pop(key)
    else:
        role.sample[key] = value
    problems = spec_problems(role)
    assert any(expected in p for p in problems), problems
