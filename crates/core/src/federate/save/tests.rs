//! A registry that restarts during a save: each federate, as it reclaims its membership,
//! ends the save with federationNotSaved(RtiDetectedFailureDuringSave) instead of waiting
//! for an answer the new incarnation cannot give, and may save again.

use super::super::{Callback, Federate, DEFAULT_BINS};
use super::SaveCallback;
use crate::registry::{Registry, SaveFailureReason};

use super::super::reclaim::tests::{deliver, join, model, pump};

fn registry(epoch: u64) -> Registry {
    super::super::reclaim::tests::registry(epoch, Federate::fingerprint(&model(), DEFAULT_BINS))
}

fn saves(fed: &mut Federate) -> Vec<SaveCallback> {
    std::iter::from_fn(|| fed.poll_callback())
        .filter_map(|c| match c {
            Callback::Save(save) => Some(save),
            _ => None,
        })
        .collect()
}

#[test]
fn a_registry_restart_during_a_save_ends_it_at_every_federate() {
    let mut old = registry(0xA);
    let mut a = join(&mut old, 1, "a");
    let mut b = join(&mut old, 2, "b");
    deliver(&mut old, &mut [(1, &mut a), (2, &mut b)]);
    a.request_federation_save("s1", None).unwrap();
    pump(&mut old, 1, &mut a);
    deliver(&mut old, &mut [(1, &mut a), (2, &mut b)]);
    for (node, fed) in [(1, &mut a), (2, &mut b)] {
        let got = saves(fed);
        assert!(
            matches!(&got[..], [SaveCallback::InitiateFederateSave { label, time: None }] if label == "s1"),
            "{got:?}"
        );
        fed.federate_save_begun().unwrap();
        pump(&mut old, node, fed);
    }
    a.federate_save_complete(true).unwrap();
    pump(&mut old, 1, &mut a);
    assert!(a.check_not_saving().is_err(), "a waits for the federation");

    // The registry's host dies and comes back empty: b's complete finds it.
    let mut new = registry(0xB);
    b.federate_save_complete(true).unwrap();
    pump(&mut new, 2, &mut b);
    let reason = SaveFailureReason::RtiDetectedFailureDuringSave;
    assert_eq!(saves(&mut b), [SaveCallback::FederationNotSaved { reason }]);
    // a hears of the new incarnation from its events, reclaims, and ends its save too.
    deliver(&mut new, &mut [(1, &mut a), (2, &mut b)]);
    assert_eq!(saves(&mut a), [SaveCallback::FederationNotSaved { reason }]);
    assert_eq!(a.saved_labels().count(), 0, "nothing was saved");
    for fed in [&a, &b] {
        assert!(fed.check_not_saving().is_ok());
    }
    // The federation saves again under the new incarnation.
    b.request_federation_save("s2", None).unwrap();
    pump(&mut new, 2, &mut b);
    deliver(&mut new, &mut [(1, &mut a), (2, &mut b)]);
    for (node, fed) in [(1, &mut a), (2, &mut b)] {
        assert_eq!(saves(fed).len(), 1);
        fed.federate_save_begun().unwrap();
        fed.federate_save_complete(true).unwrap();
        pump(&mut new, node, fed);
    }
    deliver(&mut new, &mut [(1, &mut a), (2, &mut b)]);
    for fed in [&mut a, &mut b] {
        assert_eq!(saves(fed), [SaveCallback::FederationSaved]);
        assert_eq!(fed.saved_labels().collect::<Vec<_>>(), ["s2"]);
    }
}
