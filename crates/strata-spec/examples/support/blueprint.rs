//! A generated blueprint for benchmarks: 200 variables, 500 values
//! computed with functions, 20 data sources, and 10,000 resources whose
//! specs hold substitutions (variables, values, data source fields, other
//! resources' spec and state fields, `elem`/`i` in `each` resources),
//! labels and link selectors (each resource links to about five others),
//! conditions, and 200 exports. It checks clean.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

use strata_fs::{Files, MemoryFs};
use strata_spec::{
    Dialect, Given, GivenValue, Inputs, Options, Origin, RenderRequest, Settings, Spec, State,
    graph,
};
use strata_syntax::{Limits, SourceDb, Span};

/// Variables in the blueprint.
pub(crate) const VARIABLES: usize = 200;
/// Values.
pub(crate) const VALUES: usize = 500;
/// Data sources.
pub(crate) const DATASOURCES: usize = 20;
/// Resources.
pub(crate) const RESOURCES: usize = 10_000;
/// Exports.
pub(crate) const EXPORTS: usize = 200;
/// Label values: each resource selects the resources of the next group,
/// about `RESOURCES / LINK_GROUPS` of them.
const LINK_GROUPS: usize = 2_000;

/// The blueprint's YAML text.
#[must_use]
pub(crate) fn generate() -> String {
    let mut out = String::with_capacity(8 * 1024 * 1024);
    out.push_str("version: 2023-04-20\ntransform: celerity-2023-04-20\n\nvariables:\n");
    for v in 0..VARIABLES {
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
    for v in 0..VALUES {
        let var = v % VARIABLES / 4 * 4;
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
    for d in 0..DATASOURCES {
        let _ = write!(
            out,
            "  network{d}:\n    type: aws/vpc\n    filter:\n      field: tags\n      operator: has key\n      search: ${{variables.env{}}}\n    exports:\n      subnets:\n        type: array\n      vpc:\n        type: string\n        aliasFor: vpcId\n",
            d % (VARIABLES / 4) * 4
        );
    }
    resources(&mut out);
    out.push_str("\nexports:\n");
    for e in 0..EXPORTS {
        let _ = write!(
            out,
            "  arn{e}:\n    type: string\n    field: resources.fn{}.state.arn\n",
            e * (RESOURCES / EXPORTS) + 1
        );
    }
    out
}

/// The `resources` section.
fn resources(out: &mut String) {
    out.push_str("\nresources:\n");
    for r in 0..RESOURCES {
        let value = r % (VALUES / 5) * 5;
        let var = r % (VARIABLES / 4) * 4;
        let _ = write!(
            out,
            "  fn{r}:\n    type: aws/lambda/function\n    description: Function ${{values.name{value}}} number {r}.\n    metadata:\n      displayName: ${{to_upper(values.name{value})}}\n      labels:\n        service: svc{}\n      annotations:\n        aws.lambda.populateEnvVars: true\n    linkSelector:\n      byLabel:\n        service: svc{}\n",
            r % LINK_GROUPS,
            (r + 1) % LINK_GROUPS
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
            r % DATASOURCES,
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

/// The state of a deployment of the blueprint with `env0=production`.
pub(crate) fn previous_state(text: &str) -> Option<State> {
    let files: Arc<dyn Files> = Arc::new(MemoryFs::new().with("blueprint.yaml", text));
    let settings = Settings {
        path: PathBuf::from("blueprint.yaml"),
        root: None,
    };
    let opened = Spec::open(files, Options::new(Limits::default(), settings));
    let spec = opened.outcome.value?;
    let mut db = SourceDb::extending(opened.sources);
    let given = Given {
        name: "env0".to_owned(),
        value: GivenValue::Text("production".to_owned()),
        span: Span::default(),
        name_span: Span::default(),
        origin: Origin::Flag,
    };
    let request = RenderRequest {
        inputs: Inputs { given: vec![given] },
        ..RenderRequest::default()
    };
    let resolved = spec.render(&request, &mut db).value?;
    let drawn = graph(spec.loaded()?, &resolved, &[]).value?;
    Some(State::of(&resolved, &drawn))
}
