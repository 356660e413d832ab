//! The HTTP API.
//!
//! | route | token | answer |
//! |---|---|---|
//! | `GET /v1/blueprints` | yes | `{blueprints: [{name, description}]}`: the concrete blueprints the caller may use |
//! | `GET /v1/blueprints/{name}` | yes | the blueprint resolved over its templates, before CEL (`!cel` scalars kept) |
//! | `POST /v1/compose` | yes | the composed, evaluated, validated blueprint |
//! | `GET /v1/status` | yes | the generation served, its load time and size, the latest reload failures |
//! | `GET /healthz` | no | 200 while the process serves |
//! | `GET /readyz` | no | 200 once a catalogue and the users have loaded, else 503 |
//! | `GET /metrics` | no | Prometheus metrics ([`crate::metrics`]) |
//!
//! Bodies are JSON, or YAML when `Accept` names YAML (`application/yaml`);
//! a request body is YAML when its `Content-Type` names YAML, else JSON.
//! Every `/v1/` answer drawn from a catalogue carries the generation in
//! `X-Strata-Generation` and its digest in `X-Strata-Digest`.
//!
//! Errors are `{error: MESSAGE, diagnostics: [{code, severity, message,
//! file, line, column, endLine, endColumn, path, notes?, help?}]}`:
//!
//! | status | when |
//! |---|---|
//! | 400 | the body is not UTF-8, not JSON/YAML (the diagnostics say where), or not one document; the same for a `repo` given as text |
//! | 401 | no bearer token, or one no user has (`WWW-Authenticate: Bearer`) |
//! | 403 | the blueprint is not one the caller may use, whether it exists or not |
//! | 404 | the caller may use the name, but no concrete blueprint has it |
//! | 408 | the request took longer than the timeout |
//! | 413 | the body is larger than the limit, or its YAML aliases expand past [`crate::Config::request_limits`] (the body's or a `repo` text's) |
//! | 422 | the request is not a compose request, or the blueprint does not compose, evaluate or validate |
//! | 503 | no catalogue or no users file has loaded yet |
//!
//! A compose request:
//!
//! ```yaml
//! blueprint: python-data        # may be left out when `repo` names its template
//! workspaceName: alice-analysis-7f3k
//! metadata: {repoName: analysis, repoOwner: alice, repoRef: main,   # `name` is set by the render:
//!            repoAddress: "https://git.example.com/alice/analysis.git"}  # the blueprint's DNS label
//! repo: |                       # the repository's .k8shell.yaml, as text or as an object
//!   blueprint:
//!     template: python-data
//!     env: {PIP_INDEX_URL: "https://pypi.example.com/simple"}
//! ```
//!
//! CEL sees `user` from the caller's entry in the users file, never from the
//! request.

use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, FromRequestParts, MatchedPath, Path, Request, State};
use axum::http::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, WWW_AUTHENTICATE};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value as Json, json};
use strata_dialect::Unparsed;
use strata_platform::service::COMPOSE_REQUEST;
use strata_platform::{Refusal, RenderRequest, Scope};
use strata_syntax::emit::{to_json, to_yaml};
use strata_syntax::{Diagnostic, DiagnosticRecord, Format, Limits, Node, SourceDb, Value};
use tower_http::timeout::TimeoutLayer;

use crate::metrics::RequestLabels;
use crate::service::{Generation, ReloadFailure, Service, concrete_count};
use crate::users::User;

/// The header that names the generation an answer was drawn from.
pub const GENERATION_HEADER: &str = "x-strata-generation";
/// The header that carries that generation's digest.
pub const DIGEST_HEADER: &str = "x-strata-digest";

/// The name a request body's diagnostics show.
const REQUEST_SOURCE: &str = "<request>";
/// The name a `repo` given as text shows.
const REPO_SOURCE: &str = "<request>.repo";

