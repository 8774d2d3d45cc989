"""raidsweep's scratch file: made by the local role's module ``local_target``, known by
sweeper.target (which reads the same attribute and mark; tests/test_target_guard.py checks
that both spell them alike) as the one existing file raidsweep may overwrite unasked."""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile

#: the extended attribute raidsweep puts on a scratch file it creates; its value names the
#: file's inode (:func:`scratch_mark`)
SCRATCH_XATTR = "user.raidsweep.scratch"
_MARK = "raidsweep scratch file, inode "
#: errors of a filesystem that keeps no (user) extended attributes
_NO_XATTRS = {errno.ENOTSUP, errno.EOPNOTSUPP}


def scratch_mark(inode: int) -> bytes:
    """The value of :data:`SCRATCH_XATTR` on the scratch file whose inode is ``inode``."""
    return f"{_MARK}{inode}".encode()


def create_scratch_file(path: str, size: int) -> None:
    """Create ``path`` as raidsweep's scratch file: sparse, ``size`` bytes, marked as made by
    raidsweep; :class:`FileExistsError` if anything is at ``path`` already (it is not ours).

    The file is made without a name (``O_TMPFILE``; where the filesystem has none, under a
    hidden name beside ``path``), marked, sized and synced, and only then linked at
    ``path``: a crash at any point leaves either no file at ``path`` or a marked one.
    """
    folder, name = os.path.split(path)
    dirfd = os.open(folder or ".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    temp = None
    try:
        try:
            fd = os.open(folder or ".", os.O_WRONLY | os.O_TMPFILE | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            if exc.errno not in (*_NO_XATTRS, errno.EISDIR, errno.EINVAL):
                raise
            fd, temp = tempfile.mkstemp(dir=folder or ".", prefix=f".{name}.raidsweep-")
        try:
            try:
                os.setxattr(fd, SCRATCH_XATTR, scratch_mark(os.fstat(fd).st_ino))
            except OSError as exc:
                if exc.errno in _NO_XATTRS:
                    raise OSError(
                        exc.errno,
                        f"the filesystem of {folder} keeps no extended attributes, so "
                        f"raidsweep cannot mark {path} as its scratch file",
                    ) from None
                raise
            os.ftruncate(fd, size)
            os.fsync(fd)
            source = f"/proc/self/fd/{fd}" if temp is None else temp
            # dst_dir_fd: linkat(2) with AT_SYMLINK_FOLLOW, which links the unnamed inode
            try:
                os.link(source, name, dst_dir_fd=dirfd, follow_symlinks=True)
            except FileExistsError:
                raise FileExistsError(errno.EEXIST, "it exists: not made here", path) from None
        finally:
            os.close(fd)
            if temp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
        os.fsync(dirfd)
    finally:
        os.close(dirfd)
