#!/usr/bin/env bash
# Two `strata` binaries, alternated on the same commands: the best and
# median wall time of ROUNDS alternating runs, and the larger peak resident
# set, as a Markdown table (the manual's "Before and after" sections).
#
#   SCALES="100" bench/scaling.sh          # the 100x inputs, in target/bench-scaling
#   cargo run --release -p strata-spec --example generate_blueprint -- /tmp/big.yaml /tmp/big-state.json
#   bench/ab.sh BEFORE AFTER               # ROUNDS=10 by default
set -euo pipefail

before=$1 after=$2 rounds=${ROUNDS:-10}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$root/target/bench-scaling
blueprint=${BLUEPRINT:-/tmp/big.yaml} state=${STATE:-/tmp/big-state.json}
read -ra capability_flags < "$work/capabilities-100/custom-traits.args" || true
commands=(
  "platform check $work/platform-100"
  "components render $work/components-100 --env dev"
  "features render $work/features-100 --context bench"
  "capabilities render $work/capabilities-100 --profile $work/capabilities-100/cluster.yaml ${capability_flags[*]}"
  "spec render $blueprint"
  "spec plan $blueprint --state $state"
)
times=$(mktemp -d)
trap 'rm -rf "$times"' EXIT

summary() { # FILE of "seconds KiB" lines
  sort -n "$1" | awk '{ t[NR] = $1; if ($2 > peak) peak = $2 }
    END { printf "%.3f s, %.3f s, %.0f MiB", t[1], t[int((NR + 1) / 2)], peak / 1024 }'
}

echo "| command | before (best, median, peak) | after (best, median, peak) |"
echo "|---|---|---|"
for command in "${commands[@]}"; do
  : > "$times/before"
  : > "$times/after"
  for _ in $(seq "$rounds"); do
    # shellcheck disable=SC2086 # the command is words
    /usr/bin/time -a -o "$times/before" -f "%e %M" "$before" $command > /dev/null 2>&1 || true
    # shellcheck disable=SC2086
    /usr/bin/time -a -o "$times/after" -f "%e %M" "$after" $command > /dev/null 2>&1 || true
  done
  echo "| \`strata ${command%% /*}\` | $(summary "$times/before") | $(summary "$times/after") |"
done
