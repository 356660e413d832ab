//! The team store: a `PostgreSQL` database (`postgres://…`), the same
//! records as the `SQLite` store in a schema of its own (`strata`), created
//! and migrated by the first deploy that connects (migrations are numbered
//! and applied once, under a transaction-scoped advisory lock).
//!
//! **Lock**: a session advisory lock taken on a connection of its own that
//! does nothing else, with `client_connection_check_interval` set so the
//! server notices a vanished client; the lock ends with that connection
//! (a killed deploy's lock is gone when its connection is). Who holds it
//! (process, host, start) is written beside it for people.
//!
//! **Fencing**: taking the lock increments the store's epoch; every write
//! runs in a transaction that first reads the epoch (`FOR UPDATE`) and
//! refuses to write when it is no longer the one this deploy took: a deploy
//! whose lock was lost (its lock connection dropped, another deploy took
//! over) cannot write, even if it does not know yet.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::time::{Duration, Instant};

use postgres::{Client, NoTls, Transaction};

use super::plan::{State, StateResource};
use super::store::{Entry, Intent, Outcome, StateStore, StoreError, outputs_columns, outputs_from};

/// The advisory lock's key: the store's lock (one per database).
const LOCK_KEY: i64 = 0x5354_5241_5441; // "STRATA"

/// The migrations, in order; each applied once.
const MIGRATIONS: &[&str] = &[
    "
CREATE TABLE strata.lease (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    epoch BIGINT NOT NULL,
    pid BIGINT,
    host TEXT,
    since BIGINT
);
INSERT INTO strata.lease (id, epoch) VALUES (1, 0);
CREATE TABLE strata.instances (
    name TEXT PRIMARY KEY,
    exports TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE strata.resources (
    instance TEXT NOT NULL,
    name TEXT NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (instance, name)
);
CREATE TABLE strata.journal (
    id BIGSERIAL PRIMARY KEY,
    instance TEXT NOT NULL,
    deploy TEXT NOT NULL,
    resource TEXT NOT NULL,
    action TEXT NOT NULL,
    before TEXT,
    after TEXT,
    status TEXT NOT NULL,
    message TEXT
);
CREATE INDEX journal_open ON strata.journal (instance, status);
",
    "
ALTER TABLE strata.instances ADD COLUMN secret_exports TEXT NOT NULL DEFAULT '[]';
",
    "
ALTER TABLE strata.instances ADD COLUMN children TEXT NOT NULL DEFAULT '{}';
",
];

/// Records an instance's exports and which of them are secret.
const SET_OUTPUTS: &str = "INSERT INTO strata.instances (name, exports, secret_exports, children) VALUES ($1, $2, $3, $4)
     ON CONFLICT (name) DO UPDATE SET exports = excluded.exports, secret_exports = excluded.secret_exports, children = excluded.children";

/// The `PostgreSQL` store.
pub struct PostgresStore {
    url: String,
    client: RefCell<Client>,
    /// The epoch this deploy's lock took (0: none).
    epoch: Cell<i64>,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("epoch", &self.epoch.get())
            .finish_non_exhaustive()
    }
}

fn failed(error: &postgres::Error) -> StoreError {
    StoreError::Failed(format!("the state database failed: {error}"))
}

impl PostgresStore {
    /// Connects to `url` and brings the schema up to date.
    ///
    /// # Errors
    /// The server cannot be reached, or a migration fails.
    pub fn connect(url: &str) -> Result<PostgresStore, StoreError> {
        let mut client = Client::connect(url, NoTls).map_err(|error| failed(&error))?;
        migrate(&mut client)?;
        Ok(PostgresStore {
            url: url.to_owned(),
            client: RefCell::new(client),
            epoch: Cell::new(0),
        })
    }

    /// The epoch this store's lock took (0 before `lock`).
    #[must_use]
    pub fn epoch(&self) -> i64 {
        self.epoch.get()
    }

