//! The launch scripts of a plan: text only, from the routers by host (in topology order).

use crate::UsageError;
use anyhow::Result;
use std::collections::BTreeMap;

/// With --bench, the copy of the topology file in the plan directory that the routers and
/// the benchmark step read.
pub(super) const BENCH_TOPOLOGY: &str = "topology.toml";
/// How long the benchmark step waits for the routers to say "ready:".
const ROUTER_READY_SECONDS: u32 = 60;

/// Routers by host, in topology order.
pub(super) type RoutersByHost = BTreeMap<String, Vec<String>>;

/// The words of --bench, refused when they name what the Slurm script decides.
pub(super) fn bench_words(args: &str) -> Result<Vec<String>> {
    let words: Vec<String> = args.split_whitespace().map(str::to_owned).collect();
    if words.is_empty() {
        return Err(
            UsageError("--bench: name a benchmark, e.g. 'throughput --seconds 2'".into()).into(),
        );
    }
    for taken in ["--router", "--topology", "--routers-running"] {
        if words
            .iter()
            .any(|w| w == taken || w.starts_with(&format!("{taken}=")))
        {
            return Err(UsageError(format!("--bench: {taken} is set by the Slurm script")).into());
        }
    }
    Ok(words)
}

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The command that starts router `name` from its plan file.
fn start(name: &str) -> String {
    format!(
        "trellis router --plan {}",
        shell_quote(&format!("{name}.toml"))
    )
}

/// `--format script`: one script per host, named for it, run on that host.
pub(super) fn per_host(origin: &str, by_host: &RoutersByHost) -> Vec<(String, String)> {
    by_host
        .iter()
        .map(|(host, routers)| {
            let mut script = format!(
                "#!/bin/sh\n# Routers of {origin} on {host}.\nset -e\ncd \"$(dirname \"$0\")\"\n"
            );
            for router in routers {
                script.push_str(&format!("{} &\n", start(router)));
            }
            script.push_str("trap 'kill $(jobs -p)' INT TERM\nwait\n");
            (format!("launch-{host}.sh"), script)
        })
        .collect()
}

/// `--format ssh`: one script that starts every router over ssh.
pub(super) fn ssh(origin: &str, by_host: &RoutersByHost) -> String {
    let mut script = format!(
        "#!/bin/sh\n# Starts the routers of {origin} over ssh; the plan directory must be at the same path on every host.\nDIR=\"$(cd \"$(dirname \"$0\")\" && pwd)\"\n"
    );
    for (host, routers) in by_host {
        for router in routers {
            let remote = format!("cd \"$DIR\" && {}", start(router));
            script.push_str(&format!(
                "ssh {} \"{}\" &\n",
                shell_quote(host),
                remote.replace('"', "\\\"")
            ));
        }
    }
    script.push_str("trap 'kill $(jobs -p)' INT TERM\nwait\n");
    script
}

/// `--format slurm`: one batch script, a job step per router; with `bench_host`, one more
/// step there runs `trellis bench BENCH...` once every router is ready, and the job ends
/// with it.
pub(super) fn slurm(by_host: &RoutersByHost, bench_host: Option<&str>, bench: &[String]) -> String {
    let mut nodes: Vec<&str> = by_host.keys().map(String::as_str).collect();
    if let Some(host) = bench_host.filter(|h| !by_host.contains_key(*h)) {
        nodes.push(host);
    }
    let mut script = format!(
        "#!/bin/sh\n#SBATCH --job-name=trellis-routers\n#SBATCH --nodes={}\n#SBATCH --nodelist={}\ncd \"$SLURM_SUBMIT_DIR\"\n\
         # Steps share the allocation's CPUs (--overlap): a host may run more routers than it\n\
         # was given CPUs, and a router mostly waits. Step N of router R writes R.JOB.N.out.\n",
        nodes.len(),
        nodes.join(",")
    );
    for (host, routers) in by_host {
        for router in routers {
            // The benchmark waits for the "ready:" line only a router started from the
            // topology prints (once its router links are up); a --plan router cannot.
            let command = match bench_host {
                Some(_) => format!(
                    "trellis router --topology {BENCH_TOPOLOGY} --name {}",
                    shell_quote(router)
                ),
                None => start(router),
            };
            script.push_str(&slurm_step(host, router, &command));
            script.push_str(" &\n");
        }
    }
    match bench_host {
        Some(bench_host) => script.push_str(&slurm_bench(by_host, bench_host, bench)),
        None => script.push_str("wait\n"),
    }
    script
}

