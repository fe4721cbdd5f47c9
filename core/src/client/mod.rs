//! Runtime-agnostic async layer: `query()`, `Client`, user callbacks, the driver loop.
//!
//! CONTRACT: `Handlers` (Default + Clone + Debug) holds the user's callbacks; `Options` carries one
//! (`Options::handlers`). The rest of this module is built on [`crate::session::Session`].

/// The user's callbacks (permission prompt, hooks, in-process tool handlers).
#[derive(Clone, Default)]
pub struct Handlers {}

impl std::fmt::Debug for Handlers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handlers").finish_non_exhaustive()
    }
}
