"""``RAIDSWEEP_LAB_MIRROR`` names the Debian mirror the lab's image is built from: it is shown
while the image is built, written into the image's recipe and into the guest's sources.list,
so a value that cannot be one (credentials, control characters, template syntax, a blank,
not an address) is refused before anything, exit status 2, the credentials never shown."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from sweeper.errors import InputError
from sweeper.lab import image
from tests.support.paths import RAIDSWEEP

BAD = [
    ("http://admin:s3cret@mirror.example/debian", "carries credentials"),
    ("https://s3cret@mirror.example/debian", "carries credentials"),
    ("http://mirror.example/debian\ndeb http://evil.example/debian", "control character"),
    ("http://mirror.example/{{ lookup('env', 'HOME') }}", "template syntax"),
    ("http://mirror.example/debian main", "holds a blank"),
    ("gopher://mirror.example/debian", "is not a mirror's address"),
    ("http:///debian", "names no host"),
    ("", "is empty"),
]


@pytest.mark.parametrize(("value", "words"), BAD)
def test_a_mirror_that_cannot_be_one_is_refused_before_anything(
    tmp_path: Path, value: str, words: str
) -> None:
    cache = tmp_path / "cache"
    env = dict(os.environ, RAIDSWEEP_LAB_MIRROR=value, RAIDSWEEP_CACHE=str(cache), COLUMNS="300")
    done = subprocess.run(
        [str(RAIDSWEEP), "lab", "up", "--dir", str(tmp_path / "vm")],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "RAIDSWEEP_LAB_MIRROR" in done.stderr and words in done.stderr, done.stderr
    assert "s3cret" not in done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []  # no cache, no VM folder


@pytest.mark.parametrize(("value", "words"), BAD[:2])
def test_the_image_build_refuses_it_too_without_showing_the_credentials(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, value: str, words: str
) -> None:
    monkeypatch.setenv("RAIDSWEEP_LAB_MIRROR", value)
    monkeypatch.setenv("RAIDSWEEP_CACHE", str(tmp_path / "cache"))
    with pytest.raises(InputError, match=words) as caught:
        image.ensure_image()
    assert "s3cret" not in str(caught.value)
    assert not (tmp_path / "cache").exists()


def test_an_apt_entry_with_credentials_is_passed_over(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("RAIDSWEEP_LAB_MIRROR", raising=False)
    (tmp_path / "sources.list.d").mkdir()
    (tmp_path / "sources.list").write_text(
        "deb http://u:s3cret@private.example/debian bookworm main\n"
        "deb http://mirror.example/debian bookworm main\n"
    )
    assert image.debian_mirror(tmp_path) == "http://mirror.example/debian"


@pytest.mark.parametrize(
    "value", ["http://deb.debian.org/debian", "https://m.example:8443/debian", "file:///srv/debian"]
)
def test_a_plain_mirror_is_taken_as_given(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("RAIDSWEEP_LAB_MIRROR", value)
    assert image.debian_mirror() == value
