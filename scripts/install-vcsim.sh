#!/usr/bin/env bash
# Installs vcsim, the vSphere API simulator of govmomi, for the vsan platform's tests.
# Exactly this version: `@latest` resolves to an ancient release that pyvmomi 9 cannot talk to.
# Idempotent: nothing happens when the right version is already installed.
# Prints nothing but progress; the binary's path is what tests/integration/vcsim.py looks for.
set -euo pipefail
VCSIM_VERSION="v0.46.3"
VCSIM_DIR="${RAIDSWEEP_VCSIM_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/raidsweep/vcsim-$VCSIM_VERSION}"
GO_MIN_MINOR=22           # govmomi v0.46.3 needs Go 1.22
GO_TOOLCHAIN="go1.22.12"  # fetched through the Go module proxy when the system Go is older

_as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if [ -x "$VCSIM_DIR/vcsim" ] && [ -f "$VCSIM_DIR/.installed" ]; then
  exit 0
fi

_go_minor() { "$1" env GOVERSION 2>/dev/null | sed -n 's/^go1\.\([0-9]*\).*/\1/p'; }

GO="$(command -v go || true)"
[ -z "$GO" ] && [ -x /usr/local/go/bin/go ] && GO=/usr/local/go/bin/go
if [ -z "$GO" ]; then
  echo "installing Debian's Go toolchain (to build vcsim)"
  _as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive _as_root apt-get install -y -qq golang-go >/dev/null
  GO="$(command -v go)"
fi
minor="$(_go_minor "$GO")"
if [ -z "$minor" ] || [ "$minor" -lt "$GO_MIN_MINOR" ]; then
  # Debian bookworm's Go is 1.19, too old for govmomi and too old to switch toolchains by
  # itself: fetch a newer one as the module golang.org/toolchain, as newer Go versions do.
  echo "fetching the Go toolchain $GO_TOOLCHAIN (the system Go is $("$GO" env GOVERSION))"
  work="$(mktemp -d)"
  mod="golang.org/toolchain@v0.0.1-$GO_TOOLCHAIN.linux-$("$GO" env GOARCH)"
  dir="$(cd "$work" && GOFLAGS=-mod=mod GOPATH="$work/gopath" "$GO" mod download -json "$mod" \
    | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  mkdir -p "$VCSIM_DIR"
  rm -rf "$VCSIM_DIR/go"
  cp -r "$dir" "$VCSIM_DIR/go"
  chmod -R u+w "$VCSIM_DIR/go"
  # Module zips carry no file modes: make the toolchain's programs executable again.
  chmod +x "$VCSIM_DIR/go/bin/"* "$VCSIM_DIR/go/pkg/tool/"*/*
  chmod -R u+w "$work" && rm -rf "$work"
  GO="$VCSIM_DIR/go/bin/go"
fi

echo "installing vcsim $VCSIM_VERSION into $VCSIM_DIR"
mkdir -p "$VCSIM_DIR"
build="$(mktemp -d)"
# GOTOOLCHAIN=local: build with the toolchain chosen above, never a silent download.
(cd "$build" && GOTOOLCHAIN=local GOBIN="$VCSIM_DIR" "$GO" install \
  "github.com/vmware/govmomi/vcsim@$VCSIM_VERSION")
rm -rf "$build"
# The version the binary was built from, checked rather than trusted.
"$GO" version -m "$VCSIM_DIR/vcsim" | grep -q "github.com/vmware/govmomi[[:space:]]*$VCSIM_VERSION" || {
  echo "vcsim in $VCSIM_DIR is not govmomi $VCSIM_VERSION" >&2
  exit 1
}
echo "$VCSIM_VERSION" > "$VCSIM_DIR/.installed"
