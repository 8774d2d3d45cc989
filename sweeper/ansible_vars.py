"""What raidsweep hands to Ansible, as data that is never evaluated and never on disk in clear.

- **Extra vars** are written as YAML with every string tagged ``!unsafe``: Ansible's own mark
  for data that must not be templated, so a spec value of ``{{ lookup('pipe', 'id') }}`` is
  passed on as those characters and nothing runs (``--check`` and the real run alike).
- **The inventory** is handed over as a copy in the play's private folder, read and checked
  once: every string tagged ``!unsafe`` too (the one fixed template an inventory may hold,
  ``ansible_python_interpreter: "{{ ansible_playbook_python }}"``, is kept as it is), values
  the user sealed with ``!vault`` passed on sealed. A file edited while a sweep runs cannot
  change what a later play sees beyond what was checked.
- **Secrets** never reach a command line, an environment copy or a file in clear. Those from
  the environment (the vCenter password in ``VSAN_PASSWORD`` or ``VMWARE_PASSWORD``) are
  blanked in the play's environment (ansible-runner writes the whole environment of every
  play into its artifacts) and handed over as Ansible Vault values; so are the values of
  secret-named inventory variables (``ansible_password``, ``…_token`` …) in the copy. They are
  sealed with a random key made for the one play, which only the runner's answer to
  Ansible's vault prompt carries (in memory).
"""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path
from typing import Any

import yaml

from sweeper.inventory import vars_files
from sweeper.untrusted import sanctioned
from sweeper.yamlsource import BoundedLoader, load_text, read_text

#: the vault id raidsweep seals its one-play secrets with
VAULT_ID = "raidsweep"
#: the prompt ``--vault-id raidsweep@prompt`` prints, answered from memory by ansible-runner
VAULT_PROMPT = r"Vault password \(raidsweep\):\s*$"
#: environment variable -> the Ansible variable the secret is handed over as
SECRET_ENV = {"VSAN_PASSWORD": "vsan_password", "VMWARE_PASSWORD": "vsan_password"}
#: other names whose values are secrets: blanked in the play's environment, never handed over
#: (SSHPASS, MYSQL_PWD, ARRAY_API_KEY, DB_PASSPHRASE, MY_CREDENTIALS, GITHUB_AUTH ...; not PWD,
#: the working folder, nor SSH_AUTH_SOCK, a socket's path)
_SECRET_NAME = re.compile(
    r"PASS|SECRET|TOKEN|CREDENTIAL|COOKIE|AUTHORIZATION|PRIVATE_?KEY|API_?KEY|ACCESS_?KEY"
    r"|_(KEY|PWD|AUTH)$|^(KEY|AUTH)$",
    re.IGNORECASE,
)
#: a value that carries a password in a URL (``http://user:pw@proxy:3128``)
_URL_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s:@]*:[^/\s@]+@", re.IGNORECASE)


class _Unsafe(str):
    """A string to be written with Ansible's ``!unsafe`` tag."""


class _Sealed(str):
    """Vault ciphertext to be written with Ansible's ``!vault`` tag."""


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(_Unsafe, lambda d, v: d.represent_scalar("!unsafe", str(v)))
_Dumper.add_representer(_Sealed, lambda d, v: d.represent_scalar("!vault", str(v), style="|"))


def secret_name(name: Any) -> bool:
    """Whether a variable of this name holds a secret (a path to one is not one)."""
    return (
        isinstance(name, str)
        and _SECRET_NAME.search(name) is not None
        and not name.lower().endswith(("_file", "_path", "_dir"))
    )


class Sealer:
    """Seals secrets with a random key made for one play, on first use; ``key`` is then what
    Ansible's vault prompt must be answered with (kept in memory only)."""

    def __init__(self) -> None:
        self.key: str | None = None
        self._vault: Any = None
        self._secret: Any = None

    def ensure_key(self) -> str:
        """Make the key now (for secrets sealed later); returns it."""
        if self._vault is None:
            from ansible.parsing.vault import VaultLib, VaultSecret

            self.key = secrets.token_urlsafe(32)
            self._secret = VaultSecret(self.key.encode())
            self._vault = VaultLib([(VAULT_ID, self._secret)])
        assert self.key is not None
        return self.key

    def __call__(self, value: str) -> _Sealed:
        self.ensure_key()
        sealed = self._vault.encrypt(value, secret=self._secret, vault_id=VAULT_ID)
        return _Sealed(sealed.decode())


