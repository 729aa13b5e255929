use super::*;

#[test]
fn ticks_ramp_then_run_at_full_rate() {
    let load = LoadFederate {
        name: "a".into(),
        attributes: 1,
        rate_hz: 10.0,
        size: 8,
        interaction_rate_hz: 0.0,
        ramp_seconds: 2.0,
        ramp_rate_hz: 1.0,
    };
    let mut ticks = Ticks::new(&load, 3.0);
    let mut seen = Vec::new();
    while let Some((at, in_ramp)) = ticks.next() {
        seen.push((at, in_ramp));
        ticks.advance(in_ramp);
    }
    let ramp: Vec<f64> = seen.iter().filter(|t| t.1).map(|t| t.0).collect();
    assert_eq!(ramp, vec![0.0, 1.0]);
    let full: Vec<f64> = seen.iter().filter(|t| !t.1).map(|t| t.0).collect();
    assert_eq!(full.len(), 10);
    assert_eq!(full[0], 2.0);
    assert!(full.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn the_built_in_load_is_the_papers() {
    let config = TestfedConfig::jads();
    config.validate().unwrap();
    let attributes: Vec<usize> = config.federates.iter().map(|f| f.attributes).collect();
    assert_eq!(attributes, vec![11, 2, 1]);
    let text = toml::to_string(&config).unwrap();
    assert_eq!(TestfedConfig::from_toml(&text).unwrap(), config);
}

#[test]
fn bad_configurations_say_what_is_wrong() {
    let error = |text: &str| TestfedConfig::from_toml(text).unwrap_err();
    let one = |extra: &str| {
        format!("seconds = 5\n[[federate]]\nname = \"a\"\nattributes = 1\nrate_hz = 10\nsize = 8\n{extra}")
    };
    assert!(error(&one("colour = \"red\"")).contains("colour"));
    assert!(error("seconds = 5\n").contains("federate"));
    assert!(error(&one("ramp_seconds = 9")).contains("ramp_seconds"));
    assert!(error(&one("ramp_rate_hz = 50")).contains("ramp_rate_hz"));
    assert!(error(&one("interaction_rate_hz = -1")).contains("interaction_rate_hz"));
    let twice = format!(
        "{}\n[[federate]]\nname = \"a\"\nattributes = 1\nrate_hz = 1\nsize = 1\n",
        one("")
    );
    assert!(error(&twice).contains("two federates"));
    assert!(TestfedConfig::from_toml(&one("")).is_ok());
}
