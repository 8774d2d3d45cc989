"""Compiled code for the modules Ansible sends to the lab VM, kept from one task to the next.

This file runs in the lab guest, not in raidsweep: the image recipe (``sweeper.lab.image``)
writes it into the guest's ``dist-packages`` with a ``.pth`` line that calls ``install()`` as
Python starts. It uses the standard library alone.

Why: every task Ansible runs sends its module and the ``ansible.module_utils`` it needs as one
zip (AnsiballZ), and Python compiles whatever it imports from a zip anew, every time: a zip
keeps no ``__pycache__``, and the standard ``zipimporter`` even compiles each module twice
(once to learn its file name, once for its code). Under QEMU's software emulation that is
about a second of every module task: ``ansible.builtin.ping``'s payload runs in 2.4 s in the
guest without this hook and 1.5–1.7 s with it.

What: a path hook in place of the standard ``zipimporter`` for Ansible's payload zips
(``ansible_<module>_payload.zip``) keeps each module it compiles in ``CACHE``, named by the
SHA-256 of Python's magic number and the module's source bytes. The next task that imports the
same source loads the compiled code instead of compiling it, and a module's file name is read
from the zip's table of contents; a changed source has another name, so stale code is never
run. The code is compiled exactly as ``zipimport`` compiles it, and its
file names are set to the zip the current task imports from, so tracebacks name the real place.
The cache folder must belong to the user running Python and be writable by no one else, or it
is not used; an unreadable or damaged entry is compiled again. Any other zip is imported by
the standard ``zipimporter``.
"""

# Only what Python has loaded before site runs: this module is imported by every Python the
# guest starts, and each module more costs tens of milliseconds there. The rest is imported
# when a payload is, which needs them anyway.
import os
import sys
import zipimport

TYPE_CHECKING = False  # typing itself is not loaded yet (nor __future__: annotations quoted)
if TYPE_CHECKING:
    import types

CACHE = "/var/cache/raidsweep-lab/pycache"


def _payload(path: str) -> bool:
    """A path in a zip AnsiballZ imports from (``.../ansible_ping_payload.zip/ansible/...``)."""
    return any(p.startswith("ansible_") and p.endswith("_payload.zip") for p in path.split("/"))


def _usable(folder: str) -> bool:
    """The folder exists (made if absent), is a real folder, ours, and writable by no one else."""
    import stat

    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        st = os.lstat(folder)
    except OSError:
        return False
    return (
        stat.S_ISDIR(st.st_mode)
        and st.st_uid == os.geteuid()
        and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


def _retarget(code: "types.CodeType", filename: str) -> "types.CodeType":
    """``code`` and every code object inside it, with ``filename`` as their file."""
    kind = type(code)
    consts = tuple(_retarget(c, filename) if type(c) is kind else c for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


def _load(path: str) -> "types.CodeType | None":
    import marshal

    try:
        with open(path, "rb") as fh:
            code = marshal.load(fh)
    except (OSError, EOFError, ValueError, TypeError):
        return None
    return code if type(code) is type(_load.__code__) else None


def _store(folder: str, path: str, code: "types.CodeType") -> None:
    """Written whole or not at all: a task that runs at the same time reads the old or the new."""
    import marshal

    tmp = os.path.join(folder, f".tmp-{os.getpid()}-{os.path.basename(path)}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "wb") as fh:
                marshal.dump(code, fh)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass


class CachingZipImporter(zipimport.zipimporter):
    """The standard ``zipimporter`` for one payload zip, compiling each source at most once
    across tasks."""

    cache = CACHE

    def _source(self, fullname: str) -> str | None:
        """The module's source file (a path the zip's own ``get_data`` reads), where the zip
        has a source and no compiled file for it; else None."""
        try:
            package = self.is_package(fullname)
        except zipimport.ZipImportError:
            return None
        inner = self.prefix + fullname.rpartition(".")[2] + ("/__init__.py" if package else ".py")
        files = self._files  # the zip's table of contents, read once per zip
        if inner not in files or inner + "c" in files:
            return None
        return os.path.join(self.archive, inner)

    def get_filename(self, fullname: str) -> str:
        # The standard one compiles the module to learn its file name (and importing asks
        # for the name first, then for the code): the name is known without it.
        return self._source(fullname) or super().get_filename(fullname)

    def get_code(self, fullname: str) -> "types.CodeType":
        filename = self._source(fullname)
        if filename is None or not _usable(self.cache):
            return super().get_code(fullname)
        import hashlib
        import importlib.util

        data = self.get_data(filename)
        # as zipimport compiles a source: universal newlines, the coding cookie honoured
        source = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        key = hashlib.sha256(importlib.util.MAGIC_NUMBER + source).hexdigest()
        path = os.path.join(self.cache, key)
        code = _load(path)
        if code is not None:
            return _retarget(code, filename)
        code = compile(source, filename, "exec", dont_inherit=True)
        _store(self.cache, path, code)
        return code


def _hook(path: str) -> zipimport.zipimporter:
    if _payload(path):
        return CachingZipImporter(path)
    return zipimport.zipimporter(path)


def install(cache: str = CACHE) -> None:
    """Import Ansible's payload zips through ``CachingZipImporter`` (kept in ``cache``)."""
    CachingZipImporter.cache = cache
    hooks = sys.path_hooks
    if _hook in hooks:
        return
    if zipimport.zipimporter in hooks:
        hooks[hooks.index(zipimport.zipimporter)] = _hook
    else:
        hooks.insert(0, _hook)
