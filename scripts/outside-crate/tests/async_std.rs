//! The app's async-std path against the testkit's fake CLI: no process is started.
mod common;

#[test]
fn the_app_refuses_bash_and_reports_the_cost() {
    let (fake, mark) = (common::fake(), common::tripwire());
    assert_eq!(common::children(), "");
    let options = claude_agent_async_std::Options::new().transport(fake.clone());
    let answer = async_std::task::block_on(outside_app::ask_async_std("clean up", options));
    common::check(&fake, answer.unwrap(), &mark);
}
