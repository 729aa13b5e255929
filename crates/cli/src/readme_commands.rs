//! The README's table of commands is rendered from the CLI itself (each command's name,
//! arguments and one-line help), so the two cannot drift apart: this test fails when they
//! differ, and `TRELLIS_BLESS=1 cargo test -p trellis-cli readme_commands` rewrites the
//! table between its markers.

use super::Cli;
use clap::CommandFactory;

const BEGIN: &str =
    "<!-- commands: rendered from `trellis --help` by crates/cli/src/readme_commands.rs -->";
const END: &str = "<!-- commands end -->";

/// Where each top-level command is described at length.
fn described_in(command: &str) -> &'static str {
    match command {
        "demo" => "[docs/monitor.md](docs/monitor.md)",
        "router" => "[docs/commands.md](docs/commands.md), [docs/routing-and-wire.md](docs/routing-and-wire.md)",
        "bench" => "[docs/benchmarks.md](docs/benchmarks.md), [docs/bench-agents.md](docs/bench-agents.md)",
        "fom" => "[docs/rust-api.md](docs/rust-api.md) (object models)",
        "up" => "[docs/commands.md](docs/commands.md), [docs/state-and-membership.md](docs/state-and-membership.md)",
        "plan" => "[docs/commands.md](docs/commands.md), [docs/slurm.md](docs/slurm.md)",
        "certs" => "[docs/security.md](docs/security.md)",
        "report" => "[docs/benchmarks.md](docs/benchmarks.md)",
        "monitor" => "[docs/monitor.md](docs/monitor.md), [docs/metrics.md](docs/metrics.md)",
        "lab" => "[docs/site-lab.md](docs/site-lab.md), [docs/wan-results.md](docs/wan-results.md)",
        "record" | "replay" => "[docs/recorder.md](docs/recorder.md)",
        "gateway" => "[docs/dis-gateway.md](docs/dis-gateway.md)",
        _ => "[docs/commands.md](docs/commands.md)",
    }
}

/// One row per command a user runs (those without subcommands), in the order `--help`
/// lists them: the command with its positional arguments, and its one-line help.
fn rows() -> Vec<String> {
    let mut rows = Vec::new();
    let mut stack = vec![(String::from("trellis"), String::new(), Cli::command())];
    while let Some((name, top, command)) = stack.pop() {
        let subcommands: Vec<_> = (command.get_subcommands())
            .filter(|s| !s.is_hide_set() && s.get_name() != "help")
            .collect();
        if subcommands.is_empty() {
            rows.push(row(&name, &top, &command));
        }
        for sub in subcommands.into_iter().rev() {
            let top = if top.is_empty() {
                sub.get_name().to_owned()
            } else {
                top.clone()
            };
            stack.push((format!("{name} {}", sub.get_name()), top, sub.clone()));
        }
    }
    rows
}

fn row(name: &str, top: &str, command: &clap::Command) -> String {
    let mut usage = name.to_owned();
    for arg in command.get_positionals().filter(|a| !a.is_hide_set()) {
        let value = (arg.get_value_names())
            .and_then(|names| names.first().map(|n| n.to_string()))
            .unwrap_or_else(|| arg.get_id().to_string().to_uppercase());
        let value = if arg.is_required_set() {
            value
        } else {
            format!("[{value}]")
        };
        let many = matches!(arg.get_num_args(), Some(range) if range.max_values() > 1);
        usage.push(' ');
        usage.push_str(&value);
        if many {
            usage.push('…');
        }
    }
    let about = (command.get_about())
        .map(|about| about.to_string())
        .unwrap_or_default()
        .replace('|', "\\|");
    format!("| `{usage}` | {about} | {} |", described_in(top))
}

fn table() -> String {
    let mut table = String::from("| command | what it does | described in |\n|---|---|---|\n");
    for row in rows() {
        table.push_str(&row);
        table.push('\n');
    }
    table
}

#[test]
fn the_readmes_command_table_is_the_clis() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");
    let readme = std::fs::read_to_string(path).expect("README.md");
    let (Some(begin), Some(end)) = (readme.find(BEGIN), readme.find(END)) else {
        panic!("README.md has no command table between {BEGIN:?} and {END:?}");
    };
    let start = begin + BEGIN.len() + 1;
    let rendered = table();
    if std::env::var_os("TRELLIS_BLESS").is_some() {
        let updated = format!("{}{rendered}{}", &readme[..start], &readme[end..]);
        std::fs::write(path, updated).expect("README.md written");
        return;
    }
    assert_eq!(
        &readme[start..end],
        rendered,
        "README.md's command table differs from the CLI's help: rerun with TRELLIS_BLESS=1"
    );
}
