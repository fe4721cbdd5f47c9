//! The few parts of HTTP/1.1 the stub needs: read one request (headers plus a `Content-Length` or
//! chunked body) from a keep-alive connection, and write a response with a fixed length or chunked.

use std::io::{self, BufRead, Read, Write};

/// Largest request head (request line and headers) the stub accepts.
const MAX_HEAD_BYTES: usize = 64 * 1024;
/// Largest request body the stub accepts (the CLI's requests are a few hundred kB at most).
const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// One parsed HTTP request.
#[derive(Debug)]
pub(crate) struct HttpRequest {
    pub(crate) method: String,
    pub(crate) path: String,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl HttpRequest {
    /// The first header with this name (case-insensitive).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether the client asked to close the connection after this request.
    pub(crate) fn wants_close(&self) -> bool {
        self.header("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"))
    }
}

fn invalid(msg: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.to_owned())
}

/// Reads one line ending in `\n` (without it and a trailing `\r`), bounded by `budget` bytes.
fn read_line(reader: &mut impl BufRead, budget: &mut usize) -> io::Result<Option<String>> {
    let mut line = Vec::new();
    let mut limited = Read::take(&mut *reader, *budget as u64 + 1);
    let n = limited.read_until(b'\n', &mut line)?;
    if n == 0 {
        return Ok(None);
    }
    if n > *budget {
        return Err(invalid("request head too large"));
    }
    *budget -= n;
    if line.last() == Some(&b'\n') {
        line.pop();
    } else {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "connection closed inside a request head",
        ));
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    String::from_utf8(line)
        .map(Some)
        .map_err(|_| invalid("request head is not UTF-8"))
}

/// Reads the next request, or `None` when the client closed the connection between requests.
pub(crate) fn read_request(reader: &mut impl BufRead) -> io::Result<Option<HttpRequest>> {
    let mut budget = MAX_HEAD_BYTES;
    let request_line = loop {
        match read_line(reader, &mut budget)? {
            None => return Ok(None),
            // Tolerate stray empty lines between requests (RFC 9112 §2.2).
            Some(line) if line.is_empty() => continue,
            Some(line) => break line,
        }
    };
    let mut parts = request_line.split_whitespace();
    let (Some(method), Some(path)) = (parts.next(), parts.next()) else {
        return Err(invalid("malformed request line"));
    };
    let (method, path) = (method.to_owned(), path.to_owned());

    let mut headers = Vec::new();
    loop {
        let line = read_line(reader, &mut budget)?
            .ok_or_else(|| invalid("connection closed inside a request head"))?;
        if line.is_empty() {
            break;
        }
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| invalid("malformed header line"))?;
        headers.push((name.trim().to_owned(), value.trim().to_owned()));
    }

    let mut request = HttpRequest {
        method,
        path,
        headers,
        body: Vec::new(),
    };
    let chunked = request
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if chunked {
        request.body = read_chunked_body(reader)?;
    } else if let Some(len) = request.header("content-length") {
        let len: usize = len
            .parse()
            .map_err(|_| invalid("bad Content-Length header"))?;
        if len > MAX_BODY_BYTES {
            return Err(invalid("request body too large"));
        }
        let mut body = vec![0; len];
        reader.read_exact(&mut body)?;
        request.body = body;
    }
    Ok(Some(request))
}

fn read_chunked_body(reader: &mut impl BufRead) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut budget = MAX_HEAD_BYTES;
        let size_line =
            read_line(reader, &mut budget)?.ok_or_else(|| invalid("connection closed in body"))?;
        let size_hex = size_line.split(';').next().unwrap_or("").trim();
        let size =
            usize::from_str_radix(size_hex, 16).map_err(|_| invalid("bad chunk size line"))?;
        if size == 0 {
            // Trailers, up to the empty line.
            while read_line(reader, &mut budget)?.is_some_and(|l| !l.is_empty()) {}
            return Ok(body);
        }
        if body.len() + size > MAX_BODY_BYTES {
            return Err(invalid("request body too large"));
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        let mut crlf = [0u8; 2];
        reader.read_exact(&mut crlf)?;
    }
}

/// The reason phrase for the status codes the stub sends.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        529 => "Overloaded",
        _ => "Status",
    }
}

fn write_head(
    out: &mut impl Write,
    status: u16,
    headers: &[(&str, String)],
    framing: &str,
) -> io::Result<()> {
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(framing);
    head.push_str("\r\n");
    out.write_all(head.as_bytes())
}

/// Writes a whole response with a `Content-Length`.
pub(crate) fn write_response(
    out: &mut impl Write,
    status: u16,
    headers: &[(&str, String)],
    body: &[u8],
) -> io::Result<()> {
    write_head(
        out,
        status,
        headers,
        &format!("content-length: {}\r\n", body.len()),
    )?;
    out.write_all(body)?;
    out.flush()
}

/// A response whose body is sent in chunks as it is produced (`Transfer-Encoding: chunked`).
pub(crate) struct ChunkedResponse<'a, W: Write> {
    out: &'a mut W,
}

impl<'a, W: Write> ChunkedResponse<'a, W> {
    /// Writes the status line and headers.
    pub(crate) fn start(
        out: &'a mut W,
        status: u16,
        headers: &[(&str, String)],
    ) -> io::Result<Self> {
        write_head(out, status, headers, "transfer-encoding: chunked\r\n")?;
        out.flush()?;
        Ok(Self { out })
    }

    /// Sends one chunk and flushes it, so the client sees it at once.
    pub(crate) fn chunk(&mut self, data: &[u8]) -> io::Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        write!(self.out, "{:x}\r\n", data.len())?;
        self.out.write_all(data)?;
        self.out.write_all(b"\r\n")?;
        self.out.flush()
    }

    /// Ends the body.
    pub(crate) fn finish(self) -> io::Result<()> {
        self.out.write_all(b"0\r\n\r\n")?;
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    #[test]
    fn reads_keep_alive_requests_with_both_body_framings() {
        let wire = b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}\
GET /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\n\r\n";
        let mut reader = BufReader::new(&wire[..]);
        let first = read_request(&mut reader).unwrap().unwrap();
        assert_eq!(
            (first.method.as_str(), first.path.as_str()),
            ("POST", "/v1/messages")
        );
        assert_eq!(first.header("HOST"), Some("x"));
        assert_eq!(first.body, b"{}");
        assert!(!first.wants_close());
        let second = read_request(&mut reader).unwrap().unwrap();
        assert_eq!(second.body, b"abcde");
        assert!(second.wants_close());
        assert!(read_request(&mut reader).unwrap().is_none());
    }

    #[test]
    fn rejects_a_truncated_head() {
        let mut reader = BufReader::new(&b"POST / HTTP/1.1\r\nHost"[..]);
        assert!(read_request(&mut reader).is_err());
    }

    #[test]
    fn chunked_response_framing() {
        let mut out = Vec::new();
        let mut resp =
            ChunkedResponse::start(&mut out, 200, &[("content-type", "text/plain".into())])
                .unwrap();
        resp.chunk(b"hello").unwrap();
        resp.finish().unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
        );
    }
}
