//! One port setup at a time per state folder. Two runs that both find a port not set up (two
//! terminals, CI jobs sharing a machine's cache) would otherwise remove and rebuild the same
//! venv or driver build at once; the second now waits for the first, as cargo waits on its
//! own lock, and then finds the port ready.

use std::fs::{File, OpenOptions};
use std::path::Path;

use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};

/// The exclusive lock on `ROOT/target/.setup.lock`, released when dropped (or when the
/// process ends, however it ends: the kernel drops a `flock` with its last descriptor).
pub struct SetupLock {
    _held: Flock<File>,
}

/// Takes the setup lock of the state folder under `root` (its `target/`, which an installed
/// binary's unpacked copy links to the kept state), waiting while another process holds it;
/// `name` is the port, for the note that says so.
pub fn acquire(root: &Path, name: &str) -> Result<SetupLock, String> {
    let target = root.join("target");
    std::fs::create_dir_all(&target)
        .map_err(|e| format!("{name}: cannot make {}: {e}", target.display()))?;
    let path = target.join(".setup.lock");
    let file = OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| format!("{name}: cannot open {}: {e}", path.display()))?;
    let cannot = |e: Errno| format!("{name}: cannot lock {}: {e}", path.display());
    let mut file = match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
        Ok(held) => return Ok(SetupLock { _held: held }),
        Err((file, Errno::EWOULDBLOCK)) => file,
        Err((_, e)) => return Err(cannot(e)),
    };
    eprintln!(
        "{name}: waiting for another setup to finish (it holds {})",
        path.display()
    );
    loop {
        match Flock::lock(file, FlockArg::LockExclusive) {
            Ok(held) => return Ok(SetupLock { _held: held }),
            Err((again, Errno::EINTR)) => file = again,
            Err((_, e)) => return Err(cannot(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn a_second_setup_waits_until_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let first = acquire(dir.path(), "p").unwrap_or_else(|e| panic!("{e}"));
        let (done, finished) = mpsc::channel();
        let root = dir.path().to_path_buf();
        let waiter = std::thread::spawn(move || {
            let second = acquire(&root, "p");
            let _ = done.send(second.is_ok());
        });
        // Still waiting while the first is held (a flock conflicts across open files, so
        // this holds within one process as across two).
        assert!(finished.recv_timeout(Duration::from_millis(300)).is_err());
        drop(first);
        assert_eq!(finished.recv_timeout(Duration::from_secs(30)), Ok(true));
        waiter
            .join()
            .unwrap_or_else(|_| panic!("the waiter panicked"));
    }
}
