//! State stores: where a deployer keeps each instance's deployed resources
//! and the journal of every change ([`StateStore`]).
//!
//! The journal is what makes a deploy survive a crash: before each
//! provider call the deployer commits an *intent* (the resource, the
//! action, the record before and the record planned); after it, one
//! transaction writes the outcome and the resource's new record together.
//! An intent without an outcome is what recovery resolves at the next
//! deploy.
//!
//! [`SqliteStore`] is the embedded store: one `SQLite` file (WAL, full
//! synchronous commits), locked with `flock` on a side file beside it
//! (`<file>.lock`, [`strata_fs::LockFile`]): the kernel releases the lock
//! of a process that dies, so a killed deploy never leaves the instance
//! locked. Resources are stored as the deployer records them, secret
//! fields included (the file is created readable by its owner only).

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension as _, params};

use super::plan::{STATE_FORMAT, State, StateResource};

/// Why a store could not answer.
#[derive(Debug)]
pub enum StoreError {
    /// Another deploy holds the lock.
    Held(Option<strata_fs::Holder>),
    /// The store failed (what it said).
    Failed(String),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Held(holder) => {
                f.write_str("another deploy holds the state: ")?;
                write!(f, "{}", strata_fs::LockError::Held(holder.clone()))
            }
            StoreError::Failed(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for StoreError {}

impl From<rusqlite::Error> for StoreError {
    fn from(error: rusqlite::Error) -> StoreError {
        StoreError::Failed(format!("the state database failed: {error}"))
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(error: serde_json::Error) -> StoreError {
        StoreError::Failed(format!("a state record cannot be read: {error}"))
    }
}

/// A change a deployer is about to make.
#[derive(Debug, Clone, PartialEq)]
pub struct Intent {
    /// The deploy making it (its id).
    pub deploy: String,
    /// The resource.
    pub resource: String,
    /// `create`, `update`, `delete`.
    pub action: String,
    /// The resource's record before (none for a creation).
    pub before: Option<StateResource>,
    /// Its record planned after (none for a deletion).
    pub after: Option<StateResource>,
}

/// A journal entry: an intent and what became of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Its id, in the order changes were made.
    pub id: i64,
    /// The change.
    pub intent: Intent,
    /// `intent` (no outcome yet), `done`, `failed`, `reverted`,
    /// `abandoned`.
    pub status: String,
    /// Why it failed.
    pub message: Option<String>,
}

/// What became of an intent.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Done: the resource's record now (none: deleted).
    Done(Option<StateResource>),
    /// The provider failed.
    Failed(String),
    /// Undone by a rollback: the resource's record now (none: deleted).
    Reverted(Option<StateResource>),
    /// Never happened (recovery found nothing was changed).
    Abandoned,
}

/// Where instances' states and journals are kept.
pub trait StateStore {
    /// Takes the store's lock for a deploy, waiting up to `wait` for a
    /// holder that is going away; held until the guard is dropped.
    ///
    /// # Errors
    /// [`StoreError::Held`] naming the holder, or a failure.
    fn lock(&self, wait: Duration) -> Result<Box<dyn std::any::Any>, StoreError>;

    /// The state of `instance` (empty when it was never deployed).
    ///
    /// # Errors
    /// The store failed.
    fn load(&self, instance: &str) -> Result<State, StoreError>;

    /// Commits an intent; its journal id.
    ///
    /// # Errors
    /// The store failed.
    fn begin(&self, instance: &str, intent: &Intent) -> Result<i64, StoreError>;

    /// Commits what became of intent `id`, with the resource's record, in
    /// one transaction.
    ///
    /// # Errors
    /// The store failed.
    fn finish(&self, instance: &str, id: i64, outcome: &Outcome) -> Result<(), StoreError>;

    /// The journal of `instance`, oldest first.
    ///
    /// # Errors
    /// The store failed.
    fn journal(&self, instance: &str) -> Result<Vec<Entry>, StoreError>;

    /// Replaces the outputs of `instance` ([`State::outputs`]: its
    /// exports, which of them read secret material, its children's).
    ///
    /// # Errors
    /// The store failed.
    fn set_outputs(&self, instance: &str, outputs: &State) -> Result<(), StoreError>;

    /// Replaces the whole state of `instance` (`state import`).
    ///
    /// # Errors
    /// The store failed.
    fn replace(&self, instance: &str, state: &State) -> Result<(), StoreError>;

