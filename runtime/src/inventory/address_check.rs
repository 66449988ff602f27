//! The check an inventory's reader runs on each address beyond its syntax (the simulator's
//! models and options), and what it says when an address cannot be used: handed to the
//! inventory and its builder alike, so it sits below both.

use super::Address;

/// Why an address cannot be used, beyond its syntax: `part` is the text of the address to
/// point at (the model's name, an option's key).
#[derive(Debug, Clone)]
pub struct AddressProblem {
    /// What would fix it.
    pub help: Option<String>,
    /// The offending part of the address as written.
    pub part: String,
    /// What is wrong.
    pub reason: String,
}

/// A check of each address beyond its syntax, such as the simulator's models and options.
pub type AddressCheck<'a> = &'a dyn Fn(&Address) -> Result<(), AddressProblem>;
