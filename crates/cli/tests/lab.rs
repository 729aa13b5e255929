//! `trellis lab` as a process (needs root): a benchmark run in the lab passes its result
//! through and crosses the site link; SIGINT, SIGKILL plus `--clean`, and bad files leave no
//! namespace or process behind.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TRELLIS: &str = env!("CARGO_BIN_EXE_trellis");
const WAIT: Duration = Duration::from_secs(20);

fn lab_file(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../labs")
        .join(name);
    path.to_str().unwrap().to_owned()
}

fn require_root() {
    assert!(
        trellis_lab::is_root(),
        "this test builds network namespaces and must run as root"
    );
}

/// The namespaces of the lab run by process `pid`.
fn lab_namespaces(pid: u32) -> Vec<String> {
    let out = Command::new("ip").args(["netns", "list"]).output().unwrap();
    let prefix = format!("tlab-{pid}-");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| name.starts_with(&prefix))
        .map(str::to_owned)
        .collect()
}

fn pids_in(namespace: &str) -> Vec<u32> {
    let out = Command::new("ip")
        .args(["netns", "pids", namespace])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

/// The inode that names a namespace; a process in it shows `net:[INODE]`.
fn namespace_inode(namespace: &str) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(format!("/run/netns/{namespace}"))
        .unwrap()
        .ino()
}

/// Every thread of every process whose network namespace is one of `inodes`.
fn threads_in(inodes: &[u64]) -> Vec<String> {
    let mut found = Vec::new();
    let wanted: Vec<String> = inodes.iter().map(|i| format!("net:[{i}]")).collect();
    for process in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(tasks) = std::fs::read_dir(process.path().join("task")) else {
            continue;
        };
        for task in tasks.flatten() {
            if let Ok(link) = std::fs::read_link(task.path().join("ns/net")) {
                if wanted.iter().any(|w| link.to_str() == Some(w)) {
                    found.push(task.path().display().to_string());
                }
            }
        }
    }
    found
}

/// Poll `condition` every 10 ms until it holds, at most `WAIT`.
fn wait_until(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !condition() {
        assert!(Instant::now() < deadline, "gave up waiting: {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn wait_exit(child: &mut Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            panic!("trellis lab did not exit within {WAIT:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn is_running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| {
            let state = stat.rsplit_once(')').map(|(_, rest)| rest.trim_start());
            !matches!(
                state.and_then(|s| s.chars().next()),
                Some('Z') | Some('X') | None
            )
        })
        .unwrap_or(false)
}

/// A `trellis lab` process that is killed if a test fails before it ends, so a failing
/// test leaves no lab running.
struct LabProcess(Child);

impl Drop for LabProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
            let _ = Command::new(TRELLIS).args(["lab", "--clean"]).output();
        }
    }
}

