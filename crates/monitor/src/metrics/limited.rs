//! A listener that bounds its connections: at most N open at once (accepting waits for a
//! free place), and each closed once it has moved no byte for an idle timeout, so a
//! client that connects and goes quiet cannot keep a place forever.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};

pub(super) struct LimitedListener {
    inner: TcpListener,
    places: Arc<Semaphore>,
    idle: Duration,
}

impl LimitedListener {
    pub(super) fn new(inner: TcpListener, max_connections: usize, idle: Duration) -> Self {
        LimitedListener {
            inner,
            places: Arc::new(Semaphore::new(max_connections)),
            idle,
        }
    }
}

impl axum::serve::Listener for LimitedListener {
    type Io = LimitedStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (LimitedStream, SocketAddr) {
        let place = self
            .places
            .clone()
            .acquire_owned()
            .await
            .expect("the semaphore is never closed");
        loop {
            match self.inner.accept().await {
                Ok((stream, from)) => {
                    let _ = stream.set_nodelay(true);
                    return (LimitedStream::new(stream, place, self.idle), from);
                }
                // Out of descriptors and the like: wait a little instead of spinning.
                Err(e) => {
                    tracing::debug!(error = %e, "metrics server: accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}

/// A connection holding one place of its listener until dropped.
pub(super) struct LimitedStream {
    stream: TcpStream,
    _place: OwnedSemaphorePermit,
    idle: Duration,
    deadline: Pin<Box<Sleep>>,
}

impl LimitedStream {
    fn new(stream: TcpStream, place: OwnedSemaphorePermit, idle: Duration) -> Self {
        LimitedStream {
            stream,
            _place: place,
            idle,
            deadline: Box::pin(tokio::time::sleep(idle)),
        }
    }

    /// An error once the connection has been idle too long; otherwise the timer is armed.
    fn check_idle(&mut self, cx: &mut Context<'_>) -> io::Result<()> {
        match self.deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Err(io::Error::new(io::ErrorKind::TimedOut, "connection idle")),
            Poll::Pending => Ok(()),
        }
    }

    fn moved(&mut self) {
        let next = Instant::now() + self.idle;
        self.deadline.as_mut().reset(next);
    }
}

impl AsyncRead for LimitedStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        match Pin::new(&mut this.stream).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if buf.filled().len() > before {
                    this.moved();
                }
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => match this.check_idle(cx) {
                Ok(()) => Poll::Pending,
                Err(e) => Poll::Ready(Err(e)),
            },
        }
    }
}

impl AsyncWrite for LimitedStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.stream).poll_write(cx, buf) {
            Poll::Ready(Ok(n)) => {
                this.moved();
                Poll::Ready(Ok(n))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => match this.check_idle(cx) {
                Ok(()) => Poll::Pending,
                Err(e) => Poll::Ready(Err(e)),
            },
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}
