//! Hook callbacks: every kind the CLI fires, feedback from a stop hook, cancelled and failing hooks.

use super::*;

/// A `Stop` hook that blocks once: the model gets the hook's reason and answers it, the turn
/// then ends with that answer. The CLI passes the reason to the model in a `<system-reminder>`
/// of a user turn and, since 2.1.331, in a trailing `system` message too: the stub's
/// `hook_feedback` reads both.
pub async fn stop_hook_feedback<R: Runtime>(rt: R) {
    let env = env();
    env.stub
        .add_rule(Rule::when_hook_feedback_contains("say BANANA").reply(Reply::text("BANANA")));
    env.stub.push_reply(Reply::text("the report is written"));
    let stops = Arc::new(AtomicUsize::new(0));
    let options = env.options.clone().on_hook(None, {
        let stops = stops.clone();
        move |input: StopInput, _ctx| {
            stops.fetch_add(1, Ordering::SeqCst);
            async move {
                if input.stop_hook_active {
                    HookOutput::proceed()
                } else {
                    HookOutput::block("Before you stop, say BANANA.")
                }
            }
        }
    });
    let messages = ask(&rt, "write the report", options).await;
    assert_eq!(stops.load(Ordering::SeqCst), 2, "{messages:#?}");
    assert_eq!(texts(&messages), ["the report is written", "BANANA"]);
    let result = only_result(&messages);
    assert_eq!(result.subtype, "success");
    assert_eq!(result.result.as_deref(), Some("BANANA"));
}

/// Hooks: UserPromptSubmit, PreToolUse (letting one call through and denying the next through
/// `permissionDecision`), PostToolUse and Stop, each with its typed input.
pub async fn hooks<R: Runtime>(rt: R) {
    let env = env();
    env.stub.push_reply(Reply::tool_use(
        "Bash",
        json!({"command": "echo first-tool"}),
    ));
    env.stub.push_reply(Reply::tool_use(
        "Bash",
        json!({"command": "echo second-tool"}),
    ));
    env.stub.push_reply(Reply::text("all done"));
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let record = |seen: &Arc<Mutex<Vec<String>>>| {
        let seen = seen.clone();
        move |input: HookInput, _ctx| {
            let (entry, output) = match &input {
                HookInput::UserPromptSubmit(i) => {
                    (format!("prompt:{}", i.prompt), HookOutput::proceed())
                }
                HookInput::PreToolUse(i) if i.tool_input.as_str().contains("second-tool") => (
                    format!("pre:{}:deny", i.tool_name),
                    HookOutput::deny_tool("blocked by the e2e hook"),
                ),
                HookInput::PreToolUse(i) => {
                    (format!("pre:{}:allow", i.tool_name), HookOutput::proceed())
                }
                HookInput::PostToolUse(i) => (
                    format!(
                        "post:{}:{}",
                        i.tool_name,
                        i.tool_response.as_str().contains("first-tool")
                    ),
                    HookOutput::proceed(),
                ),
                HookInput::Stop(i) => (
                    format!("stop:{}", i.base.session_id.is_empty()),
                    HookOutput::proceed(),
                ),
                other => (format!("other:{:?}", other.event()), HookOutput::proceed()),
            };
            seen.lock().unwrap().push(entry);
            async move { output }
        }
    };
    let options = env
        .options
        .clone()
        .on_hook_event(HookEvent::UserPromptSubmit, None, record(&seen))
        .on_hook_event(HookEvent::PreToolUse, "Bash", record(&seen))
        .on_hook_event(HookEvent::PostToolUse, "Bash", record(&seen))
        .on_hook_event(HookEvent::Stop, None, record(&seen));
    let messages = ask(&rt, "use the hooks", options).await;
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "prompt:use the hooks",
            "pre:Bash:allow",
            "post:Bash:true",
            "pre:Bash:deny",
            "stop:false",
        ]
    );
    let tool_result = last_tool_result(&env.stub);
    assert!(
        tool_result.contains("blocked by the e2e hook"),
        "{tool_result}"
    );
    assert_eq!(only_result(&messages).result.as_deref(), Some("all done"));
}

/// A hook that never answers, then an interrupt: the CLI cancels the callback
/// (`control_cancel_request`) and the SDK drops its future while the session goes on.
pub async fn cancel_pending_hook<R: Runtime>(rt: R) {
    let env = env();
    let started = Arc::new(AtomicBool::new(false));
    let dropped = Arc::new(AtomicBool::new(false));
    let (s, d) = (started.clone(), dropped.clone());
    let options = env.options.clone().on_hook_event(
        HookEvent::PreToolUse,
        Some("Bash"),
        move |_input, _ctx| {
            s.store(true, Ordering::SeqCst);
            let guard = DropFlag(d.clone());
            async move {
                let _guard = guard;
                std::future::pending::<HookOutput>().await
            }
        },
    );
    let client = connected(&rt, options).await;
    within(&rt, STEP, "send", client.send("BASH:echo never-runs"))
        .await
        .unwrap();
    wait_until(&rt, STEP, "hook called", || started.load(Ordering::SeqCst)).await;
    assert!(!dropped.load(Ordering::SeqCst));
    within(&rt, STEP, "interrupt", client.interrupt())
        .await
        .expect("interrupt answered");
    let turn = all_ok(collect(&rt, "interrupted turn", client.receive_response()).await);
    assert!(only_result(&turn).is_error, "{turn:#?}");
    wait_until(&rt, Duration::from_secs(10), "hook future dropped", || {
        dropped.load(Ordering::SeqCst)
    })
    .await;
    // The session is still running, so the drop came from the CLI's cancel, not a shutdown.
    env.stub.push_reply(Reply::text("still alive"));
    let next = run_turn(&rt, &client, "still there?").await;
    assert_eq!(texts(&next), ["still alive"]);
    within(&rt, STEP, "close", client.close()).await;
}

