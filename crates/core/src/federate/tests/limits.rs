//! What one message carries, refused at the call and never cut on the wire: a tag of more
//! than 65535 bytes (the frame's tag length is 16 bits), and an update request naming more
//! attributes than a message counts. Before, the tag was cut silently and the request's
//! count wrapped, so subscribers got another tag or the request was dropped as malformed.

use super::*;
use crate::federate::message::{MAX_TAG, MAX_VALUES};

#[test]
fn a_tag_longer_than_a_message_carries_is_refused_by_every_service_that_sends_one() {
    let mut w = World::new(41, 2);
    let (vehicle, name, _) = vehicles_published_and_subscribed(&mut w);
    let car = w.feds[0]
        .register_object_instance(vehicle, None, 0)
        .unwrap();
    w.pump();
    w.callbacks(1);
    let long = vec![b't'; MAX_TAG + 1];
    let fed = &mut w.feds[0];
    let refused = |result: Result<(), FederateError>| {
        assert_eq!(result, Err(FederateError::TagTooLong(MAX_TAG + 1)));
    };
    refused(fed.update_attribute_values(car, &[(name, b"x")], &long, 0, None, None));
    refused(fed.request_class_attribute_value_update(vehicle, &[name], &long));
    refused(fed.delete_object_instance(car, &long, 0));
    let radio = fed.interaction_class("Radio").unwrap();
    fed.publish_interaction_class(radio).unwrap();
    let no_values: [(ParameterHandle, &[u8]); 0] = [];
    refused(fed.send_interaction(radio, &no_values, &long, 0, None, None));
    // The longest tag that fits travels whole.
    let longest = vec![b't'; MAX_TAG];
    fed.update_attribute_values(car, &[(name, b"x")], &longest, 0, None, None)
        .unwrap();
    w.pump();
    let tags: Vec<usize> = (w.callbacks(1).into_iter())
        .filter_map(|c| match c {
            Callback::ReflectAttributeValues { tag, .. } => Some(tag.len()),
            _ => None,
        })
        .collect();
    assert_eq!(
        tags,
        vec![MAX_TAG],
        "only the update that fits was sent, its tag whole"
    );
}

#[test]
fn an_update_request_naming_more_attributes_than_a_message_counts_is_refused() {
    let mut w = World::new(42, 2);
    let (vehicle, name, _) = vehicles_published_and_subscribed(&mut w);
    let many = vec![name; MAX_VALUES + 1];
    assert_eq!(
        w.feds[1].request_class_attribute_value_update(vehicle, &many, b""),
        Err(FederateError::TooManyValues(many.len()))
    );
}
