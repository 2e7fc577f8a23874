#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test. Ends with "N passed, N failed" and
# exits non-zero when anything failed.
#
#   ./test.sh                     every test, in ./build
#   BUILD_DIR=b MESON_ARGS="-Druntime_only=true -Db_sanitize=thread" ./test.sh
set -euo pipefail
cd "$(dirname "$0")"
./install-deps.sh
build=${BUILD_DIR:-build}
# shellcheck disable=SC2086
[[ -f $build/build.ninja ]] || meson setup "$build" ${MESON_ARGS:-} >/dev/null
ninja -C "$build" -j2
status=0
meson test -C "$build" --num-processes 2 --print-errorlogs ${TEST_ARGS:-} || status=$?
python3 .ci/count-results "$build/meson-logs/testlog.json"
exit "$status"
