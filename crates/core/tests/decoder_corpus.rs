//! The frame decoder over the committed corpus of malformed frames (and any inputs the
//! fuzzer saved), on stable Rust: every malformed input is refused with an error value,
//! nothing panics, and nothing makes the decoder buffer past its limit.

use bytes::BytesMut;
use std::path::{Path, PathBuf};
use trellis_core::router::{CloseReason, Event, LinkSpec, Router, RouterConfig};
use trellis_core::wire::{decode_frame, NodeId, DEFAULT_MAX_FRAME_SIZE};
use trellis_core::Time;

fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

fn malformed() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/malformed");
    let files = files(&dir);
    assert!(files.len() >= 20, "the corpus is in {}", dir.display());
    files
}

/// Decode everything; true if the input was refused (an error, or a frame left incomplete).
fn refused(data: &[u8]) -> bool {
    let mut buf = BytesMut::from(data);
    loop {
        match decode_frame(&mut buf, DEFAULT_MAX_FRAME_SIZE) {
            Ok(Some(_)) => continue,
            Ok(None) => {
                assert!(
                    buf.len() < DEFAULT_MAX_FRAME_SIZE,
                    "incomplete frames stay under the limit"
                );
                return !buf.is_empty();
            }
            Err(_) => return true,
        }
    }
}

/// Feed the bytes to a router as one peer's stream; returns why it closed the link.
fn close_reason(data: &[u8]) -> Option<CloseReason> {
    let mut router = Router::new(RouterConfig::new("r", NodeId(1)), Time::ZERO);
    let link = router.add_link(Time::ZERO, LinkSpec::accepted("corpus"));
    router.handle_bytes(Time::ZERO, link, data);
    let mut out = Vec::new();
    while router.poll_transmit(Time::ZERO, link, &mut out) > 0 {}
    router.handle_eof(Time::ZERO, link);
    std::iter::from_fn(|| router.poll_event()).find_map(|e| match e {
        Event::LinkClosed { reason, .. } => Some(reason),
        _ => None,
    })
}

#[test]
fn every_malformed_frame_is_refused() {
    for path in malformed() {
        let data = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy();
        assert!(refused(&data), "{name} was accepted as well-formed");
        let reason = close_reason(&data).unwrap_or_else(|| panic!("{name}: link not closed"));
        assert!(
            matches!(reason, CloseReason::Protocol(_) | CloseReason::Violation(_)),
            "{name}: closed for {reason}"
        );
    }
}

#[test]
fn fuzzer_findings_never_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus");
    for target in ["decode_frame", "router_input"] {
        for path in files(&root.join(target)) {
            let data = std::fs::read(&path).unwrap();
            refused(&data);
            close_reason(&data);
        }
    }
}
