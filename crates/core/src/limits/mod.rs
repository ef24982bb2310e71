//! The safety nets: bounds on arguments, the response-size cap and the confinement of local files.

pub mod arguments;
pub mod local_files;
pub mod response_cap;
