#!/usr/bin/env python3
"""Edit-to-diagnostics latency of `strata lsp`, against the cold batch check.

What it measures, through the real protocol (JSON-RPC over the standard
input and output of `strata lsp`, as an editor drives it):

1. **Latency.** The server is started as an editor starts it (`initialize`
   with `rootUri` and `workspaceFolders` set to the project; the project
   itself is found by the server from its marker: `qbec.yaml` for
   components, `.strata.yaml` for platform, `windsor.yaml` for features, a
   file holding `version: 2023-04-20` for spec). One file is opened
   (`textDocument/didOpen`) with a broken text, and its first
   `publishDiagnostics` is awaited (the warm-up: the server's first, cold,
   check of the whole project; a clean project publishes nothing for a
   clean file, hence the broken text), then a second passes so everything
   settles. Then `--edits` `textDocument/didChange` notifications (full
   text, as the server asks) alternate the saved text and a broken text,
   so every change publishes something different for the file: empty (or
   the saved text's own diagnostics) for the saved text, this edit's error
   for the broken one. Each latency is from just before the change is
   written to the moment the `publishDiagnostics` for that file whose
   content is this edit's has been read (publishes for other files, and
   stale ones, are skipped). The server's 50 ms debounce is included, as
   an editor sees it. ~300 ms pass after each publish before the next
   change, so no change cancels the check of the one before.
   The edits are those of crates/strata-lsp/benches/latency.rs:
   - components: `+ error 'broken by the benchmark N'` appended to a
     component (the middle one by name in components/), so its evaluation
     fails in every environment;
   - platform: an unknown key (`unknownBenchKeyN: 1`) appended to a
     blueprint file (the first by name below workspaces/python holding a
     top-level `name:`, as the Rust benchmark picks in its generated
     catalogue, else the first such file in the catalogue);
   - features: an unknown key appended to the first feature file by name
     in contexts/_template/features;
   - spec: an unknown key written into the resource in the middle of the
     blueprint (after the first line `    type: ...` past its middle), as
     an edit inside a resource is the common one;
   - capabilities: an unknown key appended to the package's `app.yaml`.
   N (the edit's number) makes every broken text, and its diagnostic,
   different from the one before.
2. **Cold batch check.** `strata <dialect> check TARGET` as a fresh
   process, `--runs` times (the same project, on disk, unchanged). The
   capabilities command checks a package against a cluster profile, which
   the server does not have: it is given the package folder's
   `cluster.yaml` and the `--custom-trait` flags in its
   `custom-traits.args`, as `generate_package` writes them, so the cold
   check does more than the server's.
3. **Their ratio**, latency median / cold median.

It prints each edit's latency, then median, min and max, the cold runs'
median, the ratio, and a one-line JSON summary last.

Run it with an existing binary (it builds nothing), from the repository:

    python3 bench/lsp_latency.py components DIR [--edits 12] [--strata PATH]
                                 [--file REL] [--runs N]
    python3 bench/lsp_latency.py platform DIR ...
    python3 bench/lsp_latency.py features DIR ...
    python3 bench/lsp_latency.py spec FILE-or-DIR ...
    python3 bench/lsp_latency.py capabilities DIR ...

`--strata` defaults to target/release/strata (from the current folder,
else from the repository holding this script). `--file` names the edited
file relative to DIR. Inputs:

    python3 /work/shared/bench/components_peer_bench.py gen /tmp/peer200 200
    python3 bench/lsp_latency.py components /tmp/peer200
    cargo run --release -p strata-capabilities --example generate_package -- /tmp/pkg
    python3 bench/lsp_latency.py capabilities /tmp/pkg

A 1,000-blueprint catalogue is what bench/scaling.sh writes for its scale
200 (examples/platform/catalogue's 5 blueprints copied 200 times, names
suffixed; copy `.strata.yaml` too, which the server needs to find the
catalogue).
"""

import argparse
import json
import os
import queue
import re
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
from collections import deque

MARKERS = {
    "components": "qbec.yaml",
    "platform": ".strata.yaml",
    "features": "windsor.yaml",
}


