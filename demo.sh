#!/usr/bin/env bash
# The main job: installs what is missing, builds, starts one machined on 127.0.7.1 and shows
# what cosictl sees of it.
#
# Today that is a single node without discovery or etcd (later issues add them and turn this
# into a local cluster): its version, the resource types it serves, and the identity its
# first controller publishes.
set -euo pipefail
cd "$(dirname "$0")"
./install-deps.sh
build=${BUILD_DIR:-build}
[[ -f $build/build.ninja ]] || meson setup "$build" >/dev/null
ninja -C "$build" -j2 cmd/machined/machined cmd/cosictl/cosictl >/dev/null

state=$(mktemp -d /tmp/cosi-demo.XXXXXX)
"$build/cmd/machined/machined" --insecure-dev --listen 127.0.7.1:50000 --state-dir "$state" \
  --hostname demo-controlplane-1 2>"$state/machined.log" &
machined=$!
trap 'kill -TERM $machined 2>/dev/null; wait $machined 2>/dev/null; rm -rf "$state"' EXIT

# machined logs one line when it serves; wait for it (10 s at most).
for _ in $(seq 100); do
  grep -q "machined ready" "$state/machined.log" && break
  kill -0 $machined 2>/dev/null || { cat "$state/machined.log"; exit 1; }
  sleep 0.1
done
grep -q "machined ready" "$state/machined.log" || { cat "$state/machined.log"; exit 1; }

cosictl() { "$build/cmd/cosictl/cosictl" -e 127.0.7.1 -n 127.0.7.1 "$@"; }
set -x
cosictl version
cosictl get rd
cosictl get hostnamestatus
cosictl get nodeaddress current -o yaml
cosictl get members
