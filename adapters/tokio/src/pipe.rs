//! tokio's pipe types seen through the `futures-io` traits the core is written against.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

/// A tokio reader or writer as a `futures-io` one.
#[derive(Debug)]
pub struct Pipe<T>(pub T);

impl<T: tokio::io::AsyncRead + Unpin> futures_io::AsyncRead for Pipe<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let mut read_buf = tokio::io::ReadBuf::new(buf);
        ready!(Pin::new(&mut self.0).poll_read(cx, &mut read_buf))?;
        Poll::Ready(Ok(read_buf.filled().len()))
    }
}

impl<T: tokio::io::AsyncWrite + Unpin> futures_io::AsyncWrite for Pipe<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }
}