# --------------------------------------------------------------------------
# The edited file and its edits, per dialect.


def fail(message):
    sys.exit(f"lsp_latency: {message}")


def sorted_files(folder, suffix):
    if not os.path.isdir(folder):
        return []
    return sorted(
        os.path.join(folder, name)
        for name in os.listdir(folder)
        if name.endswith(suffix) and os.path.isfile(os.path.join(folder, name))
    )


def pick_components(root):
    files = sorted_files(os.path.join(root, "components"), ".jsonnet")
    if not files:
        fail(f"no components/*.jsonnet in {root}")
    return files[len(files) // 2]


def pick_platform(root):
    top_level_name = re.compile(r"^name:", re.M)
    # The Rust benchmark's choice in its generated catalogue.
    for path in sorted_files(os.path.join(root, "workspaces", "python"), ".yaml"):
        if "\nname:" in read(path):
            return path
    # Else the first blueprint file (a bare mapping) of the catalogue.
    candidates = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "shared"]
        for name in names:
            if name.endswith((".yaml", ".yml")) and name != ".strata.yaml":
                candidates.append(os.path.join(folder, name))
    for path in sorted(candidates, key=lambda p: os.path.relpath(p, root)):
        if top_level_name.search(read(path)):
            return path
    fail(f"no blueprint file with a top-level `name:` in {root}; name one with --file")


def pick_features(root):
    files = sorted_files(os.path.join(root, "contexts", "_template", "features"), ".yaml")
    if not files:
        fail(f"no contexts/_template/features/*.yaml in {root}")
    return files[0]


def pick_spec(root):
    preferred = os.path.join(root, "blueprint.yaml")
    if os.path.isfile(preferred):
        return preferred
    for path in sorted_files(root, ".yaml") + sorted_files(root, ".json"):
        if re.search(r"^version:\s*['\"]?2023-04-20", read(path), re.M):
            return path
    fail(f"no spec blueprint (`version: 2023-04-20`) in {root}; name one with --file")


def read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


