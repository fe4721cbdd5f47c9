//! Testing your agent with no process: a small agent app, and its tests against the testkit's
//! in-memory fake CLI on tokio, smol, async-std and with no async runtime at all.
//!
//! The app (module `app`) is ordinary SDK code: a read-only permission policy, a `PreToolUse`
//! hook that refuses `rm`, an in-process tool that counts words, and a fold of the message
//! stream into the answer and its cost. The tests hand it `Options` carrying a
//! `FakeTransport`; the app's code does not change.
//!
//! ```sh
//! cargo run --example testing_your_agent     # runs the check on every runtime and prints it
//! cargo test --example testing_your_agent    # the same checks as tests
//! ```

mod app {
    use claude_agent_client::mcp::{typed_tool, SdkMcpServer};
    use claude_agent_client::Options;
    use claude_agent_client::{Error, Query};
    use claude_agent_core::hooks::{HookOutput, PreToolUseInput};
    use claude_agent_core::mcp::ToolResult;
    use claude_agent_core::message::Message;
    use claude_agent_core::permission::PermissionResult;
    use claude_agent_core::tools::BuiltinTool;

    /// What the app makes of one question.
    #[derive(Debug, Clone, PartialEq)]
    pub struct Answer {
        /// The final text.
        pub text: String,
        /// What the session cost.
        pub cost_usd: f64,
    }

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct CountWords {
        /// The text to count the words of.
        text: String,
    }

    /// The app's agent on top of `base`: reads freely, counts words in process, never runs
    /// `rm`, and asks the policy about anything else.
    pub fn agent(base: Options) -> Options {
        let words = SdkMcpServer::new("words", "1.0").tool(typed_tool(
            "count",
            "Count the words of a text",
            |args: CountWords| async move {
                let count = args.text.split_whitespace().count();
                Ok::<_, Error>(ToolResult::text(count.to_string()))
            },
        ));
        base.sdk_mcp_server(words)
            .allowed_tools(["mcp__words__count"])
            .on_hook("Bash", |input: PreToolUseInput, _ctx| async move {
                match input.builtin() {
                    BuiltinTool::Bash(bash) if bash.command.contains("rm ") => {
                        HookOutput::deny_tool("this agent never deletes files")
                    }
                    _ => HookOutput::proceed(),
                }
            })
            .on_permission_request(|request, _ctx| async move {
                match request.tool_name.as_str() {
                    "Read" | "Glob" | "Grep" => PermissionResult::allow(),
                    other => PermissionResult::deny(format!("{other}: this agent only reads")),
                }
            })
    }

    /// The answer and cost of a session: the same function for the stream of every runtime's
    /// `query` (and for the testkit's runtime), since they are one type.
    pub async fn fold(mut messages: Query) -> Result<Answer, Error> {
        let mut answer = Answer {
            text: String::new(),
            cost_usd: 0.0,
        };
        while let Some(message) = messages.next().await {
            if let Message::Result(result) = message? {
                answer.text = result.result.clone().unwrap_or_default();
                // The session's cost so far: the last result's figure covers every turn.
                answer.cost_usd = result.total_cost_usd.unwrap_or_default();
            }
        }
        Ok(answer)
    }
}

mod fake_session {
    use claude_agent_core::hooks::HookOutput;
    use claude_agent_core::mcp::ToolResult;
    use claude_agent_core::permission::PermissionResult;
    use claude_agent_testkit::fake_cli::{Condition, FakeResult, Script, ToolUse};
    use claude_agent_testkit::transport::{FakeTransport, SdkAnswer};
    use serde_json::json;

    use crate::app::Answer;

    /// A session where the model reads a file, counts its words with the app's tool, and tries
    /// to delete the build folder. The fake CLI goes on as the app's answers say.
    pub fn fake() -> FakeTransport {
        let read = ToolUse::new("toolu_1", "Read", json!({"file_path": "notes.txt"}));
        let count = ToolUse::mcp(
            "toolu_2",
            "words",
            "count",
            json!({"text": "three short words"}),
        );
        let rm = ToolUse::new("toolu_3", "Bash", json!({"command": "rm -rf build"}));
        let denied_by_hook =
            Condition::equals("/hookSpecificOutput/permissionDecision", json!("deny"));
        let script = Script::new()
            .answer_initialize()
            .expect_user()
            .emit_tool_use(&read)
            .can_use_tool_then(
                "p1",
                &read,
                |allowed| allowed.emit_tool_result(&read, "three short words"),
                |denied| denied.emit_tool_error(&read, "denied"),
            )
            .emit_tool_use(&count)
            .call_tool("m1", &count)
            .emit_tool_result(&count, "3")
            .emit_tool_use(&rm)
            .pre_tool_use_hook("h1", &rm)
            .branch(
                "h1",
                denied_by_hook,
                |blocked| blocked.emit_tool_error(&rm, "this agent never deletes files"),
                |ran| ran.emit_tool_result(&rm, ""),
            )
            .emit_result_with(FakeResult::success("notes.txt has 3 words.").cost_usd(0.0042));
        FakeTransport::new(script)
    }

