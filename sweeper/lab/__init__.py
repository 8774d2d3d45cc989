"""A throwaway Debian VM with real md and LVM, for the linux_md platform's tests.

The machine running raidsweep may have no md or device-mapper in its kernel (containers, CI).
The lab is a small Debian bookworm guest under QEMU (software emulation: TCG) with several small
virtual data disks, reached over SSH on a loopback port, with an Ansible inventory written beside
it (``vm``, ``inventory``). The root image is built once with debootstrap (needs root) and cached
under ``$RAIDSWEEP_CACHE/lab/image-<key>/`` (default ``~/.cache/raidsweep``), where ``<key>``
hashes the build recipe (``image``); every ``up`` boots it through a fresh qcow2 overlay, so the
cached image stays pristine and each lab starts clean.

The recipe's constants (``PACKAGES``, ``TREE_FILES``, ...) live in ``sweeper.lab.image``: change
them there, not here.
"""

from sweeper.lab.errors import LabCommandError, LabConflict, LabError
from sweeper.lab.image import cache_root, debian_mirror, ensure_image, image_dir, recipe, recipe_key
from sweeper.lab.shape import check_fits, check_shape
from sweeper.lab.vm import Lab, LabStatus, default_vm_dir

__all__ = [
    "Lab",
    "LabCommandError",
    "LabConflict",
    "LabError",
    "LabStatus",
    "cache_root",
    "check_fits",
    "check_shape",
    "debian_mirror",
    "default_vm_dir",
    "ensure_image",
    "image_dir",
    "recipe",
    "recipe_key",
]
