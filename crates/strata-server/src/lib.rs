//! The HTTP service for platform blueprints (`strata platform serve`).
//!
//! A provisioning service keeps a catalogue ([`strata_platform::Catalogue`])
//! loaded, reloads it whenever its files change (`watch`), and composes
//! blueprints for authenticated callers over HTTP (`http`).
//!
//! - **Generations.** Every reload builds a complete new catalogue before it
//!   is swapped in; a request sees exactly one generation from start to end,
//!   and says which (`X-Strata-Generation`). A reload that fails keeps the
//!   previous generation and is reported in `/v1/status` (`service`).
//! - **Users.** Bearer tokens, stored as SHA-256 digests in a users file that
//!   is reloaded like the catalogue; each user may use the blueprints its
//!   globs allow, admins all (`users`). Tokens are never logged.
//! - **Bounds.** Request bodies (1 MiB by default, 413 above), every file
//!   parsed under [`strata_syntax::Limits`] and every body under
//!   [`Config::request_limits`] (a tree proportional to the body limit,
//!   whatever its aliases expand to: 413 beyond), at most
//!   [`Config::max_composes`] composes at once, and a timeout on every
//!   request (408), its headers included (the connection is closed). So no
//!   one request, however shaped, holds more than a bounded share of the
//!   memory, and the process's memory limit is never what stops it.
//! - **Operation.** Structured `tracing` events: one per reload with its
//!   outcome (target `strata::reload`), one per request at debug level
//!   (`strata::http`). [`serve`] stops accepting on shutdown and lets the
//!   requests in flight finish.

#![forbid(unsafe_code)]

pub mod codes;
mod http;
mod metrics;
mod service;
mod users;
mod watch;

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use strata_syntax::Limits;

pub use http::{DIGEST_HEADER, GENERATION_HEADER, router};
pub use service::{Generation, ReloadOutcome, Service};
pub use users::{User, Users};

/// The default request body limit: 1 MiB.
pub const DEFAULT_BODY_LIMIT: usize = 1024 * 1024;

/// How the service runs.
#[derive(Debug, Clone)]
pub struct Config {
    /// The catalogue root.
    pub catalogue: PathBuf,
    /// The users file.
    pub users: PathBuf,
    /// Bounds on every file read and every body parsed.
    pub limits: Limits,
    /// The largest request body accepted, in bytes.
    pub body_limit: usize,
    /// How long a request may take.
    pub request_timeout: Duration,
    /// How many compose requests are worked on at once; more wait for a
    /// turn (within their timeout). With [`Config::request_limits`], this
    /// bounds the memory composing can hold.
    pub max_composes: usize,
    /// The quiet period that ends a burst of changes: a reload comes once
    /// no change has been seen for this long.
    pub debounce: Duration,
    /// The longest a change waits for its reload while changes keep coming
    /// closer together than `debounce`, counted from the first change not
    /// reloaded yet.
    pub max_wait: Duration,
    /// How long after its last read a catalogue reload asks every file
    /// again; a reload that finds one changed (caught mid-rewrite, say) is
    /// not swapped in, and is tried again. It must be longer than any pause
    /// a writer makes in the middle of rewriting a file, a pause the
    /// scheduler of a loaded machine stretches.
    pub settle: Duration,
    /// How often the watcher checks that the root and the users file are
    /// the ones it watches.
    pub poll: Duration,
}

impl Config {
    /// The defaults: 1 MiB bodies, 30 s per request, one compose at a time
    /// per core, 200 ms debounce, 1 s maximum wait, 20 ms settle, 1 s poll.
    #[must_use]
    pub fn new(catalogue: impl Into<PathBuf>, users: impl Into<PathBuf>) -> Config {
        Config {
            catalogue: catalogue.into(),
            users: users.into(),
            limits: Limits::default(),
            body_limit: DEFAULT_BODY_LIMIT,
            request_timeout: Duration::from_secs(30),
            max_composes: std::thread::available_parallelism().map_or(1, usize::from),
            debounce: Duration::from_millis(200),
            max_wait: Duration::from_secs(1),
            settle: Duration::from_millis(20),
            poll: Duration::from_secs(1),
        }
    }
}

impl Config {
    /// The bounds of a request's documents (the body, and a `repo` given
    /// as text): no larger than the body limit, nested no deeper than
    /// files, and YAML aliases adding at most as much text again as the
    /// body may hold, in at most one node per 16 bytes of it. So a request
    /// parses into a tree of a size proportional to the body limit,
    /// whatever its aliases say (a 1 MiB body that refers to a 400 kB
    /// string 200,000 times is a 413, not 80 GB).
    #[must_use]
    pub fn request_limits(&self) -> Limits {
        Limits {
            max_bytes: self.body_limit,
            max_depth: self.limits.max_depth,
            max_alias_nodes: self.body_limit / 16,
            max_alias_bytes: self.body_limit,
        }
    }
}

/// Loads the users and the catalogue, starts watching them, and serves the
/// API on `listener` until `shutdown` completes; then stops accepting,
/// finishes the requests in flight and stops watching.
///
/// A catalogue or users file that does not load is not fatal: the service
/// starts unready (`/readyz` is 503) and becomes ready when they are fixed.
pub async fn serve(
    config: Config,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let service = Arc::new(Service::new(config));
    let watching = service.clone();
    let watcher = tokio::task::spawn_blocking(move || watch::Watcher::start(watching))
        .await
        .map_err(std::io::Error::other)??;
    tracing::info!(
        target: "strata::serve",
        address = %listener.local_addr()?,
        catalogue = %service.config().catalogue.display(),
        users = %service.config().users.display(),
        "listening",
    );
    accept(
        listener,
        router(service.clone()),
        service.config().request_timeout,
        shutdown,
    )
    .await;
    tokio::task::spawn_blocking(move || watcher.stop())
        .await
        .map_err(std::io::Error::other)?;
    tracing::info!(target: "strata::serve", "stopped");
    Ok(())
}

/// Serves connections until `shutdown`, then waits for those open to finish
/// their requests in flight (idle ones are closed).
///
/// `axum::serve` would do, but it sets no timer: a client that opens a
/// connection and never finishes its headers would hold it forever. Here the
/// headers must arrive within `timeout`, the same bound the router puts on
/// the rest of the request.
async fn accept(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    timeout: Duration,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(timeout);
    let connections = hyper_util::server::graceful::GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    // Out of file descriptors, say: wait rather than spin.
                    tracing::warn!(target: "strata::serve", %error, "cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let service = hyper_util::service::TowerToHyperService::new(router.clone());
        let connection = http.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
        let connection = connections.watch(connection);
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(target: "strata::http", %error, "connection ended with an error");
            }
        });
    }
    drop(listener);
    connections.shutdown().await;
}
