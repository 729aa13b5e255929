//! Benchmarks with their federates in agent processes (`--agents local`): real processes,
//! real sockets on 127.0.0.1. The same runs in one process and with agents deliver the same
//! (everything sent arrives, nothing is lost), the results name the clock method and each
//! agent's measured offset, and an agent killed mid-run fails the run naming that agent.

mod common;

use common::{bench, bench_with};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn temp(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("trellis-agents-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The same run in one process and with `--agents local` (their environment `env`): both
/// summaries.
fn in_one_and_agents(
    args: &[&str],
    dir: &Path,
    env: &[(&str, &str)],
) -> (serde_json::Value, serde_json::Value) {
    let one = bench(args, &dir.join("one"));
    let agents = bench_with(
        &[args, &["--agents", "local"]].concat(),
        &dir.join("agents"),
        env,
    );
    (one, agents)
}

/// The agents a run used, each in a process of its own, with a clock offset that on one
/// machine (one clock) lies within the bound it was measured to.
fn check_agents(report: &serde_json::Value, expected: usize) -> String {
    let agents = report["agents"].as_array().unwrap();
    assert_eq!(agents.len(), expected, "{report}");
    let mut pids: Vec<u64> = agents.iter().map(|a| a["pid"].as_u64().unwrap()).collect();
    pids.sort_unstable();
    pids.dedup();
    assert_eq!(pids.len(), expected, "one process per agent: {report}");
    assert!(!pids.contains(&u64::from(std::process::id())));
    for agent in agents {
        let clock = &agent["clock"];
        assert_eq!(clock["probes"], 8, "{agent}");
        let (offset, bound) = (
            clock["offset_us"].as_f64().unwrap(),
            clock["uncertainty_us"].as_f64().unwrap(),
        );
        // Rounding of the four readings to whole nanoseconds: 1 ns of slack.
        assert!(
            offset.abs() <= bound + 0.001,
            "same clock, so the offset must lie within ± rtt/2: {agent}"
        );
    }
    let method = report["clock_method"].as_str().unwrap().to_owned();
    assert!(
        method.starts_with("offset measured: ") || method == "round-trip halves",
        "{method}"
    );
    method
}

#[test]
fn pingpong_with_agents_measures_every_round_trip_as_in_one_process() {
    let dir = temp("pingpong");
    let args = [
        "pingpong", "--pairs", "2", "--sizes", "64,1024", "--count", "30",
    ];
    let (one, agents) = in_one_and_agents(&args, &dir, &[]);
    for summary in [&one, &agents] {
        // 2 pairs × 2 sizes × 30 exchanges, every one answered.
        assert_eq!(summary["count"], 120, "{summary}");
        assert_eq!(summary["lost"], 0, "{summary}");
        for size in summary["sizes"].as_array().unwrap() {
            let means = size["pair_means_us"].as_array().unwrap();
            assert_eq!(means.len(), 2, "{size}");
            assert!(means.iter().all(|m| m.as_f64().unwrap() > 0.0), "{size}");
        }
    }
    assert!(
        one.get("clock").is_none(),
        "one process has one clock: {one}"
    );
    let method = check_agents(&read_json(&dir.join("agents/agents.json")), 4);
    assert_eq!(agents["clock"], method.as_str());
    assert_eq!(read_json(&dir.join("agents/meta.json"))["complete"], true);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn pingpong_with_agents_on_a_topology_reaches_pairs_across_routers() {
    let dir = temp("topology");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("tree.toml");
    let generated = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args(["topology", "gen", "tree", "--levels", "2", "--fanout", "2"])
        .args(["--federates", "3", "-o", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(generated.status.success(), "{generated:?}");
    let summary = bench(
        &[
            "pingpong",
            "--topology",
            file.to_str().unwrap(),
            // One pair under one leaf router, one across the root.
            "--pair",
            "fed-1:fed-2",
            "--pair",
            "fed-3:fed-4",
            "--size",
            "64",
            "--count",
            "20",
            "--agents",
            "local",
        ],
        &dir.join("out"),
    );
    assert_eq!(summary["count"], 40, "{summary}");
    assert_eq!(summary["lost"], 0, "{summary}");
    let links: Vec<u64> = summary["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["links"].as_u64().unwrap())
        .collect();
    assert!(
        links.iter().any(|&l| l > 2),
        "a pair across routers: {links:?}"
    );
    check_agents(&read_json(&dir.join("out/agents.json")), 4);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn throughput_with_agents_delivers_everything_sent_as_in_one_process() {
    let dir = temp("throughput");
    let args = [
        "throughput",
        "--subscribers",
        "1,2",
        "--seconds",
        "0.5",
        "--size",
        "64",
    ];
    let (one, agents) = in_one_and_agents(&args, &dir, &[]);
    for summary in [&one, &agents] {
        for case in entries(summary, "cases", 2) {
            let (n, sent) = (
                case["subscribers"].as_u64().unwrap(),
                case["sent"].as_u64().unwrap(),
            );
            assert!(sent >= 256, "{case}");
            assert_eq!(case["received"].as_u64().unwrap(), n * sent, "{case}");
            assert_eq!(case["lost"], 0, "{case}");
            for rate in case["per_subscriber_msgs_per_sec"].as_array().unwrap() {
                assert!(rate.as_f64().unwrap() > 0.0, "{case}");
            }
        }
    }
    // One sender and the case's receivers, each an agent.
    let one_receiver = check_agents(&read_json(&dir.join("agents/agents-1.json")), 2);
    let two_receivers = check_agents(&read_json(&dir.join("agents/agents-2.json")), 3);
    let clock = agents["clock"].as_str().unwrap();
    assert!(
        clock.contains(&one_receiver) && clock.contains(&two_receivers),
        "{clock}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn symmetric_with_agents_delivers_every_message_to_every_other_party_as_in_one_process() {
    let dir = temp("symmetric");
    let args = ["symmetric", "--federates", "2,3", "--seconds", "0.3"];
    let (one, agents) = in_one_and_agents(&args, &dir, &[]);
    for summary in [&one, &agents] {
        for case in entries(summary, "cases", 2) {
            let (n, sent) = (
                case["federates"].as_u64().unwrap(),
                case["sent"].as_u64().unwrap(),
            );
            assert!(sent > 0, "{case}");
            // Reliable: each message reaches each of the n - 1 others, none lost.
            assert_eq!(case["received"].as_u64().unwrap(), (n - 1) * sent, "{case}");
            assert_eq!(case["lost"], 0, "{case}");
        }
    }
    check_agents(&read_json(&dir.join("agents/agents-2.json")), 2);
    check_agents(&read_json(&dir.join("agents/agents-3.json")), 3);
    let clock = agents["clock"].as_str().unwrap();
    assert!(clock.contains("own clock"), "{clock}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn latency_with_agents_answers_every_exchange_as_in_one_process() {
    let dir = temp("latency");
    let args = ["latency", "--receivers", "1,3", "--exchanges", "30"];
    let (one, agents) = in_one_and_agents(&args, &dir, &[]);
    for summary in [&one, &agents] {
        for case in entries(summary, "cases", 2) {
            assert_eq!(case["count"], 30, "{case}");
            assert_eq!(case["lost"], 0, "{case}");
            assert!(case["mean_us"].as_f64().unwrap() > 0.0, "{case}");
        }
    }
    check_agents(&read_json(&dir.join("agents/agents-1.json")), 2);
    check_agents(&read_json(&dir.join("agents/agents-3.json")), 4);
    let clock = agents["clock"].as_str().unwrap();
    assert!(clock.starts_with("round-trip halves"), "{clock}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The agents' test hook: an agent's clock set off by some milliseconds, as on a host
/// whose clock is wrong.
const SKEW_VAR: &str = "TRELLIS_AGENT_TEST_SKEW";
/// How far off: any latency it went into uncorrected would be at least this.
const SKEW_US: f64 = 2_000_000.0;

/// Agent `name`'s measured offset lies within its bound of `true_us` (the skew it was
/// given on this one clock); its report entry.
fn offset_found<'a>(
    report: &'a serde_json::Value,
    name: &str,
    true_us: f64,
) -> &'a serde_json::Value {
    let agent = report["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == name)
        .unwrap_or_else(|| panic!("no agent {name}: {report}"));
    let clock = &agent["clock"];
    let (offset, bound) = (
        clock["offset_us"].as_f64().unwrap(),
        clock["uncertainty_us"].as_f64().unwrap(),
    );
    assert!(
        (offset - true_us).abs() <= bound + 0.001,
        "{name} is {true_us} µs off; measured {offset} ± {bound}: {report}"
    );
    agent
}

/// The same run in one process and with agents, agent `skewed`'s clock 2 s ahead; both
/// summaries.
fn in_one_and_skewed(
    args: &[&str],
    dir: &Path,
    skewed: &str,
) -> (serde_json::Value, serde_json::Value) {
    let skew = format!("{skewed}:{}", SKEW_US as u64 / 1000);
    let (one, agents) = in_one_and_agents(args, dir, &[(SKEW_VAR, &skew)]);
    assert!(
        one.get("clock").is_none(),
        "one process has one clock: {one}"
    );
    let clock = agents["clock"].as_str().unwrap();
    assert!(
        clock.starts_with("one-way latency corrected by measured clock offsets"),
        "{clock}"
    );
    (one, agents)
}

/// The entries of `summary`'s list `field` (cases, federates): `len` of them.
fn entries(summary: &serde_json::Value, field: &str, len: usize) -> Vec<serde_json::Value> {
    let entries = summary[field].as_array().unwrap().clone();
    assert_eq!(entries.len(), len, "{summary}");
    entries
}

#[test]
fn oneway_with_agents_delivers_every_message_and_corrects_a_skewed_clock() {
    let dir = temp("oneway");
    let args = [
        "oneway",
        "--sizes",
        "17,101",
        "--rates",
        "50,200",
        "--seconds",
        "0.5",
    ];
    // The receiver's clock 2 s ahead: uncorrected, every latency would be 2 s more.
    let (one, agents) = in_one_and_skewed(&args, &dir, "slave-1");
    for (in_one, with_agents) in entries(&one, "cases", 4)
        .iter()
        .zip(&entries(&agents, "cases", 4))
    {
        let sent = in_one["sent"].as_u64().unwrap();
        // rate x 0.5 s: 25 or 100 messages.
        assert_eq!(
            sent as f64,
            in_one["rate_hz"].as_f64().unwrap() * 0.5,
            "{in_one}"
        );
        assert_eq!(with_agents["sent"], sent, "{with_agents}");
        for case in [in_one, with_agents] {
            assert_eq!(case["received"], sent, "{case}");
            assert_eq!(case["missing"], 0, "{case}");
        }
        // Every serial arrived, each a line of the data file.
        let data = std::fs::read_to_string(
            dir.join("agents")
                .join(with_agents["data_file"].as_str().unwrap()),
        )
        .unwrap();
        let lines: Vec<&str> = data.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(lines.len() as u64, sent, "{data}");
        assert!(!lines.iter().any(|l| l.contains("MISSING")), "{data}");
        assert!(
            with_agents["max_us"].as_f64().unwrap() < SKEW_US / 2.0,
            "the receiver's 2 s were corrected: {with_agents}"
        );
    }
    let report = read_json(&dir.join("agents/agents.json"));
    assert_eq!(
        offset_found(&report, "slave-1", SKEW_US)["role"],
        "receiver"
    );
    assert_eq!(offset_found(&report, "master-1", 0.0)["role"], "sender");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn testfed_with_agents_counts_as_in_one_process_and_corrects_a_skewed_clock() {
    let dir = temp("testfed");
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("load.toml");
    std::fs::write(
        &config,
        "seconds = 1.5\n\
         [[federate]]\nname = \"a\"\nattributes = 3\nrate_hz = 20\nsize = 64\n\
         interaction_rate_hz = 2\nramp_seconds = 0.5\nramp_rate_hz = 2\n\
         [[federate]]\nname = \"b\"\nattributes = 1\nrate_hz = 10\nsize = 64\n\
         interaction_rate_hz = 1\n\
         [[federate]]\nname = \"c\"\nattributes = 2\nrate_hz = 25\nsize = 32\n",
    )
    .unwrap();
    let args = ["testfed", "--config", config.to_str().unwrap()];
    // The second load federate's clock 2 s ahead: what it receives and what it sends
    // would be 2 s late or early uncorrected.
    let (one, agents) = in_one_and_skewed(&args, &dir, "fed-2");
    for summary in [&one, &agents] {
        let all = entries(summary, "federates", 3);
        let total = |field: &str| -> u64 { all.iter().map(|f| f[field].as_u64().unwrap()).sum() };
        for federate in &all {
            // Each gets everything the others sent: reliable updates and interactions.
            let others = |field: &str| total(field) - federate[field].as_u64().unwrap();
            assert_eq!(
                federate["updates_received"],
                others("updates_sent"),
                "{federate}"
            );
            assert_eq!(
                federate["interactions_received"],
                others("interactions_sent"),
                "{federate}"
            );
            assert_eq!(federate["updates_missing"], 0, "{federate}");
            assert_eq!(federate["interactions_missing"], 0, "{federate}");
        }
    }
    for (in_one, with_agents) in
        entries(&one, "federates", 3)
            .iter()
            .zip(&entries(&agents, "federates", 3))
    {
        assert_eq!(in_one["name"], with_agents["name"]);
        // The schedules are fixed: the same loads sent in both.
        for field in ["updates_sent", "ramp_updates_sent", "interactions_sent"] {
            assert_eq!(in_one[field], with_agents[field], "{field}: {with_agents}");
        }
        assert!(in_one["updates_sent"].as_u64().unwrap() > 0, "{in_one}");
        for field in ["update_latency_max_us", "interaction_latency_max_us"] {
            if let Some(max) = with_agents[field].as_f64() {
                assert!(
                    max < SKEW_US / 2.0,
                    "fed-2's 2 s were corrected: {with_agents}"
                );
            }
        }
    }
    let report = read_json(&dir.join("agents/agents.json"));
    offset_found(&report, "fed-2", SKEW_US);
    offset_found(&report, "fed-1", 0.0);
    offset_found(&report, "fed-3", 0.0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn matrix_with_agents_delivers_as_in_one_process_and_corrects_a_skewed_clock() {
    let dir = temp("matrix");
    let args = [
        "matrix",
        "--configs",
        "1-N,N-N",
        "--n",
        "3",
        "--entities",
        "2",
        "--rates",
        "20",
        "--sizes",
        "128",
        "--deliveries",
        "reliable",
        "--seconds",
        "0.5",
    ];
    // fed-2 receives in both cases (and sends in N-N): its clock 2 s ahead.
    let (one, agents) = in_one_and_skewed(&args, &dir, "fed-2");
    for (in_one, with_agents) in entries(&one, "cases", 2)
        .iter()
        .zip(&entries(&agents, "cases", 2))
    {
        assert_eq!(in_one["config"], with_agents["config"]);
        for field in ["scheduled", "published", "received", "senders", "receivers"] {
            assert_eq!(in_one[field], with_agents[field], "{field}: {with_agents}");
        }
        // 2 entities x 10 ticks per sender; 1-N: 3 receivers hear 1 sender, N-N: 3
        // receivers hear 2 senders each.
        let receipts = match in_one["config"].as_str().unwrap() {
            "1-N" => 3 * 20,
            _ => 3 * 2 * 20,
        };
        for case in [in_one, with_agents] {
            assert_eq!(case["published"], case["scheduled"], "{case}");
            assert_eq!(case["received"], receipts, "{case}");
            assert_eq!(case["duplicates"], 0, "{case}");
            assert_eq!(case["reliability"], 1.0, "{case}");
        }
        assert!(
            with_agents["mean_latency_us"].as_f64().unwrap() < SKEW_US / 2.0,
            "fed-2's 2 s were corrected: {with_agents}"
        );
    }
    // One agent per party of each case.
    for (case, parties) in [(1, 4), (2, 3)] {
        let report = read_json(&dir.join(format!("agents/agents-case-{case}.json")));
        assert_eq!(
            report["agents"].as_array().unwrap().len(),
            parties,
            "{report}"
        );
        offset_found(&report, "fed-2", SKEW_US);
        offset_found(&report, "fed-1", 0.0);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Poll `done` every 10 ms until it holds, for at most `limit`.
fn wait_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

/// The agent processes `parent` started: (pid, --name).
fn agents_of(parent: u32) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{parent}/task")) else {
        return found;
    };
    for task in tasks.flatten() {
        let children = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        for pid in children
            .split_whitespace()
            .filter_map(|p| p.parse::<u32>().ok())
        {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let args: Vec<String> = cmdline
                .split(|&b| b == 0)
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect();
            if args.iter().any(|a| a == "agent") {
                if let Some(i) = args.iter().position(|a| a == "--name") {
                    found.push((pid, args[i + 1].clone()));
                }
            }
        }
    }
    found
}

/// CPU time a process used, in clock ticks (utime + stime of /proc/PID/stat).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name, which is in parentheses and may hold spaces.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let field = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    field(11) + field(12)
}

#[test]
fn an_agent_killed_mid_run_fails_the_run_naming_it() {
    let dir = temp("killed");
    let mut coordinator = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args([
            "bench",
            "throughput",
            "--agents",
            "local",
            "--subscribers",
            "2",
        ])
        .args(["--seconds", "60", "--out", dir.to_str().unwrap()])
        .env("TRELLIS_LOG", "error")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut agents = Vec::new();
    let started = wait_until(Duration::from_secs(60), || {
        agents = agents_of(coordinator.id());
        agents.len() == 3
    });
    assert!(started, "three agents, found {agents:?}");
    let sender = agents
        .iter()
        .find(|(_, n)| n == "fed-1")
        .expect("the sender")
        .0;
    // Mid-run: the sender has been busy for half a second of CPU (warming up or sending).
    let busy = wait_until(Duration::from_secs(60), || cpu_ticks(sender) >= 50);
    assert!(busy, "the sender never got busy");
    let (victim, name) = agents.iter().find(|(_, n)| n == "fed-3").cloned().unwrap();
    let killed = Command::new("kill")
        .args(["-9", &victim.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let killed_at = Instant::now();
    let mut status = None;
    let ended = wait_until(Duration::from_secs(15), || {
        status = coordinator.try_wait().unwrap();
        status.is_some()
    });
    if !ended {
        let _ = coordinator.kill();
        let _ = coordinator.wait();
    }
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut coordinator.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(
        ended,
        "the coordinator still ran 15 s after {name} was killed: {stderr}"
    );
    assert!(killed_at.elapsed() < Duration::from_secs(15));
    assert_eq!(status.unwrap().code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("agent {name} (pid {victim}) lost")),
        "the error names the agent: {stderr}"
    );
    let meta = read_json(&dir.join("meta.json"));
    assert_eq!(meta["complete"], false);
    assert!(meta["fault"].as_str().unwrap().contains(&name), "{meta}");
    // The coordinator took its other agents down with it.
    for (pid, other) in &agents {
        assert!(
            !Path::new(&format!("/proc/{pid}")).exists(),
            "agent {other} (pid {pid}) outlived the coordinator"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