/// The routes, with metrics, the body limit and the timeout.
pub fn router(service: Arc<Service>) -> Router {
    let config = service.config();
    Router::new()
        .route("/v1/blueprints", get(list_blueprints))
        .route("/v1/blueprints/{name}", get(get_blueprint))
        .route("/v1/compose", post(compose))
        .route("/v1/status", get(status))
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        // Layers added later wrap those added earlier: the timeout runs
        // inside the tracking, so a timed-out request is counted as a 408.
        .route_layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            config.request_timeout,
        ))
        .route_layer(middleware::from_fn_with_state(service.clone(), track))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(config.body_limit))
        .with_state(service)
}

/// How an answer is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wire {
    Json,
    Yaml,
}

impl Wire {
    /// YAML when `header` names it, else JSON.
    fn of(headers: &HeaderMap, header: axum::http::HeaderName) -> Wire {
        let names_yaml = headers
            .get_all(header)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .any(|value| value.to_ascii_lowercase().contains("yaml"));
        if names_yaml { Wire::Yaml } else { Wire::Json }
    }

    /// The answer's format, from `Accept`.
    fn accepted(headers: &HeaderMap) -> Wire {
        Wire::of(headers, ACCEPT)
    }

    fn content_type(self) -> &'static str {
        match self {
            Wire::Json => "application/json",
            Wire::Yaml => "application/yaml",
        }
    }

    fn encode(self, node: &Node) -> Result<String, Diagnostic> {
        match self {
            Wire::Json => to_json(node),
            Wire::Yaml => Ok(to_yaml(node)),
        }
    }
}

/// An answer: status, body, and the generation it was drawn from.
struct Reply {
    status: StatusCode,
    wire: Wire,
    body: String,
    generation: Option<(u64, String)>,
    challenge: bool,
}

impl Reply {
    /// An encoded body.
    fn text(status: StatusCode, wire: Wire, body: String) -> Reply {
        Reply {
            status,
            wire,
            body,
            generation: None,
            challenge: false,
        }
    }

    /// `node`, encoded; a tree that cannot be encoded is a 500.
    fn node(status: StatusCode, wire: Wire, node: &Node) -> Reply {
        match wire.encode(node) {
            Ok(body) => Reply::text(status, wire, body),
            Err(diagnostic) => Reply::error(
                StatusCode::INTERNAL_SERVER_ERROR,
                wire,
                "the answer cannot be encoded",
                &[diagnostic.record(&SourceDb::new())],
            ),
        }
    }

    fn json(status: StatusCode, wire: Wire, value: &Json) -> Reply {
        Reply::node(status, wire, &Node::from_json_value(value))
    }

    fn error(
        status: StatusCode,
        wire: Wire,
        message: impl Into<String>,
        diagnostics: &[DiagnosticRecord],
    ) -> Reply {
        let mut body = json!({ "error": message.into() });
        if !diagnostics.is_empty() {
            body["diagnostics"] = json!(diagnostics);
        }
        Reply::json(status, wire, &body)
    }

    /// Names the generation the answer was drawn from.
    fn served_from(mut self, generation: &Generation) -> Reply {
        self.generation = Some((generation.number, generation.digest.clone()));
        self
    }
}

