"""Which environment variables and inventory variables raidsweep takes for secrets: blanked in
the environment a play gets (ansible-runner writes that environment into its artifacts), sealed
with Vault in the variables it hands over."""

from __future__ import annotations

import pytest

from sweeper.ansible_vars import blanked_environment


@pytest.mark.parametrize(
    "name",
    [
        "VSAN_PASSWORD",
        "ANSIBLE_BECOME_PASS",
        "SSHPASS",
        "MYSQL_PWD",
        "ARRAY_API_KEY",
        "APIKEY",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_ACCESS_KEY_ID",
        "DB_PASSPHRASE",
        "MY_CREDENTIALS",
        "GITHUB_TOKEN",
        "GITHUB_AUTH",
        "HTTP_AUTHORIZATION",
        "SESSION_COOKIE",
        "GPG_KEY",
        "ssh_private_key",
    ],
)
def test_a_secret_name_is_blanked(name: str) -> None:
    assert blanked_environment({name: "s3cret"}) == {name: ""}


@pytest.mark.parametrize(
    "name",
    [
        "PWD",
        "OLDPWD",
        "SSH_AUTH_SOCK",
        "ANSIBLE_HOST_KEY_CHECKING",
        "ANSIBLE_VAULT_PASSWORD_FILE",
        "HOME",
        "PATH",
        "KEYBOARD_LAYOUT",
        "PGPASSFILE_PATH",
    ],
)
def test_a_setting_is_left_as_it_is(name: str) -> None:
    assert blanked_environment({name: "/somewhere"}) == {}


def test_a_url_with_a_password_is_blanked_whatever_its_name() -> None:
    env = {
        "http_proxy": "http://user:s3cret@proxy.example:3128",
        "no_proxy": "localhost,127.0.0.1",
        "REGISTRY": "https://registry.example/v2",
        "MIRROR": "https://user@mirror.example/",
    }
    assert blanked_environment(env) == {"http_proxy": ""}


def _sealed_inventory(tmp_path, text: str) -> str:
    """The inventory copy a play gets (``inventory_copy``), as text on disk."""
    from sweeper.ansible_vars import Sealer, inventory_copy

    source = tmp_path / "hosts.yml"
    source.write_text(text)
    copy = inventory_copy(source, tmp_path / "play", Sealer())
    files = [copy] if copy.is_file() else sorted(p for p in copy.rglob("*") if p.is_file())
    return "".join(p.read_text() for p in files)


def test_a_secret_anywhere_under_a_secret_name_is_sealed(tmp_path) -> None:
    # Lists and mappings under a secret's name, and a URL with a password under any name:
    # every one is sealed in the inventory copy a play gets (and a killed play leaves behind).
    text = _sealed_inventory(
        tmp_path,
        "all:\n  hosts:\n    array:\n"
        "      api_tokens: [PWlist2, [PWdeeper5]]\n"
        "      array_credentials: {user: admin, pw: PWnested3}\n"
        "      array_url: https://admin:PWurl4@array.example/api\n"
        "      description: a plain setting\n",
    )
    for secret in ("PWlist2", "PWdeeper5", "PWnested3", "PWurl4"):
        assert secret not in text, text
    assert text.count("!vault") == 5  # the user name under credentials too
    assert "a plain setting" in text  # settings are left readable
