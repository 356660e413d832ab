#!/usr/bin/env bash
# How cost grows with input: the main job of a dialect on inputs 1x, 10x,
# 100x and 1,000x a base size, the fastest wall time of three runs (process
# start to exit, nanosecond clock) and the peak resident memory
# (`/usr/bin/time`), one markdown table per dialect.
#
#   bench/scaling.sh [platform] [components] [features] [capabilities] [spec]
#   SCALES="1 10 100" bench/scaling.sh platform       (every dialect by default)
#
# - platform: `strata platform check` on examples/platform/catalogue with
#   every blueprint and template file copied N times, each copy's blueprint
#   names and `template:` references suffixed (`-k7`), so N copies hold N
#   times the blueprints and inheritance chains; `!include`d fragments are
#   shared.
# - components: `strata components render --env dev` on the generated
#   application (`generate_app`) of 6 x N components, 6 being the bundled
#   example's count (its own components cannot be copied without renaming
#   the objects inside their Jsonnet).
# - features: `strata features render --context bench` on the generated
#   Windsor project (`generate_project DIR N`) of 5 x N feature files, 5
#   being the bundled example's, with Terraform components and
#   kustomizations in the benchmark project's proportions.
# - capabilities: `strata capabilities render` of the generated package
#   (`generate_package DIR N`): 3 x N components, 8 x N bindings and N
#   definitions, N times the bundled example's counts.
# - spec: `strata spec render` of the generated blueprint
#   (`generate_blueprint --scale N`): 4 x N resources, the bundled
#   example's count, with variables, values, data sources and exports in
#   the benchmark blueprint's proportions.
#
# Inputs are written under target/bench-scaling/; a command that fails stops
# the script.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
scales=${SCALES:-1 10 100 1000}
dialects=${*:-platform components features capabilities spec}
work=$root/target/bench-scaling
cargo build --release --quiet -p strata-cli --manifest-path "$root/Cargo.toml"
for generator in strata-components:generate_app strata-features:generate_project \
  strata-capabilities:generate_package strata-spec:generate_blueprint; do
  cargo build --release --quiet -p "${generator%%:*}" --example "${generator#*:}" \
    --manifest-path "$root/Cargo.toml"
done
examples=$root/target/release/examples
strata=$root/target/release/strata

# The fastest of three runs as "seconds peak-KiB".
measure() {
  local best="" peak=0
  for _ in 1 2 3; do
    local start end seconds kib
    start=$(date +%s%N)
    /usr/bin/time -o "$work/time.txt" -f "%M" "$@" > /dev/null 2>&1
    end=$(date +%s%N)
    seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')
    read -r kib < "$work/time.txt"
    if [ -z "$best" ] || awk "BEGIN{exit !($seconds < $best)}"; then best=$seconds; fi
    [ "$kib" -gt "$peak" ] && peak=$kib
  done
  echo "$best $peak"
}

row() { # scale units unit-name bytes seconds kib
  awk -v s="$1" -v u="$2" -v n="$3" -v b="$4" -v t="$5" -v k="$6" 'BEGIN {
    size = b < 1e6 ? sprintf("%.0f kB", b / 1e3) : sprintf("%.1f MB", b / 1e6)
    printf "| %sx | %d %s, %s | %.3f s | %.0f MiB | %.1f µs |\n", s, u, n, size, t, k / 1024, t * 1e6 / u }'
}

# The heading and the header of a dialect's table: title, unit.
header() {
  printf '### %s\n\n| scale | input | time | peak memory | time per %s |\n|---|---|---|---|---|\n' "$1" "$2"
}

# One table row: scale, units, unit name, input bytes, then the command,
# which must succeed once before it is measured.
measured_row() {
  local n=$1 units=$2 name=$3 bytes=$4
  shift 4
  "$@" > /dev/null
  local seconds kib
  read -r seconds kib <<< "$(measure "$@")"
  row "$n" "$units" "$name" "$bytes" "$seconds" "$kib"
}

platform() {
  local names="data-science|go-services|base|python|go"
  header "platform: \`strata platform check\`" blueprint
  for n in $scales; do
    local dir=$work/platform-$n
    rm -rf "$dir" && mkdir -p "$dir"
    cp -r "$root/examples/platform/catalogue/shared" "$dir/"
    for folder in blueprints templates; do
      mkdir -p "$dir/$folder"
      for file in "$root/examples/platform/catalogue/$folder"/*.yaml; do
        local base
        base=$(basename "$file" .yaml)
        for ((k = 1; k <= n; k++)); do
          sed -E "s/^(\s*-?\s*name: )($names)\$/\1\2-k$k/; s/^(\s*template: )($names)\$/\1\2-k$k/" \
            "$file" > "$dir/$folder/$base-k$k.yaml"
        done
      done
    done
    local blueprints
    blueprints=$("$strata" platform list "$dir" -o json | grep -c '"name"')
    measured_row "$n" "$blueprints" blueprints "$(cat "$dir"/*/*.yaml | wc -c)" \
      "$strata" platform check "$dir"
  done
}

components() {
  header "components: \`strata components render --env dev\`" component
  for n in $scales; do
    local dir=$work/components-$n count=$((6 * n))
    rm -rf "$dir"
    "$examples/generate_app" "$dir" "$count" > /dev/null
    measured_row "$n" "$count" components "$(find "$dir" -type f -exec cat {} + | wc -c)" \
      "$strata" components render "$dir" --env dev
  done
}

features() {
  header "features: \`strata features render --context bench\`" feature
  for n in $scales; do
    local dir=$work/features-$n
    rm -rf "$dir"
    "$examples/generate_project" "$dir" "$n" > /dev/null
    measured_row "$n" $((5 * n)) features "$(find "$dir" -type f -exec cat {} + | wc -c)" \
      "$strata" features render "$dir" --context bench
  done
}

capabilities() {
  header "capabilities: \`strata capabilities render\` with a package" component
  for n in $scales; do
    local dir=$work/capabilities-$n
    rm -rf "$dir"
    "$examples/generate_package" "$dir" "$n" > /dev/null
    local flags
    read -ra flags < "$dir/custom-traits.args" || true # the file has no final newline
    measured_row "$n" $((3 * n)) components "$(cat "$dir"/*.yaml "$dir"/definitions/*.yaml | wc -c)" \
      "$strata" capabilities render "$dir" --profile "$dir/cluster.yaml" "${flags[@]}"
  done
}

spec() {
  header "spec: \`strata spec render\`" resource
  for n in $scales; do
    local file=$work/spec-$n.yaml
    "$examples/generate_blueprint" --scale "$n" "$file"
    measured_row "$n" $((4 * n)) resources "$(wc -c < "$file")" "$strata" spec render "$file"
  done
}

for dialect in $dialects; do
  "$dialect"
  echo
done
