"""A throwaway Debian VM with real md and LVM, for the linux_md platform's tests."""

from sweeper.lab.vm import (
    Lab,
    LabCommandError,
    LabConflict,
    LabError,
    LabStatus,
    cache_root,
    check_shape,
    debian_mirror,
    default_vm_dir,
    ensure_image,
    image_dir,
    recipe,
    recipe_key,
)

__all__ = [
    "Lab",
    "LabCommandError",
    "LabConflict",
    "LabError",
    "LabStatus",
    "cache_root",
    "check_shape",
    "debian_mirror",
    "default_vm_dir",
    "ensure_image",
    "image_dir",
    "recipe",
    "recipe_key",
]
