//! The value each update carries: 100 bytes shaped like an RPR entity state (ids, position,
//! velocity, orientation, type, force, dead reckoning, marking), with the benchmark's
//! entity number and tick in front so a receiver can tell exactly which update it got.

/// Bytes per update value.
pub const PAYLOAD_BYTES: usize = 100;

/// What a receiver reads back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntityState {
    pub entity: u64,
    pub tick: u64,
    pub position: (u32, u32),
}

/// Write the entity state into `out` (which keeps its allocation between updates).
pub fn encode(state: &EntityState, velocity: (i64, i64), out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(&state.entity.to_le_bytes());
    out.extend_from_slice(&(state.tick as u32).to_le_bytes());
    // Position in metres (world coordinates, as RPR's WorldLocation: three f64).
    for axis in [
        f64::from(state.position.0),
        f64::from(state.position.1),
        0.0,
    ] {
        out.extend_from_slice(&axis.to_le_bytes());
    }
    // Velocity vector (three f32), orientation psi / theta / phi (three f32).
    for v in [velocity.0 as f32, velocity.1 as f32, 0.0, 0.0, 0.0, 0.0] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    // Entity type: kind, domain, country (u16), category, subcategory, specific, extra.
    out.extend_from_slice(&[1, 1, 0xE1, 0x00, 1, 1, 1, 0]);
    // Force id, dead-reckoning algorithm (DRM_FVW), appearance (u32).
    out.extend_from_slice(&[1, 4, 0, 0, 0, 0]);
    // Marking: 11 characters naming the entity.
    // (Written digit by digit: formatting allocated and cost about 3 % of a simulator.)
    let mut marking = *b"E0000000000";
    let mut rest = state.entity;
    for digit in marking[1..].iter_mut().rev() {
        *digit = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    out.extend_from_slice(&marking);
    out.resize(PAYLOAD_BYTES, 0);
}

/// Read back what [`encode`] wrote; `None` for anything else.
pub fn decode(bytes: &[u8]) -> Option<EntityState> {
    if bytes.len() != PAYLOAD_BYTES {
        return None;
    }
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or([0; 8]));
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or([0; 4]));
    let f64_at = |at: usize| f64::from_bits(u64_at(at));
    let (x, y) = (f64_at(12), f64_at(20));
    let coordinate = |v: f64| (0.0..1e9).contains(&v).then_some(v as u32);
    Some(EntityState {
        entity: u64_at(0),
        tick: u64::from(u32_at(8)),
        position: (coordinate(x)?, coordinate(y)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_reads_back_as_written_and_is_a_hundred_bytes() {
        let state = EntityState {
            entity: 123_456,
            tick: 42,
            position: (917, 3),
        };
        let mut out = Vec::new();
        encode(&state, (-2, 1), &mut out);
        assert_eq!(out.len(), PAYLOAD_BYTES);
        assert_eq!(decode(&out), Some(state));
        assert_eq!(decode(&out[..50]), None);
    }
}
