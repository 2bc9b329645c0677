//! Standard input and output as non-blocking pipes on the tokio reactor.
//!
//! `tokio::io::stdin()` and `stdout()` hand every read and every write to the blocking
//! thread pool, because a terminal or a file cannot be polled: that is two thread hand-offs
//! (and their wake-ups) per request line, which the driver's and the mock servers' round
//! trips paid on every call. A harness, a port or an MCP client starts these programs with
//! pipes, and a pipe can be polled: so when fd 0 or fd 1 is a pipe it is registered with the
//! reactor, and anything else (a terminal, a file, a socket) keeps tokio's blocking version.
//!
//! Registering sets `O_NONBLOCK` on the pipe's open file description, which a process that
//! inherits the same descriptor would see too: the flags are restored when the handle drops,
//! and the programs using this start every child with stdin and stdout of its own.

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::pin::Pin;
use std::task::{Context, Poll};

use nix::fcntl::{fcntl, FcntlArg, OFlag};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::unix::pipe;

/// The status flags of `fd` before registration, put back on drop.
struct Restore {
    fd: RawFd,
    flags: Option<OFlag>,
}

impl Restore {
    fn of(fd: BorrowedFd<'_>) -> Self {
        let flags = fcntl(fd, FcntlArg::F_GETFL)
            .ok()
            .map(OFlag::from_bits_truncate);
        Restore {
            fd: fd.as_raw_fd(),
            flags,
        }
    }
}

impl Drop for Restore {
    fn drop(&mut self) {
        if let Some(flags) = self.flags {
            // SAFETY: fd 0 and fd 1 stay open for the life of the process; this only
            // borrows one for the duration of the call.
            let fd = unsafe { BorrowedFd::borrow_raw(self.fd) };
            let _ = fcntl(fd, FcntlArg::F_SETFL(flags));
        }
    }
}

/// Registers a duplicate of `fd` (so dropping the pipe never closes the standard
/// descriptor) with `open`, and remembers the flags registration is about to change; `None`
/// when `fd` is not a pipe, in which case nothing was changed.
fn register<T>(
    fd: BorrowedFd<'_>,
    open: impl FnOnce(OwnedFd) -> io::Result<T>,
) -> Option<(T, Restore)> {
    // Read before registering, which sets O_NONBLOCK.
    let restore = Restore::of(fd);
    let pipe = fd.try_clone_to_owned().and_then(open).ok()?;
    Some((pipe, restore))
}

/// This process's standard input: a reactor-registered pipe when it is one.
pub struct Stdin {
    inner: StdinKind,
    _restore: Option<Restore>,
}

enum StdinKind {
    Pipe(pipe::Receiver),
    Blocking(tokio::io::Stdin),
}

/// This process's standard output: a reactor-registered pipe when it is one.
pub struct Stdout {
    inner: StdoutKind,
    _restore: Option<Restore>,
}

enum StdoutKind {
    Pipe(pipe::Sender),
    Blocking(tokio::io::Stdout),
}

/// Standard input; must be called inside a tokio runtime with IO enabled.
pub fn stdin() -> Stdin {
    match register(io::stdin().as_fd(), pipe::Receiver::from_owned_fd) {
        Some((pipe, restore)) => Stdin {
            inner: StdinKind::Pipe(pipe),
            _restore: Some(restore),
        },
        None => Stdin {
            inner: StdinKind::Blocking(tokio::io::stdin()),
            _restore: None,
        },
    }
}

/// Standard output; must be called inside a tokio runtime with IO enabled.
pub fn stdout() -> Stdout {
    match register(io::stdout().as_fd(), pipe::Sender::from_owned_fd) {
        Some((pipe, restore)) => Stdout {
            inner: StdoutKind::Pipe(pipe),
            _restore: Some(restore),
        },
        None => Stdout {
            inner: StdoutKind::Blocking(tokio::io::stdout()),
            _restore: None,
        },
    }
}

impl AsyncRead for Stdin {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match &mut self.get_mut().inner {
            StdinKind::Pipe(p) => Pin::new(p).poll_read(cx, buf),
            StdinKind::Blocking(s) => Pin::new(s).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stdout {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().inner {
            StdoutKind::Pipe(p) => Pin::new(p).poll_write(cx, data),
            StdoutKind::Blocking(s) => Pin::new(s).poll_write(cx, data),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().inner {
            StdoutKind::Pipe(p) => Pin::new(p).poll_flush(cx),
            StdoutKind::Blocking(s) => Pin::new(s).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().inner {
            StdoutKind::Pipe(p) => Pin::new(p).poll_shutdown(cx),
            StdoutKind::Blocking(s) => Pin::new(s).poll_shutdown(cx),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().inner {
            StdoutKind::Pipe(p) => Pin::new(p).poll_write_vectored(cx, bufs),
            StdoutKind::Blocking(s) => Pin::new(s).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match &self.inner {
            StdoutKind::Pipe(p) => p.is_write_vectored(),
            StdoutKind::Blocking(s) => s.is_write_vectored(),
        }
    }
}