    /// Runs `write` in a transaction fenced by this deploy's epoch.
    fn fenced<T>(
        &self,
        write: impl FnOnce(&mut Transaction<'_>) -> Result<T, postgres::Error>,
    ) -> Result<T, StoreError> {
        let mut client = self.client.borrow_mut();
        let mut transaction = client.transaction().map_err(|error| failed(&error))?;
        let current: i64 = transaction
            .query_one(
                "SELECT epoch FROM strata.lease WHERE id = 1 FOR UPDATE",
                &[],
            )
            .map_err(|error| failed(&error))?
            .get(0);
        if current != self.epoch.get() {
            return Err(StoreError::Failed(format!(
                "this deploy no longer holds the state's lock (its epoch is {}, the state's {current}): nothing is written",
                self.epoch.get()
            )));
        }
        let value = write(&mut transaction).map_err(|error| failed(&error))?;
        transaction.commit().map_err(|error| failed(&error))?;
        Ok(value)
    }
}

/// Creates the schema and applies the migrations not applied yet.
fn migrate(client: &mut Client) -> Result<(), StoreError> {
    let mut transaction = client.transaction().map_err(|error| failed(&error))?;
    transaction
        .execute("SELECT pg_advisory_xact_lock($1)", &[&(LOCK_KEY + 1)])
        .map_err(|error| failed(&error))?;
    transaction
        .batch_execute(
            "CREATE SCHEMA IF NOT EXISTS strata;
             CREATE TABLE IF NOT EXISTS strata.migrations (version INTEGER PRIMARY KEY);",
        )
        .map_err(|error| failed(&error))?;
    let applied: i32 = transaction
        .query_one(
            "SELECT COALESCE(MAX(version), 0) FROM strata.migrations",
            &[],
        )
        .map_err(|error| failed(&error))?
        .get(0);
    for (index, migration) in MIGRATIONS.iter().enumerate() {
        let version = i32::try_from(index + 1).unwrap_or(i32::MAX);
        if version <= applied {
            continue;
        }
        transaction
            .batch_execute(migration)
            .map_err(|error| failed(&error))?;
        transaction
            .execute(
                "INSERT INTO strata.migrations (version) VALUES ($1)",
                &[&version],
            )
            .map_err(|error| failed(&error))?;
    }
    transaction.commit().map_err(|error| failed(&error))
}

fn encode(record: Option<&StateResource>) -> Result<Option<String>, StoreError> {
    Ok(record.map(serde_json::to_string).transpose()?)
}

fn decode(text: Option<String>) -> Result<Option<StateResource>, StoreError> {
    Ok(text.map(|text| serde_json::from_str(&text)).transpose()?)
}

impl PostgresStore {
    /// The holder the lease row names.
    fn named_holder(&self) -> Result<Option<strata_fs::Holder>, StoreError> {
        let row = self
            .client
            .borrow_mut()
            .query_one(
                "SELECT pid, host, since FROM strata.lease WHERE id = 1",
                &[],
            )
            .map_err(|error| failed(&error))?;
        Ok(
            match (
                row.get::<_, Option<i64>>(0),
                row.get::<_, Option<String>>(1),
                row.get::<_, Option<i64>>(2),
            ) {
                (Some(pid), Some(host), Some(since)) => Some(strata_fs::Holder {
                    pid: u32::try_from(pid).unwrap_or_default(),
                    host,
                    since: u64::try_from(since).unwrap_or_default(),
                }),
                _ => None,
            },
        )
    }
}

impl StateStore for PostgresStore {
    fn holder(&self) -> Result<Option<Option<strata_fs::Holder>>, StoreError> {
        let held: bool = self
            .client
            .borrow_mut()
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND ((classid::bigint << 32) | objid::bigint) = $1)",
                &[&LOCK_KEY],
            )
            .map_err(|error| failed(&error))?
            .get(0);
        if held {
            Ok(Some(self.named_holder()?))
        } else {
            Ok(None)
        }
    }

    fn break_lock(&self) -> Result<bool, StoreError> {
        let ended: i64 = self
            .client
            .borrow_mut()
            .query_one(
                "SELECT COUNT(pg_terminate_backend(pid)) FROM pg_locks WHERE locktype = 'advisory' AND granted AND ((classid::bigint << 32) | objid::bigint) = $1",
                &[&LOCK_KEY],
            )
            .map_err(|error| failed(&error))?
            .get(0);
        Ok(ended > 0)
    }

    fn lock(&self, wait: Duration) -> Result<Box<dyn Any>, StoreError> {
        let mut locker = Client::connect(&self.url, NoTls).map_err(|error| failed(&error))?;
        locker
            .batch_execute("SET client_connection_check_interval = '1s'")
            .map_err(|error| failed(&error))?;
        let deadline = Instant::now() + wait;
        loop {
            let taken: bool = locker
                .query_one("SELECT pg_try_advisory_lock($1)", &[&LOCK_KEY])
                .map_err(|error| failed(&error))?
                .get(0);
            if taken {
                break;
            }
            if Instant::now() >= deadline {
                return Err(StoreError::Held(self.named_holder()?));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let holder = strata_fs::Holder::current();
        let epoch: i64 = self
            .client
            .borrow_mut()
            .query_one(
                "UPDATE strata.lease SET epoch = epoch + 1, pid = $1, host = $2, since = $3 WHERE id = 1 RETURNING epoch",
                &[
                    &i64::from(holder.pid),
                    &holder.host,
                    &i64::try_from(holder.since).unwrap_or_default(),
                ],
            )
            .map_err(|error| failed(&error))?
            .get(0);
        self.epoch.set(epoch);
        Ok(Box::new(locker))
    }

    fn load(&self, instance: &str) -> Result<State, StoreError> {
        let mut client = self.client.borrow_mut();
        let columns = client
            .query_opt(
                "SELECT exports, secret_exports, children FROM strata.instances WHERE name = $1",
                &[&instance],
            )
            .map_err(|error| failed(&error))?;
        let mut state = outputs_from(columns.map(|row| [row.get(0), row.get(1), row.get(2)]))?;
        let rows = client
            .query(
                "SELECT name, record FROM strata.resources WHERE instance = $1 ORDER BY name",
                &[&instance],
            )
            .map_err(|error| failed(&error))?;
        for row in rows {
            let (address, record): (String, String) = (row.get(0), row.get(1));
            state.insert_addressed(&address, serde_json::from_str(&record)?);
        }
        Ok(state)
    }

    fn begin(&self, instance: &str, intent: &Intent) -> Result<i64, StoreError> {
        let before = encode(intent.before.as_ref())?;
        let after = encode(intent.after.as_ref())?;
        self.fenced(|transaction| {
            Ok(transaction
                .query_one(
                    "INSERT INTO strata.journal (instance, deploy, resource, action, before, after, status) VALUES ($1, $2, $3, $4, $5, $6, 'intent') RETURNING id",
                    &[&instance, &intent.deploy, &intent.resource, &intent.action, &before, &after],
                )?
                .get(0))
        })
    }

    fn finish(&self, instance: &str, id: i64, outcome: &Outcome) -> Result<(), StoreError> {
        let (status, message, record) = match outcome {
            Outcome::Done(record) => ("done", None, Some(record)),
            Outcome::Reverted(record) => ("reverted", None, Some(record)),
            Outcome::Failed(message) => ("failed", Some(message.clone()), None),
            Outcome::Abandoned => ("abandoned", None, None),
        };
        let encoded = match record {
            Some(Some(record)) => Some(Some(serde_json::to_string(record)?)),
            Some(None) => Some(None),
            None => None,
        };
        self.fenced(|transaction| {
            let resource: String = transaction
                .query_one("SELECT resource FROM strata.journal WHERE id = $1", &[&id])?
                .get(0);
            match &encoded {
                Some(Some(record)) => {
                    transaction.execute(
                        "INSERT INTO strata.resources (instance, name, record) VALUES ($1, $2, $3)
                         ON CONFLICT (instance, name) DO UPDATE SET record = excluded.record",
                        &[&instance, &resource, record],
                    )?;
                }
                Some(None) => {
                    transaction.execute(
                        "DELETE FROM strata.resources WHERE instance = $1 AND name = $2",
                        &[&instance, &resource],
                    )?;
                }
                None => {}
            }
            transaction.execute(
                "UPDATE strata.journal SET status = $1, message = $2 WHERE id = $3",
                &[&status, &message, &id],
            )?;
            Ok(())
        })
    }

    fn journal(&self, instance: &str) -> Result<Vec<Entry>, StoreError> {
        let rows = self
            .client
            .borrow_mut()
            .query(
                "SELECT id, deploy, resource, action, before, after, status, message FROM strata.journal WHERE instance = $1 ORDER BY id",
                &[&instance],
            )
            .map_err(|error| failed(&error))?;
        rows.into_iter()
            .map(|row| {
                Ok(Entry {
                    id: row.get(0),
                    intent: Intent {
                        deploy: row.get(1),
                        resource: row.get(2),
                        action: row.get(3),
                        before: decode(row.get(4))?,
                        after: decode(row.get(5))?,
                    },
                    status: row.get(6),
                    message: row.get(7),
                })
            })
            .collect()
    }

    fn set_outputs(&self, instance: &str, outputs: &State) -> Result<(), StoreError> {
        let [exports, secret, children] = outputs_columns(outputs)?;
        self.fenced(|transaction| {
            transaction.execute(SET_OUTPUTS, &[&instance, &exports, &secret, &children])?;
            Ok(())
        })
    }

    fn replace(&self, instance: &str, state: &State) -> Result<(), StoreError> {
        let records: Vec<(String, String)> = state
            .addressed()
            .into_iter()
            .map(|(address, record)| Ok((address, serde_json::to_string(&record)?)))
            .collect::<Result<_, serde_json::Error>>()?;
        let [exports, secret, children] = outputs_columns(&state.outputs())?;
        self.fenced(|transaction| {
            transaction.execute(
                "DELETE FROM strata.resources WHERE instance = $1",
                &[&instance],
            )?;
            for (name, record) in &records {
                transaction.execute(
                    "INSERT INTO strata.resources (instance, name, record) VALUES ($1, $2, $3)",
                    &[&instance, name, record],
                )?;
            }
            transaction.execute(SET_OUTPUTS, &[&instance, &exports, &secret, &children])?;
            Ok(())
        })
    }
}
