//! Navigation and completion in a project of each dialect: hover,
//! definitions, references, symbols and completion items.

use serde_json::{Value, json};

use super::{Client, Opened, example, labels, markdown, open_example, places, position_of, uri_of};

/// In a platform catalogue: `template:` leads to the parent and back, a
/// value's hover says where the composed value came from and what it
/// overrides, an `!include` leads to its file, and the outline lists a
/// file's blueprints.
#[test]
fn navigation_in_a_platform_catalogue() {
    let (_scratch, catalogue) = example("platform/catalogue");
    let child = uri_of(&catalogue.join("blueprints/go-services.yaml"));
    let languages = uri_of(&catalogue.join("templates/languages.yaml"));
    let base = uri_of(&catalogue.join("templates/base.yaml"));
    let text = std::fs::read_to_string(catalogue.join("blueprints/go-services.yaml"))
        .expect("the blueprint");
    let mut client = Client::start();
    client.initialize(None, None);
    client.open(&child, "yaml", &text);

    // `template: go` (line 3) leads to `name: go` in languages.yaml (line 24).
    let definition = client.at("textDocument/definition", &child, 2, 11, Value::Null);
    assert_eq!(definition["uri"], languages, "{definition}");
    assert_eq!(
        definition["range"],
        json!({"start": {"line": 23, "character": 10}, "end": {"line": 23, "character": 12}})
    );
    let references = client.at(
        "textDocument/references",
        &languages,
        23,
        11,
        json!({"context": {"includeDeclaration": true}}),
    );
    assert_eq!(
        places(&references, &catalogue),
        [
            "blueprints/go-services.yaml:2:10",
            "templates/languages.yaml:23:10"
        ]
    );
    let hover = client.at("textDocument/hover", &child, 2, 11, Value::Null);
    assert_eq!(
        markdown(&hover),
        format!(
            "template `go`: Go development\n\ndefined at {}:24",
            catalogue.join("templates/languages.yaml").display()
        )
    );
    assert_eq!(
        hover["range"],
        json!({"start": {"line": 2, "character": 10}, "end": {"line": 2, "character": 12}})
    );

    // `image` of base (line 4): composed there, overridden by the languages.
    let hover = client.at("textDocument/hover", &base, 3, 10, Value::Null);
    let explained = markdown(&hover);
    assert!(
        explained.starts_with("**`image`** in blueprint `base`\n\n- composed: `\"registry.example.com/workspaces/base:2024.10\"` from `base`"),
        "{explained}"
    );
    assert!(
        explained.contains("- overridden in `go`: `\"registry.example.com/workspaces/go:1.23\"`"),
        "{explained}"
    );
    // `hostname: !cel ...` of base (line 6): its value against the test scope.
    let hover = client.at("textDocument/hover", &base, 5, 20, Value::Null);
    assert!(
        markdown(&hover).contains("- against the test scope: `\"base-strata-test\"`"),
        "{hover}"
    );
    // `image` of go: overrides base's.
    let hover = client.at("textDocument/hover", &languages, 27, 12, Value::Null);
    assert!(
        markdown(&hover).contains(
            "- overrides: `\"registry.example.com/workspaces/base:2024.10\"` from `base`"
        ),
        "{hover}"
    );

    // `!include ../shared/security-context.yaml` leads to the file's start.
    let definition = client.at("textDocument/definition", &base, 23, 30, Value::Null);
    assert_eq!(
        definition["uri"],
        uri_of(&catalogue.join("shared/security-context.yaml"))
    );
    assert_eq!(
        definition["range"]["start"],
        json!({"line": 0, "character": 0})
    );

    let symbols = client.at("textDocument/documentSymbol", &languages, 0, 0, Value::Null);
    let names: Vec<&str> = symbols
        .as_array()
        .expect("symbols")
        .iter()
        .filter_map(|symbol| symbol["name"].as_str())
        .collect();
    assert_eq!(names, ["python", "go"], "{symbols}");
    assert_eq!(symbols[1]["kind"], json!(11), "a template is an interface");
    assert_eq!(
        symbols[1]["selectionRange"]["start"],
        json!({"line": 23, "character": 10})
    );

    client.finish();
}

