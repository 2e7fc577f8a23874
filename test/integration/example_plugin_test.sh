#!/usr/bin/env bash
# The example plugin, built as a third party would: install the SDK (into a scratch root),
# build subprojects/example-plugin against it through pkg-config, load the .so into a runtime
# and check its outputs.
#
#   example_plugin_test.sh BUILD_DIR SOURCE_DIR CHECKER
set -euo pipefail
build=$1 source=$2 checker=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
log=$scratch/log

run() {
  if ! "$@" >"$log" 2>&1; then
    cat "$log"
    echo "example_plugin_test: failed: $*"
    exit 1
  fi
}

run env DESTDIR="$scratch/root" meson install -C "$build" --no-rebuild --quiet
pc=$(find "$scratch/root" -name cosi-runtime.pc | head -n 1)
# The SDK was installed under a scratch root: point its prefix there.
sed -i "s|^prefix=|prefix=$scratch/root|" "$pc"
run env PKG_CONFIG_PATH="$(dirname "$pc")" meson setup "$scratch/plugin" "$source/subprojects/example-plugin"
run ninja -C "$scratch/plugin"
"$checker" "$scratch/plugin"
