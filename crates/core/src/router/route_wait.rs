//! Registry requests that come before the route to the registry is known.
//!
//! A link comes up with the hello; the far side announces its distance to the registry in
//! a frame of its own right after (`RegistryRoute`). A federate node tells its program the
//! link is up at the hello, and the program's first call (create, join) asks the registry
//! at once. When the announcement came in a later write than the hello (a router with
//! bundling off writes each frame on its own), that request found no route and failed
//! with "no federation registry is reachable", though one was a moment away: 5 of 6
//! federates failed to connect to `trellis router --bundling off` that way. So while a
//! connected link has not announced its route yet, a request waits for it, within
//! `ROUTE_WAIT` and `MAX_PENDING`; once every link has announced (or closed) and none
//! leads to the registry, it is answered "no registry" as before.

use super::manage::MAX_PENDING;
use super::{LinkId, Router};
use crate::registry::{ErrorKind, Response};
use crate::time::Time;
use crate::wire::ManageFrame;
use std::time::Duration;

/// The longest a request waits for a link's announcement of its route.
const ROUTE_WAIT: Duration = Duration::from_secs(5);

/// A request waiting for the route to the registry.
pub(crate) struct AwaitingRoute {
    asker: LinkId,
    frame: ManageFrame,
    expires: Time,
}

impl Router {
    /// Whether a connected link toward another router has not announced its distance to
    /// the registry yet: the route may be a moment away.
    pub(super) fn registry_route_unheard(&self) -> bool {
        (self.links.iter().flatten()).any(|l| !l.is_app() && l.is_connected() && !l.registry_heard)
    }

    /// Hold `frame` from `asker` until the route is known (`release_awaiting_route`).
    pub(super) fn await_registry_route(&mut self, now: Time, asker: LinkId, frame: ManageFrame) {
        if self.awaiting_route.len() >= MAX_PENDING {
            let message = format!(
                "{} has {MAX_PENDING} registry requests waiting for a route to the registry",
                self.config.node_name
            );
            let response = Response::Error {
                kind: ErrorKind::LimitReached,
                message,
            };
            return self.reply(now, asker, &frame, response);
        }
        self.awaiting_route.push_back(AwaitingRoute {
            asker,
            frame,
            expires: now + ROUTE_WAIT,
        });
        assert!(self.awaiting_route.len() <= MAX_PENDING);
        self.housekeep_soon(now);
    }

    /// The route changed: once it is known, or every link has announced its own, the
    /// requests that waited go on (forwarded, or answered "no registry").
    ///
    /// Call after every change of the route (`update_registry_route`).
    pub(super) fn release_awaiting_route(&mut self, now: Time) {
        if self.awaiting_route.is_empty()
            || (self.registry_via.is_none() && self.registry_route_unheard())
        {
            return;
        }
        for waiting in std::mem::take(&mut self.awaiting_route) {
            self.forward_request(now, Some(waiting.asker), waiting.frame);
        }
        debug_assert!(
            self.awaiting_route.is_empty(),
            "a known route holds nothing back"
        );
    }

    /// Requests that waited `ROUTE_WAIT` for a route are answered "no registry".
    pub(super) fn expire_awaiting_route(&mut self, now: Time) {
        while self
            .awaiting_route
            .front()
            .is_some_and(|w| w.expires <= now)
        {
            let Some(waiting) = self.awaiting_route.pop_front() else {
                break;
            };
            let message = format!(
                "no federation registry is reachable from {}: a link is up but did not \
                 announce a route to the registry within {} s",
                self.config.node_name,
                ROUTE_WAIT.as_secs()
            );
            let response = Response::Error {
                kind: ErrorKind::NoRegistry,
                message,
            };
            self.reply(now, waiting.asker, &waiting.frame, response);
        }
    }

    /// A link closed: the requests it brought have nobody to answer.
    pub(super) fn forget_awaiting_route_of(&mut self, link: LinkId) {
        self.awaiting_route.retain(|w| w.asker != link);
    }

    /// Whether requests wait for a route (housekeeping then runs at its interval).
    pub(super) fn awaits_registry_route(&self) -> bool {
        !self.awaiting_route.is_empty()
    }
}
