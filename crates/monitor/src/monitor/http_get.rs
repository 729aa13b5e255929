//! `GET /metrics` over HTTP/1.1, as small as a scrape needs: one request per connection
//! (`Connection: close`), a body of at most [`MAX_BODY_BYTES`], plain or chunked. The
//! caller bounds the time (see `scrape`).

use std::net::SocketAddr;
use thiserror::Error;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A scrape larger than this is refused (300 links of figures take about 1 MB).
pub const MAX_BODY_BYTES: usize = 16 << 20;

#[derive(Debug, Error)]
pub enum GetError {
    #[error("{address}: {source}")]
    Io {
        address: SocketAddr,
        source: std::io::Error,
    },
    #[error("{address}: answer larger than {MAX_BODY_BYTES} bytes")]
    TooLarge { address: SocketAddr },
    #[error("{address}: {what}")]
    Http { address: SocketAddr, what: String },
}

/// The body of `GET path` at `address`, if it answers 200.
pub async fn get(address: SocketAddr, path: &str) -> Result<String, GetError> {
    let io = |source| GetError::Io { address, source };
    let mut stream = TcpStream::connect(address).await.map_err(io)?;
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nAccept: text/plain\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.map_err(io)?;
    let mut answer = Vec::new();
    let mut limited = (&mut stream).take(MAX_BODY_BYTES as u64 + 64 * 1024);
    limited.read_to_end(&mut answer).await.map_err(io)?;
    if answer.len() > MAX_BODY_BYTES + 64 * 1024 - 1 {
        return Err(GetError::TooLarge { address });
    }
    body_of(&answer).map_err(|what| GetError::Http { address, what })
}

/// The body of a whole HTTP/1.1 answer, checked to be a 200.
fn body_of(answer: &[u8]) -> Result<String, String> {
    let end = find(answer, b"\r\n\r\n").ok_or("answer without a header end")?;
    let head = String::from_utf8_lossy(&answer[..end]);
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap_or_default();
    let code = status.split_whitespace().nth(1).unwrap_or_default();
    if code != "200" {
        return Err(format!("answered {status:?}"));
    }
    let chunked = lines.any(|line| {
        let lower = line.to_ascii_lowercase();
        lower.starts_with("transfer-encoding:") && lower.contains("chunked")
    });
    let body = &answer[end + 4..];
    let body = if chunked {
        dechunk(body)?
    } else {
        body.to_vec()
    };
    String::from_utf8(body).map_err(|_| "body is not UTF-8".to_owned())
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// A chunked body: `SIZE-in-hex[;ext]\r\nDATA\r\n` … `0\r\n\r\n`.
fn dechunk(mut body: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    loop {
        let line_end = find(body, b"\r\n").ok_or("chunk without a size line")?;
        let size_text = String::from_utf8_lossy(&body[..line_end]);
        let size_text = size_text.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| format!("bad chunk size {size_text:?}"))?;
        body = &body[line_end + 2..];
        if size == 0 {
            return Ok(out);
        }
        let chunk = body.get(..size).ok_or("chunk shorter than its size")?;
        out.extend_from_slice(chunk);
        body = body.get(size + 2..).ok_or("chunk without its line end")?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_plain_and_chunked_bodies_and_refuses_other_statuses() {
        let plain = b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nm 1\n\n";
        assert_eq!(body_of(plain).unwrap(), "m 1\n\n");
        let chunked =
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nm 1\n\r\n6;x=y\r\nn 22\n\n\r\n0\r\n\r\n";
        assert_eq!(body_of(chunked).unwrap(), "m 1\nn 22\n\n");
        let missing = b"HTTP/1.1 404 Not Found\r\n\r\n";
        assert!(body_of(missing).unwrap_err().contains("404"));
        assert!(body_of(b"garbage").is_err());
        let short = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nff\r\nab";
        assert!(body_of(short).is_err());
    }
}
