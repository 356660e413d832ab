#!/usr/bin/env python3
"""Regenerates the standard-library parity expectations with go-jsonnet.

  bench/components/stdlib_parity.py

Evaluates crates/strata-jsonnet/tests/stdlib-parity.jsonnet with go-jsonnet
0.22 (PyPI `gojsonnet==0.22.0`, installed into target/bench-venv on first
use, as compare.py does) and writes each case's string to
crates/strata-jsonnet/tests/stdlib-parity.expected.json, which `cargo test
-p strata-jsonnet --test stdlib_parity` compares against without a network.
"""
import json, os, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CASES = os.path.join(ROOT, "crates/strata-jsonnet/tests/stdlib-parity.jsonnet")
EXPECTED = os.path.join(ROOT, "crates/strata-jsonnet/tests/stdlib-parity.expected.json")
VENV = os.path.join(ROOT, "target/bench-venv")


def ensure_gojsonnet():
    try:
        import _gojsonnet  # noqa: F401
        return
    except ImportError:
        pass
    python = os.path.join(VENV, "bin", "python")
    if sys.executable != python:
        if not os.path.exists(python):
            subprocess.check_call([sys.executable, "-m", "venv", VENV])
        subprocess.check_call([python, "-m", "pip", "install", "-q", "gojsonnet==0.22.0"])
        os.execv(python, [python] + sys.argv)


def main():
    ensure_gojsonnet()
    import _gojsonnet
    output = json.loads(_gojsonnet.evaluate_file(CASES))
    with open(EXPECTED, "w") as out:
        json.dump(output, out, indent=2, sort_keys=True, ensure_ascii=False)
        out.write("\n")
    print(f"{len(output)} cases written to {os.path.relpath(EXPECTED, ROOT)}")


if __name__ == "__main__":
    main()
