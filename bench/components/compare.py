#!/usr/bin/env python3
"""Strata's `components render` against the reference Jsonnet implementations.

What it measures: the end-to-end time of rendering one generated qbec
application (`crates/strata-components/examples/support/app.rs`, 200
components by default: 180 Jsonnet, 10 JSON, 10 YAML) in the `dev`
environment into a YAML stream on disk, by

- `target/release/strata components render APP --env dev > FILE` (its
  default `--eval-concurrency 5`, and also with 1 for reference), and
- a Python pipeline doing the same work with the PyPI packages `jsonnet`
  (the C++ implementation, module `_jsonnet`) and `gojsonnet` (the Go one,
  module `_gojsonnet`): evaluate every Jsonnet component with qbec's
  external variables (`qbec.io/env`, `qbec.io/envProperties` as code:
  `baseProperties` with the environment's `properties` merged over them key
  by key, which for the generated application, free of `null` properties,
  is a JSON merge patch; `qbec.io/tag` = '', `qbec.io/defaultNs`,
  `qbec.io/cleanMode` = 'off', each declared variable's default as code) and
  `jpathdir` = the `libPaths`; parse the JSON and YAML components (PyYAML
  `safe_load_all`); walk each output for objects (an object, a list, a map
  or an array of outputs, `null`); add qbec's labels and annotation; sort by
  (component, namespace, kind, name); write the stream with PyYAML
  `safe_dump_all`.

Each Python run is a fresh process (`compare.py --run IMPL ...`), like each
`strata` run, so interpreter and module start-up count as Strata's process
start-up does. The Python pipeline evaluates on a process pool of 5 workers
(Strata's default concurrency) when the machine has more than one CPU, else
serially (`--mode auto`, the default; `--mode both` times both), and the
output says which. Every command runs once untimed, then `--repeat` times
in rounds (each command once a round), so that other load on the machine
falls on all alike; the table gives the median (and the fastest) of each and
the ratio to the median of `strata` at its default concurrency.

Afterwards every output is read back (PyYAML) and compared with Strata's:
the same number of objects and the same (kind, namespace, name) set, else a
loud MISMATCH and exit status 1; objects whose content differs are listed,
loudly, and fail the run too.

Run from anywhere (it sets itself up: a virtualenv under
`target/bench-venv` with `jsonnet gojsonnet pyyaml`, re-running itself
inside it, and `cargo build --release` of `strata` and the generator):

    python3 bench/components/compare.py [--components 200] [--repeat 5]

Options: `--env prod` (another environment), `--mode auto|pool|serial|both`,
`--workers 5`, `--libyaml` (PyYAML's C loader and dumper instead of the
pure-Python `safe_*` ones), `--keep` (keep the outputs under
`target/bench-components/`), `--no-build` (use the binaries already in
`target/release`).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET = ROOT / "target"
VENV = TARGET / "bench-venv"
WORK = TARGET / "bench-components"
STRATA = TARGET / "release" / "strata"
GENERATOR = TARGET / "release" / "examples" / "generate_app"
PACKAGES = ["jsonnet", "gojsonnet", "pyyaml"]
DEFAULT_ENVIRONMENT = "dev"

# name on the command line -> (module, shown as)
IMPLEMENTATIONS = {
    "jsonnet": ("_jsonnet", "jsonnet (C++)"),
    "gojsonnet": ("_gojsonnet", "go-jsonnet"),
}


# --- set-up -----------------------------------------------------------------


def in_venv() -> bool:
    return Path(sys.prefix).resolve() == VENV.resolve()


def ensure_venv() -> None:
    """Creates the virtualenv if missing, installs the packages, re-runs inside."""
    if in_venv():
        return
    python = VENV / "bin" / "python"
    if not python.exists():
        print(f"creating {VENV.relative_to(ROOT)}", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    probe = subprocess.run(
        [str(python), "-c", "import _jsonnet, _gojsonnet, yaml"], capture_output=True
    )
    if probe.returncode != 0:
        print(f"installing {' '.join(PACKAGES)}", file=sys.stderr)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", *PACKAGES], check=True
        )
    os.execv(str(python), [str(python), str(Path(__file__).resolve()), *sys.argv[1:]])


def build() -> None:
    for args in (
        ["-p", "strata-cli", "--bin", "strata"],
        ["-p", "strata-components", "--example", "generate_app"],
    ):
        subprocess.run(["cargo", "build", "--release", "--quiet", *args], cwd=ROOT, check=True)


def generate(components: int) -> Path:
    app = WORK / f"app-{components}"
    if app.exists():
        shutil.rmtree(app)
    done = subprocess.run(
        [str(GENERATOR), str(app), str(components)], check=True, capture_output=True, text=True
    )
    print(done.stdout.strip())
    return app


# --- the Python pipeline (runs in a child process: `--run IMPL`) ------------


def merge_properties(base, overlay):
    """The environment's properties over `baseProperties`, as Strata merges
    them (`AppSpec::properties`): objects key by key, anything else, `null`
    included, replaces. For the generated application, which has no `null`
    property, this is the same as a JSON merge patch (RFC 7386)."""
    if not (isinstance(base, dict) and isinstance(overlay, dict)):
        return overlay
    merged = dict(base)
    for key, value in overlay.items():
        merged[key] = merge_properties(merged[key], value) if key in merged else value
    return merged


def find_components(app: Path, spec: dict) -> dict[str, tuple[str, list[Path]]]:
    """name -> (kind, files), qbec's way (see `strata_components::load`)."""
    import glob

    found: dict[str, tuple[str, list[Path]]] = {}
    extensions = (".jsonnet", ".json", ".yaml")
    pattern = spec.get("componentsDir", "components")
    for folder in sorted(Path(p) for p in glob.glob(str(app / pattern))):
        if not folder.is_dir():
            continue
        for entry in sorted(folder.iterdir()):
            if entry.name.startswith("."):
                continue
            if entry.is_file() and entry.suffix in extensions:
                kind = "jsonnet" if entry.suffix == ".jsonnet" else "documents"
                found[entry.stem] = (kind, [entry])
            elif entry.is_dir():
                if (entry / "index.jsonnet").is_file():
                    found[entry.name] = ("jsonnet", [entry / "index.jsonnet"])
                elif (entry / "index.yaml").is_file():
                    files = sorted(
                        f
                        for f in entry.iterdir()
                        if f.is_file() and f.suffix in (".json", ".yaml") and not f.name.startswith(".")
                    )
                    found[entry.name] = ("folder", files)
    return found