    /// Who holds the lock, when someone does (`Some(None)`: held, by a
    /// holder that wrote nothing).
    ///
    /// # Errors
    /// The store failed.
    fn holder(&self) -> Result<Option<Option<strata_fs::Holder>>, StoreError>;

    /// Ends a lock whose holder cannot be reached (`state unlock
    /// --force`); whether one was ended.
    ///
    /// # Errors
    /// The store cannot end it (a `flock` goes only with its process).
    fn break_lock(&self) -> Result<bool, StoreError>;
}

/// The embedded store: one `SQLite` file.
#[derive(Debug)]
pub struct SqliteStore {
    connection: Connection,
    path: PathBuf,
}

/// The schema, created when missing.
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS instances (
    name TEXT PRIMARY KEY,
    exports TEXT NOT NULL DEFAULT '{}',
    secret_exports TEXT NOT NULL DEFAULT '[]',
    children TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS resources (
    instance TEXT NOT NULL,
    name TEXT NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (instance, name)
);
CREATE TABLE IF NOT EXISTS journal (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    instance TEXT NOT NULL,
    deploy TEXT NOT NULL,
    resource TEXT NOT NULL,
    action TEXT NOT NULL,
    before TEXT,
    after TEXT,
    status TEXT NOT NULL,
    message TEXT
);
CREATE INDEX IF NOT EXISTS journal_open ON journal (instance, status);
";

/// The columns of `instances` added after the first release, each with
/// its definition: `secret_exports` (the exports that read a secret),
/// `children` (the outputs of the included blueprints deployed).
const ADDED_COLUMNS: [(&str, &str); 2] = [
    ("secret_exports", "TEXT NOT NULL DEFAULT '[]'"),
    ("children", "TEXT NOT NULL DEFAULT '{}'"),
];

/// Adds to a database made before them the columns of `instances` it
/// lacks (a concurrent opener adding one first is no failure).
fn add_columns(connection: &Connection) -> Result<(), StoreError> {
    for (column, definition) in ADDED_COLUMNS {
        let present = |connection: &Connection| -> Result<bool, StoreError> {
            Ok(connection.query_row(
                "SELECT COUNT(*) FROM pragma_table_info('instances') WHERE name = ?1",
                params![column],
                |row| row.get::<_, i64>(0),
            )? > 0)
        };
        if present(connection)? {
            continue;
        }
        match connection.execute_batch(&format!(
            "ALTER TABLE instances ADD COLUMN {column} {definition}"
        )) {
            Err(_) if present(connection)? => {}
            other => other?,
        }
    }
    Ok(())
}

/// Records an instance's outputs: its exports, which of them are secret,
/// its children's outputs.
const SET_OUTPUTS: &str = "INSERT INTO instances (name, exports, secret_exports, children) VALUES (?1, ?2, ?3, ?4)
     ON CONFLICT (name) DO UPDATE SET exports = excluded.exports, secret_exports = excluded.secret_exports, children = excluded.children";

/// The columns of an instance's outputs, as stored: exports, secret
/// exports, children.
pub(crate) fn outputs_columns(outputs: &State) -> Result<[String; 3], StoreError> {
    Ok([
        serde_json::to_string(&outputs.exports)?,
        serde_json::to_string(&outputs.secret_exports)?,
        serde_json::to_string(&outputs.children)?,
    ])
}

/// An instance's outputs from their stored columns.
pub(crate) fn outputs_from(columns: Option<[String; 3]>) -> Result<State, StoreError> {
    let mut outputs = State {
        format_version: STATE_FORMAT,
        ..State::default()
    };
    if let Some([exports, secret, children]) = columns {
        outputs.exports = serde_json::from_str(&exports)?;
        outputs.secret_exports = serde_json::from_str(&secret)?;
        outputs.children = serde_json::from_str(&children)?;
    }
    Ok(outputs)
}

impl SqliteStore {
    /// Opens (creating) the database at `path` and its folder.
    ///
    /// # Errors
    /// The folder or the database cannot be created.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        if let Some(folder) = path
            .parent()
            .filter(|folder| !folder.as_os_str().is_empty())
        {
            std::fs::create_dir_all(folder).map_err(|error| {
                StoreError::Failed(format!("cannot create `{}`: {error}", folder.display()))
            })?;
        }
        let connection = Connection::open(path)?;
        {
            // It holds secrets in clear: its owner alone reads it.
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(
                |error| {
                    StoreError::Failed(format!(
                        "cannot make `{}` readable by its owner only: {error}",
                        path.display()
                    ))
                },
            )?;
        }
        connection.busy_timeout(Duration::from_secs(5))?;
        // Switching to WAL takes the database whole for a moment and does
        // not wait for another process doing the same: retried.
        let mut attempts = 0;
        loop {
            let initialised = connection
                .pragma_update(None, "journal_mode", "WAL")
                .and_then(|()| connection.pragma_update(None, "synchronous", "FULL"))
                .and_then(|()| connection.execute_batch(SCHEMA));
            match initialised {
                Err(rusqlite::Error::SqliteFailure(
                    rusqlite::ffi::Error {
                        code: rusqlite::ErrorCode::DatabaseBusy,
                        ..
                    },
                    _,
                )) if attempts < 200 => {
                    attempts += 1;
                    std::thread::sleep(Duration::from_millis(25));
                }
                other => break other?,
            }
        }
        add_columns(&connection)?;
        Ok(SqliteStore {
            connection,
            path: path.to_owned(),
        })
    }

    /// The lock file beside the database.
    #[must_use]
    pub fn lock_path(&self) -> PathBuf {
        let mut name = self.path.as_os_str().to_owned();
        name.push(".lock");
        PathBuf::from(name)
    }
}

/// A record as stored.
fn encode(record: Option<&StateResource>) -> Result<Option<String>, StoreError> {
    Ok(record.map(serde_json::to_string).transpose()?)
}

fn decode(text: Option<String>) -> Result<Option<StateResource>, StoreError> {
    Ok(text.map(|text| serde_json::from_str(&text)).transpose()?)
}

impl StateStore for SqliteStore {
    fn holder(&self) -> Result<Option<Option<strata_fs::Holder>>, StoreError> {
        let path = self.lock_path();
        match strata_fs::LockFile::acquire(&path, &strata_fs::Holder::current(), Duration::ZERO) {
            Ok(_free) => Ok(None),
            Err(strata_fs::LockError::Held(holder)) => Ok(Some(holder)),
            Err(error) => Err(StoreError::Failed(error.to_string())),
        }
    }

