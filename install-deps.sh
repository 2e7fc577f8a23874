#!/usr/bin/env bash
# Installs the Debian packages cosi-cpp needs, only those that are missing. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")"

packages=(
  build-essential meson ninja-build pkg-config cmake python3
  catch2 libre2-dev
  libboost1.81-dev libboost-json1.81-dev
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libyaml-cpp-dev libssl-dev libnl-3-dev libnl-route-3-dev
  clang libclang-rt-14-dev
  ca-certificates etcd-server etcd-client iproute2 nginx prometheus
  tmux graphviz chromium
)

# kubectl: Debian's kubernetes-client, only where none is on PATH (a machine may carry another
# kubectl that owns /usr/bin/kubectl).
command -v kubectl >/dev/null || packages+=(kubernetes-client)
# Node.js and npm for the browser tests (playwright-core): Debian's, only where none is on PATH (a
# machine may carry another Node).
command -v node >/dev/null || packages+=(nodejs)
command -v npm >/dev/null || packages+=(npm)

# The browser tests' npm packages, as test/web/package-lock.json pins them (no browser download:
# they drive Debian's chromium).
# A registry that cannot be reached fails only the browser test, which says why; not the rest.
npm_packages() {
  [[ -d test/web/node_modules/playwright-core ]] && return 0
  echo "install-deps: npm ci in test/web"
  if ! (cd test/web && npm ci --no-audit --no-fund --loglevel=error >/dev/null); then
    echo "install-deps: npm ci in test/web failed: the browser test (dashboard) cannot run; everything else is installed" >&2
  fi
}

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  npm_packages
  exit 0
fi

sudo=""
if [[ $(id -u) != 0 ]]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
# Server packages (nginx) start a default instance of their own on install; we run only ours:
# invoke-rc.d is told not to start anything while we install.
policy=/usr/sbin/policy-rc.d
made_policy=0
if [[ ! -e $policy ]]; then
  printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
  $sudo chmod +x "$policy"
  made_policy=1
fi
status=0
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || status=$?
((made_policy)) && $sudo rm -f "$policy"
((status == 0)) || exit "$status"
npm_packages
