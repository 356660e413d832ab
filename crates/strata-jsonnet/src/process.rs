//! Programs a render runs for qbec: the commands of `exec://` data sources
//! and `helm template` (for `helm3://` sources and the
//! `expandHelmTemplate` native).
//!
//! A [`Program`] runs with its input written on a thread of its own (a
//! program that does not read it cannot block the render), its standard
//! output kept up to a bound (more is an error, never memory without end),
//! its standard error kept up to [`MAX_STDERR_BYTES`] for the message, and
//! a timeout after which it is killed. Every failure is a message naming
//! the program as it was written.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The most bytes of a program's standard error kept for a message.
pub const MAX_STDERR_BYTES: usize = 4096;

/// How long a program may run when its configuration says nothing: qbec's
/// default for data sources.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_mins(1);

/// One run of a program.
#[derive(Debug, Clone)]
pub struct Program {
    /// The program as the configuration wrote it, for messages.
    pub command: String,
    /// Where it is ([`find_program`]).
    pub path: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables added to its environment.
    pub env: Vec<(String, String)>,
    /// Whether it sees this process's environment besides `env`.
    pub inherit_env: bool,
    /// Its standard input.
    pub stdin: Vec<u8>,
    /// The folder it runs in (this process's when `None`).
    pub dir: Option<PathBuf>,
    /// How long it may run before it is killed.
    pub timeout: Duration,
    /// The most bytes of standard output accepted.
    pub max_output: usize,
}

impl Program {
    /// A run of the program at `path` (written `command`) with no
    /// arguments, the inherited environment, no input, the default
    /// timeout, and output bounded by `max_output`.
    #[must_use]
    pub fn new(command: &str, path: PathBuf, max_output: usize) -> Program {
        Program {
            command: command.to_owned(),
            path,
            args: Vec::new(),
            env: Vec::new(),
            inherit_env: true,
            stdin: Vec::new(),
            dir: None,
            timeout: DEFAULT_TIMEOUT,
            max_output,
        }
    }

    /// Runs the program to its end and returns its standard output.
    ///
    /// # Errors
    ///
    /// Why there is no output: the program cannot start, runs past its
    /// timeout (it is killed), exits unsuccessfully (with its standard
    /// error, bounded), writes more than `max_output` bytes or text that
    /// is not UTF-8.
    pub fn run(&self) -> Result<String, String> {
        let mut command = Command::new(&self.path);
        command.args(&self.args);
        if !self.inherit_env {
            command.env_clear();
        }
        command
            .envs(self.env.iter().map(|(name, value)| (name, value)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = &self.dir {
            command.current_dir(dir);
        }
        let mut child = command
            .spawn()
            .map_err(|error| format!("`{}` cannot run: {error}", self.command))?;
        let stdin = child.stdin.take();
        let input = self.stdin.clone();
        let writer = std::thread::spawn(move || {
            if let Some(mut stdin) = stdin {
                // A program that does not read its input closes the pipe.
                let _ = stdin.write_all(&input);
            }
        });
        let output = read_on_thread(child.stdout.take(), self.max_output.saturating_add(1));
        let errors = read_on_thread(child.stderr.take(), MAX_STDERR_BYTES);
        let started = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if started.elapsed() >= self.timeout => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(format!(
                        "`{}` did not finish within {}",
                        self.command,
                        humantime::format_duration(self.timeout)
                    ));
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(error) => return Err(format!("`{}`: {error}", self.command)),
            }
        };
        let _ = writer.join();
        let output = output.join().unwrap_or_default();
        let error_text = String::from_utf8_lossy(&errors.join().unwrap_or_default())
            .trim()
            .to_owned();
        if !status.success() {
            let said = if error_text.is_empty() {
                String::new()
            } else {
                format!(": {error_text}")
            };
            return Err(format!("`{}` failed ({status}){said}", self.command));
        }
        if output.len() > self.max_output {
            return Err(format!(
                "`{}` wrote more than {} bytes",
                self.command, self.max_output
            ));
        }
        String::from_utf8(output)
            .map_err(|_| format!("`{}` wrote text that is not UTF-8", self.command))
    }
}

/// Reads at most `limit` bytes of `stream` on a thread of its own, so that
/// neither of a program's output pipes fills while the other is read.
fn read_on_thread(
    stream: Option<impl std::io::Read + Send + 'static>,
    limit: usize,
) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(stream) = stream {
            let _ = stream
                .take(u64::try_from(limit).unwrap_or(u64::MAX))
                .read_to_end(&mut bytes);
        }
        bytes
    })
}

/// The program `command` names: a path relative to `folder` (or absolute)
/// that is an executable file, else a name found on `PATH`.
#[must_use]
pub fn find_program(command: &str, folder: Option<&Path>) -> Option<PathBuf> {
    let executable = |path: &Path| {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::metadata(path)
            .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    };
    let written = Path::new(command);
    if written.is_absolute() {
        return executable(written).then(|| written.to_path_buf());
    }
    if let Some(local) = folder
        .map(|folder| folder.join(written))
        .filter(|path| executable(path))
    {
        return Some(local);
    }
    if command.contains('/') {
        return None;
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(command))
            .find(|candidate| executable(candidate))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell(script: &str) -> Program {
        let mut program = Program::new("sh", PathBuf::from("/bin/sh"), 64);
        program.args = vec!["-c".to_owned(), script.to_owned()];
        program
    }

    #[test]
    fn output_input_and_environment_reach_the_program() {
        let mut program = shell("read line; echo \"$line $GREETING\"");
        program.stdin = b"hello\n".to_vec();
        program.env = vec![("GREETING".to_owned(), "world".to_owned())];
        assert_eq!(program.run(), Ok("hello world\n".to_owned()));
    }

    #[test]
    fn failures_say_why() {
        let failed = shell("echo broken >&2; exit 3").run().unwrap_err();
        assert!(
            failed.contains("failed") && failed.ends_with(": broken"),
            "{failed}"
        );
        let long = shell("yes | head -c 100").run().unwrap_err();
        assert_eq!(long, "`sh` wrote more than 64 bytes");
        let mut slow = shell("sleep 5");
        slow.timeout = Duration::from_millis(100);
        assert_eq!(slow.run().unwrap_err(), "`sh` did not finish within 100ms");
    }
}
