//! Benchmark agents started over ssh, as a hosts file says: a private sshd of the test's
//! own on 127.0.0.1 (a generated host key and client key, authorized_keys in a temporary
//! folder, `sshd -f CONFIG -D` as a child killed at the end) runs `trellis bench agent`
//! for the hosts file's ssh host, while the other host starts its agents as children.
//! Skipped, saying so, where sshd is not installed (scripts/test installs it).

mod common;

use common::{bench, TempDir};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SSHD: &str = "/usr/sbin/sshd";

/// The private sshd, killed when dropped.
struct Sshd {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn keygen(file: &Path) {
    let status = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "trellis-test", "-f"])
        .arg(file)
        .status()
        .unwrap();
    assert!(status.success(), "ssh-keygen {}", file.display());
}

fn whoami() -> String {
    let output = Command::new("id").arg("-un").output().unwrap();
    assert!(output.status.success());
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

/// Start sshd on a free port of 127.0.0.1 that lets `user` in with `client_key` only, and
/// wait (bounded) until it accepts connections.
fn start_sshd(dir: &Path, user: &str) -> Sshd {
    keygen(&dir.join("host_key"));
    keygen(&dir.join("client_key"));
    std::fs::copy(dir.join("client_key.pub"), dir.join("authorized_keys")).unwrap();
    // The kernel's free port; released just before sshd binds it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let config = dir.join("sshd_config");
    std::fs::write(
        &config,
        format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {dir}/host_key\n\
             AuthorizedKeysFile {dir}/authorized_keys\nPidFile {dir}/sshd.pid\n\
             AllowUsers {user}\nPermitRootLogin prohibit-password\nPubkeyAuthentication yes\n\
             PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n\
             StrictModes no\nX11Forwarding no\nAllowTcpForwarding no\nPrintMotd no\n",
            dir = dir.display()
        ),
    )
    .unwrap();
    // sshd run by root wants its privilege separation folder (the package's service makes it).
    let _ = std::fs::create_dir_all("/run/sshd");
    let log = dir.join("sshd.log");
    let child = Command::new(SSHD)
        .arg("-f")
        .arg(&config)
        .args(["-D", "-E"])
        .arg(&log)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let mut sshd = Sshd { child, port, log };
    let deadline = Instant::now() + Duration::from_secs(15);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Some(status) = sshd.child.try_wait().unwrap() {
            panic!(
                "sshd exited ({status}): {}",
                std::fs::read_to_string(&sshd.log).unwrap_or_default()
            );
        }
        assert!(
            Instant::now() < deadline,
            "sshd did not listen on 127.0.0.1:{port} within 15 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Pin the host key: the ssh client checks it strictly.
    let host_key = std::fs::read_to_string(dir.join("host_key.pub")).unwrap();
    std::fs::write(
        dir.join("known_hosts"),
        format!("[127.0.0.1]:{port} {host_key}"),
    )
    .unwrap();
    sshd.port = port;
    sshd
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The test's private sshd in a fresh folder, and a hosts file there with two hosts:
/// `here` (children, running `here_federates`) and `over-ssh` (through the sshd, running
/// `ssh_federates`); the rest go round-robin. `None`, saying so, where sshd is missing.
fn two_hosts(
    tag: &str,
    here_federates: &[&str],
    ssh_federates: &[&str],
) -> Option<(TempDir, Sshd, PathBuf)> {
    if !Path::new(SSHD).exists() {
        eprintln!(
            "SKIPPED: {SSHD} is not installed (apt-get install openssh-server; scripts/test does)"
        );
        return None;
    }
    let dir = TempDir::new(tag);
    let user = whoami();
    let sshd = start_sshd(&dir.0, &user);
    let list = |names: &[&str]| {
        let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
        quoted.join(", ")
    };
    let hosts = dir.path("hosts.toml");
    std::fs::write(
        &hosts,
        format!(
            "control = \"127.0.0.1\"\n\n\
             [[host]]\nname = \"here\"\naddress = \"127.0.0.1\"\nstart = \"local\"\n\
             federates = [{here}]\n\n\
             [[host]]\nname = \"over-ssh\"\naddress = \"127.0.0.1\"\nstart = \"ssh\"\n\
             user = \"{user}\"\nport = {port}\nidentity = \"client_key\"\nknown_hosts = \"known_hosts\"\n\
             program = \"{program}\"\nfederates = [{ssh}]\n",
            here = list(here_federates),
            ssh = list(ssh_federates),
            port = sshd.port,
            program = env!("CARGO_BIN_EXE_trellis"),
        ),
    )
    .unwrap();
    Some((dir, sshd, hosts))
}

#[test]
fn pingpong_runs_with_agents_over_ssh_placed_by_a_hosts_file() {
    let Some((dir, sshd, hosts)) = two_hosts("bench-ssh", &[], &["slave-1", "slave-2"]) else {
        return;
    };
    let out = dir.path("out");
    let summary = bench(
        &[
            "pingpong",
            "--pairs",
            "2",
            "--size",
            "64",
            "--count",
            "20",
            "--hosts",
            hosts.to_str().unwrap(),
        ],
        &out,
    );
    // Every round trip answered, as in one process.
    assert_eq!(summary["count"], 40, "{summary}");
    assert_eq!(summary["lost"], 0, "{summary}");
    let report = read_json(&out.join("agents.json"));
    assert!(
        report["placement"]
            .as_str()
            .unwrap()
            .starts_with("hosts file "),
        "{report}"
    );
    assert!(
        report["control"]
            .as_str()
            .unwrap()
            .starts_with("127.0.0.1:"),
        "{report}"
    );
    let placed: Vec<(&str, &str)> = report["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["name"].as_str().unwrap(), a["host"].as_str().unwrap()))
        .collect();
    // Slaves where the file puts them; the masters dealt round-robin over both hosts.
    assert_eq!(
        placed,
        [
            ("master-1", "here"),
            ("slave-1", "over-ssh"),
            ("master-2", "over-ssh"),
            ("slave-2", "over-ssh")
        ],
        "{report}"
    );
    // The ssh host's agent really came through this sshd, with the test's key.
    let log = std::fs::read_to_string(&sshd.log).unwrap();
    assert_eq!(
        log.matches("Accepted publickey").count(),
        3,
        "one ssh login for each of the three agents placed there: {log}"
    );
    assert!(summary["clock"].as_str().is_some(), "{summary}");
}

#[test]
fn clutter_runs_a_worker_over_ssh_placed_by_a_hosts_file() {
    let Some((dir, sshd, hosts)) =
        two_hosts("clutter-ssh", &["worker-0"], &["worker-1", "worker-2"])
    else {
        return;
    };
    let out = dir.path("out");
    // Two simulator workers and the viewers' worker: worker-0 a child, the other two
    // over ssh (their plans and reports travel on ssh's standard input and output).
    let summary = bench(
        &[
            "clutter",
            "--entities",
            "2000",
            "--simulators",
            "4",
            "--viewers",
            "1",
            "--processes",
            "2",
            "--seconds",
            "2",
            "--hosts",
            hosts.to_str().unwrap(),
        ],
        &out,
    );
    let case = &summary["cases"][0];
    assert_eq!(summary["passed"], true, "{summary}");
    assert!(case["expected"].as_u64().unwrap() > 0, "{case}");
    assert_eq!(case["missing"], 0, "{case}");
    assert_eq!(case["unexpected"], 0, "{case}");
    assert_eq!(case["duplicates"], 0, "{case}");
    assert_eq!(case["reflects"], case["expected"], "{case}");
    let log = std::fs::read_to_string(&sshd.log).unwrap();
    assert_eq!(
        log.matches("Accepted publickey").count(),
        2,
        "one ssh login for each worker placed there: {log}"
    );
}
