//! Control requests of the SDK and what the CLI answers: the model, the permission mode, settings, reloads, files and tasks, and the `initialize` exchange.

use super::*;

/// Control requests: server_info, set_model (the next API call uses it), set_permission_mode
/// (the next `system/status` carries it), mcp_status and context_usage.
pub async fn control_requests<R: Runtime>(rt: R) {
    let env = env();
    let calc = SdkMcpServer::new("calc", "1.0.0");
    let options = env.options.clone().sdk_mcp_server(calc);
    let client = connected(&rt, options).await;
    let info = client.server_info().expect("initialize answered");
    assert!(
        info.commands.iter().any(|c| c.name == "compact"),
        "{info:?}"
    );
    assert!(
        info.claude_code_version
            .as_deref()
            .is_some_and(|v| !v.is_empty()),
        "{info:?}"
    );
    // The CLI under test is a supported one, and says so in its initialize answer.
    assert_eq!(
        client.version_check(),
        Some(VersionCheck::Supported(cli_version()))
    );

    within(
        &rt,
        STEP,
        "set_model",
        client.set_model(Some("claude-e2e-model")),
    )
    .await
    .unwrap();
    let turn = run_turn(&rt, &client, "which model").await;
    assert_eq!(texts(&turn), ["echo: which model"]);
    assert_eq!(
        env.stub
            .main_requests()
            .last()
            .and_then(|r| r.model().map(str::to_owned))
            .as_deref(),
        Some("claude-e2e-model")
    );

    within(
        &rt,
        STEP,
        "set_permission_mode",
        client.set_permission_mode(PermissionMode::AcceptEdits),
    )
    .await
    .unwrap();
    let mut messages = client.receive_messages();
    let mode = within(&rt, STEP, "system/status", async {
        while let Some(item) = messages.next().await {
            if let Ok(Message::System(SystemMessage::Status(status))) = item {
                return status.permission_mode.clone();
            }
        }
        None
    })
    .await;
    assert_eq!(mode.as_deref(), Some("acceptEdits"));

    let status = within(&rt, STEP, "mcp_status", client.mcp_status())
        .await
        .unwrap();
    let names = server_states(&status);
    assert_eq!(names, [("calc", "connected")]);

    let usage = within(
        &rt,
        STEP,
        "context_usage",
        client.context_usage(ContextUsageDetail::Full),
    )
    .await
    .unwrap();
    assert!(usage.total_tokens > 0, "{usage:?}");
    assert!(usage.max_tokens >= usage.total_tokens, "{usage:?}");
    within(&rt, STEP, "close", client.close()).await;
}

/// `server_info` keeps the whole `initialize` answer: the typed fields, the accessors, and the
/// fields this crate does not type, by name; `reinitialize` gets a fresh answer of the same CLI.
pub async fn server_info_fields<R: Runtime>(rt: R) {
    let env = env();
    let client = connected(&rt, env.options.clone()).await;
    let info = client.server_info().expect("initialize answered");
    assert_eq!(
        info.claude_code_version.as_deref(),
        Some(cli_version().to_string().as_str())
    );
    assert!(info.pid.is_some_and(|pid| pid > 0), "{info:?}");
    assert_eq!(info.hook_on_failure_supported, Some(true));
    assert!(!info.models.is_empty(), "{info:?}");
    assert_eq!(info.other["current_permission_mode"], "default");
    assert_eq!(info.other["session_state"], "idle");
    let commands: Vec<String> = client
        .supported_commands()
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert!(commands.iter().any(|c| c == "compact"), "{commands:?}");
    let models = client.supported_models();
    assert_eq!(models.len(), info.models.len());
    assert!(models.iter().all(|m| !m.value.is_empty()), "{models:?}");
    assert!(
        models.iter().any(|m| m.supports_effort.is_some()),
        "{models:?}"
    );
    assert_eq!(client.supported_agents().len(), info.agents.len());
    let account = client.account_info().expect("an account");
    assert_eq!(account.api_key_source.as_deref(), Some("ANTHROPIC_API_KEY"));

    let fresh = within(&rt, STEP, "reinitialize", client.reinitialize())
        .await
        .unwrap();
    assert_eq!(fresh.claude_code_version, info.claude_code_version);
    assert_eq!(fresh.pid, info.pid);
    assert_eq!(fresh.commands.len(), info.commands.len());
    // The session still works after the second initialize.
    let turn = run_turn(&rt, &client, "after reinitialize").await;
    assert_eq!(texts(&turn), ["echo: after reinitialize"]);
    within(&rt, STEP, "close", client.close()).await;
}

