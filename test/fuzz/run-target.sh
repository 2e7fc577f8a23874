#!/usr/bin/env bash
# Runs one libFuzzer target for FUZZ_SECONDS (default 30) on a scratch copy of its corpus, so
# the checked-in corpus stays as written. Crashes, leaks, sanitizer reports and slow inputs
# (over 10 s) fail the run; the input that did it is kept in $FUZZ_ARTIFACTS (default
# ./fuzz-artifacts) for reproducing: `<target> <artifact>`.
#
#   run-target.sh <target binary> <corpus dir>
set -euo pipefail
target=$1
corpus=$2
seconds=${FUZZ_SECONDS:-30}
artifacts=${FUZZ_ARTIFACTS:-$PWD/fuzz-artifacts}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$corpus"/* "$work"/
mkdir -p "$artifacts"
# libFuzzer's own out-of-memory handler can hang; the outer timeout is the deadline. Its
# default exit code for a finding is 77, which meson reads as "skipped": make findings fail.
exec timeout -s KILL $((seconds + 120)) "$target" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
  -error_exitcode=1 -timeout_exitcode=1 \
  -print_final_stats=1 -artifact_prefix="$artifacts/$(basename "$target")-" "$work"
