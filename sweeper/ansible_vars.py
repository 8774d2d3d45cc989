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
  the environment are blanked in the play's environment (ansible-runner writes the whole
  environment of every play into its artifacts) and handed over as Ansible Vault values: the
  vCenter password in ``VSAN_PASSWORD`` or ``VMWARE_PASSWORD`` (``SECRET_ENV``), and the
  environment variables a role declares it reads a secret from (``role_secret_env``: a
  variable its argument spec marks ``no_log`` whose default is
  ``"{{ lookup('ansible.builtin.env', 'NAME') }}"``, as the example vendor roles' passwords
  ``ESERIES_API_PASSWORD``, ``IDRAC_PASSWORD``, ``SVC_PASSWORD``, ``ONTAP_PASSWORD``). A
  role's secret is handed over only where the inventory does not set the variable itself, so
  the inventory's value still comes first, as the role's default has it. So are the values of
  secret-named inventory variables (``ansible_password``, ``…_token``, ``…_pw``, ``pin`` …) in
  the copy. They are sealed with a random key made for the one play, which only the runner's
  answer to Ansible's vault prompt carries (in memory).
"""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path
from typing import Any

import yaml

from sweeper.errors import InputError
from sweeper.inventory import Inventory, InventoryFile, Sealed, Unsafe, load_inventory
from sweeper.untrusted import sanctioned
from sweeper.yamlsource import load_text, read_text

#: the vault id raidsweep seals its one-play secrets with
VAULT_ID = "raidsweep"
#: the prompt ``--vault-id raidsweep@prompt`` prints, answered from memory by ansible-runner
VAULT_PROMPT = r"Vault password \(raidsweep\):\s*$"
#: environment variable -> the Ansible variable the secret is handed over as
SECRET_ENV = {"VSAN_PASSWORD": "vsan_password", "VMWARE_PASSWORD": "vsan_password"}
# Names whose values are secrets: blanked in the play's environment, sealed in what is handed
# over (SSHPASS, MYSQL_PWD, ARRAY_API_KEY, DB_PASSPHRASE, MY_CREDENTIALS, GITHUB_AUTH, db_pw,
# array_login.pin, snmp_community ...; not PWD, the working folder, nor SSH_AUTH_SOCK, a
# socket's path). A name is read as its words (split at ``_``, ``-``, ``.`` and camelCase;
# digits at a word's end dropped), so a short spelling counts only as a whole word: ``pin``
# and ``admin_pw`` are secrets, ``spindle``, ``pinned_cpus`` and ``pwm_fan`` are not.
#: words that are secrets wherever they stand in a name
_SECRET_WORDS = frozenset(
    {
        "pw",
        "pwd",
        "passwd",
        "pin",
        "pincode",
        "psk",
        "otp",
        "community",
        "cred",
        "creds",
        "apikey",
        "authkey",
        "privkey",
        "privatekey",
        "accesskey",
    }
)
#: what makes a word a secret wherever it stands in it (``sshpass``, ``pgpassword``,
#: ``passphrase``, ``passcode``, ``client_secret``, ``github_token``, ``my_credentials``)
_SECRET_PARTS = ("pass", "secret", "token", "credential", "cookie", "authorization")
#: ordinary words holding one of those parts
_ORDINARY_WORDS = frozenset(
    {"bypass", "passthrough", "passthru", "passive", "compass", "passenger", "passage"}
)
#: words that are secrets as the name's last word (``gpg_key``, ``github_auth``; not
#: ``key_name`` or ``auth_method``)
_SECRET_LAST = frozenset({"key", "auth"})
#: two words that are a secret together, wherever they stand (``aws_access_key_id``)
_SECRET_PAIRS = frozenset({("private", "key"), ("api", "key"), ("access", "key")})
#: environment variables that hold the working folder, not a password
_WORKING_DIRS = frozenset({"PWD", "OLDPWD"})


def name_words(name: str) -> list[str]:
    """The words of a variable's name, lower case: ``arrayLoginPIN2`` → array, login, pin."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", spaced)
    words = [w.rstrip("0123456789") for w in re.split(r"[^a-z0-9]+", spaced.lower())]
    return [w for w in words if w]


def _secret_words(words: list[str]) -> bool:
    if not words:
        return False
    for word in words:
        if word in _SECRET_WORDS:
            return True
        if word not in _ORDINARY_WORDS and any(part in word for part in _SECRET_PARTS):
            return True
    return words[-1] in _SECRET_LAST or any(
        pair in _SECRET_PAIRS for pair in zip(words, words[1:], strict=False)
    )


#: a value that carries a password in a URL (``http://user:pw@proxy:3128``)
_URL_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s:@]*:[^/\s@]+@", re.IGNORECASE)


#: a string to be written with Ansible's ``!unsafe`` tag
_Unsafe = Unsafe
#: Vault ciphertext to be written with Ansible's ``!vault`` tag (the user's, or this play's)
_Sealed = Sealed


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(_Unsafe, lambda d, v: d.represent_scalar("!unsafe", str(v)))
_Dumper.add_representer(_Sealed, lambda d, v: d.represent_scalar("!vault", str(v), style="|"))


