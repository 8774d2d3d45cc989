"""The bad-input corpus: every malformed spec, inventory and class file is refused before any
change, with a message naming the place and the problem, and exit status 2.

Each file in tests/fixtures/bad_input/ carries the message it must produce in its first line
(``# expect: …``), and a spec whose problem is in another file names it in a second
(``# place: hosts.yml``). Specs run as they are; an inventory or a class file is put into an
otherwise good spec.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from sweeper.cli import app
from tests.support.campaign import FIGURES
from tests.support.paths import ROOT
from tests.support.specs import quick_spec as _good_spec

CORPUS = ROOT / "tests" / "fixtures" / "bad_input"
CASES = sorted(p for p in CORPUS.rglob("*") if p.is_file())
REJECTED: dict[str, int] = {}


def _expect(path: Path) -> str:
    first = path.read_bytes().split(b"\n", 1)[0].decode("utf-8", "replace")
    m = re.match(r"# expect: (.+)$", first)
    assert m, f"{path.name}: the first line must say '# expect: <message>'"
    return m.group(1)


def _place(path: Path) -> str | None:
    """The file a spec's problem is in when that is not the spec (its inventory)."""
    second = path.read_bytes().split(b"\n", 2)[1:2]
    m = re.match(r"# place: (.+)$", second[0].decode("utf-8", "replace")) if second else None
    return m.group(1) if m else None


def test_the_corpus_is_large_enough() -> None:
    assert len(CASES) >= 50


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_refused_before_any_change(path: Path, tmp_path: Path) -> None:
    kind = path.parent.name
    if kind == "specs":
        spec = path
    else:
        spec = tmp_path / "spec.yaml"
        change = {"inventory": str(path)} if kind == "inventories" else {"classes": [str(path)]}
        spec.write_text(yaml.safe_dump(_good_spec(**change)))
    store = tmp_path / "store"
    result = CliRunner().invoke(
        app, ["run", str(spec), "--store", str(store)], env={"COLUMNS": "300"}
    )
    out = " ".join(result.output.split())
    assert result.exit_code == 2, out
    assert _expect(path) in out, out
    # The place: the file (the spec's, or the one a "# place:" line names), then a line or a
    # byte offset.
    named = path.name if kind != "specs" else _place(path) or spec.name
    assert named in out and re.search(r"(line \d+|byte \d+|file not found)", out), out
    assert not store.exists()  # nothing written
    assert "Traceback" not in out
    REJECTED[kind] = REJECTED.get(kind, 0) + 1
    hostile = _hostile_class(path.stem)
    BY_CLASS[hostile] = BY_CLASS.get(hostile, 0) + 1
    FIGURES["fault campaign: bad input"] = [
        f"rejected with place and problem, exit status 2, nothing written: "
        f"{sum(REJECTED.values())} of {len(CASES)} ("
        + ", ".join(f"{k} {v}" for k, v in sorted(REJECTED.items()))
        + "); tracebacks: 0",
        f"classes of hostile input covered: {len(BY_CLASS) - ('earlier cases' in BY_CLASS)} ("
        + ", ".join(f"{k} {v}" for k, v in sorted(BY_CLASS.items()))
        + ")",
    ]


#: a case's class of hostile input, from its file name's prefix
HOSTILE_CLASSES = {
    "template_": "template syntax",
    "control_": "control characters",
    "yaml_": "YAML bounds",
    "number_": "non-finite or non-numeric numbers",
    "class_": "classes that cannot rank",
    "limit_": "unknown limit metrics",
    "name_": "names matched whole",
    "seed_": "seed configurations",
    "space_": "config spaces too large",
    "sim_connection_": "platform and inventory mismatch",
    "dimension_": "dimensions a platform declares",
}
BY_CLASS: dict[str, int] = {}


def _hostile_class(stem: str) -> str:
    return next(
        (name for prefix, name in HOSTILE_CLASSES.items() if stem.startswith(prefix)),
        "earlier cases",
    )


def _calls(tree: ast.AST) -> list[ast.Call]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)]


def test_no_shell_and_only_safe_yaml_in_the_code() -> None:
    """Hostile text (device and host names, spec strings) can reach no shell: no call passes
    shell=True or goes through os.system; YAML is loaded safely everywhere."""
    sources = [
        *ROOT.glob("sweeper/**/*.py"),
        *ROOT.glob("recommender/**/*.py"),
        *ROOT.glob("app_pages/*.py"),
        *ROOT.glob("playbooks/**/*.py"),
        ROOT / "app.py",
    ]
    assert len(sources) > 30
    for path in sources:
        tree = ast.parse(path.read_text(), filename=str(path))
        for call in _calls(tree):
            name = ast.unparse(call.func)
            where = f"{path.relative_to(ROOT)}:{call.lineno}"
            assert name not in ("os.system", "os.popen", "subprocess.getoutput"), where
            for kw in call.keywords:
                if kw.arg == "shell":
                    assert isinstance(kw.value, ast.Constant) and kw.value.value is False, where
            if name in ("yaml.load", "yaml.load_all", "yaml.compose"):
                loader = {kw.arg: ast.unparse(kw.value) for kw in call.keywords}.get("Loader", "")
                assert "Safe" in loader or loader == "_InventoryLoader", where
            assert name not in ("yaml.unsafe_load", "yaml.full_load"), where


@pytest.mark.integration
def test_a_spec_with_shell_and_sql_text_changes_nothing(tmp_path: Path) -> None:
    """A description and class file path full of metacharacters are stored as text."""
    spec = _good_spec(name="hostile", description="$(touch pwned); `id`; ' OR 1=1; --")
    spec["config_space"] |= {"raid_level": ["raid5"], "layout": ["single_rank"]}
    spec["matrix"] |= {"patterns": ["randread"], "block_sizes": ["8k"], "concurrency": ["1x16"]}
    spec["matrix"].pop("extra_cells")
    spec["classes"] = ["data_file"]
    path = tmp_path / "hostile.yaml"
    path.write_text(yaml.safe_dump(spec))
    result = CliRunner().invoke(app, ["run", str(path), "--store", str(tmp_path / "s"), "-q"])
    assert result.exit_code == 0, result.output
    from sweeper.store import ParquetStore

    store = ParquetStore(tmp_path / "s")
    assert store.get_sweep("hostile")["description"] == spec["description"]
    assert len(store.runs("hostile")) == 3
    assert not (tmp_path / "pwned").exists() and not Path("pwned").exists()