def includes(spec: dict, env: dict, name: str) -> bool:
    return (name not in spec.get("excludes", []) or name in env.get("includes", [])) and (
        name not in env.get("excludes", [])
    )


def object_name(obj: dict) -> str:
    metadata = obj.get("metadata") or {}
    for key in ("name", "generateName"):
        value = metadata.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def is_object(value: dict) -> bool:
    return all(isinstance(value.get(key), str) and value[key] for key in ("kind", "apiVersion"))


def extract(output, component: str, path: str = "$") -> list[dict]:
    """The objects in an output (see `strata_components::objects`): an object
    (`kind` and `apiVersion` non-empty strings), a list (such a mapping with
    an `items` array, or of kind `List`), a map or array of outputs, null."""
    if output is None:
        return []
    if isinstance(output, list):
        found = []
        for index, item in enumerate(output):
            found += extract(item, component, f"{path}[{index}]")
        return found
    if isinstance(output, dict):
        if is_object(output):
            items = output.get("items")
            if isinstance(items, list) or output["kind"] == "List":
                if not isinstance(items, list):
                    raise ValueError(f"{component}: the List at {path} has no items array")
                return extract(items, component, f"{path}.items")
            if not object_name(output):
                raise ValueError(f"{component}: the object at {path} has no name")
            return [output]
        found = []
        for key, value in output.items():
            found += extract(value, component, f"{path}.{key}")
        return found
    raise ValueError(f"{component}: a {type(output).__name__} at {path}")