def _mark(value: Any, key: Any, sealer: Sealer | None, secret: bool = False) -> Any:
    """``value`` with every string marked unsafe (mapping keys are names, left as they are),
    and, when there is a sealer, sealed: the values of secret-named variables at any depth
    (every string in a list or mapping under one: ``api_tokens: [...]``,
    ``array_credentials: {pw: ...}``) and every string carrying a password in a URL."""
    if isinstance(value, _Sealed):
        return value
    secret = secret or secret_name(key)
    if isinstance(value, str):
        if sanctioned(key, value):
            return value
        if sealer is not None and (secret or _URL_PASSWORD.search(value) is not None):
            return sealer(value)
        return _Unsafe(value)
    if isinstance(value, dict):
        return {k: _mark(v, k, sealer, secret) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_mark(v, None, sealer, secret) for v in value]
    return value


def unsafe_yaml(data: Any, sealer: Sealer | None = None) -> str:
    """YAML of ``data`` for Ansible: every string tagged ``!unsafe``, secrets sealed."""
    marked = _mark(data, None, sealer)
    return yaml.dump(marked, Dumper=_Dumper, sort_keys=False, allow_unicode=True)


class _InventoryLoader(BoundedLoader):
    """Reads a YAML inventory (within the bounds of every YAML input) keeping what the user
    sealed sealed."""


_InventoryLoader.add_constructor("!vault", lambda loader, node: _Sealed(node.value))
_InventoryLoader.add_constructor("!unsafe", lambda loader, node: loader.construct_scalar(node))


_VAULT_FILE = "$ANSIBLE_VAULT;"


def _marked_copy(source: Path, target: Path, sealer: Sealer) -> None:
    text = read_text(source)
    if text.startswith(_VAULT_FILE):  # a whole file the user sealed: passed on sealed
        target.write_text(text)
        return
    data, _ = load_text(text, str(source), _InventoryLoader)
    target.write_text(unsafe_yaml(data, sealer) if data is not None else "")


def inventory_copy(inventory: Path, folder: Path, sealer: Sealer) -> Path:
    """Write the inventory (a YAML file, or a folder of them) into ``folder`` with every
    string marked unsafe, and the ``group_vars``/``host_vars`` beside it likewise; returns
    what to give Ansible as ``-i``."""
    hosts = folder / "inventory"
    hosts.mkdir(parents=True, exist_ok=True)
    files = (
        sorted(p for p in inventory.iterdir() if p.suffix in (".yml", ".yaml"))
        if inventory.is_dir()
        else [inventory]
    )
    for i, path in enumerate(files):
        _marked_copy(path, hosts / f"{i:03d}-{path.stem}.yml", sealer)
    base = inventory if inventory.is_dir() else inventory.parent
    for path in vars_files(inventory):  # the same files the inventory's checks read
        target = hosts / path.relative_to(base)
        target.parent.mkdir(parents=True, exist_ok=True)
        _marked_copy(path, target, sealer)
    return hosts


def environment_secrets(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The secrets raidsweep hands to plays, by Ansible variable, from the environment."""
    env = os.environ if environ is None else environ
    out: dict[str, str] = {}
    for name, var in SECRET_ENV.items():
        if env.get(name) and var not in out:
            out[var] = env[name]
    return out


def blanked_environment(environ: dict[str, str] | None = None) -> dict[str, str]:
    """Every secret-looking variable of the environment set to "" (to overlay the copy of the
    environment ansible-runner gives the play and writes into its artifacts): by its name, or
    by a value holding a URL with a password."""
    env = os.environ if environ is None else environ
    return {
        name: ""
        for name, value in env.items()
        if value
        and (name in SECRET_ENV or secret_name(name) or _URL_PASSWORD.search(value) is not None)
    }