/// Completion in a platform catalogue: the names of the blueprints that
/// can be parents after `template:`, the keys of the schema not written
/// yet with their docs, an enum's values.
#[test]
fn completion_in_a_platform_catalogue() {
    let (_scratch, catalogue) = example("platform/catalogue");
    let path = catalogue.join("blueprints/go-services.yaml");
    let child = uri_of(&path);
    let text = std::fs::read_to_string(&path).expect("the blueprint");
    let mut client = Client::start();
    client.initialize(None, None);
    client.open(&child, "yaml", &text);
    // After `template: `: the blueprints that can be parents.
    let completion = client.at("textDocument/completion", &child, 2, 12, Value::Null);
    let offered = labels(&completion);
    for name in ["base", "data-science", "go", "python"] {
        assert!(offered.contains(&name.to_owned()), "{offered:?}");
    }
    // A new key in `podman:`: its keys not written yet, with their docs.
    let mut edited = text.replace("  enabled: true\n", "  enabled: true\n  \n");
    client.change(&child, 2, &edited);
    let completion = client.at("textDocument/completion", &child, 5, 2, Value::Null);
    let offered = labels(&completion);
    assert_eq!(
        offered,
        ["resources", "extFiles", "storages", "securityContext"],
        "the keys of `podman` not written yet"
    );
    assert_eq!(
        completion[0]["documentation"], "Its resources.",
        "{completion}"
    );
    // Inside a `!cel` expression: the functions it may call.
    edited = text.replace("podman:\n", "hostname: !cel \"s\npodman:\n");
    client.change(&child, 3, &edited);
    let completion = client.at("textDocument/completion", &child, 3, 17, Value::Null);
    let offered = labels(&completion);
    assert!(
        offered.contains(&"size".to_owned()) && offered.contains(&"env".to_owned()),
        "{offered:?}"
    );
    // An enum's values after its key.
    edited = text.replace("podman:\n", "imagePullPolicy: \npodman:\n");
    client.change(&child, 4, &edited);
    let completion = client.at("textDocument/completion", &child, 3, 17, Value::Null);
    assert_eq!(labels(&completion), ["Always", "Never", "IfNotPresent"]);
    client.finish();
}

/// In a Windsor project: a `dependsOn` entry leads to the kustomization,
/// the outline lists a feature, and completion offers what can be
/// depended on.
#[test]
fn navigation_in_a_windsor_project() {
    let (_scratch, project) = example("features");
    let stack = project.join("contexts/_template/features/observability/stack.yaml");
    let uri = uri_of(&stack);
    let text = std::fs::read_to_string(&stack).expect("the feature");
    let (line, column) = position_of(&text, "dependsOn: [ingress]", "ingress");
    let mut client = Client::start();
    client.initialize(None, None);
    client.open(&uri, "yaml", &text);
    let definition = client.at(
        "textDocument/definition",
        &uri,
        line,
        column + 1,
        Value::Null,
    );
    let target = definition["uri"].as_str().expect("a location");
    let file = target.strip_prefix("file://").expect("a file URI");
    let defined = std::fs::read_to_string(file).expect("the defining file");
    let at = &definition["range"]["start"];
    let defining_line = defined
        .lines()
        .nth(usize::try_from(at["line"].as_u64().expect("a line")).expect("a line"))
        .expect("the line");
    assert!(
        defining_line.contains("name: ingress"),
        "{definition}: {defining_line}"
    );
    let hover = client.at("textDocument/hover", &uri, line, column + 1, Value::Null);
    assert!(
        markdown(&hover).starts_with("kustomization `ingress`\n\ndefined at "),
        "{hover}"
    );
    // A value of a feature's component: when it applies, what it merges into.
    let aws = project.join("contexts/_template/features/aws.yaml");
    let hover = client.at("textDocument/hover", &uri_of(&aws), 21, 14, Value::Null);
    assert_eq!(
        markdown(&hover),
        format!(
            "**`terraform[2].inputs.cloud`** of feature `aws`\n\n- applies when `provider == 'aws'`\n- merges into the blueprint's entry ({}:16)\n",
            project.join("contexts/_template/blueprint.yaml").display()
        )
    );
    // Inside `${`: the functions of the expressions.
    let completion = client.at(
        "textDocument/completion",
        &uri_of(&aws),
        16,
        21,
        Value::Null,
    );
    // Every builtin of expr v1.17 and Windsor's two, Windsor's first.
    let offered = labels(&completion);
    assert_eq!(offered.len(), 73, "{completion}");
    assert_eq!(offered[..2], ["jsonnet", "file"], "{completion}");
    for name in [
        "split", "reduce", "groupBy", "sortBy", "toJSON", "date", "duration",
    ] {
        assert!(
            offered.iter().any(|label| label == name),
            "{name}: {completion}"
        );
    }
    // A feature's `when`, in each context.
    let hover = client.at("textDocument/hover", &uri_of(&aws), 5, 8, Value::Null);
    assert_eq!(
        markdown(&hover),
        "**`when`** of feature `aws`\n\n- in context `local`: `false`\n- in context `aws`: `true`\n"
    );
    let hover = client.at("textDocument/hover", &uri_of(&aws), 16, 24, Value::Null);
    let explained = markdown(&hover);
    assert!(
        explained.starts_with(
            "**`terraform[1].inputs.node_count`** of feature `aws`\n\n- in context `local`: `"
        ),
        "{explained}"
    );
    let symbols = client.at("textDocument/documentSymbol", &uri, 0, 0, Value::Null);
    assert_eq!(symbols[0]["name"], "observability", "{symbols}");
    assert_eq!(symbols[0]["kind"], json!(2), "a feature is a module");
    let completion = client.at("textDocument/completion", &uri, line, column, Value::Null);
    assert!(
        labels(&completion).contains(&"ingress".to_owned()),
        "{completion}"
    );
    client.finish();
}