/// `trellis lab two-sites --exec east -- sleep 600`, returned once the sleeper runs in east.
fn lab_with_a_sleeper() -> (LabProcess, Vec<String>, Vec<u32>) {
    let child = Command::new(TRELLIS)
        .args(["lab", &lab_file("two-sites-20ms.toml"), "--no-verify"])
        .args(["--exec", "east", "--", "sleep", "600"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let child = LabProcess(child);
    let pid = child.0.id();
    let mut namespaces = Vec::new();
    let mut sleepers = Vec::new();
    wait_until("the lab's sleeper runs in east", || {
        namespaces = lab_namespaces(pid);
        sleepers = namespaces
            .iter()
            .filter(|n| n.ends_with("-east"))
            .flat_map(|n| pids_in(n))
            .collect();
        // The sleeper itself, past `ip netns exec`'s own set-up and exec.
        let sleeping = |pid: &u32| {
            std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c == "sleep\n")
        };
        namespaces.len() == 3 && !sleepers.is_empty() && sleepers.iter().all(sleeping)
    });
    (child, namespaces, sleepers)
}

#[test]
fn sigint_removes_every_namespace_and_process() {
    require_root();
    let (mut lab, namespaces, sleepers) = lab_with_a_sleeper();
    let inodes: Vec<u64> = namespaces.iter().map(|n| namespace_inode(n)).collect();
    assert!(
        !threads_in(&inodes).is_empty(),
        "the sleeper {sleepers:?} is in the lab {namespaces:?} {inodes:?}"
    );
    #[allow(unsafe_code)] // std signals a child only with SIGKILL
    // SAFETY: signalling our own child.
    let sent = unsafe { libc::kill(lab.0.id() as i32, libc::SIGINT) };
    assert_eq!(sent, 0);
    let status = wait_exit(&mut lab.0);
    assert!(!status.success(), "interrupted is not success: {status}");
    assert_eq!(lab_namespaces(lab.0.id()), Vec::<String>::new());
    for pid in sleepers {
        assert!(!is_running(pid), "process {pid} of the lab still runs");
    }
    assert_eq!(threads_in(&inodes), Vec::<String>::new());
}

#[test]
fn clean_removes_what_a_killed_lab_left() {
    require_root();
    let (mut lab, namespaces, sleepers) = lab_with_a_sleeper();
    let inodes: Vec<u64> = namespaces.iter().map(|n| namespace_inode(n)).collect();
    lab.0.kill().unwrap(); // SIGKILL: no teardown
    lab.0.wait().unwrap();
    assert_eq!(
        lab_namespaces(lab.0.id()).len(),
        3,
        "left behind by SIGKILL"
    );
    assert!(sleepers.iter().all(|&pid| is_running(pid)));

    let out = Command::new(TRELLIS)
        .args(["lab", "--clean"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let removed = String::from_utf8_lossy(&out.stdout);
    for namespace in &namespaces {
        assert!(
            removed.contains(&format!("removed {namespace}\n")),
            "{removed}"
        );
    }
    assert_eq!(lab_namespaces(lab.0.id()), Vec::<String>::new());
    for pid in sleepers {
        assert!(!is_running(pid), "process {pid} of the lab still runs");
    }
    assert_eq!(threads_in(&inodes), Vec::<String>::new());
}

/// `trellis lab LAB_ARGS --bench 'BENCH --out TMP' --json`: the JSON it printed, and its
/// stderr without INFO lines; asserts success and that the lab's namespaces are gone.
/// Whether a round trip of `p50_ms` crossed the 20 ms site link four times: at least 72 ms
/// (four crossings with some slack below the asked delay), and fewer than five crossings of
/// the link as the lab measured it before the run ("link east–west: round trip … ms" in
/// `log`; on a busy machine the delays run long, and the benchmark's with them).
fn crossed_four_times(p50_ms: f64, log: &str) -> bool {
    let measured_round_trip_ms = (log.lines())
        .find_map(|l| {
            l.split("round trip ")
                .nth(1)?
                .split(" ms")
                .next()?
                .parse::<f64>()
                .ok()
        })
        .unwrap_or_else(|| panic!("the lab measured no link round trip: {log}"));
    let five_crossings_ms = 2.5 * measured_round_trip_ms.max(40.0);
    (72.0..five_crossings_ms).contains(&p50_ms)
}

fn lab_bench(lab_args: &[&str], bench: &str) -> (serde_json::Value, String) {
    let (json, log, _) = lab_bench_record(lab_args, bench);
    (json, log)
}

/// As [`lab_bench`], also the lab's record of the run (`lab.json`).
fn lab_bench_record(
    lab_args: &[&str],
    bench: &str,
) -> (serde_json::Value, String, serde_json::Value) {
    let out_dir = std::env::temp_dir().join(format!(
        "trellis-lab-bench-{}-{}",
        std::process::id(),
        bench.len()
    ));
    let bench = format!("{bench} --out {}", out_dir.display());
    let mut child = Command::new(TRELLIS)
        .arg("lab")
        .args(lab_args)
        .args(["--bench", &bench, "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let stderr = child.stderr.take().unwrap();
    let log = std::thread::spawn(move || {
        BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
            .filter(|l| !l.contains(" INFO "))
            .collect::<Vec<_>>()
    });
    let mut stdout = String::new();
    std::io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut stdout).unwrap();
    let status = wait_exit(&mut child);
    let log = log.join().unwrap().join("\n");
    let record = std::fs::read_to_string(out_dir.join("lab.json")).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&out_dir);
    assert!(status.success(), "{status}\n{log}");
    eprintln!("{log}");
    assert_eq!(lab_namespaces(pid), Vec::<String>::new());
    let record = serde_json::from_str(&record).unwrap_or_else(|e| panic!("lab.json: {e}\n{log}"));
    (serde_json::from_str(&stdout).unwrap(), log, record)
}

#[test]
fn a_benchmark_in_the_lab_crosses_the_site_link_and_passes_its_json_through() {
    require_root();
    let (json, log) = lab_bench(
        &[&lab_file("two-sites-20ms.toml")],
        "pingpong --size 64 --count 10",
    );
    // The router is in east, both federates in west: a round trip crosses the 20 ms link
    // four times (master → router → slave → router → master): 80 ms, and less than five
    // crossings' 100 ms (the router and federates wake at ordinary priority: on a busy
    // machine each hop may add a little).
    let p50_ms = json["rtt_p50_us"].as_f64().unwrap() / 1000.0;
    assert!(
        crossed_four_times(p50_ms, &log),
        "p50 {p50_ms} ms: {json}\n{log}"
    );
    assert_eq!(json["lost"], 0);
    assert!(log.contains("link east–west: round trip"), "{log}");
}

/// The raw baseline goes where the router's traffic goes: through a forwarder in the
/// router's site, so its round trip crosses the site link four times as the Trellis run's
/// does, instead of staying inside the federates' site (well under a millisecond).
#[test]
fn raw_pingpong_in_the_lab_crosses_the_site_link_as_the_router_does() {
    require_root();
    for raw in ["tcp", "udp"] {
        let (json, log) = lab_bench(
            &[&lab_file("two-sites-20ms.toml")],
            &format!("pingpong --raw {raw} --size 64 --count 10"),
        );
        // Four crossings of the 20 ms link: 80 ms (slack as above).
        let p50_ms = json["rtt_p50_us"].as_f64().unwrap() / 1000.0;
        assert!(
            crossed_four_times(p50_ms, &log),
            "{raw}: p50 {p50_ms} ms: {json}\n{log}"
        );
        assert!(log.contains("through the hairpin forwarder at"), "{log}");
    }
}

/// Raw throughput too: every byte the receivers count crossed the site link into the
/// router's site and back (the lab counts what it forwarded into each site), where it
/// stayed in the federates' site before.
#[test]
fn raw_throughput_in_the_lab_crosses_the_site_link_both_ways() {
    require_root();
    // Raw UDP loses datagrams at full blast: said best effort, a loss is no fault.
    for (raw, transport) in [("tcp", "reliable"), ("udp", "best-effort")] {
        let (json, log, record) = lab_bench_record(
            &[&lab_file("two-sites-20ms.toml")],
            &format!(
                "throughput --raw {raw} --transport {transport} --size 512 --seconds 0.5 --subscribers 1"
            ),
        );
        let received = json["received"].as_u64().unwrap();
        assert!(received > 0, "{raw}: {json}");
        let payload = received * 512;
        for site in ["east", "west"] {
            let crossed = record["site_link_bytes_in"][site].as_u64().unwrap();
            assert!(
                crossed >= payload,
                "{raw}: {crossed} bytes into {site}, {payload} received: {record}"
            );
        }
        assert!(log.contains("through the hairpin forwarder at"), "{log}");
    }
}

/// Best effort makes a federate open a datagram socket of its own. It must bind the
/// address it reaches the router from: it bound the router's own address, which exists only
/// when both are on one host, and failed across sites ("Cannot assign requested address").
#[test]
fn best_effort_crosses_the_site_link_from_the_federates_own_address() {
    require_root();
    let (json, _) = lab_bench(
        &[&lab_file("two-sites-20ms.toml")],
        "matrix --configs 1-1 --sizes 128 --entities 1 --rates 60 --deliveries best-effort --seconds 1",
    );
    let case = &json["cases"][0];
    assert_eq!(case["transport"], "best-effort", "{json}");
    assert!(case["published"].as_u64().unwrap() > 0, "{json}");
    assert_eq!(case["received"], case["published"], "{json}");
    // Federate → router → federate crosses the 20 ms link twice.
    let latency_ms = case["mean_latency_us"].as_f64().unwrap() / 1000.0;
    assert!(
        (36.0..60.0).contains(&latency_ms),
        "{latency_ms} ms: {json}"
    );
}

/// The median round trip of one pingpong pair on topologies/tree.toml placed over two sites,
/// and the lab's log.
fn tree_pair_p50_ms(pair: &str) -> (f64, String) {
    let topology = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../topologies/tree.toml");
    let (json, log) = lab_bench(
        &[
            &lab_file("tree-two-sites.toml"),
            "--topology",
            topology.to_str().unwrap(),
        ],
        &format!("pingpong --pair {pair} --size 64 --count 10"),
    );
    for placed in ["root.2 in site west", "root.1 in site east"] {
        assert!(
            log.contains(&format!("router {placed}: linked up")),
            "{log}"
        );
    }
    (json["rtt_p50_us"].as_f64().unwrap() / 1000.0, log)
}

#[test]
fn a_topology_placed_in_sites_crosses_the_link_only_between_sites() {
    require_root();
    // fed-5 and fed-7 meet under root.2 in west, where the benchmark runs: any crossing
    // would cost 40 ms. fed-1 and fed-3 attach to east's leaves, so an exchange crosses the
    // 20 ms link four times (slack as above).
    let (near_ms, _) = tree_pair_p50_ms("fed-5:fed-7");
    assert!(near_ms < 30.0, "fed-5:fed-7 {near_ms} ms");
    let (far_ms, log) = tree_pair_p50_ms("fed-1:fed-3");
    assert!(
        crossed_four_times(far_ms, &log),
        "fed-1:fed-3 {far_ms} ms\n{log}"
    );
}

#[test]
fn a_bad_lab_file_is_named_with_its_line() {
    let dir = std::env::temp_dir().join(format!("trellis-lab-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.toml");
    std::fs::write(
        &file,
        "[[site]]\nname = \"east\"\n[[link]]\nsites = [\"east\", \"west\"]\n",
    )
    .unwrap();
    let out = Command::new(TRELLIS)
        .args(["lab", file.to_str().unwrap()])
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        format!(
            "error: {}: line 4: link.sites: no site named \"west\"",
            file.display()
        )
    );
}
