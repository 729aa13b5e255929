//! Additional FOM modules at join (IEEE 1516.1-2010 §4.9): a federate that joins with
//! modules the federation lacks extends the federation's object model, and every member
//! takes the extended model on when the registry's `ModulesAdded` event reaches it. The
//! node loads the modules (core reads no files: [`Action::ExtendModel`]) and hands the
//! model to [`Federate::extend_model`]. Handles append, so nothing a member holds moves: its
//! instances, subscriptions and interest ids stay; the new classes become usable, and its
//! subscriptions cover new subclasses of the classes it subscribed to (whose instances it
//! then discovers).

use super::{Action, Callback, Federate, FederateError, Layouts};
use crate::fom::ObjectModel;
use std::sync::Arc;

impl Federate {
    /// Take on `model`, the federation's model extended by modules a joiner added. Refused,
    /// with nothing changed, when it does not extend this federate's model.
    pub fn extend_model(&mut self, model: Arc<ObjectModel>) -> Result<(), FederateError> {
        model
            .extension_of(&self.model)
            .map_err(FederateError::ModelNotExtended)?;
        // Subscribed classes that gain subclasses: instances of those may exist already.
        let widened: Vec<_> = self
            .object_subscriptions
            .keys()
            .copied()
            .filter(|&class| {
                model.object_descendants(class).len() > self.model.object_descendants(class).len()
            })
            .collect();
        let classes = model.object_classes().len() + model.interaction_classes().len();
        let layouts =
            Layouts::new(&model, self.bins).ok_or(FederateError::TooManyClasses(classes))?;
        self.privilege_to_delete = super::ownership::privilege_to_delete_of(&model);
        self.class_attributes = Federate::class_attributes_of(&model, self.privilege_to_delete);
        self.model_keeps_latest = model.marks_keep_latest();
        self.fingerprint = Federate::fingerprint(&model, self.bins);
        self.layouts = layouts;
        self.model = model;
        // Subscriptions cover subclasses: new ones of subscribed classes join the interest,
        // and their owners announce what they registered before it reached them.
        self.update_interest();
        for class in widened {
            self.request_registrations(class);
        }
        Ok(())
    }

    /// The node could not load the modules the federation added: this federate can no
    /// longer understand what the federation sends, so its connection is lost.
    pub fn model_extension_failed(&mut self, modules: &[String], why: &str) {
        self.callbacks.push_back(Callback::ConnectionLost {
            fault: format!(
                "the federation's object model was extended by a joiner ({}), and this \
                 federate cannot take it on: {why}",
                modules.join(", ")
            ),
        });
    }

    /// The registry said a joiner extended the model: ask the node to load it.
    pub(super) fn on_modules_added(&mut self, modules: Vec<String>, fingerprint: u64) {
        if fingerprint != self.fingerprint {
            self.actions.push_back(Action::ExtendModel {
                modules,
                fingerprint,
            });
        }
    }
}
