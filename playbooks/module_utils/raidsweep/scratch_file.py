"""raidsweep's scratch file: made by the local role's module ``local_target``, known by
sweeper.target (which reads the same attribute and mark; tests/test_target_guard.py checks
that both spell them alike) as the one existing file raidsweep may overwrite unasked."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
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


def remove_scratch_file(path: str) -> str | None:
    """Remove ``path`` if it is raidsweep's scratch file (a regular file, not a link, whose
    mark names its own inode): None when removed, else why it was left (a file that is not
    raidsweep's is the user's, never removed). Nothing at ``path``: nothing to do (None)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return f"{path} is a symbolic link: raidsweep made no link"
        return f"{path} cannot be opened: {exc.strerror}"
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return f"{path} is not a regular file: raidsweep's scratch file is one"
        try:
            mark = os.getxattr(fd, SCRATCH_XATTR)
        except OSError:
            return f"{path} lacks raidsweep's {SCRATCH_XATTR} mark: it is not raidsweep's"
        if mark != scratch_mark(st.st_ino):
            return f"{path}'s {SCRATCH_XATTR} mark names another inode: a copy, not raidsweep's"
    finally:
        os.close(fd)
    now = os.lstat(path)
    if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
        return f"{path} was replaced while it was looked at: left as it is"
    os.unlink(path)
    return None
