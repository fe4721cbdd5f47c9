//! The app with no async runtime at all: `futures_lite::future::block_on` drives the testkit's
//! runtime, in virtual time.
mod common;

use claude_agent_testkit::runtime::TestRuntime;

#[test]
fn the_app_refuses_bash_and_reports_the_cost() {
    let (fake, mark) = (common::fake(), common::tripwire());
    assert_eq!(common::children(), "");
    let options = claude_agent_client::Options::new().transport(fake.clone());
    let runtime = TestRuntime::new();
    let ask = outside_app::ask_on(runtime.clone(), "clean up", options);
    let answer = futures_lite::future::block_on(runtime.run(ask));
    common::check(&fake, answer.unwrap(), &mark);
}
