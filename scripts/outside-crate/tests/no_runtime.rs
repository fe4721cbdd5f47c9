//! The app with no async runtime at all: the testkit's single-threaded runtime, virtual time.
mod common;

use claude_agent_testkit::runtime::TestRuntime;

#[test]
fn the_app_refuses_bash_and_reports_the_cost() {
    let (fake, mark) = (common::fake(), common::tripwire());
    assert_eq!(common::children(), "");
    let options = claude_agent_core::options::Options::new().transport(fake.clone());
    let runtime = TestRuntime::new();
    let answer = runtime.block_on(outside_app::ask_on(runtime.clone(), "clean up", options));
    common::check(&fake, answer.unwrap(), &mark);
}
