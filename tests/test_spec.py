"""Spec validation: every problem named by its place, exit status 2, nothing written."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from sweeper.spec import load_spec
from tests.support.cli import cli
from tests.support.paths import QUICK, ROOT
from tests.support.specs import problems_of


def quick_data() -> dict:
    return yaml.safe_load(QUICK.read_text())


def write_spec(tmp_path: Path, data: object, name: str = "spec.yaml") -> Path:
    path = tmp_path / name
    text = data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False)
    path.write_text(text)
    return path


def test_quick_example_is_valid() -> None:
    spec, inventory = load_spec(QUICK)
    assert spec.name == "quick"
    assert inventory.name == "hosts.yml" and inventory.exists()
    assert len(spec.matrix.cells()) == 4 * 4 * 2 + len(spec.matrix.extra_cells)
    assert spec.matrix.repetitions == 3


def test_repetitions_default_to_three(tmp_path: Path) -> None:
    data = quick_data()
    del data["matrix"]["repetitions"]
    data["inventory"] = str(ROOT / "inventories/sim/hosts.yml")
    spec, _ = load_spec(write_spec(tmp_path, data))
    assert spec.matrix.repetitions == 3


def mutate(path: tuple, value: object):
    def apply(data: dict) -> dict:
        node = data
        for part in path[:-1]:
            node = node[part]
        if value is DELETE:
            del node[path[-1]]
        else:
            node[path[-1]] = value
        return data

    return apply


DELETE = object()

BAD = [
    (mutate(("matrix", "block_sizes", 2), "12q"), "matrix.block_sizes[2]: '12q' is not a size"),
    (
        mutate(("matrix", "patterns", 0), "readwrite"),
        "matrix.patterns[0]: 'readwrite' is not a pattern",
    ),
    (
        mutate(("matrix", "concurrency", 1), "16"),
        "matrix.concurrency[1]: '16' is not a concurrency",
    ),
    (
        mutate(("matrix", "repetitions"), 0),
        "matrix.repetitions: Input should be greater than or equal to 1",
    ),
    (mutate(("matrix", "runtime"), "fast"), "matrix.runtime: 'fast' is not a duration"),
    (mutate(("matrix", "patterns"), []), "matrix.patterns: List should have at least 1 item"),
    (mutate(("matrix", "engine"), "posixaio"), "matrix.engine: Input should be"),
    (mutate(("matrix", "block_sizes", 0), "-4k"), "matrix.block_sizes[0]: '-4k' is not a size"),
    (mutate(("matrix", "block_sizes", 0), "1000"), "is not a multiple of 512"),
    (mutate(("matrix", "colour"), "red"), "matrix.colour: unknown key"),
    (
        mutate(("config_space", "raid_level", 0), "raid4"),
        "config_space.raid_level[0]: Input should be",
    ),
    (
        mutate(("config_space", "raid_level", 0), "raid1"),
        "config_space.raid_level[0]: 'raid1' is not supported by platform 'sim'",
    ),
    (
        mutate(("config_space", "stripe_kib", "host_stripe", 0), 1000),
        "config_space.stripe_kib: host_stripe[0] 1000 KiB is not a power of two",
    ),
    (
        mutate(("config_space", "stripe_kib", "pool_stripe", 0), 2048),
        "offers extents of 16384, 1048576 KiB",
    ),
    (
        mutate(("config_space", "ranks"), {"host_stripe": [4]}),
        "config_space.ranks: no values for layout pool_stripe, which layout lists",
    ),
    (mutate(("config_space", "ranks"), [11]), "11 ranks of raid5 exceed the 10"),
    (mutate(("config_space", "snapshots"), [True, "maybe"]), "config_space.snapshots[1]"),
    (
        mutate(("config_space", "data_reduction"), [True]),
        "profile ds8800-like has no data reduction",
    ),
    (
        mutate(("matrix", "working_set"), "7t"),
        "larger than the 6,300 GB a 1-rank raid5 volume holds",
    ),
    (
        mutate(("platform_options", "health"), "tired"),
        "platform_options.health: 'tired' is not one of optimal, degraded, rebuilding",
    ),
    (mutate(("config_space", "ranks", 0), 40), "40 ranks of raid10 exceed the 10"),
    (mutate(("config_space",), DELETE), "config_space: required key is missing"),
    (mutate(("name",), "bad name!"), "name: 'bad name!' is not a sweep name"),
    (mutate(("platform",), "netapp"), "platform: unknown platform 'netapp'"),
    (
        mutate(("platform_options", "profile"), "nosuch"),
        "platform_options.profile: unknown array profile 'nosuch'",
    ),
    (mutate(("classes", 1), "oltp_magic"), "classes[1]: unknown workload class 'oltp_magic'"),
    (mutate(("inventory",), "no/such/inventory"), "inventory: 'no/such/inventory' does not exist"),
    (mutate(("study", "mode"), "random"), "study.mode: Input should be 'grid' or 'optimize'"),
    (mutate(("study", "budget"), "soon"), "study.budget: 'soon' is not a budget"),
    (
        mutate(("environment",), {"Fabric": "two switches"}),
        "environment.Fabric: 'Fabric' is not a name for a fact",
    ),
    (
        mutate(("environment",), {"fabric": "two\nswitches"}),
        "environment.fabric: holds the control character '\\n'",
    ),
    (
        mutate(("environment",), {"hba": "x" * 501}),
        "environment.hba: String should have at most 500 characters",
    ),
    (mutate(("environment",), {"hba": 32}), "environment.hba: Input should be a valid string"),
    (  # a terminal escape (colour, OSC 8 link) where the description is printed and reported
        mutate(("description",), "Fast\x1b[31m array\x1b]8;;http://x.example/\x1b\\"),
        "description: holds the control character '\\x1b'",
    ),
    (mutate(("description",), "bell\x07"), "description: holds the control character '\\x07'"),
    (
        mutate(("environment",), {"switch_password": "hunter2"}),
        "environment.switch_password: 'switch_password' names a secret",
    ),
    (
        mutate(("study", "storage"), "postgresql://rs@db.example/raidsweep?password=hunter2"),
        "study.storage: the URL holds a password (its 'password' parameter)",
    ),
]


@pytest.mark.parametrize(("change", "expected"), BAD, ids=[b[1][:40] for b in BAD])
def test_bad_spec_names_place_and_problem(tmp_path: Path, change, expected: str) -> None:
    data = change(quick_data())
    data.setdefault("inventory", "")
    if data.get("inventory") == "../inventories/sim/hosts.yml":
        data["inventory"] = str(ROOT / "inventories/sim/hosts.yml")
    problems = problems_of(write_spec(tmp_path, data))
    assert any(expected in p for p in problems), problems
    # every problem carries a line number in the file
    assert all(p.startswith("line ") for p in problems), problems


def test_every_problem_is_listed_at_once(tmp_path: Path) -> None:
    data = quick_data()
    data["inventory"] = str(ROOT / "inventories/sim/hosts.yml")
    data["matrix"]["block_sizes"] = ["4k", "8x", "16k", "zz"]
    data["matrix"]["repetitions"] = -1
    problems = problems_of(write_spec(tmp_path, data))
    joined = "\n".join(problems)
    assert "matrix.block_sizes[1]: '8x' is not a size" in joined
    assert "matrix.block_sizes[3]: 'zz' is not a size" in joined
    assert "matrix.repetitions" in joined
    assert len(problems) == 3


def test_line_numbers_point_into_the_file(tmp_path: Path) -> None:
    text = QUICK.read_text().replace("[4k, 8k, 16k, 64k]", "[4k, 8k, 12q, 64k]")
    text = text.replace("../inventories/sim/hosts.yml", str(ROOT / "inventories/sim/hosts.yml"))
    path = write_spec(tmp_path, text)
    (problem,) = problems_of(path)
    line = int(problem.split(":")[0].removeprefix("line "))
    assert "12q" in path.read_text().splitlines()[line - 1]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("- just\n- a list\n", "the spec must be a mapping, not list"),
        ("", "the spec must be a mapping, not empty"),
        ("name: [unclosed\n", "not valid YAML"),
        (b"name: caf\xe9\n", "not UTF-8"),
    ],
)
def test_not_a_spec(tmp_path: Path, content, expected: str) -> None:
    path = tmp_path / "spec.yaml"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert any(expected in p for p in problems_of(path))


def test_missing_file(tmp_path: Path) -> None:
    assert problems_of(tmp_path / "nope.yaml") == ["file not found"]


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return cli(*args, cwd=cwd, timeout=120)


def test_cli_bad_spec_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    data = quick_data()
    data["inventory"] = str(ROOT / "inventories/sim/hosts.yml")
    data["matrix"]["block_sizes"][2] = "12q"
    spec = write_spec(tmp_path, data)
    store = tmp_path / "store"
    before = sorted(tmp_path.rglob("*"))
    proc = run_cli("run", str(spec), "--store", str(store), cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "matrix.block_sizes[2]: '12q' is not a size" in proc.stderr
    assert sorted(tmp_path.rglob("*")) == before
    assert not store.exists()


def test_cli_check_shows_plan_and_writes_nothing(tmp_path: Path) -> None:
    store = tmp_path / "store"
    proc = run_cli("run", str(QUICK), "--store", str(store), "--check", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "9 configuration(s) × 42 cell(s) × 3 repetition(s) = 1134 runs" in " ".join(
        proc.stdout.split()
    )
    assert "raid10/pool_stripe/ranks4/stripe1g/wb-ra" in proc.stdout
    assert "nothing was changed" in proc.stdout
    assert not store.exists()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "example", sorted((ROOT / "examples").glob("*.yaml")), ids=lambda p: p.name
)
def test_every_shipped_example_passes_check_and_writes_nothing(
    example: Path, tmp_path: Path
) -> None:
    before = sorted(Path("/var/tmp").iterdir())
    proc = cli("run", example, "--check", "--store", tmp_path / "s", timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "nothing was changed (--check)" in proc.stdout
    assert not (tmp_path / "s").exists() and sorted(Path("/var/tmp").iterdir()) == before


def test_environment_facts_are_text_and_leave_the_fingerprint(tmp_path: Path) -> None:
    """Facts about the fabric are kept as given and do not make a resumed sweep another one."""
    data = quick_data()
    data["inventory"] = str(ROOT / "inventories/sim/hosts.yml")
    plain, _ = load_spec(write_spec(tmp_path, data, "a.yaml"))
    data["environment"] = {"fabric": "  two switches, <b>single</b> zoning  ", "multipath": "dm"}
    stated, _ = load_spec(write_spec(tmp_path, data, "b.yaml"))
    assert stated.environment == {"fabric": "two switches, <b>single</b> zoning", "multipath": "dm"}
    assert stated.fingerprint() == plain.fingerprint()
