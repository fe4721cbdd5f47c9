//! The app's tokio path against the testkit's fake CLI: no process is started.
mod common;

#[tokio::test]
async fn the_app_refuses_bash_and_reports_the_cost() {
    let (fake, mark) = (common::fake(), common::tripwire());
    assert_eq!(common::children(), "");
    let options = claude_agent_tokio::Options::new().transport(fake.clone());
    let answer = outside_app::ask_tokio("clean up", options).await.unwrap();
    common::check(&fake, answer, &mark);
}
