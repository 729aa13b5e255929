//! The update rate table (IEEE 1516.2-2010 4.7): names federates give when subscribing,
//! each with a maximum rate in updates per second. Modules merge by name; a name defined in
//! two modules must have the same rate.

use super::error::{FomError, Site};
use super::parse::{child, children, text, Module, Parser};
use roxmltree::Node;
use serde::Serialize;
use std::collections::BTreeMap;

pub(crate) struct UpdateRateDecl {
    pub name: String,
    pub site: Site,
    pub rate: f64,
}

/// A named update rate of the model.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UpdateRate {
    /// The name the model declares it under: the update rate designator subscriptions name.
    pub name: String,
    /// Updates per second (Hz), finite and above zero.
    pub rate: f64,
}

impl Parser<'_> {
    pub(crate) fn update_rates(&mut self, root: Node<'_, '_>) -> Vec<UpdateRateDecl> {
        let Some(section) = child(root, "updateRates") else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for node in children(section, "updateRate") {
            let Some(name) = self.name(node) else {
                continue;
            };
            let site = self.site(node);
            let raw = text(node, "rate").unwrap_or_default();
            match raw.parse::<f64>() {
                Ok(rate) if rate.is_finite() && rate > 0.0 => {
                    out.push(UpdateRateDecl { name, site, rate });
                }
                _ => self.errors.push(site.error(
                    "rate",
                    format!("update rate {name}: rate {raw:?} is not a positive number of updates per second"),
                )),
            }
        }
        out
    }
}

/// Every module's update rates, by name; a name with two rates is an error naming both.
pub(crate) fn merge(modules: &[Module], errors: &mut Vec<FomError>) -> Vec<UpdateRate> {
    let mut merged: BTreeMap<&str, (f64, &Site)> = BTreeMap::new();
    for decl in modules.iter().flat_map(|m| &m.update_rates) {
        match merged.get(decl.name.as_str()) {
            None => {
                merged.insert(&decl.name, (decl.rate, &decl.site));
            }
            Some((rate, first)) if *rate != decl.rate => errors.push(decl.site.error(
                "updateRate",
                format!(
                    "update rate {}: rate {} conflicts with {rate} defined at {first}",
                    decl.name, decl.rate
                ),
            )),
            Some(_) => {}
        }
    }
    merged
        .into_iter()
        .map(|(name, (rate, _))| UpdateRate {
            name: name.to_owned(),
            rate,
        })
        .collect()
}