/// In a spec blueprint: `${variables.environment}` leads to the variable,
/// whose hover gives its type, references gather its uses, and a function
/// name's hover gives its signature.
#[test]
fn navigation_in_a_spec_blueprint() {
    let Opened {
        scratch: _scratch,
        root: _,
        path: _,
        uri,
        text,
        mut client,
    } = open_example("spec", "blueprint.yaml", "yaml");
    // Line 37: `    value: ordersApi-${variables.environment}`.
    let line = text.lines().nth(36).expect("line 37");
    let column = line.find("variables.environment").expect("the reference") + 12;
    let definition = client.at("textDocument/definition", &uri, 36, column, Value::Null);
    assert_eq!(
        definition["range"],
        json!({"start": {"line": 6, "character": 2}, "end": {"line": 6, "character": 13}})
    );
    let hover = client.at("textDocument/hover", &uri, 36, column, Value::Null);
    assert!(
        markdown(&hover).starts_with("variable `environment`: variable of type string"),
        "{hover}"
    );
    let references = client.at(
        "textDocument/references",
        &uri,
        6,
        4,
        json!({"context": {"includeDeclaration": false}}),
    );
    let uses = text.matches("variables.environment").count();
    assert_eq!(
        references.as_array().map(Vec::len),
        Some(uses),
        "{references}"
    );
    // Line 46: `    value: ${eq(variables.environment, "production")}`: a boolean.
    let hover = client.at("textDocument/hover", &uri, 45, 42, Value::Null);
    assert_eq!(
        markdown(&hover),
        "**`values.isProduction.value`**: of type boolean"
    );
    // Line 40: `    value: ${map(split(...), trim)}`: `split`'s signature.
    let line = text.lines().nth(39).expect("line 40");
    let column = line.find("split").expect("split") + 1;
    let hover = client.at("textDocument/hover", &uri, 39, column, Value::Null);
    assert!(markdown(&hover).contains("split("), "{hover}");
    let completion = client.at("textDocument/completion", &uri, 39, column, Value::Null);
    assert!(
        labels(&completion).contains(&"substr".to_owned()),
        "{completion}"
    );
    client.finish();
}

/// In a qbec application: a name in `includes` leads to the component's
/// file, and the outline of `qbec.yaml` lists its environments.
#[test]
fn navigation_in_a_qbec_application() {
    let Opened {
        scratch: _scratch,
        root: app,
        path,
        uri,
        text,
        mut client,
    } = open_example("components", "qbec.yaml", "yaml");
    let (line, column) = position_of(&text, "includes: [debug-tools]", "debug-tools");
    let definition = client.at(
        "textDocument/definition",
        &uri,
        line,
        column + 2,
        Value::Null,
    );
    assert_eq!(
        definition["uri"],
        uri_of(&app.join("components/debug-tools.jsonnet")),
        "{definition}"
    );
    let references = client.at(
        "textDocument/references",
        &uri,
        line,
        column + 2,
        json!({"context": {"includeDeclaration": false}}),
    );
    assert_eq!(
        references.as_array().map(Vec::len),
        Some(2),
        "the excludes and the includes"
    );
    let hover = client.at("textDocument/hover", &uri, line, column + 2, Value::Null);
    assert!(
        markdown(&hover).starts_with("component `debug-tools`: Jsonnet component\n\ndefined at "),
        "{hover}"
    );
    let symbols = client.at("textDocument/documentSymbol", &uri, 0, 0, Value::Null);
    let environments: Vec<&str> = symbols
        .as_array()
        .expect("symbols")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert!(environments.contains(&"dev"), "{symbols}");
    // A property of `dev` and the base property it overrides.
    let debug = text
        .lines()
        .position(|line| line.trim() == "logLevel: debug")
        .expect("dev's logLevel");
    let hover = client.at("textDocument/hover", &uri, debug, 20, Value::Null);
    assert_eq!(
        markdown(&hover),
        format!(
            "**`properties.logLevel`** of environment `dev`\n\n- overrides `\"info\"` from `baseProperties` ({}:16)\n",
            path.display()
        )
    );
    let hover = client.at("textDocument/hover", &uri, 12, 14, Value::Null);
    let explained = markdown(&hover);
    assert!(
        explained.starts_with("**`baseProperties.replicas`**")
            && explained.contains("- environment `dev` keeps it")
            && explained.contains("- overridden in environment `prod`: `3`"),
        "{explained}"
    );
    // The keys of `dev` not written yet (`includes` is on the cursor's line).
    let completion = client.at("textDocument/completion", &uri, line, 6, Value::Null);
    assert_eq!(
        labels(&completion),
        ["context", "includes", "excludes"],
        "{completion}"
    );
    client.finish();
}