def label(obj: dict, component: str, settings: dict) -> dict:
    metadata = obj.get("metadata")
    if metadata is None:
        metadata = obj["metadata"] = {}
    labels = metadata.get("labels")
    if labels is None:
        labels = metadata["labels"] = {}
    annotations = metadata.get("annotations")
    if annotations is None:
        annotations = metadata["annotations"] = {}
    labels["qbec.io/application"] = settings["app_name"]
    labels["qbec.io/environment"] = settings["environment"]
    if settings["add_component_label"]:
        labels["qbec.io/component"] = component
    annotations["qbec.io/component"] = component
    return obj


def identity(obj: dict) -> tuple[str, str, str]:
    metadata = obj.get("metadata") or {}
    return (metadata.get("namespace") or "", obj.get("kind") or "", object_name(obj))


# Set in each process that evaluates: the module and the evaluation settings.
_STATE: dict = {}


def _init(module_name: str, settings: dict) -> None:
    import importlib

    _STATE["module"] = importlib.import_module(module_name)
    _STATE.update(settings)


def _evaluate(task: tuple[str, str]) -> tuple[str, list[dict]]:
    """One Jsonnet component: evaluated, walked, labelled."""
    name, path = task
    text = _STATE["module"].evaluate_file(
        path,
        jpathdir=_STATE["jpathdir"],
        ext_vars=_STATE["ext_vars"],
        ext_codes=_STATE["ext_codes"],
    )
    objects = extract(json.loads(text), name)
    return name, [label(o, name, _STATE) for o in objects]


def run_pipeline(
    impl: str, app: Path, environment: str, out: Path, mode: str, workers: int, libyaml: bool
) -> dict:
    import yaml

    loader = yaml.CSafeLoader if libyaml else yaml.SafeLoader
    dumper = yaml.CSafeDumper if libyaml else yaml.SafeDumper
    started = time.perf_counter()
    with open(app / "qbec.yaml", encoding="utf-8") as f:
        qbec = yaml.load(f, Loader=loader)
    spec = qbec["spec"]
    env = spec["environments"][environment]
    properties = merge_properties(spec.get("baseProperties", {}), env.get("properties", {}))
    ext_vars = {
        "qbec.io/env": environment,
        "qbec.io/tag": "",
        "qbec.io/defaultNs": env.get("defaultNamespace", "default"),
        "qbec.io/cleanMode": "off",
    }
    ext_codes = {"qbec.io/envProperties": json.dumps(properties)}
    for var in spec.get("vars", {}).get("external", []):
        ext_codes[var["name"]] = json.dumps(var["default"])
    settings = {
        "environment": environment,
        "jpathdir": [str(app / p) for p in spec.get("libPaths", [])],
        "ext_vars": ext_vars,
        "ext_codes": ext_codes,
        "app_name": qbec["metadata"]["name"],
        "add_component_label": bool(spec.get("addComponentLabel", False)),
    }
    components = {
        name: found
        for name, found in find_components(app, spec).items()
        if includes(spec, env, name)
    }
    results: dict[str, list[dict]] = {}
    tasks = []
    for name, (kind, files) in components.items():
        if kind == "jsonnet":
            tasks.append((name, str(files[0])))
            continue
        values = []
        for file in files:
            with open(file, encoding="utf-8") as f:
                if file.suffix == ".json":
                    values.append(json.load(f))
                else:
                    values.append(list(yaml.load_all(f, Loader=loader)))
        output = values if kind == "folder" else values[0]
        results[name] = [label(o, name, settings) for o in extract(output, name)]
    loaded = time.perf_counter()

    module = IMPLEMENTATIONS[impl][0]
    if mode == "pool":
        import multiprocessing

        # Fork, and import the module only in the workers: the Go runtime
        # does not survive a fork.
        context = multiprocessing.get_context("fork")
        with context.Pool(workers, initializer=_init, initargs=(module, settings)) as pool:
            for name, objects in pool.imap_unordered(_evaluate, tasks, chunksize=2):
                results[name] = objects
    else:
        _init(module, settings)
        for task in tasks:
            name, objects = _evaluate(task)
            results[name] = objects
    evaluated = time.perf_counter()

    objects = [(name, o) for name in sorted(results) for o in results[name]]
    objects.sort(key=lambda item: (item[0], *identity(item[1])))
    with open(out, "w", encoding="utf-8") as f:
        yaml.dump_all(
            [o for _, o in objects],
            f,
            Dumper=dumper,
            explicit_start=True,
            default_flow_style=False,
            sort_keys=True,
            allow_unicode=True,
        )
    written = time.perf_counter()
    return {
        "objects": len(objects),
        "load": loaded - started,
        "eval": evaluated - loaded,
        "write": written - evaluated,
    }


