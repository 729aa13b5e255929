//! Per-process figures and their Prometheus exposition (being built).
