//! The object model's own text through the MOM: `HLArequestFOMmoduleData` of a federate
//! (a module of its HLAFOMmoduleDesignatorList, answered by that federate) and of the
//! federation (of the federation's list), and the federation's `HLArequestMIMdata`
//! (answered by the federation's speaker), each with the module's XML as it was read.

use super::{encode, Federate};

/// Most bytes one report's module text takes encoded (HLAunicodeString: two bytes per
/// character of ASCII XML): below the default 1 MiB frame with room for the rest. A larger
/// module is refused with HLAreportMOMexception rather than sent and refused on the way.
pub(super) const MAX_MODULE_DATA_BYTES: usize = 960 * 1024;

impl Federate {
    /// HLAmanager.HLAfederate.HLAreport.HLAreportFOMmoduleData: module `index` of the
    /// modules this federate joined with.
    pub(super) fn report_fom_module_data(&mut self, index: i32) {
        let service = "HLArequestFOMmoduleData";
        let listed = self.mom.as_ref().map(|m| m.identity.joined_modules.clone());
        let text = match self.listed_module_text(listed.unwrap_or_default(), index) {
            Ok(text) => text,
            Err(why) => return self.report_mom_exception(self.handle, service, &why, true),
        };
        let parameters = ["HLAfederate", "HLAFOMmoduleIndicator", "HLAFOMmoduleData"];
        let Some((class, [federate, indicator, data])) =
            self.report_class("HLAreportFOMmoduleData", parameters)
        else {
            return;
        };
        let values = [
            (federate, encode::handle(u64::from(self.handle))),
            (indicator, encode::int32(index)),
            (data, text),
        ];
        self.mom_interaction(class, &values, 0);
    }

    /// HLAmanager.HLAfederation.HLAreport.HLAreportFOMmoduleData: module `index` of the
    /// federation's modules.
    pub(super) fn report_federation_module_data(&mut self, index: i32) {
        let service = "HLArequestFOMmoduleData";
        let listed = self
            .mom
            .as_ref()
            .map(|m| m.identity.federation_modules.clone());
        let text = match self.listed_module_text(listed.unwrap_or_default(), index) {
            Ok(text) => text,
            Err(why) => return self.report_mom_exception(self.handle, service, &why, true),
        };
        let parameters = ["HLAFOMmoduleIndicator", "HLAFOMmoduleData"];
        let Some((class, [indicator, data])) =
            self.federation_report_class("HLAreportFOMmoduleData", parameters)
        else {
            return;
        };
        self.mom_interaction(class, &[(indicator, encode::int32(index)), (data, text)], 0);
    }

    /// HLAmanager.HLAfederation.HLAreport.HLAreportMIMdata: the federation's MIM.
    pub(super) fn report_mim_data(&mut self) {
        let designator = self.mom.as_ref().map(|m| m.identity.mim_designator.clone());
        let text = match self.module_text_encoded(&designator.unwrap_or_default()) {
            Ok(text) => text,
            Err(why) => {
                return self.report_mom_exception(self.handle, "HLArequestMIMdata", &why, false)
            }
        };
        let Some((class, [data])) =
            self.federation_report_class("HLAreportMIMdata", ["HLAMIMdata"])
        else {
            return;
        };
        self.mom_interaction(class, &[(data, text)], 0);
    }

    /// Module `index` of `listed` as HLAunicodeString, or why not.
    fn listed_module_text(&self, listed: Vec<String>, index: i32) -> Result<Vec<u8>, String> {
        let designator = usize::try_from(index).ok().and_then(|i| listed.get(i));
        let Some(designator) = designator else {
            return Err(format!(
                "HLAFOMmoduleIndicator {index} names no module: the list has {} (numbered from 0)",
                listed.len()
            ));
        };
        self.module_text_encoded(designator)
    }

    fn module_text_encoded(&self, designator: &str) -> Result<Vec<u8>, String> {
        let Some(text) = self.model.module_text(designator) else {
            return Err(format!(
                "the module {designator:?} is not in this federate's object model"
            ));
        };
        let encoded = encode::unicode_string(text);
        if encoded.len() > MAX_MODULE_DATA_BYTES {
            return Err(format!(
                "the module {designator:?} takes {} bytes as HLAunicodeString, more than the {MAX_MODULE_DATA_BYTES} one report carries",
                encoded.len()
            ));
        }
        Ok(encoded)
    }
}
