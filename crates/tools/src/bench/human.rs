//! How the benchmarks' summaries read for people: the pieces every summary's table shares.

use super::{Api, Mode, Transport};

/// What carried a run: the API and transport class only mean something when Trellis
/// carried it.
pub fn carrier(mode: Mode, api: Api, transport: Option<Transport>) -> String {
    match mode {
        Mode::Trellis => match transport {
            Some(transport) => format!("Trellis, {api:?} API, {transport:?}"),
            None => format!("Trellis, {api:?} API"),
        },
        Mode::RawTcp => "raw TCP".to_owned(),
        Mode::RawUdp => "raw UDP".to_owned(),
    }
}

/// Microseconds: "-" when there is no figure.
pub fn us(value: Option<f64>) -> String {
    value.map_or_else(|| "-".into(), |v| format!("{v:.1}"))
}

/// The line saying how agents' clocks were read, when the run had agents.
pub fn push_clock(text: &mut String, clock: &Option<String>) {
    if let Some(clock) = clock {
        text.push_str(&format!("\n  agents' clocks: {clock}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_raw_run_names_its_socket_and_no_api() {
        assert_eq!(
            carrier(Mode::Trellis, Api::Node, Some(Transport::BestEffort)),
            "Trellis, Node API, BestEffort"
        );
        assert_eq!(
            carrier(Mode::Trellis, Api::Federate, None),
            "Trellis, Federate API"
        );
        assert_eq!(
            carrier(Mode::RawUdp, Api::Federate, Some(Transport::Reliable)),
            "raw UDP"
        );
        assert_eq!(us(None), "-");
        assert_eq!(us(Some(12.345)), "12.3");
        let mut text = String::from("x");
        push_clock(&mut text, &None);
        assert_eq!(text, "x");
        push_clock(&mut text, &Some("offsets".into()));
        assert_eq!(text, "x\n  agents' clocks: offsets");
    }
}
