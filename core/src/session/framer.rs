//! Splits the CLI's stdout into lines, whatever the chunking, with a bound on line length.

/// What the framer found in the bytes it was given.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Frame<'a> {
    /// One complete line, without its `\n` (and without a trailing `\r`); never blank.
    Line(&'a [u8]),
    /// A line longer than the limit ended; its bytes were dropped.
    TooLong { len: usize },
}

/// Line framer with a maximum line length.
///
/// A complete line inside the chunk being fed is handed out without copying; only a line that
/// spans chunks is buffered. An over-long line is dropped up to its `\n` and reported once.
#[derive(Debug)]
pub(crate) struct LineFramer {
    partial: Vec<u8>,
    /// Bytes of an over-long line dropped so far, while skipping to its end.
    skipping: Option<usize>,
    max_line: usize,
}

impl LineFramer {
    pub(crate) fn new(max_line: usize) -> Self {
        LineFramer {
            partial: Vec::new(),
            skipping: None,
            max_line,
        }
    }

    /// Feed `bytes`; `on_frame` is called for each complete line or over-long line.
    pub(crate) fn feed(&mut self, mut bytes: &[u8], mut on_frame: impl FnMut(Frame<'_>)) {
        while !bytes.is_empty() {
            let newline = memchr::memchr(b'\n', bytes);
            let (piece, rest) = match newline {
                Some(i) => (&bytes[..i], Some(&bytes[i + 1..])),
                None => (bytes, None),
            };
            if let Some(dropped) = self.skipping.as_mut() {
                *dropped += piece.len();
                if rest.is_some() {
                    let len = *dropped;
                    self.skipping = None;
                    on_frame(Frame::TooLong { len });
                }
            } else if self.partial.len() + piece.len() > self.max_line {
                let len = self.partial.len() + piece.len();
                self.partial.clear();
                if rest.is_some() {
                    on_frame(Frame::TooLong { len });
                } else {
                    self.skipping = Some(len);
                }
            } else if rest.is_none() {
                self.partial.extend_from_slice(piece);
            } else if self.partial.is_empty() {
                emit_line(piece, &mut on_frame);
            } else {
                self.partial.extend_from_slice(piece);
                emit_line(&self.partial, &mut on_frame);
                self.partial.clear();
            }
            match rest {
                Some(r) => bytes = r,
                None => break,
            }
        }
    }

    /// End of stream: a final line without `\n` is handed out (an unfinished over-long line is reported).
    pub(crate) fn finish(&mut self, mut on_frame: impl FnMut(Frame<'_>)) {
        if let Some(len) = self.skipping.take() {
            on_frame(Frame::TooLong { len });
        } else if !self.partial.is_empty() {
            let partial = std::mem::take(&mut self.partial);
            emit_line(&partial, &mut on_frame);
        }
    }

    /// Bytes held for an unfinished line.
    pub(crate) fn buffered(&self) -> usize {
        self.partial.len()
    }
}

fn emit_line(line: &[u8], on_frame: &mut impl FnMut(Frame<'_>)) {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if !line.iter().all(u8::is_ascii_whitespace) {
        on_frame(Frame::Line(line));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(max: usize, chunks: &[&[u8]]) -> Vec<String> {
        let mut framer = LineFramer::new(max);
        let mut out = Vec::new();
        let mut record = |f: Frame<'_>| match f {
            Frame::Line(l) => out.push(String::from_utf8_lossy(l).into_owned()),
            Frame::TooLong { len } => out.push(format!("<too long {len}>")),
        };
        for c in chunks {
            framer.feed(c, &mut record);
        }
        framer.finish(&mut record);
        out
    }

    #[test]
    fn splits_lines_in_any_chunking() {
        let text = b"{\"a\":1}\n\n  \n{\"b\":2}\r\n{\"c\":3}";
        let whole = run(100, &[text]);
        assert_eq!(whole, vec!["{\"a\":1}", "{\"b\":2}", "{\"c\":3}"]);
        for size in [1, 2, 3, 7] {
            let chunks: Vec<&[u8]> = text.chunks(size).collect();
            assert_eq!(run(100, &chunks), whole, "chunk size {size}");
        }
    }

    #[test]
    fn over_long_line_is_skipped_and_reported_then_framing_goes_on() {
        let mut text = vec![b'x'; 50];
        text.extend_from_slice(b"\nok\n");
        assert_eq!(run(10, &[&text]), vec!["<too long 50>", "ok"]);
        let chunks: Vec<&[u8]> = text.chunks(4).collect();
        assert_eq!(run(10, &chunks), vec!["<too long 50>", "ok"]);
    }

    #[test]
    fn line_exactly_at_limit_is_kept() {
        assert_eq!(run(4, &[b"abcd\nabcde\n"]), vec!["abcd", "<too long 5>"]);
        assert_eq!(run(4, &[b"ab", b"cd\n"]), vec!["abcd"]);
    }

    #[test]
    fn unfinished_over_long_line_reported_at_end() {
        assert_eq!(run(3, &[b"abcdef"]), vec!["<too long 6>"]);
    }
}
