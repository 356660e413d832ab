//! A reused VM frees every cycle an evaluation leaves, and nothing it still
//! needs. Two changes Strata carries in its copies of jrsonnet
//! (`vendor/README.md`) are checked here through the evaluator: the cycle
//! collector frees what it finds without a boxed handle per object, and a
//! VM forgets its imports' values between evaluations, so that an imported
//! object every evaluation extends (`self.base { ... }` below) does not
//! keep what each extension computed. The shapes are those that make
//! cycles: objects that see `self` and `super`, closures over their own
//! context, lazy fields, arrays of objects that refer to each other, and
//! an evaluation that fails half-way.

use std::path::Path;
use std::sync::Arc;

use strata_fs::MemoryFs;
use strata_jsonnet::{Setup, Vm, on_evaluation_stack};
use strata_syntax::{Limits, Span, Value};

const LIBRARY: &str = r"
{
  labels(name):: { app: name, tier: self.app + '-tier' },
  base:: { kind: 'Base', name: error 'name is required', full: self.kind + '/' + self.name },
  item(name, n):: self.base {
    kind: 'Item',
    name: name,
    full: super.full + '#' + n,
    peers: [self.name + '-' + i for i in std.range(0, n)],
    labels: $.labels(self.name),
  },
}
";

/// How many evaluations the VM is reused for.
const ROUNDS: usize = 40;

fn program(round: usize) -> String {
    format!(
        "local lib = import 'lib.libsonnet';
         local items = [lib.item('item-{round}-' + i, i) for i in std.range(0, 9)];
         local linked = [items[i] {{ next: items[(i + 1) % 10].name }} for i in std.range(0, 9)];
         {{ round: {round}, fulls: [o.full for o in linked], last: linked[9].next,
            labels: items[3].labels, peers: std.length(std.flattenArrays([o.peers for o in items])) }}"
    )
}

fn expected(round: usize) -> serde_json::Value {
    let fulls: Vec<String> = (0..10)
        .map(|i| format!("Item/item-{round}-{i}#{i}"))
        .collect();
    serde_json::json!({
        "round": round,
        "fulls": fulls,
        "last": format!("item-{round}-0"),
        "labels": { "app": format!("item-{round}-3"), "tier": format!("item-{round}-3-tier") },
        "peers": 55,
    })
}

/// The tree as JSON (this test's values are maps, lists, strings and
/// whole numbers).
fn json(value: &Value) -> serde_json::Value {
    match value {
        Value::Map(map) => map
            .iter()
            .map(|(key, entry)| (key.clone(), json(&entry.value.value)))
            .collect(),
        Value::Seq(items) => items.iter().map(|item| json(&item.value)).collect(),
        Value::String(text) => text.as_str().into(),
        Value::Int(number) => (*number).into(),
        other => format!("unexpected {other:?}").into(),
    }
}

#[test]
fn a_reused_vm_frees_every_cycle_and_keeps_what_it_caches() {
    on_evaluation_stack(|| {
        let mut files = MemoryFs::new().with("lib.libsonnet", LIBRARY).with(
            "failing.jsonnet",
            "local lib = import 'lib.libsonnet'; [lib.item('x', 3).full, lib.base.full]",
        );
        for round in 0..ROUNDS {
            files = files.with(&format!("round-{round}.jsonnet"), &program(round));
        }
        let setup = Setup {
            fs: Arc::new(files),
            lib_paths: Vec::new(),
            ext_vars: Vec::new(),
            limits: Limits::default(),
            data_sources: strata_jsonnet::data::DataSources::new(),
        };
        let vm = Vm::new(&setup);
        let mut kept: Option<usize> = None;
        for round in 0..ROUNDS {
            let file = format!("round-{round}.jsonnet");
            let value = vm.evaluate_file(Path::new(&file), &[]).unwrap();
            let node = strata_jsonnet::value::to_node(&value, Span::default(), 64).unwrap();
            drop(value);
            assert_eq!(json(&node.value), expected(round), "round {round}");
            // A failure half-way leaves cycles too.
            let failed = vm.evaluate_file(Path::new("failing.jsonnet"), &[]);
            let failure = failed.and_then(|value| {
                strata_jsonnet::value::to_node(&value, Span::default(), 64)
                    .map(|_| ())
                    .map_err(|error| strata_jsonnet::Failure::from_error(&error))
            });
            assert!(
                failure.is_err(),
                "round {round}: `name is required` expected"
            );

            let before = jrsonnet_gcmodule::count_thread_tracked();
            vm.collect_garbage();
            let after = jrsonnet_gcmodule::count_thread_tracked();
            assert!(after < before, "round {round}: nothing was freed");
            // The first round fills the VM's caches (the imported library);
            // every later one ends with exactly what the first kept.
            assert_eq!(*kept.get_or_insert(after), after, "round {round}");
        }
        drop(vm);
    });
}
