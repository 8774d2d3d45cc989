"""The YAML tags Ansible gives an inventory's values: ``!vault`` (a sealed secret) and
``!unsafe`` (data never templated), and the loader that keeps such values opaque."""

from __future__ import annotations

from typing import Any

import yaml

from sweeper.yamlsource import BoundedLoader


class Sealed(str):
    """A value sealed with Ansible Vault (``!vault``): its ciphertext, passed on sealed and
    never read or shown."""


class Unsafe(str):
    """A value tagged ``!unsafe``: data Ansible never templates (so the checks let it be)."""


def opaque(value: Any) -> bool:
    """Whether ``value`` is tagged ``!vault`` or ``!unsafe`` (kept as it is, never checked)."""
    return isinstance(value, Sealed | Unsafe)


def shown(value: Any) -> str:
    """``value`` as a message may show it: a sealed one never."""
    return "a value sealed with Vault" if isinstance(value, Sealed) else repr(value)


class InventoryLoader(BoundedLoader):
    """The bounded safe loader of every YAML input, with Ansible's tags for secrets and raw
    strings kept as what they are."""


def _sealed(loader: yaml.SafeLoader, node: yaml.Node) -> Sealed:
    return Sealed(loader.construct_scalar(node))  # type: ignore[arg-type]


def _unsafe(loader: yaml.SafeLoader, node: yaml.Node) -> Unsafe:
    return Unsafe(loader.construct_scalar(node))  # type: ignore[arg-type]


for _tag in ("!vault", "!vault-encrypted"):
    InventoryLoader.add_constructor(_tag, _sealed)
InventoryLoader.add_constructor("!unsafe", _unsafe)
