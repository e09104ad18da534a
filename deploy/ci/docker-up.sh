#!/usr/bin/env bash
# CI only (.ci/run): a Docker engine on this machine and the base images that the compose stack needs, made from
# Debian's packages because Docker Hub cannot be reached from CI. An operator needs none of this: with Docker Hub,
# `docker build` and `docker compose` pull node, postgres, redis and nginx themselves (docs/operations.md).
#
# - installs Debian's docker.io and docker-compose (compose v1: Debian bookworm has no compose v2 plugin) and
#   debootstrap, if missing;
# - starts dockerd if none answers, WITHOUT touching the host's firewall or forwarding (--iptables=false,
#   --ip-forward=false): other programs on this machine keep their network as it was. Containers then reach
#   each other on compose's bridge and the host through published ports (docker-proxy), but not the outside:
#   image builds that fetch packages use the host's network instead (deploy/ci/bin/docker);
# - makes, once, under stable tags (reruns find them and skip the work):
#     tollway-ci/debian:bookworm  debootstrap --variant=minbase of the mirror apt already uses here;
#     tollway-ci/node:<version>   that plus this machine's node and npm, laid out as the official node image
#                                 (/usr/local, a `node` user with uid 1000), with this machine's CA bundle and npm
#                                 registry so that npm and apt inside reach what the host reaches;
#     tollway-ci/postgres, tollway-ci/redis, tollway-ci/nginx  Debian's packages behaving as the official images
#                                 the compose file names (deploy/ci/images/).
# Prints, as shell assignments, whether it started dockerd (TOLLWAY_CI_DOCKERD_STARTED=1) and the images' tags
# (TOLLWAY_CI_NODE_IMAGE=…). Each tag carries a hash of the files its image is made from: a changed recipe makes a
# new image.
set -euo pipefail
cd "$(dirname "$0")/../.."
CI_DIR=deploy/ci
STATE=${TOLLWAY_CI_DOCKER_STATE:-/var/tmp/tollway-ci-docker}
mkdir -p "$STATE"
say() { echo "[docker-up] $*" >&2; }

export DEBIAN_FRONTEND=noninteractive
need=()
command -v dockerd >/dev/null || need+=(docker.io)
command -v docker-compose >/dev/null || need+=(docker-compose)
command -v debootstrap >/dev/null || need+=(debootstrap)
if [ ${#need[@]} -gt 0 ]; then
  say "installing ${need[*]}"
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
fi

if ! docker info >/dev/null 2>&1; then
  say "starting dockerd (log: $STATE/dockerd.log)"
  # setsid: the daemon outlives this script (the test runs after it) in its own session, stopped by its pid file.
  setsid dockerd --iptables=false --ip-forward=false --ip-masq=false --pidfile "$STATE/dockerd.pid" \
    >"$STATE/dockerd.log" 2>&1 < /dev/null &
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  if ! docker info >/dev/null 2>&1; then tail -n 40 "$STATE/dockerd.log" >&2; say "dockerd did not start"; exit 1; fi
  echo "TOLLWAY_CI_DOCKERD_STARTED=1"
fi

have() { docker image inspect "$1" >/dev/null 2>&1; }
# Untagged images left by earlier builds (each commit's build stage): kept a week as the build cache, then dropped.
docker image prune -f --filter until=168h >/dev/null 2>&1 || true

# The Debian mirror apt uses on this machine (its first Debian URI), so the image's apt reaches what the host's does.
MIRROR=$(grep -hoE '^(URIs:|deb) *https?://[^ ]+/debian/?' /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null | head -n 1 | grep -oE 'https?://[^ ]+' || true)
MIRROR=${MIRROR:-http://deb.debian.org/debian}
DEBIAN_TAG=tollway-ci/debian:bookworm
if ! have "$DEBIAN_TAG"; then
  say "debootstrap bookworm from $MIRROR"
  root=$(mktemp -d /var/tmp/tollway-ci-rootfs.XXXXXX)
  debootstrap --variant=minbase bookworm "$root" "$MIRROR" >"$STATE/debootstrap.log" 2>&1 || { tail -n 20 "$STATE/debootstrap.log" >&2; exit 1; }
  # The host's Debian sources (updates and security too) and its apt settings for them.
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/"; : > "$root/etc/apt/sources.list"
  fi
  for f in /etc/apt/apt.conf.d/99*; do [ -f "$f" ] && cp "$f" "$root/etc/apt/apt.conf.d/"; done
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  tar -C "$root" -c . | docker import -c 'CMD ["bash"]' - "$DEBIAN_TAG" >/dev/null
  rm -rf "$root"
fi

NODE_VERSION=$(node --version)
recipe() { cat "$@" | sha256sum | cut -c1-12; }
NODE_TAG=tollway-ci/node:${NODE_VERSION#v}-$(recipe "$CI_DIR/images/node.Dockerfile")
if ! have "$NODE_TAG"; then
  say "node image $NODE_TAG from this machine's node"
  ctx=$(mktemp -d /var/tmp/tollway-ci-node.XXXXXX)
  node_bin=$(readlink -f "$(command -v node)")
  node_prefix=$(dirname "$(dirname "$node_bin")")
  mkdir -p "$ctx/usr/local/bin" "$ctx/usr/local/lib/node_modules" "$ctx/usr/local/include" "$ctx/usr/local/etc" "$ctx/etc/ssl/certs"
  cp "$node_bin" "$ctx/usr/local/bin/node"
  cp -a "$node_prefix/lib/node_modules/npm" "$ctx/usr/local/lib/node_modules/"
  [ -d "$node_prefix/lib/node_modules/corepack" ] && cp -a "$node_prefix/lib/node_modules/corepack" "$ctx/usr/local/lib/node_modules/"
  # Node's headers: node-gyp builds native modules (better-sqlite3) against them instead of downloading them.
  cp -a "$node_prefix/include/node" "$ctx/usr/local/include/"
  cp "${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}" "$ctx/etc/ssl/certs/ca-certificates.crt"
  {
    echo "cafile=/etc/ssl/certs/ca-certificates.crt"
    echo "nodedir=/usr/local"
    echo "registry=$(npm config get registry)"
    for k in proxy https-proxy noproxy; do v=$(npm config get "$k" 2>/dev/null || true); [ -n "$v" ] && [ "$v" != null ] && echo "$k=$v"; done
  } > "$ctx/usr/local/etc/npmrc"
  cp "$CI_DIR/images/node.Dockerfile" "$ctx/Dockerfile"
  docker build -q --network host --build-arg BASE="$DEBIAN_TAG" -t "$NODE_TAG" "$ctx" >/dev/null
  rm -rf "$ctx"
fi

echo "TOLLWAY_CI_NODE_IMAGE=$NODE_TAG"
for svc in postgres redis nginx; do
  tag=tollway-ci/$svc:$(recipe "$CI_DIR/images/$svc"[.-]*)
  if ! have "$tag"; then
    say "image $tag from Debian's package"
    docker build -q --network host --build-arg BASE="$DEBIAN_TAG" -t "$tag" -f "$CI_DIR/images/$svc.Dockerfile" "$CI_DIR/images" >/dev/null
  fi
  echo "TOLLWAY_CI_${svc^^}_IMAGE=$tag"
done