    fn break_lock(&self) -> Result<bool, StoreError> {
        if self.holder()?.is_none() {
            return Ok(false);
        }
        Err(StoreError::Failed(
            "a `flock` lock is released only when its process ends, which it does however it ends: stop that deploy".to_owned(),
        ))
    }

    fn lock(&self, wait: Duration) -> Result<Box<dyn std::any::Any>, StoreError> {
        match strata_fs::LockFile::acquire(&self.lock_path(), &strata_fs::Holder::current(), wait) {
            Ok(lock) => Ok(Box::new(lock)),
            Err(strata_fs::LockError::Held(holder)) => Err(StoreError::Held(holder)),
            Err(error) => Err(StoreError::Failed(error.to_string())),
        }
    }

    fn load(&self, instance: &str) -> Result<State, StoreError> {
        let columns = self
            .connection
            .query_row(
                "SELECT exports, secret_exports, children FROM instances WHERE name = ?1",
                params![instance],
                |row| Ok([row.get(0)?, row.get(1)?, row.get(2)?]),
            )
            .optional()?;
        let mut state = outputs_from(columns)?;
        let mut statement = self
            .connection
            .prepare("SELECT name, record FROM resources WHERE instance = ?1 ORDER BY name")?;
        let rows = statement.query_map(params![instance], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
        })?;
        for row in rows {
            let (address, record) = row?;
            state.insert_addressed(&address, serde_json::from_str(&record)?);
        }
        Ok(state)
    }

    fn begin(&self, instance: &str, intent: &Intent) -> Result<i64, StoreError> {
        self.connection.execute(
            "INSERT INTO journal (instance, deploy, resource, action, before, after, status) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'intent')",
            params![
                instance,
                intent.deploy,
                intent.resource,
                intent.action,
                encode(intent.before.as_ref())?,
                encode(intent.after.as_ref())?,
            ],
        )?;
        Ok(self.connection.last_insert_rowid())
    }