# --- timing and checking (the parent) ---------------------------------------


def timed(command: list[str], stdout=None) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(command, stdout=stdout or subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(command)}\n{done.stderr}")
    return elapsed, done.stdout if stdout is None else ""


def python_command(impl: str, app: Path, out: Path, mode: str, args) -> list[str]:
    command = [sys.executable, str(Path(__file__).resolve()), "--run", impl, "--mode", mode]
    command += ["--env", args.env]
    command += ["--workers", str(args.workers), "--app", str(app), "--out", str(out)]
    return command + (["--libyaml"] if args.libyaml else [])


def strata_run(command: list[str], out: Path) -> float:
    with open(out, "w", encoding="utf-8") as f:
        return timed(command, stdout=f)[0]


def read_stream(path: Path) -> list[dict]:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(path, encoding="utf-8") as f:
        return [d for d in yaml.load_all(f, Loader=loader) if d is not None]


def first_difference(a, b, path: str = "$") -> str | None:
    if type(a) is not type(b) and not (isinstance(a, (int, float)) and isinstance(b, (int, float))):
        return f"{path}: {a!r} vs {b!r}"
    if isinstance(a, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if key not in a or key not in b:
                return f"{path}.{key}: only in {'the second' if key not in a else 'the first'}"
            found = first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items vs {len(b)}"
        for index, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{path}[{index}]")
            if found:
                return found
        return None
    return None if a == b else f"{path}: {a!r} vs {b!r}"


def compare(outputs: dict[str, Path], reference: str) -> bool:
    """Same count, same (kind, namespace, name) set; lists content differences."""
    print("\nchecking the outputs:")
    streams = {name: read_stream(path) for name, path in outputs.items()}
    keyed = {}
    for name, documents in streams.items():
        keys = [
            (d.get("kind"), (d.get("metadata") or {}).get("namespace") or "", object_name(d))
            for d in documents
        ]
        keyed[name] = dict(zip(keys, documents))
        print(f"  {name:<45} {len(documents)} objects, {len(set(keys))} distinct (kind, namespace, name)")
    ok = True
    base = streams[reference]
    base_keys = collections.Counter(keyed[reference])
    for name, documents in streams.items():
        if name == reference:
            continue
        keys = collections.Counter(keyed[name])
        if len(documents) != len(base) or keys != base_keys:
            ok = False
            print(f"\n!!!!! MISMATCH: {name} and {reference} do not describe the same objects !!!!!")
            print(f"  counts: {len(documents)} vs {len(base)}")
            for missing in sorted(set(base_keys) - set(keys), key=str)[:10]:
                print(f"  only in {reference}: {missing}")
            for extra in sorted(set(keys) - set(base_keys), key=str)[:10]:
                print(f"  only in {name}: {extra}")
        differing = []
        for key, document in keyed[name].items():
            other = keyed[reference].get(key)
            if other is not None and other != document:
                differing.append((key, first_difference(other, document)))
        order = [k for k in keyed[name]] == [k for k in keyed[reference]]
        if differing:
            ok = False
            print(f"\n!!!!! CONTENT MISMATCH: {len(differing)} objects of {name} differ from {reference}'s !!!!!")
            for key, where in differing[:8]:
                print(f"  {key}: {where} ({reference} vs {name})")
        else:
            print(f"  {name}: same objects and content as {reference}" + ("" if order else " (in another order)"))
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--components", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--env", default=DEFAULT_ENVIRONMENT, help="the environment (default dev)")
    parser.add_argument("--mode", choices=["auto", "pool", "serial", "both"], default="auto")
    parser.add_argument("--workers", type=int, default=5)
    parser.add_argument("--libyaml", action="store_true")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--no-build", action="store_true", help="use the binaries already built")
    parser.add_argument("--run", choices=list(IMPLEMENTATIONS), help=argparse.SUPPRESS)
    parser.add_argument("--app", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.run:
        phases = run_pipeline(
            args.run, args.app, args.env, args.out, args.mode, args.workers, args.libyaml
        )
        print(json.dumps(phases))
        return 0

    ensure_venv()
    if not args.no_build:
        build()
    app = generate(args.components)
    outputs = WORK / "out"
    outputs.mkdir(parents=True, exist_ok=True)
    print(f"{os.cpu_count()} CPUs; {args.repeat} timed runs each, in rounds, after one untimed; "
          f"PyYAML {'C (libyaml)' if args.libyaml else 'pure-Python safe_*'} loader and dumper")

    # What is timed: (shown, mode, output, command, is Python).
    entries = []
    for concurrency in (5, 1):
        command = [str(STRATA), "components", "render", str(app), "--env", args.env]
        command += ["--eval-concurrency", str(concurrency)]
        out = outputs / f"strata-{concurrency}.yaml"
        entries.append(("strata", f"--eval-concurrency {concurrency}", out, command, False))
    modes = {"both": ["serial", "pool"], "auto": ["pool" if (os.cpu_count() or 1) > 1 else "serial"]}
    for impl, (module, shown) in IMPLEMENTATIONS.items():
        for mode in modes.get(args.mode, [args.mode]):
            described = f"pool of {args.workers} processes" if mode == "pool" else "serial"
            out = outputs / f"{impl}-{mode}.yaml"
            command = python_command(impl, app, out, mode, args)
            entries.append((shown, described, out, command, True))
            why = " (auto: more than one CPU)" if args.mode == "auto" and mode == "pool" else ""
            print(f"{shown} ({module}): {described}{why}")

    def run(entry) -> tuple[float, dict | None]:
        _, _, out, command, python = entry
        if not python:
            return strata_run(command, out), None
        elapsed, stdout = timed(command)
        return elapsed, json.loads(stdout.strip().splitlines()[-1])

    # One untimed run each, then the timed ones in rounds, so that whatever
    # else the machine does falls on every implementation alike.
    for entry in entries:
        run(entry)
    load_before = os.getloadavg()[0]
    times = [[] for _ in entries]
    phases = [[] for _ in entries]
    for _ in range(args.repeat):
        for index, entry in enumerate(entries):
            elapsed, split = run(entry)
            times[index].append(elapsed)
            if split:
                phases[index].append(split)
    load_after = os.getloadavg()[0]
    rows = [(e[0], e[1], t, p) for e, t, p in zip(entries, times, phases)]
    paths = {f"{shown} {described}": out for shown, described, out, _, _ in entries}

    reference = statistics.median(rows[0][2])
    print(f"\n{args.components} components, `{args.env}`, end to end (process start to YAML file written):\n")
    print(f"| implementation | mode | median s | fastest s | ratio to strata | Python phases (median s): load / eval / write |")
    print("|---|---|---|---|---|---|")
    for shown, mode, times, phases in rows:
        median = statistics.median(times)
        split = "—"
        if phases:
            split = " / ".join(f"{statistics.median(p[k] for p in phases):.3f}" for k in ("load", "eval", "write"))
        print(f"| {shown} | {mode} | {median:.3f} | {min(times):.3f} | {median / reference:.2f}× | {split} |")

    print(f"\n1-minute load average: {load_before:.2f} before the timed runs, {load_after:.2f} after"
          " (the runs themselves add up to the number of workers)")
    ok = compare(paths, next(iter(paths)))
    if not args.keep:
        shutil.rmtree(outputs, ignore_errors=True)
    else:
        print(f"\noutputs kept in {outputs.relative_to(ROOT)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
