//! Where the bytes read from links wait to be decoded.
//!
//! Decoded frames are slices of their link's input buffer (no copy), and they live until
//! they have left every queue. So when the next read arrives, the buffer is usually still
//! shared with frames waiting to be written, and growing it allocates fresh memory: in a
//! busy router nearly one allocation per read, and fresh pages cost page faults (a tenth of
//! the router's CPU at 64-byte throughput). Instead, a full buffer is swapped for a spare
//! whose frames have all gone, and the old one becomes a spare in turn.

use crate::wire::missing_bytes;
use bytes::BytesMut;
use std::collections::VecDeque;
use std::ops::{Deref, DerefMut};

/// Size of a standard input buffer: two full reads of the event loop's 64 KiB read chunk, so
/// a partial frame left over and the next read fit without another swap.
pub(crate) const INPUT_CHUNK_BYTES: usize = 128 << 10;

/// Spare standard buffers kept at most (4 MiB per router). A spare still shared with queued
/// frames costs nothing extra: that memory is held by the frames anyway. When full, the
/// oldest spare is let go. Larger buffers (for frames above the chunk) are never kept.
pub(crate) const MAX_SPARE_BUFFERS: usize = 32;

/// One link's undecoded input, and the size of the allocation it lives in.
#[derive(Debug, Default)]
pub(crate) struct InputBuffer {
    bytes: BytesMut,
    allocated: usize,
}

impl Deref for InputBuffer {
    type Target = BytesMut;
    fn deref(&self) -> &BytesMut {
        &self.bytes
    }
}

impl DerefMut for InputBuffer {
    fn deref_mut(&mut self) -> &mut BytesMut {
        &mut self.bytes
    }
}

#[derive(Debug, Default)]
pub(crate) struct InputBuffers {
    spare: VecDeque<InputBuffer>,
}

impl InputBuffers {
    /// Make room in the link buffer `buf` for `more` bytes to be appended (a driver reads its
    /// socket straight into the room), moving its undecoded rest to a reusable buffer first
    /// when it has none. A buffer that must grow is sized for the whole frame it holds the
    /// start of (up to `max_frame_bytes`), so a large frame arriving in many reads is
    /// copied once, not once per read.
    pub(crate) fn reserve(&mut self, buf: &mut InputBuffer, more: usize, max_frame_bytes: usize) {
        let needed = buf.len() + more;
        // `try_reclaim` reuses `buf` itself when no frame holds on to it (moving only the
        // undecoded rest to its front).
        if buf.capacity() < needed && !buf.bytes.try_reclaim(more) {
            let whole_frame = buf.len() + missing_bytes(buf).min(max_frame_bytes);
            self.swap(buf, needed.max(whole_frame));
        }
        debug_assert!(buf.capacity() - buf.len() >= more);
        debug_assert!(self.spare.len() <= MAX_SPARE_BUFFERS);
    }

    fn swap(&mut self, buf: &mut InputBuffer, needed: usize) {
        let mut fresh = self.take_spare(needed).unwrap_or_else(|| {
            let allocated = needed.max(INPUT_CHUNK_BYTES);
            InputBuffer {
                bytes: BytesMut::with_capacity(allocated),
                allocated,
            }
        });
        debug_assert!(fresh.is_empty() && fresh.capacity() >= needed);
        fresh.extend_from_slice(buf);
        let mut old = std::mem::replace(buf, fresh);
        if old.allocated == INPUT_CHUNK_BYTES {
            old.clear();
            if self.spare.len() == MAX_SPARE_BUFFERS {
                self.spare.pop_front();
            }
            self.spare.push_back(old);
        }
    }

    /// Let go of an emptied buffer that was grown for a large frame: a link that once
    /// received a megabyte frame should not hold a megabyte for the rest of its life.
    pub(crate) fn settle(buf: &mut InputBuffer) {
        if buf.is_empty() && buf.allocated > INPUT_CHUNK_BYTES {
            *buf = InputBuffer::default();
        }
    }

