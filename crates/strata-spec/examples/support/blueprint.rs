//! A generated blueprint for benchmarks: at [`Size::BENCH`], 200
//! variables, 500 values computed with functions, 20 data sources, and
//! 10,000 resources whose
//! specs hold substitutions (variables, values, data source fields, other
//! resources' spec and state fields, `elem`/`i` in `each` resources),
//! labels and link selectors (each resource links to about five others),
//! conditions, and 200 exports; the generator example takes other sizes.
//! It checks clean.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

use strata_fs::{Files, MemoryFs};
use strata_spec::deploy::{State, graph};
use strata_spec::{
    Dialect, Given, GivenValue, Inputs, Options, Origin, RenderRequest, Settings, Spec,
};
use strata_syntax::{Limits, SourceDb, Span};

/// How much to generate.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Size {
    /// Variables, in groups of four (string, integer, boolean, region).
    pub(crate) variable_groups: usize,
    /// Values, in groups of five (name, zones, flag, tags, timeout).
    pub(crate) value_groups: usize,
    /// Data sources.
    pub(crate) datasources: usize,
    /// Resources.
    pub(crate) resources: usize,
    /// Exports, at most one per resource.
    pub(crate) exports: usize,
    /// Label values: each resource selects the resources of the next
    /// group, about `resources / link_groups` of them.
    pub(crate) link_groups: usize,
}

impl Size {
    /// The benchmark's blueprint.
    pub(crate) const BENCH: Size = Size {
        variable_groups: 50,
        value_groups: 100,
        datasources: 20,
        resources: 10_000,
        exports: 200,
        link_groups: 2_000,
    };

    /// Variables in the blueprint.
    pub(crate) fn variables(self) -> usize {
        self.variable_groups * 4
    }

    /// Values in the blueprint.
    pub(crate) fn values(self) -> usize {
        self.value_groups * 5
    }
}

/// The blueprint's YAML text.
#[must_use]
pub(crate) fn generate(size: Size) -> String {
    let mut out = String::with_capacity(8 * 1024 * 1024);
    out.push_str("version: 2023-04-20\ntransform: celerity-2023-04-20\n\nvariables:\n");
    for v in 0..size.variables() {
        match v % 4 {
            0 => {
                let _ = write!(
                    out,
                    "  env{v}:\n    type: string\n    description: Environment name {v}.\n    allowedValues: [dev, staging, production]\n    default: dev\n"
                );
            }
            1 => {
                let _ = write!(
                    out,
                    "  size{v}:\n    type: integer\n    default: {}\n",
                    128 * (v % 8 + 1)
                );
            }
            2 => {
                let _ = write!(out, "  enabled{v}:\n    type: boolean\n    default: true\n");
            }
            _ => {
                let _ = write!(
                    out,
                    "  region{v}:\n    type: aws/region\n    default: eu-west-1\n"
                );
            }
        }
    }
    out.push_str("\nvalues:\n");
    for v in 0..size.values() {
        let var = v % size.variables() / 4 * 4;
        match v % 5 {
            0 => {
                let _ = write!(
                    out,
                    "  name{v}:\n    type: string\n    value: ${{to_lower(join(list(\"svc\", variables.env{var}, \"{v}\"), \"-\"))}}\n"
                );
            }
            1 => {
                let _ = write!(
                    out,
                    "  zones{v}:\n    type: array\n    value: ${{map(split(\"a, b, c\", \",\"), trim)}}\n"
                );
            }
            2 => {
                let _ = write!(
                    out,
                    "  flag{v}:\n    type: boolean\n    value: ${{and(variables.enabled{}, eq(variables.env{var}, \"production\"))}}\n",
                    var + 2
                );
            }
            3 => {
                let _ = write!(
                    out,
                    "  tags{v}:\n    type: object\n    value: ${{object(service = values.name{}, index = {v})}}\n",
                    v - 3
                );
            }
            _ => {
                let _ = write!(
                    out,
                    "  timeout{v}:\n    type: integer\n    value: \"{}\"\n",
                    30 + v % 90
                );
            }
        }
    }
    out.push_str("\ndatasources:\n");
    for d in 0..size.datasources {
        let _ = write!(
            out,
            "  network{d}:\n    type: aws/vpc\n    filter:\n      field: tags\n      operator: has key\n      search: ${{variables.env{}}}\n    exports:\n      subnets:\n        type: array\n      vpc:\n        type: string\n        aliasFor: vpcId\n",
            d % size.variable_groups * 4
        );
    }
    resources(&mut out, size);
    out.push_str("\nexports:\n");
    for e in 0..size.exports {
        let _ = write!(
            out,
            "  arn{e}:\n    type: string\n    field: resources.fn{}.state.arn\n",
            (e * (size.resources / size.exports) + 1).min(size.resources - 1)
        );
    }
    out
}

