#!/usr/bin/env python3
"""The spec ratios of the performance chapter: `check`, `render` and `plan`
of a blueprint against a bare parse of the same bytes, in process
(criterion's `cargo bench -p strata-spec --bench check`), on a blueprint
written by `bench/spec_blueprint.py` (not the benchmark's own generator).

    python3 bench/spec_ratios.py [--resources 5000] [--runs 3] [--time 6]

Each run is one `cargo bench` sitting; the ratios are of criterion's
medians, printed per run.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GROUPS = ["parse", "check", "render", "plan"]


def median_ms(group, ident):
    estimates = ROOT / "target" / "criterion" / group / ident / "new" / "estimates.json"
    with open(estimates, encoding="utf-8") as file:
        return json.load(file)["median"]["point_estimate"] / 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resources", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--time", type=int, default=6, help="criterion's measurement seconds")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        blueprint = Path(folder) / "blueprint.yaml"
        subprocess.run(
            [sys.executable, str(ROOT / "bench" / "spec_blueprint.py"), str(args.resources), str(blueprint)],
            check=True,
        )
        ident = f"blueprint-{blueprint.stat().st_size}B"
        env = dict(os.environ, STRATA_SPEC_BENCH_INPUT=str(blueprint))
        print(f"{args.resources} resources, {blueprint.stat().st_size} bytes")
        for run in range(1, args.runs + 1):
            subprocess.run(
                ["cargo", "bench", "-q", "-p", "strata-spec", "--bench", "check", "--",
                 "--warm-up-time", "1", "--measurement-time", str(args.time), "--noplot"],
                cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL,
            )
            times = {group: median_ms(group, ident) for group in GROUPS}
            parse = times["parse"]
            print(f"run {run}: " + ", ".join(
                f"{group} {times[group]:.1f} ms ({times[group] / parse:.2f}x)" for group in GROUPS
            ), flush=True)


if __name__ == "__main__":
    main()
