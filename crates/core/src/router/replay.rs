//! Replay windows: which of the newest sequence numbers of one sender have arrived, so a
//! copy that arrives again is dropped while reordering within the window is accepted.
//!
//! Two senders use one: a link's datagrams (the network may duplicate a datagram), and a
//! source's best-effort frames at the receiving application. Best effort has no streams,
//! and a frame held up on one path (a partitioned link, a queue) can reach a receiver a
//! second time by another after the receiver failed over to a new parent; its number in
//! the source's sequence (`DataFrame::seq`, from 1, stamped once by the source's router)
//! tells the copies apart.

/// Which of the last `64 × WORDS` sequence numbers arrived; numbers start at 1.
#[derive(Debug)]
pub(crate) struct ReplayWindow<const WORDS: usize> {
    /// The newest sequence number accepted; 0 before the first.
    newest: u64,
    /// Bit `age` (word `age / 64`, bit `age % 64`): `newest - age` arrived.
    seen: [u64; WORDS],
}

impl<const WORDS: usize> Default for ReplayWindow<WORDS> {
    fn default() -> Self {
        ReplayWindow {
            newest: 0,
            seen: [0; WORDS],
        }
    }
}

impl<const WORDS: usize> ReplayWindow<WORDS> {
    /// Numbers behind the newest that are still accepted once.
    pub(crate) const SPAN: u64 = 64 * WORDS as u64;

    /// Whether `seq` is new: not seen before and not older than the window. Records it.
    pub(crate) fn accept(&mut self, seq: u64) -> bool {
        if seq > self.newest {
            self.age_by(seq - self.newest);
            self.seen[0] |= 1;
            self.newest = seq;
            return true;
        }
        let age = self.newest - seq;
        if seq == 0 || age >= Self::SPAN {
            return false;
        }
        let (word, bit) = ((age / 64) as usize, age % 64);
        if self.seen[word] & (1 << bit) != 0 {
            return false;
        }
        self.seen[word] |= 1 << bit;
        true
    }

    /// Every recorded number grows `shift` older; those past the window are forgotten.
    fn age_by(&mut self, shift: u64) {
        if shift >= Self::SPAN {
            self.seen = [0; WORDS];
            return;
        }
        let (words, bits) = ((shift / 64) as usize, (shift % 64) as u32);
        for to in (0..WORDS).rev() {
            let high = to
                .checked_sub(words)
                .map_or(0, |from| self.seen[from] << bits);
            let carry = match (bits, to.checked_sub(words + 1)) {
                (1.., Some(from)) => self.seen[from] >> (64 - bits),
                _ => 0,
            };
            self.seen[to] = high | carry;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ReplayWindow;

    #[test]
    fn duplicates_and_numbers_older_than_the_window_are_refused_reordering_is_not() {
        let mut window = ReplayWindow::<1>::default();
        assert!(window.accept(1));
        assert!(!window.accept(1), "a duplicate");
        assert!(window.accept(3));
        assert!(window.accept(2), "late but within the window");
        assert!(!window.accept(2));
        assert!(window.accept(100));
        assert!(!window.accept(36), "older than the window");
        assert!(window.accept(37));
        assert!(!window.accept(0), "sequence numbers start at 1");
    }

    #[test]
    fn a_wide_window_carries_what_it_saw_across_its_words() {
        let mut window = ReplayWindow::<4>::default();
        for seq in [5, 70, 130, 200] {
            assert!(window.accept(seq));
        }
        // Shifts by less, by exactly, and by more than one word.
        assert!(window.accept(201));
        assert!(window.accept(265));
        assert!(window.accept(300));
        for seq in [70, 130, 200, 201, 265, 300] {
            assert!(
                !window.accept(seq),
                "{seq} was seen and is within 256 of 300"
            );
        }
        assert!(!window.accept(44), "older than the window");
        for seq in [45, 71, 199, 299] {
            assert!(window.accept(seq), "{seq} is new and within the window");
        }
        assert!(window.accept(300 + 256));
        assert!(!window.accept(300), "the newest minus the span is out");
        assert!(window.accept(301));
    }

    /// Against a set of every number seen, over random runs with reordering and repeats.
    #[test]
    fn agrees_with_a_set_of_everything_seen_within_the_span() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut window = ReplayWindow::<3>::default();
        let mut seen = std::collections::BTreeSet::new();
        let mut newest = 0u64;
        for _ in 0..20_000 {
            let seq = (newest + 40).saturating_sub(next() % 300).max(1);
            let expect = !seen.contains(&seq) && seq + ReplayWindow::<3>::SPAN > newest;
            assert_eq!(window.accept(seq), expect, "seq {seq}, newest {newest}");
            if expect {
                seen.insert(seq);
                newest = newest.max(seq);
            }
        }
    }
}