class Dialect:
    """How one dialect's file is picked and broken, and its batch check."""

    def __init__(self, mode, target, file_arg):
        self.mode = mode
        target = os.path.abspath(target)
        if mode == "spec":
            if os.path.isfile(target):
                self.root, self.edited = os.path.dirname(target), target
            elif os.path.isdir(target):
                self.root = target
                self.edited = (
                    os.path.join(target, file_arg) if file_arg else pick_spec(target)
                )
            else:
                fail(f"{target}: no such file or folder")
            if file_arg and os.path.isfile(target):
                fail("--file goes with a spec folder, not a file")
            self.check = [mode, "check", self.edited]
        elif mode == "capabilities":
            if not os.path.isdir(target):
                fail(f"{target}: no such folder")
            self.root = target
            self.edited = os.path.join(target, file_arg or "app.yaml")
            profile = os.path.join(target, "cluster.yaml")
            if not os.path.isfile(profile):
                fail(f"{profile} is missing: the cold check needs a cluster profile")
            traits = os.path.join(target, "custom-traits.args")
            flags = read(traits).split() if os.path.isfile(traits) else []
            self.check = [mode, "check", target, "--profile", profile, *flags]
        else:
            if not os.path.isdir(target):
                fail(f"{target}: no such folder")
            self.root = target
            marker = os.path.join(target, MARKERS[mode])
            if not os.path.isfile(marker):
                fail(f"{marker} is missing: the server finds a {mode} project by it")
            if file_arg:
                self.edited = os.path.join(target, file_arg)
            else:
                self.edited = {
                    "components": pick_components,
                    "platform": pick_platform,
                    "features": pick_features,
                }[mode](target)
            self.check = [mode, "check", target]
        self.edited = os.path.abspath(self.edited)
        if not os.path.isfile(self.edited):
            fail(f"{self.edited}: no such file")
        self.saved = read(self.edited)
        self.language = "jsonnet" if mode == "components" else "yaml"
        if mode == "components" and not self.edited.endswith((".jsonnet", ".libsonnet")):
            fail("the components edit appends Jsonnet: pick a .jsonnet component")

    def marker(self, number):
        """The text only edit `number`'s diagnostic holds."""
        if self.mode == "components":
            return f"broken by the benchmark {number}"
        return f"unknownBenchKey{number}"

    def broken(self, number):
        """The saved text with edit `number`'s error appended (for spec,
        written into the middle resource)."""
        if self.mode == "components":
            return f"{self.saved}\n+ error '{self.marker(number)}'\n"
        if self.mode == "spec":
            found = re.compile(r"^    type: .*\n", re.M).search(self.saved, len(self.saved) // 2)
            if found:
                at = found.end()
                return f"{self.saved[:at]}    {self.marker(number)}: 1\n{self.saved[at:]}"
        return f"{self.saved}\n{self.marker(number)}: 1\n"

    def any_marker(self):
        return "broken by the benchmark" if self.mode == "components" else "unknownBenchKey"


# --------------------------------------------------------------------------
# The client.


def file_uri(path):
    return "file://" + urllib.parse.quote(path)


def uri_path(uri):
    parsed = urllib.parse.urlparse(uri)
    if parsed.scheme != "file":
        return None
    return os.path.normpath(urllib.parse.unquote(parsed.path))


class Client:
    """`strata lsp` as a child process, its messages read on a thread and
    time-stamped when read."""

    def __init__(self, command):
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
        )
        self.messages = queue.Queue()
        self.stderr = deque(maxlen=40)
        self.write_lock = threading.Lock()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    def _read(self):
        stream = self.process.stdout
        try:
            while True:
                length = None
                while True:
                    line = stream.readline()
                    if not line:
                        self.messages.put((time.perf_counter(), None))
                        return
                    line = line.rstrip(b"\r\n")
                    if not line:
                        break
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                if length is None:
                    raise ValueError("a message without Content-Length")
                body = b""
                while len(body) < length:
                    chunk = stream.read(length - len(body))
                    if not chunk:
                        self.messages.put((time.perf_counter(), None))
                        return
                    body += chunk
                message = json.loads(body)
                read_at = time.perf_counter()
                # The server asks nothing of this client, but a request
                # gets an answer rather than a wait.
                if "method" in message and "id" in message:
                    self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
                self.messages.put((read_at, message))
        except (OSError, ValueError) as error:
            self.stderr.append(f"(client) reading the server failed: {error}")
            self.messages.put((time.perf_counter(), None))

    def _drain_stderr(self):
        for line in self.process.stderr:
            self.stderr.append(line.decode("utf-8", "replace").rstrip())

    def send(self, message):
        body = json.dumps(message, ensure_ascii=False).encode("utf-8")
        with self.write_lock:
            self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.process.stdin.flush()

    def notify(self, method, params):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def request(self, method, params, timeout):
        self.next_id += 1
        ident = self.next_id
        message = {"jsonrpc": "2.0", "id": ident, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        while True:
            _, message = self.receive(timeout, f"the answer to `{method}`")
            if "method" not in message and message.get("id") == ident:
                if "error" in message:
                    fail(f"`{method}` failed: {message['error']}")
                return message.get("result")

    def receive(self, timeout, waiting_for):
        """The next message and when it was read; stops the run when the
        server goes away or says nothing for `timeout` seconds."""
        try:
            read_at, message = self.messages.get(timeout=timeout)
        except queue.Empty:
            self.abort(f"nothing within {timeout:g} s while waiting for {waiting_for}")
        if message is None:
            self.abort(f"the server ended while waiting for {waiting_for}")
        return read_at, message

    def abort(self, why):
        code = self.process.poll()
        if code is None:
            self.process.kill()
            self.process.wait()
        tail = "\n".join(self.stderr)
        fail(f"{why} (server status {self.process.returncode})" + (f"\n{tail}" if tail else ""))

    def drain(self):
        """Drops what was read and not looked at."""
        while True:
            try:
                self.messages.get_nowait()
            except queue.Empty:
                return

    def close(self, timeout):
        """`shutdown`, `exit`; the server's exit status."""
        self.request("shutdown", None, timeout)
        self.notify("exit", None)
        self.process.stdin.close()
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            fail("the server did not exit after `shutdown` and `exit`")


def full_change(sync, old_text, new_text):
    """The content change replacing `old_text` with `new_text`: the whole
    text under full synchronisation, else one range over all of it."""
    if sync == 1:
        return {"text": new_text}
    lines = re.split(r"\r\n|\r|\n", old_text)
    end = {"line": len(lines) - 1, "character": len(lines[-1].encode("utf-16-le")) // 2}
    return {"range": {"start": {"line": 0, "character": 0}, "end": end}, "text": new_text}


def wait_published(client, path, accept, timeout, what):
    """The time the first `publishDiagnostics` for `path` that `accept`s
    was read, with its diagnostics, and how many others for `path` were
    skipped (stale)."""
    skipped = 0
    while True:
        read_at, message = client.receive(timeout, what)
        if message.get("method") != "textDocument/publishDiagnostics":
            continue
        params = message.get("params") or {}
        if uri_path(params.get("uri", "")) != path:
            continue
        diagnostics = params.get("diagnostics") or []
        if accept(diagnostics):
            return read_at, diagnostics, skipped
        skipped += 1


def mentions(diagnostics, text):
    return any(text in json.dumps(diagnostic, ensure_ascii=False) for diagnostic in diagnostics)


# --------------------------------------------------------------------------
# The run.


def find_strata(given):
    if given:
        return os.path.abspath(given)
    here = os.path.abspath("target/release/strata")
    if os.path.isfile(here):
        return here
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.join(repo, "target", "release", "strata")


def ms(seconds):
    return round(seconds * 1000.0, 1)


def main():
    parser = argparse.ArgumentParser(
        description="Edit-to-diagnostics latency of `strata lsp` and the cold batch check."
    )
    parser.add_argument(
        "mode", choices=["components", "platform", "features", "spec", "capabilities"]
    )
    parser.add_argument("target", help="the project folder (spec: a blueprint file or its folder)")
    parser.add_argument("--edits", type=int, default=12, help="timed changes (default 12)")
    parser.add_argument("--strata", help="the binary (default target/release/strata)")
    parser.add_argument("--file", help="the edited file, relative to the project folder")
    parser.add_argument("--runs", type=int, default=10, help="cold batch runs (default 10)")
    parser.add_argument("--pause", type=float, default=0.3,
                        help="seconds between a publish and the next change (default 0.3)")
    parser.add_argument("--settle", type=float, default=1.0,
                        help="seconds after the warm-up publish (default 1)")
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="seconds to wait for any one answer (default 120)")
    args = parser.parse_args()
    if args.edits < 1 or args.runs < 1:
        fail("--edits and --runs must be at least 1")

    strata = find_strata(args.strata)
    if not os.access(strata, os.X_OK):
        fail(f"{strata}: no such executable (build it, or pass --strata)")
    dialect = Dialect(args.mode, args.target, args.file)
    path = os.path.normpath(dialect.edited)
    uri = file_uri(path)
    print(f"strata:  {strata}")
    print(f"project: {dialect.root} ({args.mode})")
    print(f"edited:  {os.path.relpath(path, dialect.root)}")

    # The session.
    client = Client([strata, "lsp"])
    root_uri = file_uri(dialect.root)
    result = client.request(
        "initialize",
        {
            "processId": os.getpid(),
            "clientInfo": {"name": "lsp_latency.py"},
            "rootUri": root_uri,
            "workspaceFolders": [{"uri": root_uri, "name": os.path.basename(dialect.root)}],
            "capabilities": {
                "textDocument": {
                    "synchronization": {"dynamicRegistration": False},
                    "publishDiagnostics": {"relatedInformation": True},
                },
                "workspace": {"workspaceFolders": True},
            },
        },
        args.timeout,
    )
    sync = (result or {}).get("capabilities", {}).get("textDocumentSync")
    if isinstance(sync, dict):
        sync = sync.get("change")
    if sync not in (1, 2):
        fail(f"the server takes no changes (textDocumentSync: {sync!r})")
    client.notify("initialized", {})

    # Warm-up: the broken text, so that a publish surely comes.
    text = dialect.broken(0)
    opened_at = time.perf_counter()
    client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": dialect.language, "version": 0, "text": text}},
    )
    read_at, diagnostics, _ = wait_published(
        client, path, lambda d: mentions(d, dialect.marker(0)), args.timeout,
        "the first diagnostics of the opened file (is it in a project?)",
    )
    first_check = read_at - opened_at
    print(f"warm-up: first check (didOpen, broken) {ms(first_check)} ms, "
          f"{len(diagnostics)} diagnostic(s): {diagnostics[0].get('message', '')[:100]!r}")
    time.sleep(args.settle)
    client.drain()

    # The timed edits: saved, broken, saved, ...
    latencies = []
    per_kind = {"saved": [], "broken": []}
    stale = 0
    saved_counts = set()
    for number in range(1, args.edits + 1):
        is_broken = number % 2 == 0
        new_text = dialect.broken(number) if is_broken else dialect.saved
        if is_broken:
            marker = dialect.marker(number)
            accept = lambda d, marker=marker: mentions(d, marker)
        else:
            accept = lambda d: not mentions(d, dialect.any_marker())
        change = full_change(sync, text, new_text)
        sent_at = time.perf_counter()
        client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": number}, "contentChanges": [change]},
        )
        read_at, diagnostics, skipped = wait_published(
            client, path, accept, args.timeout, f"the diagnostics of edit {number}"
        )
        text = new_text
        latency = read_at - sent_at
        stale += skipped
        latencies.append(latency)
        kind = "broken" if is_broken else "saved"
        per_kind[kind].append(latency)
        if not is_broken:
            saved_counts.add(len(diagnostics))
        print(f"  edit {number:3d} ({kind:6s}) {ms(latency):8.1f} ms  "
              f"{len(diagnostics)} diagnostic(s)" + (f", {skipped} stale skipped" if skipped else ""))
        time.sleep(args.pause)
        client.drain()
    status = client.close(args.timeout)

    # The cold batch check.
    command = [strata] + dialect.check
    colds, codes = [], []
    for _ in range(args.runs):
        started = time.perf_counter()
        code = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        colds.append(time.perf_counter() - started)
        codes.append(code)

    median = statistics.median(latencies)
    cold = statistics.median(colds)
    ratio = median / cold
    print()
    print(f"latency, {len(latencies)} edits: median {ms(median)} ms, "
          f"min {ms(min(latencies))} ms, max {ms(max(latencies))} ms")
    for kind, values in per_kind.items():
        if values:
            print(f"  {kind} text: median {ms(statistics.median(values))} ms ({len(values)} edits)")
    if saved_counts - {0}:
        print(f"  note: the saved text publishes {sorted(saved_counts)} diagnostic(s) of its own")
    print(f"cold `{' '.join(['strata'] + dialect.check)}`, {args.runs} runs: "
          f"median {ms(cold)} ms, min {ms(min(colds))} ms, max {ms(max(colds))} ms"
          + ("" if set(codes) == {0} else f" (exit codes {sorted(set(codes))}: the project has errors)"))
    print(f"ratio latency median / cold median: {ratio:.2f}")
    if status != 0:
        print(f"note: the server exited with status {status}")
    summary = {
        "mode": args.mode,
        "project": dialect.root,
        "file": os.path.relpath(path, dialect.root),
        "edits": len(latencies),
        "first_check_ms": ms(first_check),
        "latency_ms": {
            "median": ms(median),
            "min": ms(min(latencies)),
            "max": ms(max(latencies)),
            "saved_median": ms(statistics.median(per_kind["saved"])) if per_kind["saved"] else None,
            "broken_median": ms(statistics.median(per_kind["broken"])) if per_kind["broken"] else None,
            "all": [ms(value) for value in latencies],
        },
        "stale_publishes_skipped": stale,
        "cold_ms": {
            "median": ms(cold),
            "min": ms(min(colds)),
            "max": ms(max(colds)),
            "runs": args.runs,
            "exit_codes": sorted(set(codes)),
        },
        "ratio": round(ratio, 3),
        "server_exit": status,
    }
    print(json.dumps(summary, separators=(",", ":")))


if __name__ == "__main__":
    main()
