//! Scenarios: the feature files loaded into self-describing scenarios, and what one scenario
//! works with while it runs (its placeholders, its state, what it sets up beside the port).

pub mod features;
pub mod normalise;
pub mod state;
pub(crate) mod surroundings;
