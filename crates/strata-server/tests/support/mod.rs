//! A service on an ephemeral loopback port over a scratch catalogue, and a
//! small blocking client for it.
#![expect(
    clippy::expect_used,
    clippy::panic,
    reason = "a test stops at the first surprise"
)]
#![allow(
    dead_code,
    reason = "each test binary uses its own part of the shared support"
)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::Value as Json;
use strata_server::Config;

/// How long any wait in these tests may last before it fails.
pub(crate) const PATIENCE: Duration = Duration::from_secs(20);

/// `alice` may use `python-*`.
pub(crate) const ALICE: &str = "alice-token";
/// `root` is an admin.
pub(crate) const ROOT: &str = "root-token";

pub(crate) const USERS: &str = "users:
  - username: alice
    tokenSha256: 9c220f200955d76c0a38d308225e0ef10c5f971acaf2f8d1d8f732affa5bd1dc
    uid: 1000
    gid: 1000
    roles: [developer]
    allowedBlueprints: [python-*]
  - username: root
    tokenSha256: 2cff60a244379d429c1877c36ee7f37da39ad06073d31b8d90fccd15376f2adf
    uid: 0
    gid: 0
    roles: [admin]
";

/// A catalogue whose `python-data` says which version of the file it came
/// from in `env.MARK`.
pub(crate) fn catalogue(mark: &str) -> String {
    format!(
        "blueprints:
  - name: base
    isTemplate: true
    image: registry.example.com/base:1
    env:
      MARK: \"{mark}\"
  - name: python-data
    template: base
    description: Python for data
    hostname: !cel \"metadata.name + '-' + user.username\"
  - name: python-web
    template: base
    description: Python for the web
  - name: ops-console
    template: base
    description: Operators only
"
    )
}

/// A compose request for `blueprint`.
pub(crate) fn compose_body(blueprint: &str) -> String {
    serde_json::json!({
        "blueprint": blueprint,
        "workspaceName": "alice-analysis-1",
        "metadata": {"name": "Analysis_Two", "repoName": "analysis", "repoOwner": "alice",
                     "repoRef": "main", "repoAddress": "https://git.example.com/alice/analysis.git"},
    })
    .to_string()
}

/// An answer.
#[derive(Debug)]
pub(crate) struct Answer {
    pub status: u16,
    pub generation: Option<u64>,
    pub content_type: String,
    pub text: String,
}

impl Answer {
    /// The body as JSON.
    pub(crate) fn json(&self) -> Json {
        serde_json::from_str(&self.text)
            .unwrap_or_else(|error| panic!("not JSON ({error}): {}", self.text))
    }
}

/// A running service; dropping it shuts it down.
pub(crate) struct Running {
    pub address: SocketAddr,
    pub catalogue: PathBuf,
    pub users: PathBuf,
    agent: ureq::Agent,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<std::io::Result<()>>>,
    _scratch: tempfile::TempDir,
}

impl Running {
    /// Serves `files` (relative path, text) as the catalogue.
    pub(crate) fn start(files: &[(&str, &str)]) -> Running {
        Running::start_with(files, |_| {})
    }