/// `apply_flag_settings` changes the model of the next API call; `update_settings` writes the
/// local and the user settings files; `set_max_thinking_tokens` with a display and
/// `context_usage` with a detail level are accepted; `usage` reports the session's cost.
pub async fn settings_control_requests<R: Runtime>(rt: R) {
    use claude_agent_core::control::{ContextUsageDetail, SettingsFile};
    use claude_agent_core::options::ThinkingDisplay;

    let env = env();
    let client = connected(&rt, env.options.clone()).await;
    within(
        &rt,
        STEP,
        "apply_flag_settings",
        client.apply_flag_settings(&json!({"model": "claude-flag-model"})),
    )
    .await
    .unwrap();
    within(
        &rt,
        STEP,
        "set_max_thinking_tokens",
        client.set_max_thinking_tokens(Some(2_000), ThinkingDisplay::Summarized),
    )
    .await
    .unwrap();
    let turn = run_turn(&rt, &client, "which model now").await;
    assert_eq!(texts(&turn), ["echo: which model now"]);
    let model = env
        .stub
        .main_requests()
        .last()
        .and_then(|r| r.model().map(str::to_owned));
    assert_eq!(model.as_deref(), Some("claude-flag-model"));

    within(
        &rt,
        STEP,
        "update_settings local",
        client.update_settings(SettingsFile::Local, &json!({"outputStyle": "Explanatory"})),
    )
    .await
    .unwrap();
    let local = std::fs::read_to_string(env.work.path().join(".claude/settings.local.json"))
        .expect("the local settings file was written");
    let local: serde_json::Value = serde_json::from_str(&local).expect("JSON");
    assert_eq!(local["outputStyle"], "Explanatory");
    within(
        &rt,
        STEP,
        "update_settings user",
        client.update_settings(SettingsFile::User, &json!({"effortLevel": "high"})),
    )
    .await
    .unwrap();
    let user = std::fs::read_to_string(env.home.path().join(".claude/settings.json"))
        .expect("the user settings file was written");
    assert!(user.contains("high"), "{user}");
    // A key the CLI does not write is refused.
    match within(
        &rt,
        STEP,
        "update_settings refused",
        client.update_settings(SettingsFile::Local, &json!({"model": "opus"})),
    )
    .await
    {
        Err(Error::ControlRefused { message, .. }) => assert!(!message.is_empty()),
        other => panic!("expected a refusal, got {other:?}"),
    }

    let usage = within(
        &rt,
        STEP,
        "context_usage",
        client.context_usage(ContextUsageDetail::Summary),
    )
    .await
    .unwrap();
    assert!(usage.total_tokens > 0, "{usage:?}");
    assert!(
        usage
            .categories
            .iter()
            .any(|c| c.id.as_deref() == Some("system_tools") && c.tokens > 0),
        "{usage:?}"
    );
    assert!(
        usage
            .api_usage
            .as_ref()
            .is_some_and(|u| u.output_tokens > 0),
        "{usage:?}"
    );
    let report = within(
        &rt,
        STEP,
        "usage",
        client.usage(UsageDetail::WithoutBehaviors),
    )
    .await
    .unwrap();
    assert!(report.session.total_cost_usd > 0.0, "{report:?}");
    assert!(!report.rate_limits_available);
    assert!(
        report.session.model_usage.contains_key("claude-flag-model"),
        "{report:?}"
    );
    within(&rt, STEP, "close", client.close()).await;
}

/// `reload_plugins`, `reload_skills` and `reload_output_styles` answer with the refreshed lists.
pub async fn reload_control_requests<R: Runtime>(rt: R) {
    use claude_agent_core::control::ReloadPlugins;

    let env = env();
    let client = connected(&rt, env.options.clone()).await;
    let plugins = within(
        &rt,
        STEP,
        "reload_plugins",
        client.reload_plugins(ReloadPlugins::new().hold_on_cache_impact(true)),
    )
    .await
    .unwrap();
    assert_eq!(plugins.error_count, 0, "{plugins:?}");
    assert_eq!(plugins.held, Some(false), "{plugins:?}");
    assert!(
        plugins.commands.iter().any(|c| c.name == "compact"),
        "{plugins:?}"
    );
    let skills = within(&rt, STEP, "reload_skills", client.reload_skills())
        .await
        .unwrap();
    assert!(!skills.skills.is_empty(), "{skills:?}");
    let styles = within(
        &rt,
        STEP,
        "reload_output_styles",
        client.reload_output_styles(),
    )
    .await
    .unwrap();
    assert!(
        styles
            .available_output_styles
            .iter()
            .any(|s| s == "Explanatory"),
        "{styles:?}"
    );
    within(&rt, STEP, "close", client.close()).await;
}

