//! A `PostgreSQL` server of the test's own: `initdb` and `pg_ctl` run as the
//! `postgres` user in a temporary folder, listening on a free local port,
//! stopped when the value is dropped (`PostgreSQL` 15 is installed on these
//! machines; it is installed with apt when `initdb` is missing).
#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]

use std::path::Path;
use std::process::Command;

/// A running server.
pub(crate) struct Postgres {
    folder: tempfile::TempDir,
    port: u16,
}

/// Runs `command` as the `postgres` user (these tests run as root).
fn as_postgres(command: &str) -> bool {
    Command::new("su")
        .args(["postgres", "-c", command])
        .status()
        .expect("su runs")
        .success()
}

impl Postgres {
    /// Starts a server.
    pub(crate) fn start() -> Postgres {
        if !Path::new("/usr/local/bin/initdb").exists()
            && Command::new("sh")
                .args(["-c", "command -v initdb"])
                .status()
                .is_ok_and(|s| !s.success())
        {
            let installed = Command::new("sh")
                .args(["-c", "apt-get install -y -q postgresql >/dev/null 2>&1"])
                .status()
                .expect("apt-get runs");
            assert!(installed.success(), "postgresql is installed");
        }
        let folder = tempfile::tempdir().expect("a scratch folder");
        let dir = folder.path().display().to_string();
        std::fs::set_permissions(
            folder.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o777),
        )
        .expect("opened to the postgres user");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        assert!(
            as_postgres(&format!(
                "initdb -D {dir}/data -A trust -U postgres >/dev/null 2>&1"
            )),
            "initdb"
        );
        assert!(
            as_postgres(&format!(
                "pg_ctl -D {dir}/data -o '-p {port} -k {dir} -c listen_addresses=127.0.0.1' -l {dir}/log -w start >/dev/null"
            )),
            "pg_ctl start"
        );
        Postgres { folder, port }
    }

    /// A new, empty database's URL.
    pub(crate) fn database(&self, name: &str) -> String {
        assert!(
            as_postgres(&format!("createdb -h 127.0.0.1 -p {} {name}", self.port)),
            "createdb {name}"
        );
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let dir = self.folder.path().display().to_string();
        as_postgres(&format!(
            "pg_ctl -D {dir}/data -m immediate -w stop >/dev/null"
        ));
    }
}
