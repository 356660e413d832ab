#!/usr/bin/env bash
# Strata's `components render` against go-jsonnet (and C++ jsonnet) on an
# application that Strata's own generators did not write: the shared peer
# script's qbec layout (N components, each ten Deployments, ten Services and
# a ConfigMap through a `libPaths` library with `std.md5`, `std.join` and
# comprehensions), evaluated by that script's `peer` mode (a process pool,
# objects extracted, YAML written with libyaml).
#
#   bench/components/peer.sh [PEER_SCRIPT] [N...]
#
# PEER_SCRIPT defaults to ../shared/bench/components_peer_bench.py (beside the
# checkout); N defaults to "200 1000". For each N: wall time over several runs
# (hyperfine: Strata at its default concurrency and with one worker, the Go
# peer, and the C++ peer for N <= 200, which takes minutes beyond), then one
# run each under `/usr/bin/time` for peak resident memory (for the peer, the
# largest single process, as `time` reports a process tree). A generated
# `qbec.yaml` without a `server:` line gets one, which qbec and Strata
# require of every environment and the peer ignores.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
peer=${1:-$root/../shared/bench/components_peer_bench.py}
shift || true
sizes=${*:-200 1000}

command -v hyperfine >/dev/null || apt-get install -y hyperfine >/dev/null
python3 -c 'import _gojsonnet, _jsonnet, yaml' 2>/dev/null ||
  python3 -m pip install --quiet gojsonnet jsonnet pyyaml
cargo build --release --quiet -p strata-cli --manifest-path "$root/Cargo.toml"
strata=$root/target/release/strata

for n in $sizes; do
  app=$root/target/bench-peer/app-$n
  rm -rf "$app"
  python3 "$peer" gen "$app" "$n"
  grep -q '^      server:' "$app/qbec.yaml" ||
    sed -i 's|^      defaultNamespace: bench-dev$|&\n      server: https://bench.example.com|' "$app/qbec.yaml"
  runs=5
  [ "$n" -gt 500 ] && runs=3
  commands=(
    "$strata components render $app --env dev"
    "$strata components render $app --env dev --eval-concurrency 1"
    "python3 $peer peer $app go"
  )
  [ "$n" -le 200 ] && commands+=("python3 $peer peer $app cpp")
  echo "== $n components"
  hyperfine --warmup 1 --runs "$runs" --output null "${commands[@]}"
  for command in "${commands[@]}"; do
    /usr/bin/time -f "peak %M KiB, %e s: $command" $command > /dev/null
  done
  "$strata" components render "$app" --env dev | grep -c '^kind:' |
    sed 's/^/objects: /'
done