/// `read_file` reads a file of the working directory (whole, or cut and base64) and refuses
/// one that is missing; `seed_read_state`, `background_tasks` and
/// `set_mcp_permission_mode_override` are answered; `read_mcp_resource` of an unknown server
/// is refused with the CLI's text.
pub async fn file_and_task_control_requests<R: Runtime>(rt: R) {
    use claude_agent_core::control::{McpPermissionMode, ReadFile};

    let env = env();
    let path = env.work.path().join("hello.txt");
    std::fs::write(&path, "hello world\n").expect("write a file");
    let client = connected(&rt, env.options.clone()).await;
    let whole = within(
        &rt,
        STEP,
        "read_file",
        client.read_file(ReadFile::new("hello.txt")),
    )
    .await
    .unwrap();
    assert_eq!(whole.contents, "hello world\n");
    assert!(whole.abs_path.ends_with("/hello.txt"), "{whole:?}");
    assert!(!whole.truncated && !whole.is_base64());
    let cut = within(
        &rt,
        STEP,
        "read_file base64",
        client.read_file(ReadFile::new("hello.txt").max_bytes(3).base64()),
    )
    .await
    .unwrap();
    assert_eq!(cut.contents, "aGVs");
    assert!(cut.truncated && cut.is_base64(), "{cut:?}");
    match within(
        &rt,
        STEP,
        "read_file missing",
        client.read_file(ReadFile::new("missing.txt")),
    )
    .await
    {
        Err(Error::ControlRefused { message, .. }) => {
            assert_eq!(message, "read denied: missing.txt")
        }
        other => panic!("expected a refusal, got {other:?}"),
    }

    let mtime = std::fs::metadata(&path)
        .and_then(|m| m.modified())
        .expect("mtime");
    within(
        &rt,
        STEP,
        "seed_read_state",
        client.seed_read_state("hello.txt", mtime),
    )
    .await
    .unwrap();
    within(&rt, STEP, "background_tasks", client.background_tasks())
        .await
        .unwrap();
    let one = within(
        &rt,
        STEP,
        "background_tasks one",
        client.background_task("toolu_none"),
    )
    .await
    .unwrap();
    assert!(!one);
    let outcome = within(
        &rt,
        STEP,
        "set_mcp_permission_mode_override",
        client.set_mcp_permission_mode_override("later", Some(McpPermissionMode::Default)),
    )
    .await
    .unwrap();
    assert!(
        outcome
            .warning
            .as_deref()
            .unwrap_or_default()
            .contains("'later'"),
        "{outcome:?}"
    );
    let cleared = within(
        &rt,
        STEP,
        "clear the override",
        client.set_mcp_permission_mode_override("later", None),
    )
    .await
    .unwrap();
    assert!(
        cleared
            .warning
            .as_deref()
            .unwrap_or_default()
            .contains("cleared"),
        "{cleared:?}"
    );
    match within(
        &rt,
        STEP,
        "read_mcp_resource",
        client.read_mcp_resource("nope", "ui://nope/widget"),
    )
    .await
    {
        Err(Error::ControlRefused { message, .. }) => {
            assert_eq!(message, "Server not found: nope")
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    within(&rt, STEP, "close", client.close()).await;
}

/// The newer `initialize` fields reach the CLI: a system prompt of blocks split by the dynamic
/// boundary becomes the API request's system prompt (the marker itself is not sent), plan-mode
/// instructions replace the plan workflow the model is told in plan mode, and a session that
/// declares dialog kinds, a per-task stop control, progress summaries, no prompt snapshot and an
/// extra field through the escape hatch runs normally.
pub async fn initialize_fields<R: Runtime>(rt: R) {
    use claude_agent_core::control::UserDialogResult;
    use claude_agent_core::options::SystemPrompt;

    let env = env();
    let options = env
        .options
        .clone()
        .system_prompt(
            SystemPrompt::blocks([
                "STATIC-BLOCK",
                SystemPrompt::DYNAMIC_BOUNDARY,
                "DYNAMIC-BLOCK",
            ])
            .with_snapshot(false),
        )
        .permission_mode(PermissionMode::Plan)
        .plan_mode_instructions("PLAN-WORKFLOW: list the files, then stop.")
        .agent_progress_summaries(true)
        .per_task_stop_affordance(true)
        .initialize_field("rapidFollowupPreempt", false)
        .on_user_dialog(["refusal_fallback_prompt"], |_request, _ctx| async {
            UserDialogResult::cancelled()
        });
    let messages = ask(&rt, "make a plan", options).await;
    assert_eq!(texts(&messages), ["echo: make a plan"]);
    let request = env.stub.main_requests().pop().expect("a request");
    let system = request.body["system"].to_string();
    assert!(
        system.contains("STATIC-BLOCK") && system.contains("DYNAMIC-BLOCK"),
        "{system}"
    );
    assert!(!system.contains(SystemPrompt::DYNAMIC_BOUNDARY), "{system}");
    let conversation = request.body["messages"].to_string();
    assert!(
        conversation.contains("## Plan Workflow\\n\\nPLAN-WORKFLOW: list the files, then stop."),
        "{conversation}"
    );
}