def secret_name(name: Any) -> bool:
    """Whether a variable of this name holds a secret (a path to one is not one)."""
    return (
        isinstance(name, str)
        and _secret_words(name_words(name))
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


def _marked_copy(source: InventoryFile, target: Path, sealer: Sealer) -> None:
    if source.sealed is not None:  # a whole file the user sealed: passed on sealed
        target.write_text(source.sealed)
        return
    data = source.data
    target.write_text(unsafe_yaml(data, sealer) if data is not None else "")


def inventory_copy(inventory: Path | Inventory, folder: Path, sealer: Sealer) -> Path:
    """Write the inventory (a YAML file, or a folder of them) into ``folder`` with every
    string marked unsafe, and the ``group_vars``/``host_vars`` beside it likewise, from the
    one reading of it the checks and ``sweeper.remote`` use (``inventory.load_inventory``:
    a file raidsweep would not read is refused, never passed on); returns what to give
    Ansible as ``-i``."""
    inv = inventory if isinstance(inventory, Inventory) else load_inventory(inventory)
    hosts = folder / "inventory"
    hosts.mkdir(parents=True, exist_ok=True)
    for i, source in enumerate(inv.files):
        _marked_copy(source, hosts / f"{i:03d}-{source.path.stem}.yml", sealer)
    for sub in inv.folders:  # an empty one too: Ansible reads what is in it, or nothing
        (hosts / sub.relative_to(inv.base)).mkdir(parents=True, exist_ok=True)
    for source in inv.vars:  # the same files the inventory's checks read
        target = hosts / source.path.relative_to(inv.base)
        target.parent.mkdir(parents=True, exist_ok=True)
        _marked_copy(source, target, sealer)
    return hosts


#: a role default that reads one variable of the environment, as the example vendor roles'
#: passwords do: ``"{{ lookup('ansible.builtin.env', 'ESERIES_API_PASSWORD') }}"``
_ENV_DEFAULT = re.compile(
    r"""\{\{\s*lookup\(\s*(['"])(?:ansible\.builtin\.)?env\1\s*,\s*"""
    r"""(['"])([A-Za-z_][A-Za-z0-9_]*)\2\s*\)\s*\}\}"""
)


def _yaml_mapping(path: Path) -> dict[Any, Any]:
    try:
        data, _ = load_text(read_text(path), str(path))
    except InputError:
        return {}  # the role's own checks (and Ansible) name the problem
    return data if isinstance(data, dict) else {}


def role_secret_env(role: Path) -> dict[str, str]:
    """The secrets a role declares it takes from the environment: environment variable →
    the role's variable, for each variable that the role's ``meta/argument_specs.yml`` marks
    ``no_log: true`` (in any entry point) and whose default (``defaults/main.yml``, or the
    files of ``defaults/main/``) reads that one environment variable. Read as data, never
    evaluated."""
    no_log: set[str] = set()
    specs = _yaml_mapping(role / "meta" / "argument_specs.yml").get("argument_specs")
    for entry in specs.values() if isinstance(specs, dict) else ():
        options = entry.get("options") if isinstance(entry, dict) else None
        for name, option in options.items() if isinstance(options, dict) else ():
            if isinstance(option, dict) and option.get("no_log") is True:
                no_log.add(str(name))
    folder = role / "defaults"
    files = [folder / f"main{s}" for s in (".yml", ".yaml", "")] + sorted(
        p for p in (folder / "main").glob("*") if p.suffix in (".yml", ".yaml", ".json")
    )
    out: dict[str, str] = {}
    for path in files:
        if not path.is_file():
            continue
        for var, value in _yaml_mapping(path).items():
            m = _ENV_DEFAULT.fullmatch(value.strip()) if isinstance(value, str) else None
            if m is not None and var in no_log:
                out.setdefault(m.group(3), str(var))
    return out


def environment_secrets(
    environ: dict[str, str] | None = None,
    roles: tuple[Path, ...] | list[Path] = (),
    inventory: Inventory | None = None,
) -> dict[str, str]:
    """The secrets raidsweep hands to plays, by Ansible variable, from the environment:
    ``SECRET_ENV``'s, and those the ``roles`` declare (``role_secret_env``) where the
    ``inventory`` does not set the variable itself (its value comes first, as with the role's
    default)."""
    env = os.environ if environ is None else environ
    out: dict[str, str] = {}
    for name, var in SECRET_ENV.items():
        if env.get(name) and var not in out:
            out[var] = env[name]
    for role in roles:
        for name, var in role_secret_env(role).items():
            if env.get(name) and var not in out:
                if inventory is None or not inventory.sets(var):
                    out[var] = env[name]
    return out


def blanked_environment(
    environ: dict[str, str] | None = None, names: tuple[str, ...] | list[str] = ()
) -> dict[str, str]:
    """Every secret-looking variable of the environment set to "" (to overlay the copy of the
    environment ansible-runner gives the play and writes into its artifacts): by its name
    (and every one of ``names``, such as the environment variables a role declares it reads
    a secret from), or by a value holding a URL with a password. ``PWD`` and ``OLDPWD`` are
    the working folder, not a password."""
    env = os.environ if environ is None else environ
    return {
        name: ""
        for name, value in env.items()
        if value
        and (
            name in SECRET_ENV
            or name in names
            or (secret_name(name) and name not in _WORKING_DIRS)
            or _URL_PASSWORD.search(value) is not None
        )
    }