impl IntoResponse for Reply {
    fn into_response(self) -> Response {
        let mut response = (
            self.status,
            [(CONTENT_TYPE, self.wire.content_type())],
            self.body,
        )
            .into_response();
        let headers = response.headers_mut();
        if let Some((number, digest)) = self.generation {
            headers.insert(GENERATION_HEADER, HeaderValue::from(number));
            if let Ok(digest) = HeaderValue::from_str(&digest) {
                headers.insert(DIGEST_HEADER, digest);
            }
        }
        if self.challenge {
            headers.insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

/// The authenticated caller of a `/v1/` route.
struct Caller(Arc<User>);

impl FromRequestParts<Arc<Service>> for Caller {
    type Rejection = Reply;

    async fn from_request_parts(
        parts: &mut Parts,
        service: &Arc<Service>,
    ) -> Result<Caller, Reply> {
        let wire = Wire::accepted(&parts.headers);
        let Some(users) = service.users() else {
            return Err(Reply::error(
                StatusCode::SERVICE_UNAVAILABLE,
                wire,
                "no users file has loaded yet",
                &[],
            ));
        };
        let token = parts
            .headers
            .get(AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token.trim());
        token
            .and_then(|token| users.authenticate(token))
            .map(Caller)
            .ok_or_else(|| {
                let message = if token.is_some() {
                    "the bearer token is not known"
                } else {
                    "a bearer token is required (`Authorization: Bearer TOKEN`)"
                };
                let mut reply = Reply::error(StatusCode::UNAUTHORIZED, wire, message, &[]);
                reply.challenge = true;
                reply
            })
    }
}

/// The generation a request is served from, held for the whole request.
struct Serving(Arc<Generation>);

impl FromRequestParts<Arc<Service>> for Serving {
    type Rejection = Reply;

    async fn from_request_parts(
        parts: &mut Parts,
        service: &Arc<Service>,
    ) -> Result<Serving, Reply> {
        service.generation().map(Serving).ok_or_else(|| {
            Reply::error(
                StatusCode::SERVICE_UNAVAILABLE,
                Wire::accepted(&parts.headers),
                "no valid catalogue has loaded yet",
                &[],
            )
        })
    }
}

async fn list_blueprints(
    Caller(user): Caller,
    Serving(generation): Serving,
    headers: HeaderMap,
) -> Reply {
    let blueprints: Vec<Json> = generation
        .catalogue
        .list()
        .into_iter()
        .filter(|summary| !summary.is_template && user.may_use(&summary.name))
        .map(|summary| json!({ "name": summary.name, "description": summary.description }))
        .collect();
    Reply::json(
        StatusCode::OK,
        Wire::accepted(&headers),
        &json!({ "blueprints": blueprints }),
    )
    .served_from(&generation)
}

async fn get_blueprint(
    Caller(user): Caller,
    Serving(generation): Serving,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Reply {
    let wire = Wire::accepted(&headers);
    if !user.may_use(&name) {
        return Reply::error(StatusCode::FORBIDDEN, wire, not_allowed(&name), &[])
            .served_from(&generation);
    }
    match generation.catalogue.resolved(&name) {
        Some(resolved) if !resolved.is_template() => {
            Reply::node(StatusCode::OK, wire, &resolved.node).served_from(&generation)
        }
        _ => {
            let list = generation.catalogue.list();
            let usable = list
                .iter()
                .filter(|s| !s.is_template && user.may_use(&s.name))
                .map(|s| s.name.as_str());
            let message = match strata_syntax::did_you_mean(&name, usable) {
                Some(near) => format!("no blueprint is named `{name}`; did you mean `{near}`?"),
                None => format!("no blueprint is named `{name}`"),
            };
            Reply::error(StatusCode::NOT_FOUND, wire, message, &[]).served_from(&generation)
        }
    }
}

fn not_allowed(name: &str) -> String {
    format!("`{name}` is not among the blueprints you may use")
}

async fn compose(
    State(service): State<Arc<Service>>,
    Caller(user): Caller,
    Serving(generation): Serving,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Reply {
    let wire = Wire::accepted(&headers);
    let body = match body {
        Ok(body) => body,
        Err(rejection) => {
            let message = if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                format!(
                    "the body is larger than {} bytes",
                    service.config().body_limit
                )
            } else {
                rejection.body_text()
            };
            return Reply::error(rejection.status(), wire, message, &[]).served_from(&generation);
        }
    };
    let format = match Wire::of(&headers, CONTENT_TYPE) {
        Wire::Json => Format::Json,
        Wire::Yaml => Format::Yaml,
    };
    let limits = service.config().request_limits();
    let served = generation.clone();
    // A bounded number of composes at once, so the memory they hold is
    // bounded too; the rest wait their turn within the request's timeout.
    let _turn = service.compose_turn().await;
    // Composing is CPU work: keep it off the threads that run the I/O.
    let reply = tokio::task::spawn_blocking(move || {
        compose_blocking(&served, &user, &body, format, limits, wire)
    })
    .await
    .unwrap_or_else(|_| {
        Reply::error(
            StatusCode::INTERNAL_SERVER_ERROR,
            wire,
            "composing failed unexpectedly",
            &[],
        )
    });
    reply.served_from(&generation)
}

/// Parses, checks and composes one request against one generation.
fn compose_blocking(
    generation: &Generation,
    user: &User,
    body: &[u8],
    format: Format,
    limits: Limits,
    wire: Wire,
) -> Reply {
    let mut db = SourceDb::extending(generation.catalogue.sources().clone());
    let rendered = render_request(&mut db, user, body, format, limits).and_then(|request| {
        generation
            .catalogue
            .render_with_access(&request, &|name| user.may_use(name))
            .map_err(|refusal| match refusal {
                Refusal::NotAllowed(problem) => Rejection::new(
                    StatusCode::FORBIDDEN,
                    "the blueprint is not one you may use",
                    vec![problem],
                ),
                Refusal::Invalid(problems) => Rejection::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "the blueprint does not compose",
                    problems,
                ),
            })
            .and_then(|rendered| {
                wire.encode(&rendered.node).map_err(|error| {
                    Rejection::new(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        "the blueprint does not compose",
                        vec![error],
                    )
                })
            })
    });
    match rendered {
        Ok(body) => Reply::text(StatusCode::OK, wire, body),
        Err(rejection) => {
            let records: Vec<DiagnosticRecord> =
                rejection.problems.iter().map(|d| d.record(&db)).collect();
            Reply::error(rejection.status, wire, rejection.message, &records)
        }
    }
}

/// Why a compose request was turned down.
struct Rejection {
    status: StatusCode,
    message: String,
    problems: Vec<Diagnostic>,
}

impl Rejection {
    fn new(status: StatusCode, message: impl Into<String>, problems: Vec<Diagnostic>) -> Self {
        Rejection {
            status,
            message: message.into(),
            problems,
        }
    }
}

/// Reads the body into what to render: the blueprint's name node, the
/// repository file, and the scope with the caller as `user`.
fn render_request(
    db: &mut SourceDb,
    user: &User,
    body: &[u8],
    format: Format,
    limits: Limits,
) -> Result<RenderRequest, Rejection> {
    let text = std::str::from_utf8(body).map_err(|error| {
        let message = format!(
            "the body is not UTF-8 text (invalid byte at offset {})",
            error.valid_up_to()
        );
        Rejection::new(StatusCode::BAD_REQUEST, message, Vec::new())
    })?;
    let request = parse_one(db, REQUEST_SOURCE, "the body", text, format, limits)?;
    let not_a_request = |problems| {
        Rejection::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "the body is not a compose request",
            problems,
        )
    };
    let problems = COMPOSE_REQUEST.validate(&request);
    if !problems.is_empty() {
        return Err(not_a_request(problems));
    }
    let repo = match request.get("repo").map(|node| &node.value) {
        Some(Value::String(text)) => Some(parse_one(
            db,
            REPO_SOURCE,
            "`repo`",
            text,
            Format::Yaml,
            limits,
        )?),
        Some(Value::Map(_)) => request.get("repo").cloned(),
        _ => None,
    };
    // Both are required by the schema just checked.
    let field = |key| {
        request
            .get(key)
            .cloned()
            .unwrap_or_else(|| Node::new(Value::Null, request.span))
    };
    let scope = Node::mapping([
        ("user", user.scope.clone()),
        ("workspaceName", field("workspaceName")),
        ("metadata", field("metadata")),
    ]);
    Ok(RenderRequest {
        blueprint: request
            .get("blueprint")
            .filter(|node| !matches!(node.value, Value::Null))
            .cloned(),
        repo,
        scope: Some(Scope::from_node(&scope).map_err(not_a_request)?),
    })
}

/// Registers `text` under `name` and parses it into exactly one
/// document: a 413 when it, or what its aliases expand to, is larger than
/// the request limits, a 400 when it is not one valid document; the
/// messages call it `what`.
fn parse_one(
    db: &mut SourceDb,
    name: &str,
    what: &str,
    text: &str,
    format: Format,
    limits: Limits,
) -> Result<Node, Rejection> {
    strata_dialect::parse_document(db, name, text, format, &limits).map_err(|unparsed| {
        match unparsed {
            Unparsed::TooLarge(problems) => Rejection::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("{what} is larger than a request may be once its aliases are expanded"),
                problems,
            ),
            Unparsed::Invalid(problems) => {
                let syntax = match format {
                    Format::Json => "JSON",
                    Format::Yaml | Format::Yaml11 => "YAML",
                };
                Rejection::new(
                    StatusCode::BAD_REQUEST,
                    format!("{what} is not valid {syntax}"),
                    problems,
                )
            }
        }
    })
}

async fn status(
    State(service): State<Arc<Service>>,
    Caller(user): Caller,
    headers: HeaderMap,
) -> Reply {
    let failures = service.failures();
    let failure = |failure: Option<ReloadFailure>| {
        failure.map_or(Json::Null, |failure| {
            let mut value = json!({
                "at": humantime::format_rfc3339_seconds(failure.at).to_string(),
                "errors": failure.diagnostics.len(),
            });
            // Diagnostics quote catalogue files; only admins see them.
            if user.is_admin {
                value["diagnostics"] = json!(failure.diagnostics);
            }
            value
        })
    };
    let generation = service.generation();
    let body = json!({
        "ready": service.is_ready(),
        "generation": generation.as_ref().map(|g| g.number),
        "digest": generation.as_ref().map(|g| g.digest.clone()),
        "loadedAt": generation
            .as_ref()
            .map(|g| humantime::format_rfc3339_seconds(g.loaded_at).to_string()),
        "blueprints": generation.as_ref().map(|g| concrete_count(&g.catalogue)),
        "lastReloadError": failure(failures.catalogue),
        "users": {
            "count": service.users().map_or(0, |users| users.len()),
            "lastReloadError": failure(failures.users),
        },
    });
    let reply = Reply::json(StatusCode::OK, Wire::accepted(&headers), &body);
    match &generation {
        Some(generation) => reply.served_from(generation),
        None => reply,
    }
}

async fn healthz(headers: HeaderMap) -> Reply {
    Reply::json(
        StatusCode::OK,
        Wire::accepted(&headers),
        &json!({ "status": "ok" }),
    )
}

async fn readyz(State(service): State<Arc<Service>>, headers: HeaderMap) -> Reply {
    let mut waiting = Vec::new();
    if service.generation().is_none() {
        waiting.push("catalogue");
    }
    if service.users().is_none() {
        waiting.push("users");
    }
    let status = if waiting.is_empty() {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    Reply::json(
        status,
        Wire::accepted(&headers),
        &json!({ "ready": waiting.is_empty(), "waitingFor": waiting }),
    )
}

async fn metrics(State(service): State<Arc<Service>>) -> Response {
    (
        [(
            CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        service.metrics().encode(),
    )
        .into_response()
}

async fn not_found(headers: HeaderMap) -> Reply {
    Reply::error(
        StatusCode::NOT_FOUND,
        Wire::accepted(&headers),
        "no such route",
        &[],
    )
}

/// Counts and logs every routed request by its route pattern.
async fn track(
    State(service): State<Arc<Service>>,
    route: MatchedPath,
    request: Request,
    next: Next,
) -> Response {
    let started = Instant::now();
    let method = request.method().to_string();
    let response = next.run(request).await;
    let labels = RequestLabels {
        method,
        route: route.as_str().to_owned(),
        status: response.status().as_u16(),
    };
    let seconds = started.elapsed().as_secs_f64();
    service.metrics().request(&labels, seconds);
    tracing::debug!(
        target: "strata::http",
        method = %labels.method,
        route = %labels.route,
        status = labels.status,
        elapsed_ms = seconds * 1000.0,
        "request",
    );
    response
}
