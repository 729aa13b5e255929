//! A testfed run's configuration: the load federates and how long, from TOML, checked
//! before anything starts.

use super::super::oneway::{check_rate, check_seconds, MAX_PAYLOAD_BYTES};
use super::super::BenchError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::Path;

pub const DEFAULT_SECONDS: f64 = 20.0;

/// Each attribute is an object instance of its own; far beyond any load the paper ran.
const MAX_ATTRIBUTES: usize = 100_000;

fn default_seconds() -> f64 {
    DEFAULT_SECONDS
}

fn default_ramp_rate() -> f64 {
    1.0
}

/// A testfed run: how long, and the load federates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestfedConfig {
    /// Seconds of sending, ramps included.
    #[serde(default = "default_seconds")]
    pub seconds: f64,
    #[serde(rename = "federate")]
    pub federates: Vec<LoadFederate>,
}

/// One load federate (the paper's testfed -n, -r, -s, -i and -w options).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadFederate {
    pub name: String,
    /// Attribute updates per tick: one Vehicle per attribute, each updating its Position.
    pub attributes: usize,
    /// Ticks per second at full rate.
    pub rate_hz: f64,
    /// Bytes per attribute value and per interaction.
    pub size: usize,
    /// Radio interactions per second (0: none).
    #[serde(default)]
    pub interaction_rate_hz: f64,
    /// Seconds at `ramp_rate_hz` before the full rate.
    #[serde(default)]
    pub ramp_seconds: f64,
    #[serde(default = "default_ramp_rate")]
    pub ramp_rate_hz: f64,
}

impl TestfedConfig {
    /// The paper's three-federate test: 11, 2 and 1 attribute updates at 20 Hz, 121 bytes,
    /// interactions at 1 Hz, after 5 seconds at 1 Hz.
    pub fn jads() -> TestfedConfig {
        let load = |name: &str, attributes| LoadFederate {
            name: name.to_owned(),
            attributes,
            rate_hz: 20.0,
            size: 121,
            interaction_rate_hz: 1.0,
            ramp_seconds: 5.0,
            ramp_rate_hz: 1.0,
        };
        TestfedConfig {
            seconds: DEFAULT_SECONDS,
            federates: vec![load("afewes", 11), load("jads", 2), load("acetef", 1)],
        }
    }

    /// Parse and check a configuration.
    pub fn from_toml(text: &str) -> Result<TestfedConfig, String> {
        let config: TestfedConfig = toml::from_str(text).map_err(|e| e.to_string())?;
        config.validate()?;
        Ok(config)
    }

    /// Read, parse and check a configuration file; errors name the file.
    pub fn load(path: &Path) -> Result<TestfedConfig, BenchError> {
        let failed = |e: String| BenchError::Failed(format!("{}: {}", path.display(), e.trim()));
        let text = std::fs::read_to_string(path).map_err(|e| failed(e.to_string()))?;
        TestfedConfig::from_toml(&text).map_err(failed)
    }

    pub fn validate(&self) -> Result<(), String> {
        let message = |e: BenchError| e.to_string();
        if self.federates.is_empty() {
            return Err("a testfed run needs at least one [[federate]]".into());
        }
        check_seconds("seconds", self.seconds).map_err(message)?;
        let mut names = BTreeSet::new();
        for federate in &self.federates {
            if federate.name.trim().is_empty() {
                return Err("every federate needs a name".into());
            }
            if !names.insert(federate.name.as_str()) {
                return Err(format!("two federates are named {:?}", federate.name));
            }
            let about = |e: String| format!("federate {:?}: {e}", federate.name);
            check_rate("rate_hz", federate.rate_hz)
                .map_err(message)
                .map_err(about)?;
            check_rate("ramp_rate_hz", federate.ramp_rate_hz)
                .map_err(message)
                .map_err(about)?;
            if federate.ramp_rate_hz > federate.rate_hz {
                return Err(about(format!(
                    "ramp_rate_hz ({}) is above rate_hz ({}): a ramp-up starts lower",
                    federate.ramp_rate_hz, federate.rate_hz
                )));
            }
            if federate.attributes > MAX_ATTRIBUTES {
                return Err(about(format!(
                    "attributes may be at most {MAX_ATTRIBUTES}, not {}",
                    federate.attributes
                )));
            }
            if federate.size > MAX_PAYLOAD_BYTES {
                return Err(about(format!(
                    "size may be at most {MAX_PAYLOAD_BYTES} bytes, not {}",
                    federate.size
                )));
            }
            let interactions = federate.interaction_rate_hz;
            if !(interactions.is_finite() && interactions >= 0.0) {
                return Err(about(format!(
                    "interaction_rate_hz must be 0 or a positive number of Hz, not {interactions}"
                )));
            }
            let ramp = federate.ramp_seconds;
            if !(ramp.is_finite() && ramp >= 0.0 && ramp < self.seconds) {
                return Err(about(format!(
                    "ramp_seconds must be at least 0 and less than the run's {} seconds, not {ramp}",
                    self.seconds
                )));
            }
        }
        Ok(())
    }
}
