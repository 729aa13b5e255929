//! The relay's holding queue: packets ordered by due time, bounded in packets and bytes.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

/// Packets waiting for their due time. A binary heap keyed by (due, arrival number), so
/// packets due at the same instant leave in arrival order.
pub(crate) struct DelayQueue {
    heap: BinaryHeap<Reverse<Held>>,
    bytes: usize,
    max_packets: usize,
    max_bytes: usize,
    next_number: u64,
}

struct Held {
    due: Instant,
    number: u64,
    packet: Vec<u8>,
}

impl PartialEq for Held {
    fn eq(&self, other: &Self) -> bool {
        (self.due, self.number) == (other.due, other.number)
    }
}
impl Eq for Held {}
impl PartialOrd for Held {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Held {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.due, self.number).cmp(&(other.due, other.number))
    }
}

impl DelayQueue {
    pub(crate) fn new(max_packets: usize, max_bytes: usize) -> Self {
        DelayQueue {
            heap: BinaryHeap::new(),
            bytes: 0,
            max_packets,
            max_bytes,
            next_number: 0,
        }
    }

    /// Hold `packet` until `due`; false (and the packet dropped) when a bound would be passed.
    pub(crate) fn push(&mut self, due: Instant, packet: Vec<u8>) -> bool {
        if self.heap.len() >= self.max_packets || self.bytes + packet.len() > self.max_bytes {
            return false;
        }
        self.bytes += packet.len();
        self.next_number += 1;
        self.heap.push(Reverse(Held {
            due,
            number: self.next_number,
            packet,
        }));
        true
    }

    /// When the earliest packet is due.
    pub(crate) fn next_due(&self) -> Option<Instant> {
        self.heap.peek().map(|Reverse(held)| held.due)
    }

    /// The earliest packet with its due time, if it is due at `now`.
    pub(crate) fn pop_due(&mut self, now: Instant) -> Option<(Instant, Vec<u8>)> {
        if self.next_due()? > now {
            return None;
        }
        let Reverse(held) = self.heap.pop()?;
        self.bytes -= held.packet.len();
        Some((held.due, held.packet))
    }

    pub(crate) fn len(&self) -> usize {
        self.heap.len()
    }

    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn packets_leave_by_due_time_then_arrival() {
        let start = Instant::now();
        let at = |ms| start + Duration::from_millis(ms);
        let mut queue = DelayQueue::new(10, 1000);
        assert!(queue.push(at(20), vec![1]));
        assert!(queue.push(at(5), vec![2]));
        assert!(queue.push(at(20), vec![3]));
        assert_eq!(queue.next_due(), Some(at(5)));
        assert_eq!(queue.pop_due(at(4)), None);
        assert_eq!(queue.pop_due(at(30)), Some((at(5), vec![2])));
        assert_eq!(queue.pop_due(at(30)), Some((at(20), vec![1])));
        assert_eq!(queue.pop_due(at(30)), Some((at(20), vec![3])));
        assert_eq!(queue.pop_due(at(30)), None);
    }

    #[test]
    fn bounds_in_packets_and_bytes_refuse_more() {
        let now = Instant::now();
        let mut queue = DelayQueue::new(2, 100);
        assert!(queue.push(now, vec![0; 60]));
        assert!(
            !queue.push(now, vec![0; 41]),
            "101 bytes passes the byte bound"
        );
        assert!(queue.push(now, vec![0; 40]));
        assert!(
            !queue.push(now, vec![0; 1]),
            "a third packet passes the packet bound"
        );
        assert_eq!((queue.len(), queue.bytes()), (2, 100));
        queue.pop_due(now);
        assert_eq!((queue.len(), queue.bytes()), (1, 40));
    }
}
