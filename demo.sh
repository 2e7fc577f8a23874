#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the demo.
#
# For now the demo is a tour of the resource store (cosi-store-demo), because the node agent
# and the local cluster do not exist yet; when they do, this becomes the cluster bring-up.
set -euo pipefail
cd "$(dirname "$0")"
./install-deps.sh
build=${BUILD_DIR:-build}
[[ -f $build/build.ninja ]] || meson setup "$build" >/dev/null
ninja -C "$build" -j2 cmd/store-demo/cosi-store-demo >/dev/null
exec "$build/cmd/store-demo/cosi-store-demo"
