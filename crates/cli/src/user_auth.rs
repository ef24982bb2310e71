//! What the sign-in commands (`login`, `logout`, `status`, `use`) share.

use anyhow::Result;

/// The store and Google hosts every sign-in command uses (the core's, shared with the desktop app).
pub use gatehouse_core::auth::SignInContext;

/// Ends a sign-in command: an error is printed as its message alone and the process exits with status 1. The
/// messages say what to do; a backtrace (which `RUST_BACKTRACE` would add) would only bury them.
pub fn plain_errors(result: Result<()>) -> Result<()> {
    if let Err(error) = result {
        eprintln!("Error: {error:#}");
        std::process::exit(1);
    }
    Ok(())
}
