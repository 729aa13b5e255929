//! Where a sender encodes its frames: one allocation for many frames, each split off as it
//! is finished, and the allocation reused once its frames are gone.

use bytes::BytesMut;
use std::collections::VecDeque;

/// Bytes of one arena: many small frames, or one large one.
pub const ARENA_BYTES: usize = 64 << 10;

/// Filled arenas kept for reuse while their frames are still queued (at most 2 MiB). Frames
/// leave in the order they were made, so the oldest is the first to come free. A sender at
/// full rate keeps its node's command queue full (16,384 frames by default), and 32 arenas
/// hold ~21,000 frames of 100 bytes: with 4, most arenas were still new (page faults 66,000
/// → 46,000 in a 4-second run of 5.8 M updates, most of the rest the command channel's).
const RETIRED_ARENAS: usize = 32;

/// The arena a sender encodes frames into and splits them off (`BytesMut::split`).
///
/// The frames are dropped on another thread (the node's event loop, once written). An arena
/// filled while some of its frames are still queued is set aside and reused whole once
/// they are gone, rather than dropped and another allocated: a fresh allocation's pages
/// fault on first touch (~6 % of a sending thread at full rate, each arena's memory going
/// back to the system when its last frame is freed), and a free across threads costs the
/// allocator's lock.
#[derive(Default)]
pub struct FrameArena {
    current: BytesMut,
    /// Filled arenas, oldest first, at most `RETIRED_ARENAS`.
    retired: VecDeque<BytesMut>,
    /// Whether `current` is an allocation (a full one has no capacity left either).
    allocated: bool,
}

impl FrameArena {
    /// The arena, with room for `len` more bytes; empty (every frame split off).
    pub fn room_for(&mut self, len: usize) -> &mut BytesMut {
        debug_assert!(
            self.current.is_empty(),
            "an arena holds nothing between frames"
        );
        if self.current.capacity() < len && !self.current.try_reclaim(len) {
            self.replace(len);
        }
        debug_assert!(self.current.capacity() >= len);
        &mut self.current
    }

    /// Set the current arena aside and take the oldest one set aside if its frames are all
    /// gone, else a new one.
    fn replace(&mut self, len: usize) {
        // The oldest not free yet keeps its place, first in line.
        let oldest_is_free = (self.retired.front_mut()).is_some_and(|a| a.try_reclaim(len));
        let reused = if oldest_is_free {
            self.retired.pop_front()
        } else {
            None
        };
        let next = reused.unwrap_or_else(|| BytesMut::with_capacity(len.max(ARENA_BYTES)));
        let filled = std::mem::replace(&mut self.current, next);
        if std::mem::replace(&mut self.allocated, true) {
            self.retired.push_back(filled);
        }
        if self.retired.len() > RETIRED_ARENAS {
            // The oldest is let go: its memory is freed with its last frame.
            self.retired.pop_front();
        }
        debug_assert!(self.retired.len() <= RETIRED_ARENAS);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(arena: &mut FrameArena, len: usize) -> BytesMut {
        let room = arena.room_for(len);
        room.extend_from_slice(&vec![7; len]);
        room.split()
    }

    /// The arena's own buffer, to tell arenas apart.
    fn address(arena: &mut FrameArena) -> *const u8 {
        arena.room_for(1).as_ptr()
    }

    /// Once every frame of a filled arena is gone, its memory serves again: a sender at
    /// full rate allocates nothing new in steady state.
    #[test]
    fn an_arena_whose_frames_are_gone_is_reused() {
        let mut arena = FrameArena::default();
        let first = address(&mut arena);
        let fill = |arena: &mut FrameArena, frames| -> Vec<BytesMut> {
            (0..frames).map(|_| frame(arena, 1024)).collect()
        };
        let held = fill(&mut arena, ARENA_BYTES / 1024);
        let in_second = frame(&mut arena, 1024);
        assert_ne!(in_second.as_ptr(), first, "the first arena is full");
        assert_eq!(arena.retired.len(), 1);
        drop(held);
        // The second arena fills up in turn, one of its frames still held; the first is
        // free by then.
        drop(fill(&mut arena, ARENA_BYTES / 1024 - 1));
        let next = frame(&mut arena, 1024);
        assert_eq!(next.as_ptr(), first, "the first arena serves again");
        assert_eq!(arena.retired.len(), 1, "the second waits for its frame");
    }

    /// Frames still held keep their arenas from reuse, and no more than `RETIRED_ARENAS`
    /// are kept waiting for them: the frames keep their bytes, the sender its bound.
    #[test]
    fn arenas_in_use_are_not_reused_and_at_most_a_few_wait() {
        let mut arena = FrameArena::default();
        let held: Vec<BytesMut> = (0..(RETIRED_ARENAS + 3) * ARENA_BYTES / 4096)
            .map(|_| frame(&mut arena, 4096))
            .collect();
        assert_eq!(arena.retired.len(), RETIRED_ARENAS);
        assert!(held
            .iter()
            .all(|f| f.len() == 4096 && f.iter().all(|b| *b == 7)));
        let large = frame(&mut arena, 3 * ARENA_BYTES);
        assert_eq!(
            large.len(),
            3 * ARENA_BYTES,
            "a frame larger than an arena fits"
        );
    }
}
