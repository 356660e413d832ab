#!/usr/bin/env bash
# Hostile inputs through the binary: each case is a catalogue folder made
# to hurt, checked with `strata platform check`; prints one markdown row per
# case with the exit status, the diagnostic codes, the wall time and the
# peak resident memory (`/usr/bin/time`). A run is killed after 60 s.
#
#   bench/hostile.sh
#
# Cases: a 100 MB file, one mapping of a million keys, a 10,000-deep
# template chain, a 64 KiB `!cel` expression, a symlink loop, a file that
# is not UTF-8, and a FIFO where a YAML file is expected. Inputs are
# written under target/hostile/.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=$root/target/hostile
cargo build --release --quiet -p strata-cli --manifest-path "$root/Cargo.toml"
strata=$root/target/release/strata
rm -rf "$work" && mkdir -p "$work"
cd "$work"

mkdir big keys chain expr loop utf8 fifo
{
  printf 'name: a\nimage: x\nenv:\n'
  yes '  K: vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv' |
    head -c 104857600 || true # `yes` ends on a closed pipe
} > big/a.yaml
{
  printf 'name: a\nimage: x\nenv:\n'
  seq 0 999999 | sed 's/.*/  K&: v/'
} > keys/a.yaml
{
  printf 'blueprints:\n  - name: b0\n    isTemplate: true\n    image: x\n'
  seq 1 9999 | awk '{ printf "  - name: b%d\n    template: b%d\n", $1, $1 - 1; if ($1 < 9999) print "    isTemplate: true" }'
} > chain/a.yaml
{
  printf "name: a\nimage: x\nhostname: !cel \""
  for _ in $(seq 1 10922); do printf "'a' + "; done
  printf "'a'\"\n"
} > expr/a.yaml
ln -s ../loop loop/self
printf 'name: a\nimage: \377\376\n' > utf8/a.yaml
cp -r "$root/examples/platform/catalogue/." fifo/
mkfifo fifo/blueprints/pipe.yaml

echo "| case | exit | codes | time | peak memory |"
echo "|---|---|---|---|---|"
for case in big keys chain expr loop utf8 fifo; do
  set +e
  /usr/bin/time -o time.txt -f "%e %M" timeout 60 "$strata" platform check "$case" \
    --diagnostics json > /dev/null 2> diagnostics.txt
  code=$?
  set -e
  read -r seconds kib < <(tail -1 time.txt)
  codes=$({ grep -o '"code":"[^"]*"' diagnostics.txt || true; } | cut -d'"' -f4 | sort | uniq -c |
    awk '{ printf "%s`%s` x%d", (NR > 1 ? ", " : ""), $2, $1 }')
  printf '| %s | %s | %s | %s s | %d MiB |\n' "$case" "$code" "${codes:--}" "$seconds" $((kib / 1024))
done
