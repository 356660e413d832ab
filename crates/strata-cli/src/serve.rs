//! `strata platform serve`: the blueprint service on a socket, with logs
//! and signal handling; the service itself is `strata-server`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, ValueEnum};
use strata_server::Config;
use tracing_subscriber::EnvFilter;

use crate::GlobalArgs;

/// What `strata platform serve --help` says it does.
pub(crate) const ABOUT: &str = "Serve the catalogue over HTTP, reloading it on every change";

/// `serve` arguments.
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// The catalogue folder, watched for changes.
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// The address to listen on (port 0 picks a free one; the log says which).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// The users file (YAML or JSON), watched for changes.
    #[arg(long, value_name = "FILE")]
    users: PathBuf,
    /// How log lines are written to standard error (`RUST_LOG` filters them; default `info,notify=warn`).
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    /// The largest request body accepted, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = strata_server::DEFAULT_BODY_LIMIT)]
    body_limit: usize,
    /// How long a request may take (`30s`, `500ms`).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = humantime::parse_duration)]
    request_timeout: Duration,
    /// How many compose requests are worked on at once (more wait their turn); the number of cores by default.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    max_composes: Option<u16>,
    /// The quiet period that ends a burst of changes: a reload comes once none has been seen for this long.
    #[arg(long, value_name = "DURATION", default_value = "200ms", value_parser = humantime::parse_duration)]
    debounce: Duration,
    /// The longest a change waits for its reload while changes keep coming closer together than the debounce.
    #[arg(long, value_name = "DURATION", default_value = "1s", value_parser = humantime::parse_duration)]
    max_wait: Duration,
    /// How long after reading the catalogue a reload reads it again; one that finds a file changed is not served, and is tried again.
    #[arg(long, value_name = "DURATION", default_value = "20ms", value_parser = humantime::parse_duration)]
    settle: Duration,
}

/// `--log-format` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum LogFormat {
    /// One human-readable line per event.
    Text,
    /// One JSON object per line.
    Json,
}

pub(crate) fn run(global: &GlobalArgs, args: &ServeArgs) -> ExitCode {
    // `notify` reports routine inotify housekeeping at info level.
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,notify=warn"));
    let logs = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(global.color.colors_stderr())
        .with_writer(std::io::stderr);
    match args.log_format {
        LogFormat::Text => logs.init(),
        LogFormat::Json => logs.json().flatten_event(true).init(),
    }
    let mut config = Config::new(&args.dir, &args.users);
    config.limits = global.limits();
    config.body_limit = args.body_limit;
    config.request_timeout = args.request_timeout;
    if let Some(max_composes) = args.max_composes {
        config.max_composes = usize::from(max_composes);
    }
    config.debounce = args.debounce;
    config.max_wait = args.max_wait;
    config.settle = args.settle;
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(strata_dialect::WORKER_STACK_BYTES)
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the service's runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let served = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|error| format!("cannot listen on {}: {error}", args.listen))?;
        strata_server::serve(config, listener, shutdown())
            .await
            .map_err(|error| format!("the service stopped: {error}"))
    });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            tracing::error!(target: "strata::serve", "{message}");
            ExitCode::FAILURE
        }
    }
}

/// Completes on Ctrl-C or, on Unix, SIGTERM.
async fn shutdown() {
    let interrupt = async {
        if let Err(error) = tokio::signal::ctrl_c().await {
            tracing::warn!(target: "strata::serve", %error, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                terminate.recv().await;
            }
            Err(error) => {
                tracing::warn!(target: "strata::serve", %error, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
    tracing::info!(target: "strata::serve", "shutting down: finishing requests in flight");
}