    /// A spare that no frame holds on to any more, if one is big enough.
    fn take_spare(&mut self, needed: usize) -> Option<InputBuffer> {
        if needed > INPUT_CHUNK_BYTES {
            return None;
        }
        let at = self
            .spare
            .iter_mut()
            .position(|b| b.bytes.try_reclaim(needed))?;
        self.spare.remove(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl InputBuffers {
        /// What the router does with the bytes of one read.
        fn append(&mut self, buf: &mut InputBuffer, bytes: &[u8], max_frame_bytes: usize) {
            self.reserve(buf, bytes.len(), max_frame_bytes);
            buf.extend_from_slice(bytes);
        }
    }

    /// These bytes are not frames: no length prefix is trusted.
    const MAX_FRAME: usize = 0;

    #[test]
    fn a_buffer_whose_frames_are_gone_is_reused_without_allocating() {
        let mut buffers = InputBuffers::default();
        let mut buf = InputBuffer::default();
        buffers.append(&mut buf, &[1; 1000], MAX_FRAME);
        let first = buf.as_ptr();
        let frame = buf.split_to(1000).freeze();
        // Still shared with `frame`: a full buffer must move to another allocation.
        buffers.append(&mut buf, &vec![2; INPUT_CHUNK_BYTES], MAX_FRAME);
        assert_ne!(buf.as_ptr(), first);
        assert_eq!(&frame[..], &[1; 1000][..]);
        drop(frame);
        let second = buf.split_to(INPUT_CHUNK_BYTES).freeze();
        // The first buffer's frame is gone, the second's is queued: the first comes back
        // from the spares.
        buffers.append(&mut buf, &vec![3; INPUT_CHUNK_BYTES], MAX_FRAME);
        assert_eq!(buf.as_ptr(), first);
        assert_eq!(&buf[..], &vec![3; INPUT_CHUNK_BYTES][..]);
        assert_eq!(&second[..], &vec![2; INPUT_CHUNK_BYTES][..]);
    }

    #[test]
    fn a_buffer_no_frame_holds_is_reused_in_place() {
        let mut buffers = InputBuffers::default();
        let mut buf = InputBuffer::default();
        buffers.append(&mut buf, &vec![1; INPUT_CHUNK_BYTES], MAX_FRAME);
        let first = buf.as_ptr();
        drop(buf.split_to(INPUT_CHUNK_BYTES - 3).freeze());
        buffers.append(&mut buf, &vec![3; 1000], MAX_FRAME);
        assert_eq!(buf.as_ptr(), first);
        assert_eq!(&buf[..3], &[1; 3][..]);
        assert_eq!(buf.len(), 1003);
    }

    #[test]
    fn the_undecoded_rest_moves_with_the_buffer() {
        let mut buffers = InputBuffers::default();
        let mut buf = InputBuffer::default();
        buffers.append(&mut buf, &[7; 10], MAX_FRAME);
        let held = buf.split_to(4).freeze();
        buffers.append(&mut buf, &vec![8; INPUT_CHUNK_BYTES], MAX_FRAME);
        assert_eq!(&held[..], &[7; 4][..]);
        assert_eq!(&buf[..6], &[7; 6][..]);
        assert_eq!(buf.len(), 6 + INPUT_CHUNK_BYTES);
    }

    #[test]
    fn spares_are_bounded() {
        let mut buffers = InputBuffers::default();
        let mut buf = InputBuffer::default();
        let mut frames = Vec::new();
        for _ in 0..MAX_SPARE_BUFFERS * 2 {
            buffers.append(&mut buf, &vec![0; INPUT_CHUNK_BYTES], MAX_FRAME);
            frames.push(buf.split().freeze());
        }
        assert_eq!(buffers.spare.len(), MAX_SPARE_BUFFERS);
    }

    #[test]
    fn a_large_frame_arriving_in_many_reads_is_moved_once() {
        let mut buffers = InputBuffers::default();
        let mut buf = InputBuffer::default();
        let frame_bytes = 1 << 20;
        let mut start = (frame_bytes as u32 - 4).to_le_bytes().to_vec();
        start.resize(64 << 10, 0);
        buffers.append(&mut buf, &start, 1 << 20);
        buffers.append(&mut buf, &vec![0; 100 << 10], 1 << 20);
        let moved_to = buf.as_ptr();
        while buf.len() < frame_bytes {
            let read = (frame_bytes - buf.len()).min(64 << 10);
            buffers.append(&mut buf, &vec![0; read], 1 << 20);
            assert_eq!(buf.as_ptr(), moved_to);
        }
        assert_eq!(buffers.spare.len(), 1, "only the standard buffer is kept");
        let _frame = buf.split_to(frame_bytes);
        InputBuffers::settle(&mut buf);
        assert_eq!(buf.allocated, 0, "the large buffer is let go once empty");
    }

    #[test]
    fn a_hostile_length_does_not_reserve_past_the_frame_limit() {
        let mut buffers = InputBuffers::default();
        let mut buf = InputBuffer::default();
        buffers.append(&mut buf, &u32::MAX.to_le_bytes(), 1 << 20);
        buffers.append(&mut buf, &vec![0; INPUT_CHUNK_BYTES], 1 << 20);
        assert!(buf.allocated <= INPUT_CHUNK_BYTES + 4 + (1 << 20));
    }
}
