//! The chaos section of `trellis report`: per fault and totals, a failure marked.

use std::path::PathBuf;
use trellis_tools::report;

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const META: &str =
    r#"{"benchmark": "chaos", "complete": false, "fault": "fault 2 (mid root.1): not restarted"}"#;

const SUMMARY: &str = r#"{
  "topology": "tree", "seconds": 20, "fault_every_seconds": 5, "rate_hz": 20, "seed": 1,
  "faults": [
    {"number": 1, "kind": "leaf", "router": "root.1.2", "killed_at_s": 5.1, "detection_s": 0.15,
     "detected_by": "traffic stopped fed-1→fed-2", "recovery_s": 0.08, "outage_s": 0.17,
     "recovered": true, "delivered": 1186, "duplicated": 2, "reported_lost": 14,
     "unreported": 1, "lost_with_membership": 0, "best_effort_ratio": 0.98,
     "outcome": "memberships kept"},
    {"number": 2, "kind": "mid", "router": "root.1", "killed_at_s": 10.1, "recovered": false,
     "outcome": "federation lost, not rejoined"}
  ],
  "totals": {"faults": 2, "recovered": 1, "delivered": 1186, "duplicated": 2,
             "reported_lost": 14, "unreported": 1, "lost_with_membership": 0,
             "best_effort_ratio": 0.98, "memberships_lost": 4},
  "passed": false,
  "problems": ["fault 2 (mid root.1): not restarted"]
}"#;

#[test]
fn a_failed_chaos_run_marks_duplicates_silent_loss_and_the_fault_that_never_recovered() {
    let dir =
        TempDir(std::env::temp_dir().join(format!("trellis-report-chaos-{}", std::process::id())));
    let run = dir.0.join("chaos-run");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::write(run.join("meta.json"), META).unwrap();
    std::fs::write(run.join("summary.json"), SUMMARY).unwrap();
    let html = report::render(&[run]).unwrap();
    assert!(html.contains("<section id=\"chaos\">"));
    assert!(html.contains("<td class=\"marked\">FAIL</td>"));
    assert!(html.contains("<td class=\"marked\">never</td>"));
    // Two duplicates and one unreported loss, marked in the fault's row and the totals.
    assert_eq!(html.matches("<td class=\"marked\">2</td>").count(), 2);
    assert_eq!(
        html.matches("<td class=\"marked\">1</td>").count(),
        3,
        "unreported twice, recovered once"
    );
    assert!(html.contains("Stopped early: fault 2 (mid root.1): not restarted"));
    assert!(html.contains("traffic stopped fed-1→fed-2"));
}
