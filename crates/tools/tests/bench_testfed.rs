//! JADS testfed on loopback: load federates from a configuration file send on their
//! schedules (ramp first), and every one of them hears the others.

use std::path::PathBuf;
use trellis_monitor::metrics::FederateBoard;
use trellis_tools::bench::results::{Meta, Results};
use trellis_tools::bench::testfed::{TestfedConfig, TestfedOptions};
use trellis_tools::bench::{testfed, Api, Mode, Setup};

struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Dir {
        let dir =
            std::env::temp_dir().join(format!("trellis-testfed-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Dir(dir)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const CONFIG: &str = r#"
seconds = 2.5

[[federate]]
name = "heavy"
attributes = 3
rate_hz = 40
size = 64
interaction_rate_hz = 5
ramp_seconds = 1.0
ramp_rate_hz = 2

[[federate]]
name = "light"
attributes = 1
rate_hz = 20
size = 200
interaction_rate_hz = 2
ramp_seconds = 0.5
ramp_rate_hz = 4

# Interactions only, and no ramp: it listens to the attribute load.
[[federate]]
name = "listener"
attributes = 0
rate_hz = 1
size = 16
interaction_rate_hz = 1
"#;

#[test]
fn load_federates_follow_their_schedules_and_hear_each_other() {
    let dir = Dir::new("run");
    let file = dir.0.join("load.toml");
    std::fs::write(&file, CONFIG).unwrap();
    let config = TestfedConfig::load(&file).unwrap();
    let setup = Setup::default();
    let out = dir.0.join("out");
    let results = Results::create(
        Some(&out),
        Meta::new("testfed", "test", &setup, Mode::Trellis),
    )
    .unwrap();
    let board = FederateBoard::new();
    let summary = testfed::run(
        &TestfedOptions {
            setup,
            config,
            figures: Some(board.clone()),
        },
        &results,
    )
    .unwrap();
    let by_name = |name: &str| {
        summary
            .federates
            .iter()
            .find(|f| f.name == name)
            .unwrap()
            .clone()
    };
    let (heavy, light, listener) = (by_name("heavy"), by_name("light"), by_name("listener"));
    // Deadline schedules: ticks at k / ramp rate within the ramp, then at k / rate.
    assert_eq!(
        heavy.ramp_updates_sent,
        2 * 3,
        "ticks at 0 and 0.5 s, 3 attributes"
    );
    assert_eq!(heavy.updates_sent, (2 + 60) * 3, "then 1.5 s at 40 Hz");
    assert_eq!(light.ramp_updates_sent, 2, "ticks at 0 and 0.25 s");
    assert_eq!(light.updates_sent, 2 + 40, "then 2 s at 20 Hz");
    assert_eq!(listener.updates_sent, 0);
    // What the federates published for `--metrics`: their last figures, before resigning.
    // Federates join under the name of their attachment point (`at`).
    let figures = |at: &str| {
        let published = board.snapshot();
        published.into_iter().find(|f| f.federate == at).unwrap()
    };
    assert_eq!(figures(&heavy.at).updates_sent, heavy.updates_sent);
    assert_eq!(figures(&heavy.at).owned_objects, 3);
    let heard = figures(&listener.at);
    assert_eq!(heard.known_objects, 4, "heavy's 3 and light's 1");
    assert!(heard.reflects >= listener.updates_received);
    assert_eq!(
        (
            heavy.interactions_sent,
            light.interactions_sent,
            listener.interactions_sent
        ),
        (13, 5, 3)
    );
    for federate in [&heavy, &light] {
        let ramp_rate = federate.ramp_updates_sent as f64 / federate.ramp_seconds;
        let full_rate = (federate.updates_sent - federate.ramp_updates_sent) as f64
            / (summary.seconds - federate.ramp_seconds);
        assert!(ramp_rate < full_rate, "{federate:?}");
    }
    // Reliable on loopback: everything the others sent arrives.
    assert_eq!(heavy.updates_received, light.updates_sent);
    assert_eq!(light.updates_received, heavy.updates_sent);
    assert_eq!(
        listener.updates_received,
        heavy.updates_sent + light.updates_sent
    );
    assert_eq!(listener.interactions_received, 13 + 5);
    for federate in &summary.federates {
        assert!(federate.updates_received > 0 && federate.interactions_received > 0);
        assert_eq!(
            (federate.updates_missing, federate.interactions_missing),
            (0, 0)
        );
        let max = federate.update_latency_max_us.unwrap();
        let mean = federate.update_latency_mean_us.unwrap();
        assert!(
            0.0 <= mean && mean <= max && max.is_finite(),
            "{federate:?}"
        );
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    for key in [
        "name",
        "attributes",
        "rate_hz",
        "size",
        "interaction_rate_hz",
        "ramp_seconds",
        "updates_sent",
        "interactions_sent",
        "updates_received",
        "interactions_received",
    ] {
        assert!(!json["federates"][0][key].is_null(), "{key} in {json}");
    }
    let csv = std::fs::read_to_string(out.join("testfed.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 3);
}

#[test]
fn a_bad_configuration_file_is_an_error_naming_it() {
    let dir = Dir::new("bad");
    let file = dir.0.join("bad.toml");
    std::fs::write(&file, "seconds = 5\n[[federate]]\nname = \"a\"\nattributes = 1\nrate_hz = 10\nsize = 8\nwait = 3\n").unwrap();
    let error = TestfedConfig::load(&file).unwrap_err().to_string();
    assert!(
        error.contains("bad.toml") && error.contains("wait"),
        "{error}"
    );
    let missing = dir.0.join("absent.toml");
    let error = TestfedConfig::load(&missing).unwrap_err().to_string();
    assert!(error.contains("absent.toml"), "{error}");
    std::fs::write(
        &file,
        "seconds = 5\n[[federate]]\nname = \"a\"\nattributes = 1\nrate_hz = 10\n",
    )
    .unwrap();
    let error = TestfedConfig::load(&file).unwrap_err().to_string();
    assert!(error.contains("size"), "{error}");
}

#[test]
fn the_node_api_is_refused() {
    let dir = Dir::new("node");
    let setup = Setup {
        api: Api::Node,
        ..Setup::default()
    };
    let results = Results::create(
        Some(&dir.0),
        Meta::new("testfed", "test", &setup, Mode::Trellis),
    )
    .unwrap();
    let options = TestfedOptions {
        setup,
        config: TestfedConfig::jads(),
        figures: None,
    };
    let error = testfed::run(&options, &results).unwrap_err().to_string();
    assert!(error.contains("node"), "{error}");
}