    /// What the app must have done in that session.
    pub fn check(fake: &FakeTransport, answer: &Answer) {
        assert_eq!(answer.text, "notes.txt has 3 words.");
        assert_eq!(answer.cost_usd, 0.0042);
        // Each answer of the app, read as the value its callback returned.
        assert_eq!(
            fake.answers(),
            [
                (
                    "p1".to_owned(),
                    SdkAnswer::Permission(PermissionResult::allow())
                ),
                (
                    "m1".to_owned(),
                    SdkAnswer::ToolResult(ToolResult::text("3"))
                ),
                (
                    "h1".to_owned(),
                    SdkAnswer::Hook(HookOutput::deny_tool("this agent never deletes files"))
                ),
            ]
        );
        assert_eq!(fake.user_texts(), ["How many words are in notes.txt?"]);
        let launch = fake.launch().unwrap();
        assert!(launch
            .args
            .contains(&"--allowedTools=mcp__words__count".to_owned()));
    }
}

use claude_agent_client::query_with;
use claude_agent_client::Options;
use claude_agent_testkit::runtime::TestRuntime;

const PROMPT: &str = "How many words are in notes.txt?";

fn on_tokio() -> app::Answer {
    let fake = fake_session::fake();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let options = Options::new().transport(fake.clone());
    let answer = runtime
        .block_on(async { app::fold(claude_agent_tokio::query(PROMPT, app::agent(options))).await })
        .unwrap();
    fake_session::check(&fake, &answer);
    answer
}

fn on_smol() -> app::Answer {
    let fake = fake_session::fake();
    let options = Options::new().transport(fake.clone());
    let answer = smol::block_on(app::fold(claude_agent_smol::query(
        PROMPT,
        app::agent(options),
    )))
    .unwrap();
    fake_session::check(&fake, &answer);
    answer
}

fn on_async_std() -> app::Answer {
    let fake = fake_session::fake();
    let options = Options::new().transport(fake.clone());
    let answer = async_std::task::block_on(app::fold(claude_agent_async_std::query(
        PROMPT,
        app::agent(options),
    )))
    .unwrap();
    fake_session::check(&fake, &answer);
    answer
}

fn without_a_runtime() -> app::Answer {
    let fake = fake_session::fake();
    let runtime = TestRuntime::new();
    let options = Options::new().transport(fake.clone());
    let answer = runtime
        .block_on(app::fold(query_with(
            runtime.clone(),
            PROMPT,
            app::agent(options),
        )))
        .unwrap();
    fake_session::check(&fake, &answer);
    answer
}

fn main() {
    for (name, run) in [
        ("tokio", on_tokio as fn() -> app::Answer),
        ("smol", on_smol),
        ("async-std", on_async_std),
        ("no runtime", without_a_runtime),
    ] {
        let answer = run();
        println!(
            "{name:>10}: {:?} for ${} (Read allowed, words counted in process, rm refused by the hook)",
            answer.text, answer.cost_usd
        );
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn on_tokio() {
        super::on_tokio();
    }

    #[test]
    fn on_smol() {
        super::on_smol();
    }

    #[test]
    fn on_async_std() {
        super::on_async_std();
    }

    #[test]
    fn without_a_runtime() {
        super::without_a_runtime();
    }

    /// Time that does not wait: a CLI that never answers `initialize` fails the app's question
    /// after the configured 30 s, in virtual time (tokio's paused clock).
    #[tokio::test(start_paused = true)]
    async fn a_silent_cli_times_out_in_virtual_time() {
        use claude_agent_client::Error;
        use claude_agent_testkit::fake_cli::Script;
        use claude_agent_testkit::transport::FakeTransport;

        let wall = std::time::Instant::now();
        let options = super::Options::new()
            .transport(FakeTransport::new(Script::new().hang()))
            .initialize_timeout(std::time::Duration::from_secs(30));
        let messages = claude_agent_tokio::query(super::PROMPT, super::app::agent(options));
        let answer = super::app::fold(messages).await;
        assert!(
            matches!(answer, Err(Error::ControlTimeout(_))),
            "{answer:?}"
        );
        assert!(wall.elapsed() < std::time::Duration::from_secs(1));
    }
}
