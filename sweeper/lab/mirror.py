"""Which Debian mirror the lab's image is built from, and whether a mirror can be used.

The mirror is passed to debootstrap, shown while the image is built, written into the
image's ``recipe.json`` and by debootstrap into the guest's ``sources.list``: so it must be
a plain address (``http://``, ``https://``, ``ftp://`` or ``file:///``) without credentials,
template syntax, control characters or blanks.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

from sweeper.errors import InputError
from sweeper.lab.errors import LabError
from sweeper.untrusted import control_problem, shown_text, template_problem

#: the environment variable that names the mirror, over the one apt uses
MIRROR_ENV = "RAIDSWEEP_LAB_MIRROR"
_SCHEMES = ("http", "https", "ftp", "file")


def _masked(value: str) -> str:
    """``value`` as it may be shown: whatever lies between ``//`` and the last ``@`` (the
    credentials of ``user:password@host``, however they are spelled) as ``****``."""
    start, at = value.find("//"), value.rfind("@")
    return value if start < 0 or at < start else value[: start + 2] + "****" + value[at:]


def mirror_problem(value: str) -> str | None:
    """Why ``value`` cannot be the Debian mirror the image is built from, or None."""
    if not value:
        return "is empty: name a Debian mirror (http://host/debian), or unset it"
    shown = _masked(shown_text(value))
    if shown_text(value) != value:
        return f"'{shown}' is not UTF-8 text: name the mirror in UTF-8"
    problem = template_problem(value) or control_problem(value)
    if problem is not None:
        return f"{shown!r} {problem}"
    if any(c.isspace() for c in value):
        return f"{shown!r} holds a blank: a mirror is one address"
    try:
        parts = urlsplit(value)
        user, password, host = parts.username, parts.password, parts.hostname
    except ValueError as exc:
        return f"{shown!r} is not an address: {exc}"
    if parts.scheme not in _SCHEMES:
        return (
            f"{shown!r} is not a mirror's address: it starts with http://, https://, ftp:// "
            "or file:///"
        )
    if user is not None or password is not None:
        return (
            f"{shown!r} carries credentials: the lab shows its mirror and writes it into the "
            "image; name a mirror that needs none (a local apt cache, a file:/// copy)"
        )
    if parts.scheme != "file" and not host:
        return f"{shown!r} names no host"
    return None


def _deb822_stanzas(text: str) -> Iterator[dict[str, str]]:
    for block in re.split(r"\n\s*\n", text):
        fields: dict[str, str] = {}
        for line in block.splitlines():
            if line.startswith("#") or ":" not in line or line[:1].isspace():
                continue
            name, _, value = line.partition(":")
            fields[name.strip().lower()] = value.strip()
        if fields:
            yield fields


def debian_mirror(suite: str, apt_dir: Path = Path("/etc/apt")) -> str:
    """The Debian mirror this machine's apt uses (its main suite's entry, not -security or
    -updates; ``suite``'s first), never a hard-coded one that this machine may not reach;
    ``RAIDSWEEP_LAB_MIRROR`` overrides it (InputError naming it where it cannot be used:
    ``mirror_problem``). An entry of apt's that cannot be used is passed over."""
    given = os.environ.get(MIRROR_ENV)
    if given is not None:
        problem = mirror_problem(given)
        if problem is not None:
            raise InputError(MIRROR_ENV, [problem])
        return given
    candidates: list[tuple[str, list[str]]] = []  # (uri, suites)
    for path in sorted(glob.glob(str(apt_dir / "sources.list.d" / "*.sources"))):
        for st in _deb822_stanzas(Path(path).read_text(errors="replace")):
            if "deb" in st.get("types", "").split() and st.get("enabled", "yes") != "no":
                for uri in st.get("uris", "").split():
                    candidates.append((uri, st.get("suites", "").split()))
    lists = [apt_dir / "sources.list", *sorted((apt_dir / "sources.list.d").glob("*.list"))]
    for path in lists:
        if not path.is_file():
            continue
        for line in path.read_text(errors="replace").splitlines():
            words = re.sub(r"\[[^\]]*\]", "", line.split("#", 1)[0]).split()
            if len(words) >= 3 and words[0] == "deb":
                candidates.append((words[1], [words[2]]))
    # A main suite is one without a dash (bookworm, not bookworm-security); ours first.
    main = [
        (u, s)
        for u, s in candidates
        if any("-" not in x and "/" not in x for x in s) and mirror_problem(u) is None
    ]
    main.sort(key=lambda c: (suite not in c[1], "debian" not in c[0]))
    if not main:
        raise LabError(
            f"no Debian mirror found in {apt_dir}/sources.list(.d): "
            "name one in RAIDSWEEP_LAB_MIRROR"
        )
    return main[0][0]
