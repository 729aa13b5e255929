//! Any bytes into the stream decoder: errors are values, nothing panics, and the buffer
//! never has to grow past the frame limit.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trellis_core::wire::{decode_frame, Frame};

const LIMIT: usize = 4096;

fuzz_target!(|data: &[u8]| {
    let mut buf = bytes::BytesMut::from(data);
    loop {
        match decode_frame(&mut buf, LIMIT) {
            Ok(Some(_)) => continue,
            Ok(None) => {
                assert!(
                    buf.len() < LIMIT,
                    "an incomplete frame never exceeds the limit"
                );
                break;
            }
            Err(_) => break,
        }
    }
    let _ = Frame::parse(bytes::Bytes::copy_from_slice(data));
});
