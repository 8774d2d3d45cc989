"""``purge: nvme-format`` is refused where the namespace has siblings on its subsystem: a
controller may format or erase all its namespaces together (its Format NVM Attributes), and
the others were never allowed."""

from __future__ import annotations

from sweeper.load.purge import sibling_namespaces

LISTING = ["nvme0n1", "nvme0n1p1", "nvme0n2", "nvme1n1", "nvme10n1", "sda", "loop0", "nvme0n12"]


def test_the_other_namespaces_of_one_subsystem_are_its_siblings() -> None:
    assert sibling_namespaces("nvme0n1", LISTING) == ["nvme0n12", "nvme0n2"]
    assert sibling_namespaces("nvme1n1", LISTING) == []
    assert sibling_namespaces("nvme10n1", LISTING) == []
