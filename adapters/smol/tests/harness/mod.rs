//! smol as the conformance suite runs it: `block_on` is `smol::block_on`, sessions run on smol's
//! global executor, timers are smol's.

use std::future::Future;

use claude_agent_smol::runtime::SmolRuntime;

/// The runtime under test.
pub struct Smol;

impl claude_agent_conformance::Harness for Smol {
    type Runtime = SmolRuntime;

    fn runtime() -> SmolRuntime {
        SmolRuntime::default()
    }

    fn block_on<F: Future>(future: F) -> F::Output {
        smol::block_on(future)
    }
}
