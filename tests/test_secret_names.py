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
