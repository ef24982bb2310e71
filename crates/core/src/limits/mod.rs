//! The safety nets: the response-size cap and the confinement of local files.

pub mod local_files;
pub mod response_cap;
