//! Members of the CLI tests' own, joined through the standard ambassador (`Session`): the
//! federates a `trellis federation` view or a monitor's federation panel watches.

use std::time::{Duration, Instant};
use trellis_core::federate::Callback;
use trellis_net::rti::{LocalSettings, RtiError, Session};
use trellis_net::Endpoint;

pub const DEMO_FOM: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../foms/trellis-demo.xml");

/// A member `name` of `federation` (created on the demo FOM by the first), through the
/// router at `at`, and its federate handle.
pub fn joined(at: &Endpoint, federation: &str, name: &str) -> (Session, u32) {
    let settings = LocalSettings::parse(Some(&at.to_string())).unwrap();
    let mut session = Session::connect(settings).unwrap();
    match session.create_federation_execution(federation, &[DEMO_FOM], None, None) {
        Ok(()) | Err(RtiError::FederationExecutionAlreadyExists(_)) => {}
        Err(e) => panic!("create: {e}"),
    }
    let no_modules: [&str; 0] = [];
    let handle = session
        .join_federation_execution(Some(name), "sim", federation, &no_modules)
        .unwrap();
    (session, handle)
}

/// Evoke `session` until `done` says so, within `wait`.
pub fn evoke_until(session: &mut Session, wait: Duration, mut done: impl FnMut(&Callback) -> bool) {
    let deadline = Instant::now() + wait;
    while Instant::now() < deadline {
        if let Some(callback) = session.evoke_callback(Duration::from_millis(10)).unwrap() {
            if done(&callback) {
                return;
            }
        }
    }
    panic!("not done within {wait:?}");
}
