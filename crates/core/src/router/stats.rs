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
    /// A best-effort frame the application had already received (by another path), or
    /// one too late for its source's window (`router::replay`).
    pub duplicate_best_effort: u64,
    /// A frame with a class its link may not publish, or a registry event from a certified
    /// federate (`router::rights`).
    pub not_permitted: u64,
}

impl Drops {
    /// A copy of a frame the application had already received was dropped.
    pub(crate) fn count_duplicate(&mut self, class: crate::wire::TransportClass) {
        match class {
            crate::wire::TransportClass::Reliable => self.duplicate_reliable += 1,
            crate::wire::TransportClass::BestEffort => self.duplicate_best_effort += 1,
        }
    }

    /// All frames dropped, whatever the reason.
    pub fn total(&self) -> u64 {
        self.queue_full
            + self.evicted
            + self.link_closed
            + self.unknown_session
            + self.bad_datagram
            + self.reassembly_expired
            + self.duplicate_datagram
            + self.duplicate_reliable
            + self.duplicate_best_effort
            + self.not_permitted
    }
}

/// Counters of one link.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// Frames received on the link, any kind.
    pub frames_in: u64,
    /// Bytes received on the link, stream and datagrams.
    pub bytes_in: u64,
    /// Data frames received from the link.
    pub data_in: u64,
    /// Data frames sent toward the link.
    pub data_out: u64,
    /// Bytes sent toward the link, stream and datagrams.
    pub bytes_out: u64,
    /// UDP datagrams received for the link.
    pub datagrams_in: u64,
    /// UDP datagrams sent for the link.
    pub datagrams_out: u64,
    /// Times a reliable frame from this link had to wait for room downstream.
    pub paused: u64,
    /// Keep-latest frames queued toward this link that never left: a newer frame of the
    /// same source, key and mask took their place (or was queued already).
    pub latest_replaced: u64,
    /// Frames dropped on their way to or from this link, by reason.
    pub drops: Drops,
}

/// What latest-value caching did (`router::latest`, `router::queue`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LatestStats {
    /// Keep-latest frames that never left a queue because a newer frame of the same
    /// source, key and mask took their place (or was queued already). Not losses: the
    /// newer frame carries every attribute they did.
    pub replaced: u64,
    /// Cache entries thrown out to stay within `RouterConfig::latest_cache_bytes`, oldest
    /// first: a subscriber that comes later no longer gets those values from here.
    pub evicted: u64,
    /// Keep-latest frames too large for the cache on their own, not kept.
    pub refused: u64,
    /// Cached frames sent to links that declared new interest (late joiners).
    pub replayed: u64,
    /// Keep-latest frames not handed to the local application because it already had that
    /// frame or a newer one of the same source, key and mask (copies from several caches).
    pub stale_deliveries: u64,
    /// Entries and bytes in the cache now (bytes include a fixed overhead per entry).
    pub cached_entries: u64,
    /// Bytes in the cache now, with a fixed overhead per entry.
    pub cached_bytes: u64,
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
    /// Links handed to the router so far.
    pub links_opened: u64,
    /// Links closed so far.
    pub links_closed: u64,
    /// Frames dropped, by reason, over all links.
    pub drops: Drops,
    /// Registry events this router could not broadcast because it had no room for their
    /// federation (its `max_federations` limit).
    pub registry_events_unsent: u64,
    /// Registry requests refused at this router because the link they came on may not
    /// send them (`router::claims`).
    pub requests_refused: u64,
    /// Interest declarations that named classes their link may not subscribe to, or
    /// publish (`router::rights`): the rest of each was kept.
    pub declarations_refused: u64,
    /// Keep-latest replacement and caching.
    pub latest: LatestStats,
}
