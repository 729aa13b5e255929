//! Time management (IEEE 1516.1-2010 §8) and the logical time values that cross the
//! boundary.

use crate::ffi::{out_ref, put};
use crate::status::*;
use crate::{with_session, TrellisRti};
use trellis_core::federate::{
    AdvanceKind, Interval, LogicalTime, MessageRetractionHandle, ObjectId, TimeRepresentation,
};
use trellis_core::fom::Order;

/// A logical time or interval. The federation's representation decides which field is
/// read; the library fills both (an integer federation's `floating` is the integer as a
/// double; a float federation's `integer` is the value truncated).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrellisTime {
    pub integer: i64,
    pub floating: f64,
}

impl TrellisTime {
    pub(crate) fn from_logical(
        time: LogicalTime,
        representation: TimeRepresentation,
    ) -> TrellisTime {
        match representation {
            TimeRepresentation::Integer64 => {
                let integer = time.as_i64();
                TrellisTime {
                    integer,
                    floating: integer as f64,
                }
            }
            TimeRepresentation::Float64 => {
                let floating = time.as_f64();
                TrellisTime {
                    integer: floating as i64,
                    floating,
                }
            }
        }
    }

    pub(crate) fn to_logical(
        self,
        representation: TimeRepresentation,
    ) -> Result<LogicalTime, Failure> {
        match representation {
            TimeRepresentation::Integer64 => Ok(LogicalTime::from_i64(self.integer)),
            TimeRepresentation::Float64 => LogicalTime::from_f64(self.floating).ok_or_else(|| {
                Failure::new(
                    TRELLIS_ERR_INVALID_LOGICAL_TIME,
                    format!("{} is not a valid HLAfloat64Time", self.floating),
                )
            }),
        }
    }

    fn to_interval(self, representation: TimeRepresentation) -> Interval {
        match representation {
            TimeRepresentation::Integer64 => Interval::Integer(self.integer),
            TimeRepresentation::Float64 => Interval::Float(self.floating),
        }
    }

    fn from_interval(interval: Interval) -> TrellisTime {
        match interval {
            Interval::Integer(integer) => TrellisTime {
                integer,
                floating: integer as f64,
            },
            Interval::Float(floating) => TrellisTime {
                integer: floating as i64,
                floating,
            },
        }
    }
}

fn advance(handle: *mut TrellisRti, kind: AdvanceKind, time: TrellisTime) -> TrellisStatus {
    with_session(handle, |session| {
        let time = time.to_logical(crate::session::time(session))?;
        Ok(session.joined()?.request_time_advance(kind, time)?)
    })
}

/// enableTimeRegulation with this lookahead.
#[no_mangle]
pub extern "C" fn trellis_enable_time_regulation(
    handle: *mut TrellisRti,
    lookahead: TrellisTime,
) -> TrellisStatus {
    with_session(handle, |session| {
        let lookahead = lookahead.to_interval(crate::session::time(session));
        Ok(session.joined()?.enable_time_regulation(lookahead)?)
    })
}

#[no_mangle]
pub extern "C" fn trellis_disable_time_regulation(handle: *mut TrellisRti) -> TrellisStatus {
    with_session(handle, |session| {
        Ok(session.joined()?.disable_time_regulation()?)
    })
}

#[no_mangle]
pub extern "C" fn trellis_enable_time_constrained(handle: *mut TrellisRti) -> TrellisStatus {
    with_session(handle, |session| {
        Ok(session.joined()?.enable_time_constrained()?)
    })
}

#[no_mangle]
pub extern "C" fn trellis_disable_time_constrained(handle: *mut TrellisRti) -> TrellisStatus {
    with_session(handle, |session| {
        Ok(session.joined()?.disable_time_constrained()?)
    })
}

#[no_mangle]
pub extern "C" fn trellis_time_advance_request(
    handle: *mut TrellisRti,
    time: TrellisTime,
) -> TrellisStatus {
    advance(handle, AdvanceKind::Tar, time)
}

#[no_mangle]
pub extern "C" fn trellis_time_advance_request_available(
    handle: *mut TrellisRti,
    time: TrellisTime,
) -> TrellisStatus {
    advance(handle, AdvanceKind::Tara, time)
}

#[no_mangle]
pub extern "C" fn trellis_next_message_request(
    handle: *mut TrellisRti,
    time: TrellisTime,
) -> TrellisStatus {
    advance(handle, AdvanceKind::Nmr, time)
}

#[no_mangle]
pub extern "C" fn trellis_next_message_request_available(
    handle: *mut TrellisRti,
    time: TrellisTime,
) -> TrellisStatus {
    advance(handle, AdvanceKind::Nmra, time)
}

#[no_mangle]
pub extern "C" fn trellis_flush_queue_request(
    handle: *mut TrellisRti,
    time: TrellisTime,
) -> TrellisStatus {
    advance(handle, AdvanceKind::Flush, time)
}

/// enableAsynchronousDelivery (true) / disableAsynchronousDelivery (false): whether a
/// time-constrained federate receives receive-order messages as they come, or only while it
/// is in the time-advancing state (the standard's default).
#[no_mangle]
pub extern "C" fn trellis_set_asynchronous_delivery(
    handle: *mut TrellisRti,
    enabled: bool,
) -> TrellisStatus {
    with_session(handle, |session| {
        let rti = session.joined()?;
        if enabled {
            rti.enable_asynchronous_delivery()?;
        } else {
            rti.disable_asynchronous_delivery()?;
        }
        Ok(())
    })
}

