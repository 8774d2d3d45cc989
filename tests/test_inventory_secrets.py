"""Three audit findings on inventories and secrets, without a play:

1. one reading of the inventory: the files its checks read are the files the plays get a copy
   of and the files ``sweeper.remote`` takes fio's SSH target, the lock's host identity and
   linux_md's devices from; a file only Ansible would read (an INI file, an executable
   inventory script, a JSON file, a subfolder) is refused naming it, and never run;
2. the environment variables the example vendor roles declare they read their password from
   are handed to the play sealed (derived from the roles' own declarations);
3. common spellings of secret names (``_pw``, ``pin``, ``passwd``, ``community`` …) are sealed
   in the inventory copy a play gets, ordinary names are not.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from sweeper.ansible_vars import (
    Sealer,
    blanked_environment,
    environment_secrets,
    inventory_copy,
    secret_name,
)
from sweeper.cli import app
from sweeper.errors import InputError
from sweeper.inventory import inventory_problems
from sweeper.remote import RemoteHostError, host_vars, inventory_host
from tests.support.paths import ROOT

DEVICES = [f"/dev/disk/by-id/wwn-0x5000c500a1b2c30{i}" for i in range(1, 9)]
#: the storage host as the YAML inventory gives it
HOSTS = {
    "all": {
        "children": {
            "storage": {
                "hosts": {
                    "store1": {
                        "ansible_host": "127.0.0.1",
                        "ansible_port": 1,
                        "ansible_user": "root",
                        "linux_md_devices": DEVICES,
                    }
                }
            }
        }
    }
}


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "inv2"
    folder.mkdir()
    (folder / "hosts.yml").write_text(yaml.safe_dump(HOSTS))
    return folder


def _script(marker: Path) -> str:
    """An inventory script that leaves ``marker`` behind when it is run."""
    return f"#!/bin/sh\ntouch {marker}\necho '{{}}'\n"


#: files Ansible reads in an inventory folder and raidsweep does not: (name, text, mode)
FOREIGN = {
    "ini override": ("override", "store1 ansible_host=127.0.0.2 ansible_port=2\n", 0o644),
    "leftover ini hosts": ("hosts", "[storage]\nstore1 ansible_host=127.0.0.2\n", 0o644),
    "ini by its name": ("hosts.ini", "[storage]\nstore1 ansible_host=127.0.0.2\n", 0o644),
    "inventory script": ("zz-dyn", None, 0o755),
    "executable yaml": ("zz-dyn.yml", None, 0o755),
    "json inventory": (
        "extra.json",
        '{"storage": {"hosts": {"store1": {"ansible_host": "127.0.0.2"}}}}',
        0o644,
    ),
}


@pytest.mark.parametrize("case", list(FOREIGN))
def test_a_file_only_ansible_would_read_is_refused_and_never_run(case: str, tmp_path: Path) -> None:
    name, text, mode = FOREIGN[case]
    marker = tmp_path / "PWNED"
    folder = _folder(tmp_path)
    foreign = folder / name
    foreign.write_text(text if text is not None else _script(marker))
    foreign.chmod(mode)
    # the checks name it ...
    problems = inventory_problems(folder)
    assert problems and all(str(foreign) in p for p in problems), problems
    # ... and neither the plays' copy nor fio's connection reads past it
    with pytest.raises(InputError) as refused:
        inventory_copy(folder, tmp_path / "play", Sealer())
    assert str(foreign) in str(refused.value)
    with pytest.raises(RemoteHostError, match=name):
        inventory_host(folder)
    assert not marker.exists()


def test_a_subfolder_is_refused(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    (folder / "more").mkdir()
    (folder / "more" / "hosts.yml").write_text("storage:\n  hosts:\n    store2:\n")
    (problem,) = inventory_problems(folder)
    assert f"{folder / 'more'}: a folder in the inventory folder" in problem
    with pytest.raises(RemoteHostError, match="a folder in the inventory folder"):
        inventory_host(folder)


def test_what_ansible_skips_is_skipped_and_the_host_is_the_yamls(tmp_path: Path) -> None:
    """README.md, notes, backups and hidden files are skipped by Ansible and raidsweep alike;
    the host fio connects to is the YAML's, with the ``group_vars``/``host_vars`` beside it
    settled as Ansible settles them."""
    folder = _folder(tmp_path)
    ini = "store1 ansible_host=127.0.0.2 ansible_port=2\n"
    for name in ("README.md", "notes.txt", "hosts.bak", "hosts.yml~", ".override", "x.retry"):
        (folder / name).write_text(ini)
    (folder / "group_vars").mkdir()
    (folder / "group_vars" / "storage.yml").write_text("ansible_user: admin\nansible_port: 3\n")
    (folder / "host_vars").mkdir()
    (folder / "host_vars" / "store1.yml").write_text("ansible_port: 2222\n")
    assert inventory_problems(folder) == []
    host = inventory_host(folder)
    # the host's own inventory value beats group_vars; host_vars beat both
    assert (host.name, host.address, host.port, host.user) == ("store1", "127.0.0.1", 2222, "root")
    assert host_vars(folder)["linux_md_devices"] == DEVICES


def test_a_vars_file_sealed_whole_is_named_not_a_traceback(tmp_path: Path) -> None:
    """fio's connection is read without the user's vault password: a vars file of the host
    sealed whole cannot be read, and is named (Ansible's in-process reading raised)."""
    folder = _folder(tmp_path)
    (folder / "group_vars").mkdir()
    sealed = folder / "group_vars" / "storage.yml"
    sealed.write_text("$ANSIBLE_VAULT;1.1;AES256\n6162636465\n")
    assert inventory_problems(folder) == []  # the plays decrypt it with the user's password
    with pytest.raises(RemoteHostError, match="sealed whole with Ansible Vault"):
        inventory_host(folder)


def _md_spec(tmp_path: Path, inventory: Path) -> Path:
    spec = {
        "name": "md-foreign",
        "platform": "linux_md",
        "inventory": str(inventory),
        "platform_options": {},
        "config_space": {
            "raid_level": ["raid5"],
            "layout": ["single_rank"],
            "ranks": [2],
            "stripe_kib": [64],
            "cache_policy": ["wb-ra"],
            "data_reduction": [False],
        },
        "matrix": {
            "patterns": ["write"],
            "block_sizes": ["4k"],
            "concurrency": ["1x1"],
            "runtime": "10s",
            "ramp": "0s",
            "working_set": "64m",
        },
        "classes": ["redo_log"],
    }
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


@pytest.mark.parametrize("args", [("--check",), ()], ids=["run --check", "run"])
def test_run_refuses_the_folder_and_never_runs_its_script(args: tuple, tmp_path: Path) -> None:
    """The audit's case: ``inv2/zz-dyn`` (``touch PWNED``) and the INI ``inv2/override`` beside
    the YAML. ``run --check`` (which reads the storage host for linux_md's preflight) and
    ``run`` exit 2 naming both files; the script never runs."""
    marker = tmp_path / "PWNED"
    folder = _folder(tmp_path)
    (folder / "zz-dyn").write_text(_script(marker))
    (folder / "zz-dyn").chmod(0o755)
    (folder / "override").write_text("store1 ansible_host=127.0.0.2 ansible_port=2\n")
    spec = _md_spec(tmp_path, folder)
    result = CliRunner().invoke(
        app,
        ["run", str(spec), "--store", str(tmp_path / "store"), *args],
        env={"COLUMNS": "300"},
    )
    out = result.output
    assert result.exit_code == 2, out
    assert f"{folder / 'zz-dyn'}: an executable file in the inventory folder" in out
    assert f"{folder / 'override'}: not a YAML inventory file" in out
    assert not marker.exists()
    assert not (tmp_path / "store" / "md-foreign").exists()


def test_the_plays_copy_holds_exactly_the_files_read(tmp_path: Path) -> None:
    """The copy a play gets is made from the one reading (``load_inventory``): the YAML files
    and the vars files, an empty vars folder too (Ansible takes ``group_vars/<g>/`` before
    ``group_vars/<g>.yml``, even empty), nothing else."""
    folder = _folder(tmp_path)
    (folder / "README.md").write_text("not an inventory\n")
    (folder / "group_vars" / "storage").mkdir(parents=True)
    (folder / "group_vars" / "storage.yml").write_text("ansible_port: 3\n")
    copy = inventory_copy(folder, tmp_path / "play", Sealer())
    assert sorted(str(p.relative_to(copy)) for p in copy.rglob("*")) == [
        "000-hosts.yml",
        "group_vars",
        "group_vars/storage",
        "group_vars/storage.yml",
    ]
    # the empty folder wins in Ansible, so group_vars/storage.yml sets nothing: nor here
    assert inventory_host(folder).port == 1


# --- 2: the environment passwords the example roles document -------------------------------

#: what each example role's README and defaults say its password may come from
ROLE_PASSWORDS = {
    "netapp_eseries": {"ESERIES_API_PASSWORD": "eseries_api_password"},
    "dell_idrac_redfish": {"IDRAC_PASSWORD": "idrac_password"},
    "ibm_storage_virtualize": {"SVC_PASSWORD": "svc_password"},
    "netapp_ontap": {"ONTAP_PASSWORD": "ontap_password"},
}
EXAMPLE_ROLES = ROOT / "examples" / "roles"


def test_the_example_roles_declare_the_environment_passwords_they_document() -> None:
    """Derived from each role's own declarations (a ``no_log`` variable of its argument spec
    whose default reads the environment), not from a list here: the names match the ones the
    roles' README documents."""
    from sweeper.ansible_vars import role_secret_env

    found = {role: role_secret_env(EXAMPLE_ROLES / role) for role in ROLE_PASSWORDS}
    assert found == ROLE_PASSWORDS
    readme = (EXAMPLE_ROLES / "README.md").read_text()
    for names in ROLE_PASSWORDS.values():
        for name in names:
            assert f"`{name}`" in readme, name


def test_a_role_default_that_is_no_secret_is_not_taken(tmp_path: Path) -> None:
    from sweeper.ansible_vars import role_secret_env

    role = tmp_path / "my_role"
    (role / "defaults").mkdir(parents=True)
    (role / "meta").mkdir()
    (role / "defaults" / "main.yml").write_text(
        "my_region: \"{{ lookup('env', 'MY_REGION') }}\"\n"
        "my_secret: \"{{ lookup('ansible.builtin.env', 'MY_PIN') }}\"\n"
        "my_token: \"{{ lookup('env', 'MY_TOKEN') | default('x') }}\"\n"
    )
    (role / "meta" / "argument_specs.yml").write_text(
        yaml.safe_dump(
            {
                "argument_specs": {
                    "main": {
                        "options": {
                            "my_region": {"type": "str"},
                            "my_secret": {"type": "str", "no_log": True},
                            "my_token": {"type": "str", "no_log": True},
                        }
                    }
                }
            }
        )
    )
    # only the no_log variable whose default is exactly one environment lookup
    assert role_secret_env(role) == {"MY_PIN": "my_secret"}


def test_the_roles_password_is_handed_over_unless_the_inventory_sets_it(tmp_path: Path) -> None:
    from sweeper.inventory import load_inventory

    role = EXAMPLE_ROLES / "netapp_eseries"
    env = {"ESERIES_API_PASSWORD": "Pw-env-1", "HOME": "/root"}
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(yaml.safe_dump(HOSTS))
    assert environment_secrets(env, [role], load_inventory(inventory)) == {
        "eseries_api_password": "Pw-env-1"
    }
    # the inventory's own value comes first, as with the role's default
    (tmp_path / "group_vars").mkdir()
    (tmp_path / "group_vars" / "all.yml").write_text("eseries_api_password: !vault |\n  x\n")
    assert environment_secrets(env, [role], load_inventory(inventory)) == {}
    # and it is blanked in the play's environment, however it is named
    assert blanked_environment({"ARRAY_LOGIN": "Pw"}, names=["ARRAY_LOGIN"]) == {"ARRAY_LOGIN": ""}


# --- 3: secret names --------------------------------------------------------------------------

SECRET_NAMES = [
    "eseries_api_pw",
    "pw",
    "pw_hash",
    "adminPw",
    "db_pwd",
    "pwd",  # in an inventory; PWD in the environment is the working folder
    "pin",
    "admin_pin",
    "arrayLoginPIN",
    "pin_code",
    "pincode",
    "passwd",
    "root_passwd",
    "passphrase",
    "key_passphrase",
    "passcode",
    "snmp_community",
    "community",
    "snmp_auth_key",
    "wpa_psk",
    "array_creds",
    "otp_seed",
    "ansible_password",
    "ansible_become_pass",
    "api_token",
    "client_secret",
    "aws_access_key_id",
    "private_key",
    "PGPASSWORD",
    "SSHPASS",
    "MYSQL_PWD",
    "GITHUB_AUTH",
    "APIKEY",
]
ORDINARY_NAMES = [
    "spindle",
    "pinned_cpus",
    "cpu_pinning",
    "spin_down",
    "pwm_fan",
    "pwr_supply",
    "power",
    "opinion",
    "shipping",
    "mapping",
    "pci_passthrough",
    "bypass_cache",
    "passive_mode",
    "communityname_style",
    "auth_method",
    "key_name",
    "keyboard_layout",
    "ssh_auth_sock",
    "ansible_host_key_checking",
    "eseries_api_username",
    "ansible_user",
    "ansible_ssh_private_key_file",
    "password_file",
    "vault_password_path",
    "description",
]


@pytest.mark.parametrize("name", SECRET_NAMES)
def test_a_secret_spelling_is_a_secret(name: str) -> None:
    assert secret_name(name)


@pytest.mark.parametrize("name", ORDINARY_NAMES)
def test_an_ordinary_name_is_not(name: str) -> None:
    assert not secret_name(name)


def test_the_working_folder_is_no_password() -> None:
    assert blanked_environment({"PWD": "/work", "OLDPWD": "/", "DB_PW": "x"}) == {"DB_PW": ""}


def test_new_spellings_are_sealed_in_the_plays_copy(tmp_path: Path) -> None:
    """The audit's case: ``eseries_api_pw`` and ``array_login: {user: admin, pin: …}`` were
    written in clear into the per-play inventory copy (left on disk by a kill -9)."""
    source = tmp_path / "hosts.yml"
    source.write_text(
        "all:\n  children:\n    storage:\n      hosts:\n        array:\n"
        "          eseries_api_pw: PWspelled1\n"
        "          array_login: {user: admin, pin: '735194'}\n"
        "          snmp_community: PWcommunity2\n"
        "          root_passwd: PWpasswd3\n"
        "          spindle_count: 12\n"
        "          pinned_cpus: '0-3'\n"
    )
    copy = inventory_copy(source, tmp_path / "play", Sealer())
    text = "".join(p.read_text() for p in sorted(copy.rglob("*")) if p.is_file())
    for secret in ("PWspelled1", "735194", "PWcommunity2", "PWpasswd3"):
        assert secret not in text, text
    assert "user: !unsafe 'admin'" in text  # the login's user is no secret
    assert "spindle_count: 12" in text and "pinned_cpus: !unsafe '0-3'" in text
    assert text.count("!vault") == 4


def test_no_copy_is_left_in_the_working_folder(tmp_path: Path) -> None:
    # the checks and the copy read the inventory; nothing is written beside it
    folder = _folder(tmp_path)
    before = sorted(os.listdir(folder))
    inventory_problems(folder)
    inventory_host(folder)
    assert sorted(os.listdir(folder)) == before