    /// Like [`Running::start`], with the configuration adjusted.
    pub(crate) fn start_with(files: &[(&str, &str)], adjust: impl FnOnce(&mut Config)) -> Running {
        let scratch = tempfile::tempdir().expect("a scratch folder");
        let catalogue = scratch.path().join("catalogue");
        for (path, text) in files {
            write(&catalogue.join(path), text);
        }
        let users = scratch.path().join("users.yaml");
        write(&users, USERS);
        let mut config = Config::new(&catalogue, &users);
        config.debounce = Duration::from_millis(50);
        config.poll = Duration::from_millis(100);
        adjust(&mut config);
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let address = listener.local_addr().expect("its address");
        listener.set_nonblocking(true).expect("non-blocking");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()?;
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener)?;
                strata_server::serve(config, listener, async move {
                    let _ = stopped.await;
                })
                .await
            })
        });
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(PATIENCE))
            .build()
            .into();
        let running = Running {
            address,
            catalogue,
            users,
            agent,
            stop: Some(stop),
            thread: Some(thread),
            _scratch: scratch,
        };
        running.wait_until("the service answers", |r| {
            r.get("/healthz", None).status == 200
        });
        running
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    /// `GET path`, with `token` as the bearer token.
    pub(crate) fn get(&self, path: &str, token: Option<&str>) -> Answer {
        self.get_as(path, token, "application/json")
    }

    /// `GET path` asking for `accept`.
    pub(crate) fn get_as(&self, path: &str, token: Option<&str>, accept: &str) -> Answer {
        let call = || {
            let mut request = self.agent.get(&self.url(path)).header("Accept", accept);
            if let Some(token) = token {
                request = request.header("Authorization", &format!("Bearer {token}"));
            }
            request.call()
        };
        // A GET is safe to repeat: once, when the kept-alive connection it
        // went out on was closed by the service meanwhile (its request
        // timeout, under load).
        match call() {
            Err(ureq::Error::Io(_)) => answer(call()),
            result => answer(result),
        }
    }

    /// `POST path` with a JSON body.
    pub(crate) fn post(&self, path: &str, token: Option<&str>, body: &str) -> Answer {
        self.post_as(path, token, body, "application/json", "application/json")
    }

    /// `POST path` with a body of `content_type`, asking for `accept`.
    pub(crate) fn post_as(
        &self,
        path: &str,
        token: Option<&str>,
        body: &str,
        content_type: &str,
        accept: &str,
    ) -> Answer {
        let mut request = self
            .agent
            .post(&self.url(path))
            .header("Content-Type", content_type)
            .header("Accept", accept);
        if let Some(token) = token {
            request = request.header("Authorization", &format!("Bearer {token}"));
        }
        answer(request.send(body.as_bytes()))
    }

    /// `/v1/status`, as the admin sees it.
    pub(crate) fn status(&self) -> Json {
        self.get("/v1/status", Some(ROOT)).json()
    }

    /// Polls until `condition` holds; fails the test after [`PATIENCE`].
    pub(crate) fn wait_until(&self, what: &str, condition: impl Fn(&Running) -> bool) {
        let deadline = Instant::now() + PATIENCE;
        while !condition(self) {
            assert!(Instant::now() < deadline, "gave up waiting for {what}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits until the status reports `generation`.
    pub(crate) fn wait_for_generation(&self, generation: u64) -> Json {
        self.wait_until(&format!("generation {generation}"), |r| {
            r.status()["generation"] == generation
        });
        self.status()
    }

    /// Waits until the status reports a catalogue reload error.
    pub(crate) fn wait_for_reload_error(&self) -> Json {
        self.wait_until("a reload error", |r| {
            !r.status()["lastReloadError"].is_null()
        });
        self.status()
    }

    /// Stops the service as a signal would and returns what `serve` did.
    pub(crate) fn shut_down(mut self) -> std::io::Result<()> {
        self.halt().expect("the service was running")
    }

    fn halt(&mut self) -> Option<std::io::Result<()>> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.thread
            .take()
            .map(|thread| thread.join().expect("the service thread does not panic"))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.halt();
    }
}

fn answer(result: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Answer {
    let mut response = result.expect("the service answers");
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned)
    };
    let generation = header("x-strata-generation").and_then(|g| g.parse().ok());
    let content_type = header("content-type").unwrap_or_default();
    Answer {
        status: response.status().as_u16(),
        generation,
        content_type,
        text: response.body_mut().read_to_string().expect("a text body"),
    }
}

/// Writes a file, creating its folders.
pub(crate) fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("folders");
    std::fs::write(path, text).expect("the file is written");
}

/// Replaces a file the way editors and `kubectl cp` do: a new file renamed
/// over the old, so a reader never sees half of it.
pub(crate) fn replace(path: &Path, text: &str) {
    let staged = path.with_extension("staged");
    std::fs::write(&staged, text).expect("the staged file is written");
    std::fs::rename(&staged, path).expect("the staged file replaces the old");
}

/// Rewrites a file in place, the way `echo > file` or a script does: the
/// file is truncated, then written `pause` later, so a reader in between
/// finds it empty.
pub(crate) fn rewrite_in_place(path: &Path, text: &str, pause: Duration) {
    use std::io::Write as _;
    let mut file = std::fs::File::create(path).expect("the file is truncated");
    std::thread::sleep(pause);
    file.write_all(text.as_bytes())
        .expect("the file is written");
}
