//! The served-call floor's server: a minimal HTTP/1.1 loopback server answering every POST at
//! once with a canned JSON-RPC `tools/call` result. No MCP at all: it measures what the
//! machine charges for the HTTP exchange alone.

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The text every canned answer carries.
pub const TEXT: &str = "ok";

/// The floor's server: answers every POST at once with a canned JSON-RPC `tools/call`
/// result (the request's `id` echoed), HTTP/1.1 keep-alive; stops when dropped.
pub struct CannedServer {
    task: tokio::task::JoinHandle<()>,
    /// `http://127.0.0.1:<port>`.
    pub url: String,
}

impl Drop for CannedServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl CannedServer {
    /// Binds an ephemeral loopback port and serves in a task.
    pub async fn start() -> Result<Self, String> {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| format!("cannot bind the loopback server: {e}"))?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve_connection(stream));
            }
        });
        Ok(Self {
            task,
            url: format!("http://{addr}"),
        })
    }
}

/// Answers requests on one connection until it closes or sends something unreadable.
async fn serve_connection(mut stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    let mut buf: Vec<u8> = Vec::with_capacity(4096);
    loop {
        let Some((head_end, body_len)) = request_frame(&buf) else {
            if buf.len() > 1 << 20 || !read_more(&mut stream, &mut buf).await {
                return;
            }
            continue;
        };
        while buf.len() < head_end + body_len {
            if !read_more(&mut stream, &mut buf).await {
                return;
            }
        }
        let body = &buf[head_end..head_end + body_len];
        let id = serde_json::from_slice::<Value>(body)
            .ok()
            .and_then(|v| v.get("id").cloned())
            .unwrap_or(Value::Null);
        let answer = json!({"jsonrpc": "2.0", "id": id, "result": {
            "content": [{"type": "text", "text": TEXT}], "isError": false}})
        .to_string();
        let response = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{answer}",
            answer.len()
        );
        if stream.write_all(response.as_bytes()).await.is_err() {
            return;
        }
        buf.drain(..head_end + body_len);
    }
}

/// Reads what is there into `buf`; false at the end of the stream or on an error.
async fn read_more(stream: &mut TcpStream, buf: &mut Vec<u8>) -> bool {
    let mut chunk = [0u8; 8192];
    match stream.read(&mut chunk).await {
        Ok(0) | Err(_) => false,
        Ok(n) => {
            buf.extend_from_slice(&chunk[..n]);
            true
        }
    }
}

/// Where a complete request head ends in `buf` and how long its body is.
fn request_frame(buf: &[u8]) -> Option<(usize, usize)> {
    let end = buf.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = String::from_utf8_lossy(&buf[..end]);
    let len = head
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse().ok())
        .unwrap_or(0);
    Some((end, len))
}

/// Serves on an ephemeral loopback port, announced as the first stdout line
/// (`http://127.0.0.1:<port>`), until stdin closes.
pub fn serve_until_stdin_closes() -> crate::Entry {
    Box::pin(until_stdin_closes())
}

async fn until_stdin_closes() -> Result<(), String> {
    let server = CannedServer::start().await?;
    crate::announce(&server.url).await?;
    crate::stdin_closed().await;
    drop(server);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_heads_are_framed() {
        assert_eq!(
            request_frame(b"POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"),
            Some((38, 3))
        );
        assert_eq!(request_frame(b"POST / HTTP/1.1\r\n"), None);
    }
}
