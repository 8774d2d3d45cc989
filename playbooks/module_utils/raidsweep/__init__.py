"""Code raidsweep's Ansible modules share: Ansible ships it with a module that imports it as
``ansible.module_utils.raidsweep.<name>`` (this folder is found beside the playbooks)."""
