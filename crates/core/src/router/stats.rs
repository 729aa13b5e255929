//! Counters. Every dropped frame is counted under the reason it was dropped for.

/// Frames dropped, by reason.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Drops {
    /// A best-effort frame arrived at a full queue with nothing of lower priority to evict.
    pub queue_full: u64,
    /// A queued best-effort frame was thrown out to make room for a more urgent one.
    pub evicted: u64,
    /// Frames still queued toward a link when it closed.
    pub link_closed: u64,
    /// A datagram whose session token matches no link.
    pub unknown_session: u64,
    /// A datagram that does not decode, or carries a frame that may not travel by UDP.
    pub bad_datagram: u64,
    /// A fragmented frame whose remaining fragments never arrived in time.
    pub reassembly_expired: u64,
    /// A datagram the network duplicated, or one too late for the replay window.
    pub duplicate_datagram: u64,
    /// A reliable frame the application had already received (its stream stepped back).
    pub duplicate_reliable: u64,
}

impl Drops {
    pub fn total(&self) -> u64 {
        self.queue_full
            + self.evicted
            + self.link_closed
            + self.unknown_session
            + self.bad_datagram
            + self.reassembly_expired
            + self.duplicate_datagram
            + self.duplicate_reliable
    }
}

/// Counters of one link.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    pub frames_in: u64,
    pub bytes_in: u64,
    pub data_in: u64,
    pub data_out: u64,
    pub bytes_out: u64,
    pub datagrams_in: u64,
    pub datagrams_out: u64,
    /// Times a reliable frame from this link had to wait for room downstream.
    pub paused: u64,
    pub drops: Drops,
}

/// Counters of the whole router, including links that have since closed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RouterStats {
    /// Data frames received from links or published by the application.
    pub data_received: u64,
    /// Copies of data frames queued toward links (one frame to three links counts three).
    pub data_forwarded: u64,
    /// Data frames handed to the local application.
    pub data_delivered: u64,
    /// Reliable messages the local application should have received and did not (gaps in
    /// their sources' streams), each reported to it (`Event::ReliableLost`).
    pub reliable_lost: u64,
    /// Reliable streams the application's deliveries were not checked on, because it
    /// already followed `streams::MAX_FOLLOWED_STREAMS`.
    pub unfollowed_streams: u64,
    /// Data frames that matched no link's interest.
    pub data_unrouted: u64,
    pub links_opened: u64,
    pub links_closed: u64,
    pub drops: Drops,
    /// Registry events this router could not broadcast because it had no room for their
    /// federation (its `max_federations` limit).
    pub registry_events_unsent: u64,
}
