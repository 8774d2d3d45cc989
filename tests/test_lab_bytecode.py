"""The lab guest's cache of compiled Ansible payload modules (``sweeper.lab.guest_bytecode``).

Each case runs a fresh Python, as each Ansible task does in the guest, with the module and its
``.pth`` line exactly as the image recipe writes them into the guest's ``dist-packages``.
"""

from __future__ import annotations

import importlib.util
import json
import marshal
import os
import subprocess
import sys
import zipfile
from pathlib import Path

from sweeper.lab import image

MODULE = "raidsweep_lab_bytecode.py"
PTH = "raidsweep-lab-bytecode.pth"
SOURCE = (
    'def f():\n    def g():\n        raise ValueError("boom")\n    return g()\nVALUE = {value}\n'
)

#: run in a fresh Python: the site folder as the image has it, then one import from a zip
SCRIPT = """
import json, site, sys, traceback
site.addsitedir(sys.argv[1])
import raidsweep_lab_bytecode as b
b.install(sys.argv[2])
compiled = []
real = compile
b.compile = lambda *a, **k: compiled.append(a[1]) or real(*a, **k)
sys.path.insert(0, sys.argv[3])
import pkg.mod
try:
    pkg.mod.f()
except ValueError:
    where = traceback.extract_tb(sys.exc_info()[2])[-1].filename
print(json.dumps({"value": pkg.mod.VALUE, "compiled": compiled, "where": where,
                  "file": pkg.mod.__file__,
                  "importer": type(sys.path_importer_cache[sys.argv[3]]).__name__}))
"""


def _site(tmp_path: Path) -> Path:
    folder = tmp_path / "dist-packages"
    folder.mkdir(exist_ok=True)
    for name in (MODULE, PTH):
        (folder / name).write_text(image.TREE_FILES[f"{image.GUEST_PYTHON}/{name}"])
    return folder


def _zip(path: Path, value: int, extra: dict[str, bytes] | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("pkg/__init__.py", "")
        z.writestr("pkg/mod.py", SOURCE.format(value=value))
        for name, data in (extra or {}).items():
            z.writestr(name, data)
    return path


def _import(tmp_path: Path, payload: Path, cache: Path) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(_site(tmp_path)), str(cache), str(payload)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def test_the_image_installs_the_hook_through_a_pth_line() -> None:
    files = image.TREE_FILES
    module = Path(image.__file__).with_name("guest_bytecode.py").read_text()
    assert files[f"{image.GUEST_PYTHON}/{MODULE}"] == module
    assert files[f"{image.GUEST_PYTHON}/{PTH}"].startswith("import raidsweep_lab_bytecode;")
    assert image.recipe()["files"] is files  # part of the image's key: a change rebuilds it


def test_a_module_compiled_by_one_task_is_loaded_by_the_next(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _import(tmp_path, _zip(tmp_path / "t1" / "ansible_x_payload.zip", 42), cache)
    assert first["value"] == 42 and first["importer"] == "CachingZipImporter"
    assert [Path(c).name for c in first["compiled"]] == ["__init__.py", "mod.py"]
    assert len(list(cache.iterdir())) == 2
    # the next task's zip lies elsewhere, as AnsiballZ's temporary folders do
    payload = _zip(tmp_path / "t2" / "ansible_x_payload.zip", 42)
    second = _import(tmp_path, payload, cache)
    assert second["value"] == 42 and second["compiled"] == []
    # the code loaded names the zip it came from now, not the one it was compiled from
    assert second["where"] == str(payload / "pkg" / "mod.py") == second["file"]


def test_a_changed_source_is_compiled_never_served_stale(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _import(tmp_path, _zip(tmp_path / "t1" / "ansible_x_payload.zip", 1), cache)
    again = _import(tmp_path, _zip(tmp_path / "t2" / "ansible_x_payload.zip", 2), cache)
    assert again["value"] == 2
    assert [Path(c).name for c in again["compiled"]] == ["mod.py"]


def test_a_damaged_entry_is_compiled_again(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _import(tmp_path, _zip(tmp_path / "t1" / "ansible_x_payload.zip", 7), cache)
    for entry in cache.iterdir():
        entry.write_bytes(b"\xe3 not marshal data")
    again = _import(tmp_path, _zip(tmp_path / "t2" / "ansible_x_payload.zip", 7), cache)
    assert again["value"] == 7 and len(again["compiled"]) == 2
    third = _import(tmp_path, _zip(tmp_path / "t3" / "ansible_x_payload.zip", 7), cache)
    assert third["compiled"] == []  # the entries were written anew


def test_a_cache_others_can_write_is_not_used(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    os.chmod(cache, 0o777)  # past the umask
    for n in (1, 2):
        out = _import(tmp_path, _zip(tmp_path / f"t{n}" / "ansible_x_payload.zip", 5), cache)
        assert out["value"] == 5
    assert list(cache.iterdir()) == []


def test_other_zips_and_compiled_payloads_use_the_standard_importer(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    other = _import(tmp_path, _zip(tmp_path / "t1" / "library.zip", 3), cache)
    assert other["importer"] == "zipimporter" and other["value"] == 3
    assert not cache.exists()
    # a zip that ships a compiled file beside the source: the standard order decides (not us)
    code = compile("VALUE = 9\n", "pkg/mod.py", "exec")
    # a hash-based, unchecked .pyc: taken as it is, whatever the source beside it
    pyc = importlib.util.MAGIC_NUMBER + (1).to_bytes(4, "little") + b"\0" * 8 + marshal.dumps(code)
    payload = _zip(tmp_path / "t2" / "ansible_x_payload.zip", 3, {"pkg/mod.pyc": pyc})
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import site, sys; site.addsitedir(sys.argv[1]); import raidsweep_lab_bytecode as b;"
            "b.install(sys.argv[2]); sys.path.insert(0, sys.argv[3]); import pkg.mod;"
            "print(pkg.mod.VALUE)",
            str(_site(tmp_path)),
            str(cache),
            str(payload),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.split() == ["9"]