    fn finish(&self, instance: &str, id: i64, outcome: &Outcome) -> Result<(), StoreError> {
        let transaction = self.connection.unchecked_transaction()?;
        let resource: String = transaction.query_row(
            "SELECT resource FROM journal WHERE id = ?1",
            params![id],
            |row| row.get(0),
        )?;
        let (status, message, record) = match outcome {
            Outcome::Done(record) => ("done", None, Some(record)),
            Outcome::Reverted(record) => ("reverted", None, Some(record)),
            Outcome::Failed(message) => ("failed", Some(message.as_str()), None),
            Outcome::Abandoned => ("abandoned", None, None),
        };
        match record {
            Some(Some(record)) => {
                transaction.execute(
                    "INSERT INTO resources (instance, name, record) VALUES (?1, ?2, ?3)
                     ON CONFLICT (instance, name) DO UPDATE SET record = excluded.record",
                    params![instance, resource, serde_json::to_string(record)?],
                )?;
            }
            Some(None) => {
                transaction.execute(
                    "DELETE FROM resources WHERE instance = ?1 AND name = ?2",
                    params![instance, resource],
                )?;
            }
            None => {}
        }
        transaction.execute(
            "UPDATE journal SET status = ?1, message = ?2 WHERE id = ?3",
            params![status, message, id],
        )?;
        transaction.commit()?;
        Ok(())
    }

    fn journal(&self, instance: &str) -> Result<Vec<Entry>, StoreError> {
        let mut statement = self.connection.prepare(
            "SELECT id, deploy, resource, action, before, after, status, message FROM journal WHERE instance = ?1 ORDER BY id",
        )?;
        let rows = statement.query_map(params![instance], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, String>(3)?,
                row.get::<_, Option<String>>(4)?,
                row.get::<_, Option<String>>(5)?,
                row.get::<_, String>(6)?,
                row.get::<_, Option<String>>(7)?,
            ))
        })?;
        let mut entries = Vec::new();
        for row in rows {
            let (id, deploy, resource, action, before, after, status, message) = row?;
            entries.push(Entry {
                id,
                intent: Intent {
                    deploy,
                    resource,
                    action,
                    before: decode(before)?,
                    after: decode(after)?,
                },
                status,
                message,
            });
        }
        Ok(entries)
    }

    fn set_outputs(&self, instance: &str, outputs: &State) -> Result<(), StoreError> {
        let [exports, secret, children] = outputs_columns(outputs)?;
        self.connection
            .execute(SET_OUTPUTS, params![instance, exports, secret, children])?;
        Ok(())
    }

    fn replace(&self, instance: &str, state: &State) -> Result<(), StoreError> {
        let transaction = self.connection.unchecked_transaction()?;
        transaction.execute(
            "DELETE FROM resources WHERE instance = ?1",
            params![instance],
        )?;
        for (address, record) in &state.addressed() {
            transaction.execute(
                "INSERT INTO resources (instance, name, record) VALUES (?1, ?2, ?3)",
                params![instance, address, serde_json::to_string(record)?],
            )?;
        }
        let [exports, secret, children] = outputs_columns(&state.outputs())?;
        transaction.execute(SET_OUTPUTS, params![instance, exports, secret, children])?;
        transaction.commit()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// A database made by the first release (no `secret_exports`, no
    /// `children`) opens, gains both columns, and keeps its records.
    #[test]
    fn a_database_of_the_first_release_gains_the_columns_added_since() {
        let folder = tempfile::tempdir().expect("a scratch folder");
        let path = folder.path().join("state.db");
        let old = Connection::open(&path).expect("opened");
        old.execute_batch(
            "CREATE TABLE instances (name TEXT PRIMARY KEY, exports TEXT NOT NULL DEFAULT '{}');
             CREATE TABLE resources (instance TEXT NOT NULL, name TEXT NOT NULL, record TEXT NOT NULL, PRIMARY KEY (instance, name));
             INSERT INTO instances (name, exports) VALUES ('dev', '{\"url\":\"x\"}');
             INSERT INTO resources VALUES ('dev', 'a', '{\"type\":\"core/value\",\"spec\":{\"value\":1}}');",
        )
        .expect("the first release's schema");
        drop(old);
        let store = SqliteStore::open(&path).expect("opened again");
        let mut state = store.load("dev").expect("loaded");
        assert_eq!(state.exports["url"], "x");
        assert_eq!(state.resources["a"].resource_type, "core/value");
        state.insert_addressed("children.site.page", state.resources["a"].clone());
        state.children.get_mut("site").expect("a child").exports =
            BTreeMap::from([("digest".to_owned(), serde_json::json!("d"))]);
        state.secret_exports = vec!["url".to_owned()];
        store.replace("dev", &state).expect("replaced");
        let loaded = store.load("dev").expect("loaded");
        assert_eq!(loaded.addressed(), state.addressed());
        assert_eq!(loaded.children["site"].exports["digest"], "d");
        assert_eq!(loaded.secret_exports, ["url"]);
    }
}
