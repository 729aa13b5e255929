//! Memory pipes: two hosts of one runtime linked without sockets. Bytes move straight from
//! one router's `poll_transmit` into the other's `handle_bytes`, and only when the receiver
//! wants them, so back-pressure works as over TCP.

use super::host::{DialState, Transport};
use super::EventLoop;
use crate::runtime::HostId;
use trellis_core::router::{LinkId, LinkSpec};
use trellis_core::Time;

pub(super) struct MemoryPipe {
    ends: [(HostId, LinkId); 2],
    /// Output of end `i` not yet taken by the other end.
    pending: [Vec<u8>; 2],
    open: [bool; 2],
    eof_sent: [bool; 2],
}

impl EventLoop {
    pub(super) fn dial_memory(&mut self, now: Time, host: HostId, dialer: usize, name: &str) {
        let far = match self.memory_names.get(name) {
            Some(&far)
                if far != host && self.hosts[far].as_ref().is_some_and(|h| !h.is_stopping()) =>
            {
                far
            }
            _ => {
                if let Some(h) = self.hosts[host].as_mut() {
                    h.dial_failed(now, dialer, &format!("no host listens on mem://{name}"));
                }
                return;
            }
        };
        let pipe = self
            .pipes
            .iter()
            .position(Option::is_none)
            .unwrap_or(self.pipes.len());
        let near_name = self.hosts[host]
            .as_ref()
            .expect("host is live")
            .name
            .clone();
        let h = self.hosts[host].as_mut().expect("host is live");
        let spec = h.dialers[dialer].config.link_spec(format!("mem://{name}"));
        let near_link = h.router.add_link(now, spec);
        h.dialers[dialer].state = DialState::Up(near_link);
        h.transports.insert(near_link, Transport::Memory(pipe, 0));
        let f = self.hosts[far].as_mut().expect("far host is live");
        let far_link = f
            .router
            .add_link(now, LinkSpec::accepted(format!("mem://{near_name}")));
        f.transports.insert(far_link, Transport::Memory(pipe, 1));
        let entry = MemoryPipe {
            ends: [(host, near_link), (far, far_link)],
            pending: [Vec::new(), Vec::new()],
            open: [true, true],
            eof_sent: [false, false],
        };
        if pipe == self.pipes.len() {
            self.pipes.push(Some(entry));
        } else {
            self.pipes[pipe] = Some(entry);
        }
    }

    pub(super) fn memory_closed(&mut self, pipe: usize, end: usize) {
        if let Some(p) = self.pipes[pipe].as_mut() {
            p.open[end] = false;
        }
    }

    /// Move bytes along every memory pipe. Returns whether any moved.
    pub(super) fn move_memory(&mut self, now: Time) -> bool {
        let mut progressed = false;
        for index in 0..self.pipes.len() {
            let Some(mut pipe) = self.pipes[index].take() else {
                continue;
            };
            for from in 0..2 {
                progressed |= self.move_one_way(now, &mut pipe, from);
            }
            let done = pipe.open == [false, false] && pipe.eof_sent == [true, true];
            if !done {
                self.pipes[index] = Some(pipe);
            }
        }
        progressed
    }

    fn move_one_way(&mut self, now: Time, pipe: &mut MemoryPipe, from: usize) -> bool {
        let to = 1 - from;
        let (from_host, from_link) = pipe.ends[from];
        let (to_host, to_link) = pipe.ends[to];
        let mut progressed = false;
        loop {
            if pipe.pending[from].is_empty() {
                let sender = self.hosts[from_host].as_mut().filter(|_| pipe.open[from]);
                let produced = sender.map_or(0, |h| {
                    h.router
                        .poll_transmit(now, from_link, &mut pipe.pending[from])
                });
                if produced == 0 {
                    if !pipe.open[from] && !pipe.eof_sent[from] {
                        pipe.eof_sent[from] = true;
                        if let Some(h) = self.hosts[to_host].as_mut() {
                            h.router.handle_eof(now, to_link);
                        }
                        progressed = true;
                    }
                    return progressed;
                }
            }
            let Some(receiver) = self.hosts[to_host].as_mut().filter(|_| pipe.open[to]) else {
                pipe.pending[from].clear();
                continue;
            };
            if !receiver.router.wants_read(to_link) {
                return progressed;
            }
            receiver
                .router
                .handle_bytes(now, to_link, &pipe.pending[from]);
            pipe.pending[from].clear();
            progressed = true;
        }
    }
}
