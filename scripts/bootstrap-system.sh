# Sourced by test.sh: the system packages the tests use (real fio, for parser fixtures and
# live runs).
_as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
_need=()
# util-linux, mount, e2fsprogs, btrfs-progs: loop and zram devices, signatures, file systems
# and mounts in the local platform's and the capture's tests; iproute2: ss, which finds the
# port a test's server listens on; strace: kills a report or characterize at its Nth rename
# or link (fault injection) in their crash tests; procps: pgrep, used by the loadgen role;
# postgresql: a real server for the study shared by several sweepers; chromium: the headless
# browser the app's end-to-end test drives through Playwright (Debian's build: Playwright never
# downloads one); qemu-system-x86, qemu-utils, debootstrap, openssh-client: `raidsweep lab`,
# the Debian VM with a kernel that has md and device-mapper (this machine's may have neither)
# that the linux_md platform is tested on.
_pkgs=(fio util-linux mount e2fsprogs btrfs-progs iproute2 strace procps postgresql chromium)
_pkgs+=(qemu-system-x86 qemu-utils debootstrap openssh-client)
for _pkg in "${_pkgs[@]}"; do dpkg -s "$_pkg" >/dev/null 2>&1 || _need+=("$_pkg"); done
if [ ${#_need[@]} -gt 0 ]; then
  echo "installing system packages: ${_need[*]}"
  _as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive _as_root apt-get install -y -qq "${_need[@]}" >/dev/null
fi
# vcsim (govmomi's vSphere API simulator, built with Go) for the vsan platform's tests.
"$(dirname "${BASH_SOURCE[0]}")/install-vcsim.sh"
