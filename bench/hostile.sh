#!/usr/bin/env bash
# Hostile inputs through the binary, for every dialect, measured: one
# markdown row per case with the exit status, the diagnostic codes, the wall
# time and the peak resident memory (`/usr/bin/time`), for the manual's
# reliability page (docs/src/reliability.md). The cases are defined once, in
# crates/strata-cli/tests/hostile.rs, whose ordinary test asserts each
# case's outcome in CI; this runs its ignored measuring test on a release
# build.
#
#   bench/hostile.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release -q -p strata-cli --test hostile -- --ignored --nocapture --test-threads 1 2>&1 |
  grep '^|'
