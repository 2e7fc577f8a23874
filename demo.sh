#!/usr/bin/env bash
# The main job: installs what is missing, builds, brings up a local cluster on loopback —
# discoveryd plus 3 control planes and 2 workers, each a machined on its own 127.5.0.x
# address; etcd bootstrapped on the first control plane, joined by the others — and shows
# `cosictl get members` and `cosictl etcd status`; then KubePrism on a worker, balancing the
# control planes' API server stand-ins, and kubectl reaching /healthz through it with the admin
# kubeconfig. The cluster is destroyed at the end unless KEEP=1 (then:
# build/cmd/cosictl/cosictl cluster destroy --name demo).
set -euo pipefail
cd "$(dirname "$0")"
./install-deps.sh
build=${BUILD_DIR:-build}
[[ -f $build/build.ninja ]] || meson setup "$build" >/dev/null
ninja -C "$build" -j2 cmd/machined/machined cmd/discoveryd/discoveryd cmd/cosictl/cosictl >/dev/null

cosictl() { "$build/cmd/cosictl/cosictl" "$@"; }
# A cluster left by an earlier KEEP=1 run goes first.
cosictl cluster destroy --name demo >/dev/null 2>&1 || true
if [[ ${KEEP:-0} != 1 ]]; then
  trap 'cosictl cluster destroy --name demo' EXIT
fi

set -x
cosictl cluster create --name demo --controlplanes 3 --workers 2 --cidr 127.5.0.0/24
cosictl get members
cosictl get endpoints
cosictl etcd members
cosictl -n 127.5.0.10,127.5.0.11,127.5.0.12 etcd status
cosictl get etcdclusters -o yaml
cosictl -n 127.5.0.12 service
cosictl -n 127.5.0.13 get kubeprismstatuses
cosictl -n 127.5.0.13 get kubeprismupstreams
kubeconfig=$(mktemp -d)/kubeconfig
cosictl kubeconfig "$kubeconfig"
kubectl --kubeconfig "$kubeconfig" --server https://127.5.0.13:7445 get --raw /healthz
echo