/// The `resources` section.
fn resources(out: &mut String, size: Size) {
    out.push_str("\nresources:\n");
    for r in 0..size.resources {
        let value = r % size.value_groups * 5;
        let var = r % size.variable_groups * 4;
        let _ = write!(
            out,
            "  fn{r}:\n    type: aws/lambda/function\n    description: Function ${{values.name{value}}} number {r}.\n    metadata:\n      displayName: ${{to_upper(values.name{value})}}\n      labels:\n        service: svc{}\n      annotations:\n        aws.lambda.populateEnvVars: true\n    linkSelector:\n      byLabel:\n        service: svc{}\n",
            r % size.link_groups,
            (r + 1) % size.link_groups
        );
        if r % 10 == 0 {
            let _ = writeln!(out, "    each: ${{values.zones{}}}", value + 1);
        }
        if r % 7 == 0 {
            let _ = write!(
                out,
                "    condition:\n      and:\n        - ${{values.flag{}}}\n        - ${{not(eq(variables.env{var}, \"dev\"))}}\n",
                value + 2
            );
        }
        let _ = write!(
            out,
            "    spec:\n      functionName: ${{values.name{value}}}-fn{r}\n      memorySize: ${{variables.size{}}}\n      timeout: ${{values.timeout{}}}\n      subnet: ${{datasources.network{}.subnets[0]}}\n      region: ${{variables.region{}}}\n      tags: ${{values.tags{}}}\n",
            var + 1,
            value + 4,
            r % size.datasources,
            var + 3,
            value + 3
        );
        if r % 10 == 0 {
            let _ = writeln!(out, "      zone: ${{elem}}\n      replica: ${{i}}");
        }
        if r > 0 && r % 10 != 1 {
            let _ = write!(
                out,
                "      upstreamName: ${{resources.fn{}.spec.functionName}}\n      upstreamArn: ${{fn{}.state.arn}}\n",
                r - 1,
                r - 1
            );
        }
    }
}

/// The variable and the value [`previous_state`] deploys a generated
/// blueprint with: every resource differs from the default render.
pub(crate) const PREVIOUS: (&str, &str) = ("env0", "production");

/// The state of a deployment of the blueprint `text` rendered with the
/// variable `previous.0` set to `previous.1`.
pub(crate) fn previous_state(text: &str, previous: (&str, &str)) -> Option<State> {
    let (variable, value) = previous;
    let files: Arc<dyn Files> = Arc::new(MemoryFs::new().with("blueprint.yaml", text));
    let settings = Settings {
        path: PathBuf::from("blueprint.yaml"),
        root: None,
    };
    let opened = Spec::open(files, Options::new(Limits::default(), settings));
    let spec = opened.outcome.value?;
    let mut db = SourceDb::extending(opened.sources);
    let given = Given {
        name: variable.to_owned(),
        value: GivenValue::Text(value.to_owned()),
        span: Span::default(),
        name_span: Span::default(),
        origin: Origin::Flag,
        secret: false,
    };
    let request = RenderRequest {
        inputs: Inputs { given: vec![given] },
        ..RenderRequest::default()
    };
    let resolved = spec.render(&request, &mut db).value?;
    let drawn = graph(spec.loaded()?, &resolved, &[]).value?;
    Some(State::of(&resolved, &drawn))
}
