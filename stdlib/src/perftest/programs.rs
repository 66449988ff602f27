//! The perftest programs the simulator answers: the tool runs them, and the fabric's sharing of
//! oversubscribed uplinks (`oversubscription.rs`) and the guest's process table count the
//! servers among them, so the list sits below both.

/// The perftest programs the simulator answers.
pub(crate) const PROGRAMS: &[&str] = &[
    "ib_send_bw",
    "ib_write_bw",
    "ib_read_bw",
    "ib_send_lat",
    "ib_write_lat",
    "ib_read_lat",
];

/// Whether a program is a perftest tool the simulator answers.
pub(crate) fn is_perftest(program: &str) -> bool {
    PROGRAMS.contains(&program)
}
