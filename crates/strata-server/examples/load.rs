//! A loopback load benchmark for the HTTP service: composes per second and
//! latency percentiles of `POST /v1/compose`.
//!
//! Serves a copy of `examples/platform` in-process on `127.0.0.1`; client
//! threads (one keep-alive `ureq` agent each) send `compose.json` as `ada`,
//! first "steady", then "reloading", while a catalogue file is rewritten
//! every 100 ms. Each phase ends after `--requests` requests (4000) or
//! `--seconds` (20); any answer but 200 fails the run (exit status 1).
//!
//! By default every client sends its next request as soon as the last is
//! answered (the most the service can do). With `--rate R`, requests are
//! sent on a fixed schedule of R per second across the clients, and each
//! latency counts from the request's scheduled time, so a request that
//! waits for a busy client is counted as late rather than left out.
//!
//! ```text
//! cargo run --release -p strata-server --example load -- [--clients N] [--requests N] [--seconds S] [--rate R]
//! ```
#![expect(
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr,
    clippy::print_stdout,
    reason = "an example stops on a bad input and prints its result"
)]

use std::collections::BTreeSet;
use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// The allocator of the `strata` binary, so that what is measured is what runs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const PLATFORM: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/platform");
const TOKEN: &str = "Bearer ada-example-token";
/// The catalogue file the reloading phase rewrites, below the root.
const EDITED: &str = "blueprints/data-science.yaml";
const USAGE: &str = "usage: load [--clients N] [--requests N] [--seconds S] [--rate R]";

/// The command line.
struct Args {
    clients: usize,
    requests: usize,
    cap: Duration,
    /// Requests per second on a fixed schedule; `None`: as fast as answered.
    rate: Option<usize>,
}

fn parse_args() -> Args {
    let mut values = [4, 4000, 20, 0];
    let mut words = std::env::args().skip(1);
    while let Some(flag) = words.next() {
        let slot = ["--clients", "--requests", "--seconds", "--rate"]
            .iter()
            .position(|f| *f == flag);
        let number = words.next().and_then(|v| v.parse().ok()).filter(|n| *n > 0);
        let (Some(slot), Some(number)) = (slot, number) else {
            eprintln!("load: `{flag}` is not an option followed by a positive integer\n{USAGE}");
            std::process::exit(2);
        };
        values[slot] = number;
    }
    let [clients, requests, seconds, rate] = values;
    Args {
        clients,
        requests,
        cap: Duration::from_secs(seconds as u64),
        rate: (rate > 0).then_some(rate),
    }
}

/// What one phase (or one client of it) saw.
#[derive(Default)]
struct Samples {
    latencies: Vec<Duration>,
    failures: usize,
    first_failure: Option<String>,
    generations: BTreeSet<String>,
    elapsed: Duration,
}

fn main() -> ExitCode {
    let args = parse_args();
    let platform = Path::new(PLATFORM);
    let scratch = tempfile::tempdir().expect("cannot create a temporary folder");
    let catalogue = scratch.path().join("catalogue");
    copy_dir(&platform.join("catalogue"), &catalogue);
    let users = scratch.path().join("users.yaml");
    std::fs::copy(platform.join("users.yaml"), &users).expect("cannot copy users.yaml");
    let body = std::fs::read_to_string(platform.join("compose.json"))
        .expect("cannot read examples/platform/compose.json");

    let mut config = strata_server::Config::new(&catalogue, &users);
    config.debounce = Duration::from_millis(50);
    config.poll = Duration::from_millis(100);
    let listener = TcpListener::bind("127.0.0.1:0").expect("cannot bind 127.0.0.1:0");
    listener
        .set_nonblocking(true)
        .expect("cannot make the listener non-blocking");
    let address = listener.local_addr().expect("the listener has no address");
    let (stop_server, stopped) = tokio::sync::oneshot::channel::<()>();
    let server_thread = thread::spawn(move || -> std::io::Result<()> {
        // As `strata platform serve` builds it.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .thread_stack_size(strata_dialect::WORKER_STACK_BYTES)
            .build()?;
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener)?;
            let shutdown = async move {
                let _ = stopped.await;
            };
            strata_server::serve(config, listener, shutdown).await
        })
    });
    wait_ready(address);

    let parallelism = thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    println!(
        "available parallelism {parallelism}; {} clients, {} requests or {} s per phase, {}",
        args.clients,
        args.requests,
        args.cap.as_secs(),
        args.rate.map_or_else(
            || "as fast as answered".to_owned(),
            |rate| format!("{rate} per second")
        )
    );
    let steady = run_phase(&args, address, &body);
    let mut failed = report("steady", &steady, false);

    let editing = AtomicBool::new(true);
    let reloading = thread::scope(|scope| {
        let writer = scope.spawn(|| rewrite_until_stopped(&catalogue.join(EDITED), &editing));
        let samples = run_phase(&args, address, &body);
        editing.store(false, Ordering::Relaxed);
        writer.join().expect("the catalogue writer panicked");
        samples
    });
    failed |= report("reloading", &reloading, true);

    // Fails only if the server has already stopped; joining says why.
    let _ = stop_server.send(());
    let outcome = server_thread.join().expect("the server thread panicked");
    outcome.expect("the server failed");
    ExitCode::from(u8::from(failed))
}

