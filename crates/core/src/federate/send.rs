//! Sending: encoding a message straight into the data frame its node sends (header and
//! ids first, then the message: no copy on the way) and queueing it for the node, stamped
//! for time-stamp or receive order.

use super::message::{Header, Outgoing};
use super::{Action, Federate, LogicalTime};
use crate::wire::{DataFrame, FrameArena, LatestKey, TransportClass, UnstampedFrame};

impl Federate {
    /// Encode a whole data frame into `arena` for `ids`: the node fills in its federation,
    /// source and numbers. An associated function, so that `outgoing` may borrow other
    /// fields of the federate (an instance's name).
    pub(super) fn encode<V: AsRef<[u8]>>(
        arena: &mut FrameArena,
        stamp: &Stamping,
        ids: &[u32],
        header: &Header<'_>,
        outgoing: &Outgoing<'_, V>,
    ) -> UnstampedFrame {
        let payload = outgoing.max_encoded_len(header);
        let len = DataFrame::encoded_len_with(ids.len(), payload, stamp.latest.is_some());
        let arena = arena.room_for(len);
        let priority = stamp.class.default_priority();
        UnstampedFrame::encode(arena, stamp.class, priority, stamp.latest, ids, |out| {
            outgoing.encode(header, out)
        })
    }

    pub(super) fn send<V: AsRef<[u8]>>(
        &mut self,
        ids: Vec<u32>,
        class: TransportClass,
        fom_class: u32,
        time: u64,
        tag: &[u8],
        outgoing: Outgoing<'_, V>,
    ) {
        self.send_keyed(ids, class, fom_class, time, tag, outgoing, None)
    }

    /// [`Federate::send`] as a keep-latest frame with `latest`: never a time-stamped
    /// update (queues would reorder it), though a time-stamped removal keeps its key so
    /// caches forget the instance.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn send_keyed<V: AsRef<[u8]>>(
        &mut self,
        ids: Vec<u32>,
        class: TransportClass,
        fom_class: u32,
        time: u64,
        tag: &[u8],
        outgoing: Outgoing<'_, V>,
        latest: Option<LatestKey>,
    ) {
        let stamp = Stamping::of(
            self.sending_time_stamp,
            self.sending_serial,
            time,
            class,
            latest,
        );
        let header = stamp.header(self.handle, fom_class, tag);
        let frame = Self::encode(&mut self.encode_buf, &stamp, &ids, &header, &outgoing);
        self.actions.push_back(Action::PublishFrame(frame));
        // The ids are in the frame: the list serves a later message.
        keep_id_list(&mut self.spare_ids, ids);
    }
}

/// Keep a list of ids, emptied, for a later message to fill instead of allocating (a free
/// function, so that a caller may hold borrows of other fields of the federate).
pub(super) fn keep_id_list(spare_ids: &mut Vec<Vec<u32>>, mut ids: Vec<u32>) {
    if spare_ids.len() < super::SPARE_ID_LISTS {
        ids.clear();
        spare_ids.push(ids);
    }
    debug_assert!(spare_ids.len() <= super::SPARE_ID_LISTS);
}

/// How a message goes out: a time-stamped message always travels reliably (a lost one
/// would leave a hole in time-stamp order, and a best-effort one could overtake its
/// sender's bound), and keeps a keep-latest key only to remove an instance (queues would
/// reorder a keyed update).
pub(super) struct Stamping {
    time: u64,
    time_stamped: bool,
    /// The retraction serial, carried only in time-stamp order.
    serial: Option<u32>,
    class: TransportClass,
    latest: Option<LatestKey>,
}

impl Stamping {
    pub(super) fn of(
        sending: Option<LogicalTime>,
        serial: Option<u32>,
        time: u64,
        class: TransportClass,
        latest: Option<LatestKey>,
    ) -> Stamping {
        let (time, time_stamped, class) = match sending {
            Some(stamp) => (stamp.key(), true, TransportClass::Reliable),
            None => (time, false, class),
        };
        let latest = latest.filter(|l| !time_stamped || l.is_removal());
        Stamping {
            time,
            time_stamped,
            serial: serial.filter(|_| time_stamped),
            class,
            latest,
        }
    }

    pub(super) fn header<'a>(&self, sender: u32, fom_class: u32, tag: &'a [u8]) -> Header<'a> {
        Header {
            sender,
            class: fom_class,
            time: self.time,
            time_stamped: self.time_stamped,
            serial: self.serial,
            tag,
        }
    }
}