/// A `PreToolUse` hook on Bash whose callback panics (the SDK answers the CLI with an error). By
/// default the hook fails open: the CLI runs the command anyway. Made
/// [`HookMatcher::fail_closed`], the failure blocks the call: the command does not run, and the
/// model gets the CLI's `PreToolUse:Bash hook error: … blocking because onFailure is "block"`.
pub async fn hook_fail_closed<R: Runtime>(rt: R) {
    let env = env();
    let run = |matcher: HookMatcher, prompt: &'static str| {
        let calls = Arc::new(AtomicUsize::new(0));
        let count = calls.clone();
        let options = env
            .options
            .clone()
            .on_permission_request(|_request, _ctx| async { PermissionResult::allow() })
            .on_hook(matcher, move |_input: PreToolUseInput, _ctx| {
                count.fetch_add(1, Ordering::SeqCst);
                async move { panic!("the e2e guard broke") }
            });
        let rt = rt.clone();
        async move {
            let messages = ask(&rt, prompt, options).await;
            assert_eq!(calls.load(Ordering::SeqCst), 1, "{prompt}");
            messages
        }
    };

    let open = run(HookMatcher::new("Bash"), "BASH:touch ran-fail-open && ls").await;
    assert!(env.work.path().join("ran-fail-open").exists());
    assert!(last_tool_result(&env.stub).contains("ran-fail-open"));
    assert_eq!(only_result(&open).subtype, "success");

    let closed = run(
        HookMatcher::new("Bash").fail_closed(),
        "BASH:touch ran-fail-closed && ls",
    )
    .await;
    assert!(!env.work.path().join("ran-fail-closed").exists());
    let tool_result = last_tool_result(&env.stub);
    assert!(
        tool_result.starts_with("PreToolUse:Bash hook error")
            && tool_result.contains(r#"blocking because onFailure is "block""#),
        "{tool_result}"
    );
    assert_eq!(only_result(&closed).subtype, "success");
}

/// `PreSkillShellCommand` (CLI 2.1.332): a project command whose text runs a shell line; the
/// SDK's hook gets the command, the command's name and who invoked it, and its denial keeps the
/// line from running (the model sees the reason, not the output).
pub async fn skill_shell_command_hook<R: Runtime>(rt: R) {
    use claude_agent_core::hooks::{
        HookOutput, HookSpecificOutput, PermissionDecision, PreSkillShellCommandInput,
        PreSkillShellCommandOutput,
    };

    let env = env();
    let commands = env.work.path().join(".claude/commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(
        commands.join("stamp.md"),
        "---\nallowed-tools: Bash(echo:*)\ndescription: Stamp the answer\n---\nThe stamp is !`echo skill-shell-output`\n",
    )
    .unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    let options =
        env.options
            .clone()
            .on_hook("Bash", move |input: PreSkillShellCommandInput, _ctx| {
                record.lock().unwrap().push(input);
                async {
                    HookOutput::default().with_hook_specific_output(
                        HookSpecificOutput::PreSkillShellCommand(PreSkillShellCommandOutput {
                            permission_decision: Some(PermissionDecision::Deny),
                            permission_decision_reason: Some("no shell in commands here".into()),
                            ..Default::default()
                        }),
                    )
                }
            });
    let messages = ask(&rt, "/stamp", options).await;
    assert_eq!(only_result(&messages).subtype, "success");
    let seen = seen.lock().unwrap().clone();
    if cli_version() < CliVersion::new(2, 1, 332) {
        // The event is new in 2.1.332: an older CLI runs the line without asking.
        assert!(seen.is_empty(), "{seen:?}");
        return;
    }
    let [input] = &seen[..] else {
        panic!("the hook ran {} times", seen.len())
    };
    assert_eq!(input.tool_input.command, "echo skill-shell-output");
    assert_eq!(input.tool_name, "Bash");
    assert_eq!(input.command_name, "stamp");
    assert_eq!(input.invoked_by, "user");
    let asked = env.stub.main_requests().pop().expect("a model call");
    let prompt = asked.last_user_text().unwrap_or_default();
    assert!(
        !prompt.contains("skill-shell-output\n"),
        "the line ran: {prompt}"
    );
    assert!(prompt.contains("no shell in commands here"), "{prompt}");
}