/// Copies the folder `from` to `to`, recursively.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("cannot create the catalogue copy");
    for entry in std::fs::read_dir(from).expect("cannot read examples/platform/catalogue") {
        let entry = entry.expect("cannot list the catalogue");
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("cannot copy a catalogue file");
        }
    }
}

/// A client: keep-alive (the default), and every status is an answer.
fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into()
}

/// Waits (10 s at most) for `/readyz` to answer 200.
fn wait_ready(address: SocketAddr) {
    let agent = agent();
    let url = format!("http://{address}/readyz");
    for _ in 0..200 {
        if agent.get(&url).call().is_ok_and(|r| r.status() == 200) {
            return;
        }
        thread::sleep(Duration::from_millis(50));
    }
    panic!("the server was not ready after 10 s");
}

/// Sends compose requests from `args.clients` threads until `args.requests`
/// have been sent or `args.cap` has passed.
fn run_phase(args: &Args, address: SocketAddr, body: &str) -> Samples {
    let url = format!("http://{address}/v1/compose");
    let sent = AtomicUsize::new(0);
    let started = Instant::now();
    let deadline = started + args.cap;
    // The next request's ticket and, on a schedule, the time it is due.
    let more = || {
        let ticket = sent.fetch_add(1, Ordering::Relaxed);
        let due = args.rate.map_or_else(Instant::now, |rate| {
            let at = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
            started + Duration::from_secs(1) * at(ticket) / at(rate)
        });
        (ticket < args.requests && due < deadline).then_some(due)
    };
    let mut all = Samples::default();
    thread::scope(|scope| {
        let clients: Vec<_> = (0..args.clients)
            .map(|_| scope.spawn(|| client(&url, body, &more)))
            .collect();
        for client in clients {
            let samples = client.join().expect("a client thread panicked");
            all.latencies.extend(samples.latencies);
            all.failures += samples.failures;
            all.first_failure = all.first_failure.take().or(samples.first_failure);
            all.generations.extend(samples.generations);
        }
    });
    all.elapsed = started.elapsed();
    all
}

/// One client's loop: a request while `more` gives one, each sent when it
/// is due and timed from then.
fn client(url: &str, body: &str, more: &dyn Fn() -> Option<Instant>) -> Samples {
    let agent = agent();
    let mut samples = Samples::default();
    while let Some(start) = more() {
        thread::sleep(start.saturating_duration_since(Instant::now()));
        let answer = agent
            .post(url)
            .header("Authorization", TOKEN)
            .header("Content-Type", "application/json")
            .send(body)
            .and_then(|mut response| {
                let text = response.body_mut().read_to_string()?;
                Ok((response, text))
            });
        samples.latencies.push(start.elapsed());
        match answer {
            Ok((response, _)) if response.status() == 200 => {
                let generation = response.headers().get(strata_server::GENERATION_HEADER);
                let generation = generation.and_then(|g| g.to_str().ok()).unwrap_or("none");
                samples.generations.insert(generation.to_owned());
            }
            failure => {
                samples.failures += 1;
                samples.first_failure.get_or_insert_with(|| match failure {
                    Ok((response, text)) => format!("{}: {text}", response.status()),
                    Err(error) => error.to_string(),
                });
            }
        }
    }
    samples
}

/// Rewrites `file` every 100 ms with a new description, through a temporary
/// file renamed over it, until `editing` is cleared.
fn rewrite_until_stopped(file: &Path, editing: &AtomicBool) {
    let original = std::fs::read_to_string(file).expect("cannot read the edited blueprint");
    let temporary = file.with_extension("yaml.tmp");
    let mut counter = 0_u64;
    while editing.load(Ordering::Relaxed) {
        counter += 1;
        let text: String = original
            .lines()
            .map(|line| match line.strip_prefix("  description: ") {
                Some(description) => format!("  description: {description} (edit {counter})\n"),
                None => format!("{line}\n"),
            })
            .collect();
        std::fs::write(&temporary, text).expect("cannot write the edited blueprint");
        std::fs::rename(&temporary, file).expect("cannot replace the edited blueprint");
        thread::sleep(Duration::from_millis(100));
    }
}

/// Prints a phase's line; whether it had failures.
fn report(name: &str, samples: &Samples, generations: bool) -> bool {
    let mut latencies = samples.latencies.clone();
    latencies.sort_unstable();
    // Nearest rank: the smallest latency that `permille`/1000 of them reach.
    let at = |permille: usize| {
        let rank = (latencies.len() * permille).div_ceil(1000).max(1);
        latencies
            .get(rank - 1)
            .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    };
    let count = u32::try_from(latencies.len()).expect("more requests than a u32 counts");
    let seconds = samples.elapsed.as_secs_f64();
    let seen = if generations {
        format!(", {} generations seen", samples.generations.len())
    } else {
        String::new()
    };
    println!(
        "{name:>9}: {count} requests, {} non-200, {seconds:.2} s, {:.1} composes/s, \
         p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms{seen}",
        samples.failures,
        f64::from(count) / seconds,
        at(500),
        at(900),
        at(990),
        at(1000),
    );
    if let Some(failure) = &samples.first_failure {
        println!("{name:>9}: first failure: {failure}");
    }
    samples.failures > 0
}