fn slurm_step(host: &str, name: &str, command: &str) -> String {
    format!(
        "srun --nodes=1 --ntasks=1 --nodelist={} --overlap --job-name={} --output={} {command}",
        shell_quote(host),
        shell_quote(name),
        shell_quote(&format!("{name}.%j.%s.out"))
    )
}

/// The tail of a Slurm script with a benchmark: wait for every router's "ready:", run the
/// benchmark step, stop the routers, exit with the benchmark's status.
fn slurm_bench(by_host: &RoutersByHost, bench_host: &str, words: &[String]) -> String {
    let names: Vec<String> = by_host.values().flatten().map(|r| shell_quote(r)).collect();
    let mut script = format!(
        "# The benchmark starts once every router has said \"ready:\" (bounded: {ROUTER_READY_SECONDS} s).\n\
         for router in {}; do\n\
         \x20   polls=0\n\
         \x20   until grep -qs '^ready:' \"$router.$SLURM_JOB_ID\".*.out; do\n\
         \x20       polls=$((polls + 1))\n\
         \x20       if [ \"$polls\" -gt {} ]; then\n\
         \x20           echo \"router $router is not ready after {ROUTER_READY_SECONDS} s (see $router.$SLURM_JOB_ID.*.out)\" >&2\n\
         \x20           scancel --signal=TERM \"$SLURM_JOB_ID\"; wait; exit 1\n\
         \x20       fi\n\
         \x20       sleep 0.1\n\
         \x20   done\n\
         done\n",
        names.join(" "),
        ROUTER_READY_SECONDS * 10
    );
    let quoted: Vec<String> = words.iter().map(|w| shell_quote(w)).collect();
    script.push_str(&slurm_step(
        bench_host,
        "bench",
        &format!(
            "trellis bench {} --topology {BENCH_TOPOLOGY} --routers-running",
            quoted.join(" ")
        ),
    ));
    // The routers serve until the benchmark ends, then get SIGTERM (a goodbye to their
    // links): scancel signals every step but not this script; a killed srun would SIGKILL
    // its step. The job's exit is the benchmark's.
    script.push_str("\nstatus=$?\nscancel --signal=TERM \"$SLURM_JOB_ID\"\nwait\nexit $status\n");
    script
}

#[cfg(test)]
mod tests {
    use super::*;

    fn routers() -> RoutersByHost {
        let mut by_host = RoutersByHost::new();
        by_host.insert("a".into(), vec!["root".into(), "root.1".into()]);
        by_host.insert("b".into(), vec!["it's".into()]);
        by_host
    }

    #[test]
    fn names_are_quoted_for_the_shell_even_with_quotes_in_them() {
        assert_eq!(shell_quote("plain"), "'plain'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        let scripts = per_host("t.toml", &routers());
        assert_eq!(
            scripts.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
            ["launch-a.sh", "launch-b.sh"]
        );
        assert!(scripts[1]
            .1
            .contains(r"trellis router --plan 'it'\''s.toml' &"));
        let ssh = ssh("t.toml", &routers());
        assert!(ssh.contains(r#"ssh 'b' "cd \"$DIR\" && trellis router --plan 'it'\''s.toml'" &"#));
    }

    #[test]
    fn routers_start_in_topology_order_on_each_host() {
        let script = &per_host("t.toml", &routers())[0].1;
        let root = script.find("--plan 'root.toml'").unwrap();
        let child = script.find("--plan 'root.1.toml'").unwrap();
        assert!(root < child, "{script}");
    }

    #[test]
    fn a_slurm_benchmark_runs_on_its_host_after_every_router_is_ready() {
        let words = bench_words("throughput --seconds 2").unwrap();
        let script = slurm(&routers(), Some("c"), &words);
        assert!(
            script.contains("#SBATCH --nodes=3\n#SBATCH --nodelist=a,b,c\n"),
            "{script}"
        );
        assert!(script.contains(&format!("--topology {BENCH_TOPOLOGY} --name 'root'")));
        assert!(script.contains("for router in 'root' 'root.1' 'it'\\''s'; do"));
        assert!(script.contains("--nodelist='c' --overlap --job-name='bench'"));
        assert!(script.ends_with("exit $status\n"));
        let plain = slurm(&routers(), None, &[]);
        assert!(plain.contains("#SBATCH --nodes=2\n") && plain.ends_with("wait\n"));
        assert!(plain.contains("trellis router --plan 'root.toml'"));
    }

    #[test]
    fn bench_words_refuse_what_the_script_decides() {
        assert!(bench_words("  ").is_err());
        for taken in ["--router x", "--topology=t.toml", "--routers-running"] {
            let e = bench_words(&format!("throughput {taken}")).unwrap_err();
            assert!(e.to_string().contains("is set by the Slurm script"), "{e}");
        }
    }
}
