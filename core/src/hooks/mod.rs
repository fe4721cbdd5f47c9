//! Hooks: the events the CLI reports to the host, their typed inputs, and the host's outputs
//! (PROTOCOL-REFERENCE §5).
//!
//! CONTRACT (used by `session`, `options` and `client`; flesh out, keep the names):
//! - `HookEvent`: every event of PROTOCOL-REFERENCE §5.2, plus `Other(String)`; `as_str()` gives the wire name.
//! - `HookInput`: `Deserialize` from the `input` of a `hook_callback` request; the session calls
//!   `HookInput::parse(&RawValue)`.
//! - `HookOutput`: `Serialize` to the exact wire body of §5.3 (`to_wire_json()`).

mod event;
mod input;
mod output;

pub use event::HookEvent;
pub use input::*;
pub use output::*;
