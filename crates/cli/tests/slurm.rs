//! `trellis plan --format slurm --bench ARGS` on a real Slurm: the single-node cluster that
//! `scripts/slurm-up` starts on this machine (slurmctld, slurmd and munged on 127.0.0.1).
//! The plan's batch script is submitted with sbatch; the test watches its job steps with
//! squeue, reads each step's output file (named by Slurm with its step id) and the
//! benchmark's results folder, and checks that no reliable update was lost.

mod common;

use common::{free_ports, TempDir};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// Bound on the whole job: the routers' start, a one-second benchmark and the teardown,
/// on a machine other tests load too.
const JOB_WAIT: Duration = Duration::from_secs(120);
/// Between two looks at the job's steps: short, so that no step is missed.
const POLL: Duration = Duration::from_millis(50);
const ROUTERS: [&str; 2] = ["hub", "edge"];

fn run(program: &str, args: &[&str]) -> Output {
    Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program} {args:?}: {e}"))
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The name of the one node of the running Slurm, or a failure that says how to start it.
fn slurm_node() -> String {
    let sinfo = Command::new("sinfo")
        .args(["--noheader", "--format=%n %T"])
        .output();
    let listing = match sinfo {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).into_owned(),
        Ok(out) => panic!(
            "Slurm is not running here (sinfo: {}); start it with scripts/slurm-up",
            text(&out).trim()
        ),
        Err(e) => panic!("Slurm is not installed here (sinfo: {e}); run scripts/slurm-up"),
    };
    let usable = ["idle", "mixed", "allocated"];
    listing
        .lines()
        .filter_map(|line| line.split_once(' '))
        .find(|(_, state)| usable.contains(state))
        .map(|(node, _)| node.to_owned())
        .unwrap_or_else(|| {
            panic!("Slurm runs but has no node taking jobs: {listing:?}; run scripts/slurm-up")
        })
}

/// A submitted job, cancelled when the test ends however it ends.
struct Job(String);

impl Drop for Job {
    fn drop(&mut self) {
        let _ = Command::new("scancel").arg(&self.0).output();
    }
}

/// The job's current steps as step id → step name ("12.0" → "hub"); the batch step left out.
fn steps_now(job: &str) -> BTreeMap<String, String> {
    let out = run(
        "squeue",
        &["--steps", "--noheader", "--jobs", job, "--format=%i %j"],
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| line.trim().split_once(' '))
        .filter(|(id, _)| !id.ends_with(".batch"))
        .map(|(id, name)| (id.to_owned(), name.to_owned()))
        .collect()
}

/// "JobState" and "ExitCode" of a job slurmctld still remembers (MinJobAge).
impl Job {
    /// The job `sbatch --parsable` printed the id of.
    fn submitted(sbatch: &Output) -> Job {
        Job(String::from_utf8_lossy(&sbatch.stdout)
            .trim()
            .split(';')
            .next()
            .unwrap()
            .to_owned())
    }

    /// Watch the job's steps until it has left the queue (bounded by `JOB_WAIT`): every
    /// step seen, by name. On a timeout the failure shows what `dir` holds of its output.
    fn steps_until_done(&self, dir: &Path) -> BTreeMap<String, String> {
        let mut seen = BTreeMap::new();
        let deadline = Instant::now() + JOB_WAIT;
        loop {
            seen.extend(steps_now(&self.0));
            let queued = run("squeue", &["--noheader", "--jobs", &self.0, "--format=%T"]);
            if String::from_utf8_lossy(&queued.stdout).trim().is_empty() {
                return seen;
            }
            assert!(
                Instant::now() < deadline,
                "job {} still queued or running after {JOB_WAIT:?} (steps seen: {seen:?}):\n{}",
                self.0,
                everything_written(dir, &self.0)
            );
            std::thread::sleep(POLL);
        }
    }

