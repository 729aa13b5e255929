//! What the measuring examples share: their settings come from the environment.

/// The number in environment variable `name`, or `default` when it is unset or not one.
pub fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
