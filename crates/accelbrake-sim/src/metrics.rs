//! The former home of measurement, kept so that `accelbrake_sim::metrics::…` paths (used by the
//! Python bindings and the tests) still work: everything here is re-exported from
//! [`crate::measure`] and, for [`simulate`] and [`SimResult`], from [`crate::engine`].

pub use crate::engine::{simulate, SimResult};
pub use crate::measure::*;