    /// The job ended COMPLETED with exit code 0; else the failure shows what `dir` holds
    /// of its output.
    fn assert_completed_cleanly(&self, dir: &Path) {
        let fields = job_fields(&self.0);
        assert_eq!(
            (
                fields.get("JobState").map(String::as_str),
                fields.get("ExitCode").map(String::as_str)
            ),
            (Some("COMPLETED"), Some("0:0")),
            "job {} did not complete cleanly:\n{}",
            self.0,
            everything_written(dir, &self.0)
        );
    }
}

fn job_fields(job: &str) -> BTreeMap<String, String> {
    let out = run("scontrol", &["show", "job", job, "--oneliner"]);
    assert!(
        out.status.success(),
        "scontrol show job {job}: {}",
        text(&out)
    );
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .filter_map(|field| field.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

/// The output file Slurm wrote for the step named `name` of `job`: `NAME.JOB.STEP.out`.
fn step_output(plan: &Path, name: &str, job: &str) -> Option<(String, String)> {
    let prefix = format!("{name}.{job}.");
    std::fs::read_dir(plan).ok()?.find_map(|entry| {
        let file = entry.ok()?.file_name().into_string().ok()?;
        let step = file.strip_prefix(&prefix)?.strip_suffix(".out")?.to_owned();
        let content = std::fs::read_to_string(plan.join(&file)).ok()?;
        Some((step, content))
    })
}

fn everything_written(plan: &Path, job: &str) -> String {
    let mut all = String::new();
    for entry in std::fs::read_dir(plan).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.contains(job) {
            let content = std::fs::read_to_string(entry.path()).unwrap_or_default();
            all.push_str(&format!("--- {name}\n{content}\n"));
        }
    }
    all
}

#[test]
fn slurm_runs_the_plans_routers_and_a_benchmark_as_job_steps() {
    let node = slurm_node();
    let dir = TempDir::new("slurm");
    let port = free_ports(2);
    // Two routers; the sender (fed-1) under one, the two receivers under the other, so
    // every update crosses the router link.
    let topology = dir.path("two.toml");
    std::fs::write(
        &topology,
        format!(
            "[[router]]\nname = \"hub\"\nlisten = [\"tcp://127.0.0.1:{port}\"]\n\n\
             [[router]]\nname = \"edge\"\nlisten = [\"tcp://127.0.0.1:{}\"]\nparent = \"hub\"\n\n\
             [[federate]]\nname = \"fed-1\"\nparent = \"hub\"\n\n\
             [[federate]]\nname = \"fed-2\"\nparent = \"edge\"\n\n\
             [[federate]]\nname = \"fed-3\"\nparent = \"edge\"\n",
            port + 1
        ),
    )
    .unwrap();
    let hosts = dir.path("hosts.toml");
    let one_host = format!("[[host]]\nname = {node:?}\naddress = {node:?}\nstart = \"ssh\"\n");
    std::fs::write(&hosts, one_host).unwrap();
    let plan = dir.path("plan");
    let planned = run(
        env!("CARGO_BIN_EXE_trellis"),
        &[
            "plan",
            topology.to_str().unwrap(),
            "--hosts",
            hosts.to_str().unwrap(),
            "--format",
            "slurm",
            "--bench",
            "throughput --seconds 1 --subscribers 2 --size 64 --out results",
            "-o",
            plan.to_str().unwrap(),
        ],
    );
    assert!(planned.status.success(), "trellis plan: {}", text(&planned));

    // The job's steps find `trellis` on the PATH sbatch passes on.
    let bin = Path::new(env!("CARGO_BIN_EXE_trellis")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let submitted = Command::new("sbatch")
        .args(["--parsable", "--export=ALL", "launch.sbatch"])
        .current_dir(&plan)
        .env("PATH", path)
        .env("TRELLIS_LOG", "warn")
        .output()
        .expect("sbatch runs");
    assert!(submitted.status.success(), "sbatch: {}", text(&submitted));
    let job = Job::submitted(&submitted);
    let seen = job.steps_until_done(&plan);
    job.assert_completed_cleanly(&plan);

    // Every router and the benchmark ran as a step of its own: squeue listed it while it
    // ran, and Slurm named its output file with its step id.
    let mut step_ids = Vec::new();
    for name in ROUTERS.iter().chain(&["bench"]) {
        assert!(
            seen.values().any(|n| n == name),
            "squeue never listed a step named {name} in job {}: {seen:?}",
            job.0
        );
        let (step, output) = step_output(&plan, name, &job.0).unwrap_or_else(|| {
            panic!(
                "no output file {name}.{}.STEP.out in {}",
                job.0,
                plan.display()
            )
        });
        assert_eq!(
            seen.get(&format!("{}.{step}", job.0)).map(String::as_str),
            Some(*name),
            "the step id in {name}'s output file is not the step squeue listed: {seen:?}"
        );
        if *name != "bench" {
            assert!(
                output.lines().any(|l| l.starts_with("ready:")),
                "router {name} (step {step}) never said ready:\n{output}"
            );
        }
        step_ids.push(step);
    }
    step_ids.sort();
    step_ids.dedup();
    assert_eq!(step_ids.len(), 3, "three steps, three step ids: {seen:?}");

    // The benchmark's results came back through the plan directory.
    let results = plan.join("results");
    let read = |name: &str| -> serde_json::Value {
        let file = results.join(name);
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
    };
    let meta = read("meta.json");
    assert_eq!(
        meta["complete"], true,
        "the benchmark run did not complete: {meta}"
    );
    let summary = read("summary.json");
    let count = |key: &str| {
        summary[key]
            .as_u64()
            .unwrap_or_else(|| panic!("summary.json has no count {key}: {summary}"))
    };
    assert_eq!(count("subscribers"), 2, "{summary}");
    let sent = count("sent");
    assert!(sent > 0, "the sender sent nothing: {summary}");
    assert_eq!(
        (count("received"), count("lost")),
        (2 * sent, 0),
        "reliable updates through two routers run by Slurm: every receiver gets every one"
    );
}

#[test]
fn slurm_runs_benchmark_agents_as_job_steps_of_the_benchmarks_allocation() {
    slurm_node();
    let dir = TempDir::new("slurm-agents");
    let results = dir.path("results");
    // One batch task: the coordinator; it starts every agent with srun, a step each.
    let script = dir.path("agents.sbatch");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n#SBATCH --job-name=bench-agents\n#SBATCH --ntasks=1\n\
             #SBATCH --output={}/coordinator.%j.out\n\
             {} bench throughput --agents slurm --subscribers 2 --seconds 1 --size 64 --out {}\n",
            dir.path("").display(),
            env!("CARGO_BIN_EXE_trellis"),
            results.display()
        ),
    )
    .unwrap();
    let submitted = Command::new("sbatch")
        .args(["--parsable", "--export=ALL"])
        .arg(&script)
        .env("TRELLIS_LOG", "warn")
        .output()
        .expect("sbatch runs");
    assert!(submitted.status.success(), "sbatch: {}", text(&submitted));
    let job = Job::submitted(&submitted);
    let seen = job.steps_until_done(&dir.path(""));
    job.assert_completed_cleanly(&dir.path(""));
    // The sender and both receivers ran as steps of their own, named after their agent.
    for agent in ["agent-fed-1", "agent-fed-2", "agent-fed-3"] {
        assert!(
            seen.values().any(|name| name == agent),
            "squeue never listed a step {agent} in job {}: {seen:?}",
            job.0
        );
    }
    let read = |name: &str| -> serde_json::Value {
        let file = results.join(name);
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
    };
    assert_eq!(read("meta.json")["complete"], true);
    let summary = read("summary.json");
    let sent = summary["sent"].as_u64().unwrap();
    assert!(sent > 0, "the sender sent nothing: {summary}");
    assert_eq!(summary["received"].as_u64(), Some(2 * sent), "{summary}");
    assert_eq!(summary["lost"], 0, "{summary}");
    let agents = read("agents-2.json");
    assert_eq!(agents["placement"], "slurm job steps", "{agents}");
    assert_eq!(agents["agents"].as_array().unwrap().len(), 3, "{agents}");
    assert!(
        summary["clock"]
            .as_str()
            .is_some_and(|c| c == agents["clock_method"]),
        "{summary}"
    );
}