/// queryGALT: *valid_out false when GALT is undefined (no regulating federate).
#[no_mangle]
pub extern "C" fn trellis_query_galt(
    handle: *mut TrellisRti,
    out: *mut TrellisTime,
    valid_out: *mut bool,
) -> TrellisStatus {
    with_session(handle, |session| {
        let representation = crate::session::time(session);
        let galt = session.joined()?.query_galt()?;
        put(valid_out, galt.is_some());
        if let Some(galt) = galt {
            *out_ref(out, "out")? = TrellisTime::from_logical(galt, representation);
        }
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn trellis_query_logical_time(
    handle: *mut TrellisRti,
    out: *mut TrellisTime,
) -> TrellisStatus {
    with_session(handle, |session| {
        let representation = crate::session::time(session);
        let time = session.joined()?.query_logical_time()?;
        *out_ref(out, "out")? = TrellisTime::from_logical(time, representation);
        Ok(())
    })
}

/// queryLITS: *valid_out false when nothing is queued and GALT is undefined.
#[no_mangle]
pub extern "C" fn trellis_query_lits(
    handle: *mut TrellisRti,
    out: *mut TrellisTime,
    valid_out: *mut bool,
) -> TrellisStatus {
    with_session(handle, |session| {
        let representation = crate::session::time(session);
        let lits = session.joined()?.query_lits()?;
        put(valid_out, lits.is_some());
        if let Some(lits) = lits {
            *out_ref(out, "out")? = TrellisTime::from_logical(lits, representation);
        }
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn trellis_modify_lookahead(
    handle: *mut TrellisRti,
    lookahead: TrellisTime,
) -> TrellisStatus {
    with_session(handle, |session| {
        let lookahead = lookahead.to_interval(crate::session::time(session));
        Ok(session.joined()?.modify_lookahead(lookahead)?)
    })
}

#[no_mangle]
pub extern "C" fn trellis_query_lookahead(
    handle: *mut TrellisRti,
    out: *mut TrellisTime,
) -> TrellisStatus {
    with_session(handle, |session| {
        let lookahead = session.joined()?.query_lookahead()?;
        *out_ref(out, "out")? = TrellisTime::from_interval(lookahead);
        Ok(())
    })
}

/// A retraction handle that designates no message: what a time-stamped send gives when it
/// went in receive order (all ones, the C++ API's invalid handle).
pub const TRELLIS_NO_RETRACTION_HANDLE: u64 = u64::MAX;

/// retract (IEEE 1516.1-2010 §8.21): withdraw this federate's time-stamp-order message
/// `retraction` (a handle a time-stamped send gave). TIME_REGULATION_IS_NOT_ENABLED when
/// not regulating, INVALID_MESSAGE_RETRACTION_HANDLE for a handle this federate did not
/// issue or retracted already, MESSAGE_CAN_NO_LONGER_BE_RETRACTED once logical time reached
/// its time stamp (or it fell out of the bounded table of retractable messages). Federates
/// still holding the message drop it; those it was delivered to get request_retraction.
#[no_mangle]
pub extern "C" fn trellis_retract(handle: *mut TrellisRti, retraction: u64) -> TrellisStatus {
    with_session(handle, |session| {
        let retraction = MessageRetractionHandle::from_u64(retraction);
        Ok(session.joined()?.retract(retraction)?)
    })
}

/// changeAttributeOrderType: time-stamped updates of these owned attributes of `object` go
/// in `order` (TRELLIS_ORDER_*): time-stamp order only when regulating.
#[no_mangle]
pub extern "C" fn trellis_change_attribute_order_type(
    handle: *mut TrellisRti,
    object: u64,
    attributes: *const u64,
    count: usize,
    order: i32,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let attributes = unsafe { crate::declaration::attribute_list(attributes, count) }?;
        let order = order_type(order)?;
        Ok(session
            .joined()?
            .change_attribute_order_type(ObjectId(object), &attributes, order)?)
    })
}

/// changeInteractionOrderType: time-stamped interactions of a published class go in
/// `order` (TRELLIS_ORDER_*).
#[no_mangle]
pub extern "C" fn trellis_change_interaction_order_type(
    handle: *mut TrellisRti,
    interaction_class: u64,
    order: i32,
) -> TrellisStatus {
    with_session(handle, |session| {
        let order = order_type(order)?;
        let class = crate::declaration::interaction_class(interaction_class);
        Ok(session
            .joined()?
            .change_interaction_order_type(class, order)?)
    })
}

/// An order type of the C ABI (TRELLIS_ORDER_*), else InvalidOrderType.
fn order_type(order: i32) -> Result<Order, Failure> {
    match order {
        crate::ffi::TRELLIS_ORDER_RECEIVE => Ok(Order::Receive),
        crate::ffi::TRELLIS_ORDER_TIMESTAMP => Ok(Order::TimeStamp),
        other => Err(Failure::new(
            TRELLIS_ERR_INVALID_ORDER_TYPE,
            format!("{other} is no order type (1 receive, 2 time stamp)"),
        )),
    }
}
