//! The app's smol path against the testkit's fake CLI: no process is started.
mod common;

#[test]
fn the_app_refuses_bash_and_reports_the_cost() {
    let (fake, mark) = (common::fake(), common::tripwire());
    assert_eq!(common::children(), "");
    let options = claude_agent_smol::Options::new().transport(fake.clone());
    let answer = smol::block_on(outside_app::ask_smol("clean up", options)).unwrap();
    common::check(&fake, answer, &mark);
}
