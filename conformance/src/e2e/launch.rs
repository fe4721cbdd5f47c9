//! What a session is started with: settings, tools, agents, the environment, another user, an isolated configuration, and the built-in tools typed.

use super::*;

/// `tool_alias`: the model calls `Shell`, and the CLI runs (and asks about) `Bash`.
pub async fn tool_aliases<R: Runtime>(rt: R) {
    let env = env();
    env.stub.push_reply(Reply::tool_use(
        "Shell",
        json!({"command": "touch aliased && ls", "description": "aliased"}),
    ));
    env.stub.push_reply(Reply::text("ran it"));
    let asked = Arc::new(Mutex::new(Vec::new()));
    let options = allow_and_record(env.options.clone(), asked.clone()).tool_alias("Shell", "Bash");
    let messages = ask(&rt, "use the alias", options).await;
    assert_eq!(only_result(&messages).result.as_deref(), Some("ran it"));
    assert_eq!(*asked.lock().unwrap(), ["Bash:touch aliased && ls"]);
    assert!(env.work.path().join("aliased").exists());
}

/// `skills`: with no `setting_sources`, the CLI finds the user's skills (in `~/.claude/skills`)
/// and the project's (in `<cwd>/.claude/skills`) by itself, so the SDK adds no
/// `--setting-sources` for skills (the official Python SDK adds `user,project`, which would
/// leave the local settings out).
pub async fn skills_found_without_setting_sources<R: Runtime>(rt: R) {
    let env = env();
    for (root, name) in [
        (env.home.path(), "user-skill"),
        (env.work.path(), "project-skill"),
    ] {
        let folder = root.join(".claude/skills").join(name);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: says hi\n---\nSay hi.\n"),
        )
        .unwrap();
    }
    let options = env.options.clone().skills(Skills::All);
    let messages = ask(&rt, "hello", options).await;
    let skills: Vec<String> = messages
        .iter()
        .find_map(|m| match m {
            Message::System(SystemMessage::Init(init)) => Some(
                init.skills
                    .items()
                    .into_iter()
                    .map(|s| s.into_owned())
                    .collect(),
            ),
            _ => None,
        })
        .expect("an init message");
    for name in ["user-skill", "project-skill"] {
        assert!(skills.iter().any(|s| s == name), "{name} in {skills:?}");
    }
}

/// `managed_settings`: a deny rule of the host's policy refuses the tool before anyone is asked.
pub async fn managed_settings<R: Runtime>(rt: R) {
    let env = env();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let options = allow_and_record(env.options.clone(), asked.clone())
        .managed_settings(json!({"permissions": {"deny": ["Bash(touch:*)"]}}));
    let messages = ask(&rt, "BASH:touch forbidden && ls", options).await;
    assert_eq!(only_result(&messages).subtype, "success");
    assert!(asked.lock().unwrap().is_empty());
    assert!(!env.work.path().join("forbidden").exists());
    assert_eq!(
        last_tool_result(&env.stub),
        "Permission to use Bash with command touch forbidden && ls has been denied."
    );
}

/// Inline settings and managed settings travel in `initialize` (the default): the CLI's command
/// line holds neither, and the CLI applies both (the settings' `env` reaches a Bash tool, the
/// managed deny rule refuses a tool). With `Delivery::Argv` they are on the command line again.
pub async fn settings_stay_off_argv<R: Runtime>(rt: R) {
    const SECRET: &str = "settings-s3cret-2024";
    let env = env();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let options = allow_and_record(env.options.clone(), asked.clone())
        .settings_json(json!({"env": {"E2E_SETTINGS_SECRET": SECRET}}))
        .managed_settings(json!({"permissions": {"deny": ["Bash(touch:*)"]}}));
    let client = connected(&rt, options.clone()).await;
    let pid = client
        .server_info()
        .and_then(|info| info.pid)
        .expect("the CLI says its pid");
    let argv = command_line(pid);
    assert!(
        argv.contains("--initialize-fields=settings")
            && argv.contains("--managed-settings-in-initialize"),
        "{argv}"
    );
    assert!(
        !argv.contains(SECRET) && !argv.contains("touch:*"),
        "{argv}"
    );
    within(
        &rt,
        STEP,
        "send",
        client.send("BASH:echo $E2E_SETTINGS_SECRET"),
    )
    .await
    .expect("sent");
    let messages = all_ok(collect(&rt, "turn 1", client.receive_response()).await);
    assert_eq!(only_result(&messages).subtype, "success");
    assert!(
        last_tool_result(&env.stub).contains(SECRET),
        "the settings' env reaches a tool"
    );
    within(&rt, STEP, "send", client.send("BASH:touch forbidden && ls"))
        .await
        .expect("sent");
    all_ok(collect(&rt, "turn 2", client.receive_response()).await);
    assert!(!env.work.path().join("forbidden").exists());
    assert_eq!(
        last_tool_result(&env.stub),
        "Permission to use Bash with command touch forbidden && ls has been denied."
    );
    within(&rt, STEP, "close", client.close()).await;

    let on_argv = options.settings_delivery(Delivery::Argv);
    let client = connected(&rt, on_argv).await;
    let pid = client.server_info().and_then(|info| info.pid).expect("pid");
    let argv = command_line(pid);
    assert!(argv.contains(SECRET) && argv.contains("touch:*"), "{argv}");
    within(&rt, STEP, "close", client.close()).await;
}

/// `project_config_root`: the `.claude` commands of the root are the session's, not those of
/// the working directory.
pub async fn project_config_root<R: Runtime>(rt: R) {
    let env = env();
    let root = TestDir::new("root").expect("temp root");
    let commands = |dir: &std::path::Path, name: &str| {
        let dir = dir.join(".claude/commands");
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(
            dir.join(format!("{name}.md")),
            "---\ndescription: a test command\n---\nSay hi\n",
        )
        .expect("write a command");
    };
    commands(root.path(), "from-the-root");
    commands(env.work.path(), "from-the-worktree");
    let options = env.options.clone().project_config_root(root.path());
    let client = connected(&rt, options).await;
    let names: Vec<String> = client
        .supported_commands()
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert!(names.iter().any(|n| n == "from-the-root"), "{names:?}");
    assert!(!names.iter().any(|n| n == "from-the-worktree"), "{names:?}");
    within(&rt, STEP, "close", client.close()).await;
}

/// `tool_config`: HTML previews change what the model is told about `AskUserQuestion`.
pub async fn tool_config<R: Runtime>(rt: R) {
    use claude_agent_core::options::{PreviewFormat, ToolConfig};

    let env = env();
    let description = |format: PreviewFormat| {
        let options = env
            .options
            .clone()
            .tool_config(ToolConfig::new().ask_user_question_preview_format(format))
            .on_permission_request(|_request, _ctx| async { PermissionResult::allow() });
        let stub = &env.stub;
        let rt = rt.clone();
        async move {
            ask(&rt, "hello", options).await;
            let request = stub.main_requests().pop().expect("a request");
            request.body["tools"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|tool| tool["name"] == "AskUserQuestion")
                .map(|tool| tool.to_string())
                .expect("AskUserQuestion is offered")
        }
    };
    let html = description(PreviewFormat::Html).await;
    assert!(html.contains("self-contained HTML fragment"), "{html}");
    let markdown = description(PreviewFormat::Markdown).await;
    assert!(!markdown.contains("HTML fragment"), "{markdown}");
}

/// An agent with the newer fields (observer, omitted CLAUDE.md, compaction window, numeric
/// effort) is taken by the CLI and listed in its `initialize` answer. (CLI 2.1.330 drops every
/// agent when a window is under 100,000 tokens, which `Options` refuses.)
pub async fn agent_definition_fields<R: Runtime>(rt: R) {
    use claude_agent_core::options::{AgentDefinition, AgentEffort};

    let env = env();
    let agent = AgentDefinition::new("Reviews diffs", "You review diffs.")
        .model("haiku")
        .auto_compact_window(120_000)
        .omit_claude_md(true)
        .observer("auditor")
        .observer_message("Watch the shell.")
        .effort(AgentEffort::Value(2))
        .critical_system_reminder("Never push.");
    let auditor = AgentDefinition::new("Audits activity", "Report anything risky.");
    let options = env
        .options
        .clone()
        .agent_definition("reviewer", agent)
        .agent_definition("auditor", auditor);
    let client = connected(&rt, options).await;
    let agents = client.supported_agents();
    let reviewer = agents
        .iter()
        .find(|a| a.name == "reviewer")
        .unwrap_or_else(|| panic!("{agents:?}"));
    assert_eq!(reviewer.description, "Reviews diffs");
    assert_eq!(reviewer.model.as_deref(), Some("haiku"));
    within(&rt, STEP, "close", client.close()).await;
}

/// What the CLI's Bash tool printed for `command`, run in a one-prompt session with `options`
/// (every tool allowed).
async fn printed_by_bash<R: Runtime>(
    rt: &R,
    env: &Env,
    command: String,
    options: Options,
) -> String {
    env.stub.push_reply(Reply::tool_use(
        "Bash",
        json!({"command": command, "description": "show the environment"}),
    ));
    env.stub.push_reply(Reply::text("shown"));
    let options =
        options.on_permission_request(|_request, _ctx| async { PermissionResult::allow() });
    let messages = all_ok(
        collect(
            rt,
            "query",
            query_with(rt.clone(), "show the environment", options),
        )
        .await,
    );
    assert_eq!(only_result(&messages).result.as_deref(), Some("shown"));
    env.stub
        .main_requests()
        .pop()
        .and_then(|r| r.last_tool_result_text())
        .unwrap_or_default()
}

/// `env_remove` keeps an inherited variable from the CLI (and so from its Bash tool), and
/// `trace_context` hands the CLI the caller's `TRACEPARENT` and `TRACESTATE`.
pub async fn environment_options<R: Runtime>(rt: R) {
    let env = env();
    let inherited = "CARGO_MANIFEST_DIR";
    assert!(
        std::env::var_os(inherited).is_some(),
        "cargo sets {inherited} for its tests"
    );
    let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let options = env
        .options
        .clone()
        .env_remove(inherited)
        .trace_context(parent, Some("vendor=1"));
    let command = format!("echo \"[${inherited}] [$TRACEPARENT] [$TRACESTATE]\"");
    let shown = printed_by_bash(&rt, &env, command, options).await;
    assert_eq!(shown, format!("[] [{parent}] [vendor=1]"));
}

/// `user`: as root, the CLI runs as `nobody` (its Bash tool says so); as anyone else, starting
/// fails with the system's refusal.
pub async fn run_as_another_user<R: Runtime>(rt: R) {
    use std::os::unix::fs::{chown, MetadataExt};

    let env = env();
    let nobody = 65534;
    let is_root = std::fs::metadata(env.work.path()).is_ok_and(|m| m.uid() == 0);
    let home = TestDir::new("nobody-home").expect("temp HOME");
    let options = env
        .options
        .clone()
        .user("nobody")
        .env("HOME", home.path().display().to_string())
        .on_permission_request(|_request, _ctx| async { PermissionResult::allow() });
    if !is_root {
        match within(
            &rt,
            STEP,
            "connect",
            connect_with(rt.clone(), options.clone()),
        )
        .await
        {
            Err(Error::Spawn { source, .. }) => {
                assert_eq!(source.kind(), std::io::ErrorKind::PermissionDenied)
            }
            other => panic!("expected Error::Spawn, got {other:?}"),
        }
        return;
    }
    for dir in [home.path(), env.work.path()] {
        chown(dir, Some(nobody), Some(nobody)).expect("chown");
    }
    env.stub.push_reply(Reply::tool_use(
        "Bash",
        json!({"command": "id -u && touch mine", "description": "who am I"}),
    ));
    env.stub.push_reply(Reply::text("found out"));
    let messages = ask(&rt, "who are you", options.clone()).await;
    assert_eq!(only_result(&messages).result.as_deref(), Some("found out"));
    let shown = env
        .stub
        .main_requests()
        .pop()
        .and_then(|r| r.last_tool_result_text())
        .unwrap_or_default();
    assert_eq!(shown.trim(), nobody.to_string());
    let made = std::fs::metadata(env.work.path().join("mine")).expect("the tool made a file");
    assert_eq!(made.uid(), nobody);

    // What the CLI and its tools inherit of this process's environment: everything by default,
    // only the variables named with `inherit_env_only` (cargo sets CARGO_MANIFEST_DIR here).
    for (options, seen) in [
        (options.clone(), true),
        (options.clone().inherit_env_only(["PATH"]), false),
    ] {
        let messages = ask(&rt, "BASH:echo \"[$CARGO_MANIFEST_DIR]\"", options).await;
        assert_eq!(only_result(&messages).subtype, "success");
        let shown = last_tool_result(&env.stub);
        assert_eq!(shown.trim() != "[]", seen, "{shown}");
    }

    // Root's files behind links in the user's configuration folder (a link to a root-only
    // file, a FIFO): a session with a folder of its own starts, and its tool, as the user, finds
    // none of root's secret there.
    let roots = TestDir::new("roots-secret").expect("temp dir");
    let secret = roots.path().join("settings.json");
    std::fs::write(&secret, r#"{"env":{"ROOT_ONLY":"hunter2"}}"#).unwrap();
    let config = home.path().join(".claude");
    std::fs::create_dir_all(&config).unwrap();
    std::os::unix::fs::symlink(&secret, config.join("settings.json")).unwrap();
    let fifo = std::process::Command::new("mkfifo")
        .arg(config.join(".credentials.json"))
        .status()
        .unwrap();
    assert!(fifo.success());
    for path in [
        config.clone(),
        config.join("settings.json"),
        config.join(".credentials.json"),
    ] {
        std::os::unix::fs::lchown(&path, Some(nobody), Some(nobody)).expect("lchown");
    }
    let isolated = options.clone().isolated_config(true);
    let messages = ask(
        &rt,
        "BASH:cat \"$CLAUDE_CONFIG_DIR\"/settings.json; ls -a \"$CLAUDE_CONFIG_DIR\"",
        isolated,
    )
    .await;
    assert_eq!(only_result(&messages).subtype, "success");
    let shown = last_tool_result(&env.stub);
    assert!(
        !shown.contains("hunter2"),
        "root's secret reached the user: {shown}"
    );
    assert!(!shown.contains(".credentials.json"), "{shown}");
    // The CLI itself would block on that FIFO when it reads its own folder.
    std::fs::remove_dir_all(&config).unwrap();

    // A spare parked as that user: its parking folder is theirs (the CLI enters it after the
    // switch), and it is claimed for their folder.
    let spare_options = host_options(&env)
        .user("nobody")
        .env("HOME", home.path().display().to_string());
    let spare = within(
        &rt,
        STEP,
        "prewarm",
        prewarm_with(rt.clone(), spare_options),
    )
    .await
    .expect("parked as nobody");
    let parking = parked_in(spare.pid().expect("the spare's pid"));
    let owner = std::fs::metadata(&parking).expect("the parking folder");
    assert_eq!((owner.uid(), owner.mode() & 0o777), (nobody, 0o700));
    let claimed = within(
        &rt,
        STEP,
        "claim",
        spare.claim("hello there", ClaimOptions::new(env.work.path())),
    )
    .await
    .expect("claimed");
    let messages = all_ok(collect(&rt, "claimed query", claimed.messages).await);
    assert_eq!(texts(&messages), ["echo: hello there"]);

    // A session resumed from a store as that user: the configuration folder it is loaded into
    // is theirs.
    let store = Arc::new(InMemorySessionStore::new());
    let first = ask(
        &rt,
        "remember PINEAPPLE",
        options.clone().session_store(store.clone()),
    )
    .await;
    let session_id = only_result(&first).session_id().to_owned();
    let resumed = options
        .session_store(store)
        .session_start(SessionStart::resume(session_id.clone()));
    let second = ask(&rt, "what word?", resumed).await;
    assert_eq!(only_result(&second).session_id(), session_id);
    let body = last_request_body(&env.stub);
    assert!(body.contains("remember PINEAPPLE"), "{body}");

    // A resume from that user's own history: this process does not read it. A transcript of
    // theirs that is a link to a file only root may read (here naming a folder of root's) was
    // read through the link, and its folder told back; a FIFO hung the start. Their CLI looks
    // for the session itself, and says it found none.
    let projects = config.join("projects");
    let elsewhere = projects.join("-elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let missing = "0f8e5a2c-6d1b-4c3e-9a7f-2b4d6e8f0a1c";
    let roots_transcript = roots.path().join("transcript.jsonl");
    let line = json!({"type": "user", "uuid": "5b1d2f0e-0c44-4d0b-8b7e-2a6f4c3d9e10",
        "sessionId": missing, "cwd": "/root-only-place", "timestamp": "2026-11-28T10:00:00Z",
        "message": {"role": "user", "content": "hi"}});
    std::fs::write(&roots_transcript, format!("{line}\n")).unwrap();
    let transcript = elsewhere.join(format!("{missing}.jsonl"));
    std::os::unix::fs::symlink(&roots_transcript, &transcript).unwrap();
    for path in [&config, &projects, &elsewhere, &transcript] {
        std::os::unix::fs::lchown(path, Some(nobody), Some(nobody)).expect("lchown");
    }
    let from_history = host_options(&env)
        .cwd(env.work.path())
        .user("nobody")
        .env("HOME", home.path().display().to_string())
        .session_start(SessionStart::resume(missing));
    let items = collect(&rt, "resume", query_with(rt.clone(), "hi", from_history)).await;
    let error = items.iter().find_map(|item| item.as_ref().err());
    assert!(
        error.is_some() && !matches!(error, Some(Error::ResumeElsewhere { .. })),
        "root read the user's history: {items:?}"
    );
    std::fs::remove_dir_all(&config).unwrap();
}

/// The model calls each built-in tool the SDK types (and one it does not): every hook input
/// and permission request gives the call typed (`builtin()`), and every result of a tool with a
/// typed result comes typed (`builtin_output()`); the app answers `AskUserQuestion` from the
/// typed question. An unknown tool stays as sent.
pub async fn builtin_tools_typed<R: Runtime>(rt: R) {
    use claude_agent_core::tools::{BuiltinOutput, BuiltinTool};

    let env = env();
    let work = std::fs::canonicalize(env.work.path()).unwrap();
    let path = |f: &str| work.join(f).display().to_string();
    let notebook = r#"{"cells":[{"cell_type":"code","id":"c1","metadata":{},"source":["print(1)"],"outputs":[],"execution_count":null}],"metadata":{"language_info":{"name":"python"}},"nbformat":4,"nbformat_minor":5}"#;
    let port = env.stub.addr().port();
    let question = json!({"question": "Which one?", "header": "Pick", "multiSelect": false,
        "options": [{"label": "A", "description": "first"}, {"label": "B", "description": "second"}]});
    for (name, input) in [
        (
            "Write",
            json!({"file_path": path("a.txt"), "content": "hello\nworld\n"}),
        ),
        ("Read", json!({"file_path": path("a.txt")})),
        (
            "Edit",
            json!({"file_path": path("a.txt"), "old_string": "world", "new_string": "there"}),
        ),
        (
            "Bash",
            json!({"command": "echo hi", "description": "Say hi"}),
        ),
        (
            "Write",
            json!({"file_path": path("n.ipynb"), "content": notebook}),
        ),
        ("Read", json!({"file_path": path("n.ipynb")})),
        (
            "NotebookEdit",
            json!({"notebook_path": path("n.ipynb"), "cell_id": "c1", "new_source": "print(2)", "edit_mode": "replace"}),
        ),
        ("AskUserQuestion", json!({"questions": [question]})),
        ("ToolSearch", json!({"query": "select:Read"})),
        (
            "WebFetch",
            json!({"url": format!("http://127.0.0.1:{port}/page"), "prompt": "summarize"}),
        ),
        ("WebSearch", json!({"query": "rust async"})),
    ] {
        env.stub.push_reply(Reply::tool_use(name, input));
    }
    env.stub.push_reply(Reply::text("no results")); // the search's own model request
    env.stub.push_reply(Reply::tool_use(
        "Agent",
        json!({"description": "greet", "prompt": "say hi", "subagent_type": "general-purpose"}),
    ));
    env.stub.push_reply(Reply::text("agent says hi"));
    env.stub.push_reply(Reply::text("all done"));

    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let record = |seen: &Arc<Mutex<Vec<String>>>| {
        let seen = seen.clone();
        move |input: HookInput, _ctx| {
            let line = match &input {
                HookInput::PreToolUse(i) => match i.builtin() {
                    BuiltinTool::Other { name, .. } => format!("pre {name}: raw"),
                    typed => format!("pre {}: typed", typed.name()),
                },
                HookInput::PostToolUse(i) => match i.builtin_output() {
                    BuiltinOutput::Other { name, .. } => format!("post {name}: raw"),
                    _ => format!("post {}: typed", i.tool_name),
                },
                HookInput::PostToolUseFailure(i) => format!("failed {}", i.builtin().name()),
                other => format!("{:?}", other.event()),
            };
            seen.lock().unwrap().push(line);
            async move { HookOutput::proceed() }
        }
    };
    let asked = seen.clone();
    let options = env
        .options
        .clone()
        .on_hook_event(HookEvent::PreToolUse, None, record(&seen))
        .on_hook_event(HookEvent::PostToolUse, None, record(&seen))
        .on_hook_event(HookEvent::PostToolUseFailure, None, record(&seen))
        .on_permission_request(move |request, _ctx| {
            let answer = match request.builtin() {
                BuiltinTool::AskUserQuestion(ask) => {
                    let first = &ask.questions[0];
                    asked
                        .lock()
                        .unwrap()
                        .push(format!("asked {}", first.question));
                    let mut input = request.tool_input.to_value();
                    input["answers"] =
                        json!({ first.question.clone(): first.options[0].label.clone() });
                    PermissionResult::allow().with_updated_input(input)
                }
                BuiltinTool::Write(write) if !write.file_path.starts_with('/') => {
                    PermissionResult::deny("absolute paths only")
                }
                _ => PermissionResult::allow(),
            };
            async move { answer }
        });
    ask(&rt, "use the tools", options).await;
    let seen = seen.lock().unwrap().clone();
    let expected = [
        "pre Write: typed",
        "post Write: typed",
        "pre Read: typed",
        "post Read: typed",
        "pre Edit: typed",
        "post Edit: typed",
        "pre Bash: typed",
        "post Bash: typed",
        "pre Write: typed",
        "post Write: typed",
        "pre Read: typed",
        "post Read: typed",
        "pre NotebookEdit: typed",
        "post NotebookEdit: typed",
        "pre AskUserQuestion: typed",
        "asked Which one?",
        "post AskUserQuestion: typed",
        "pre ToolSearch: raw",
        "post ToolSearch: raw",
        "pre WebFetch: typed",
        "failed WebFetch",
        "pre WebSearch: typed",
        "post WebSearch: typed",
        "pre Agent: typed",
        "post Agent: raw",
    ];
    assert_eq!(seen, expected);
}

/// `CLAUDE_CONFIG_DIR` in the environment of the running process `pid`.
fn config_dir_of(pid: u32) -> Option<std::path::PathBuf> {
    let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    environ
        .split(|byte| *byte == 0)
        .find_map(|var| var.strip_prefix(b"CLAUDE_CONFIG_DIR="))
        .map(|value| std::path::PathBuf::from(String::from_utf8_lossy(value).into_owned()))
}

/// `Options::isolated_config` against the real CLI: two sessions at once each run in a private
/// folder of their own, which is gone afterwards; neither writes the user's `.claude.json`
/// (which a plain session creates on this fresh HOME), and their transcripts are in the user's
/// history, where a plain resume finds them.
pub async fn isolated_config<R: Runtime>(rt: R) {
    let env = env();
    let user_json = env.home.path().join(".claude.json");
    let isolated = env.options.clone().isolated_config(true);
    let (one, two) = futures_lite::future::zip(
        connect_with(rt.clone(), isolated.clone()),
        connect_with(rt.clone(), isolated.clone()),
    )
    .await;
    let (one, two) = (one.expect("connected"), two.expect("connected"));
    let folders: Vec<std::path::PathBuf> = [&one, &two]
        .iter()
        .map(|client| {
            let pid = client
                .server_info()
                .and_then(|info| info.pid)
                .expect("the CLI's pid");
            config_dir_of(pid).expect("CLAUDE_CONFIG_DIR")
        })
        .collect();
    assert_ne!(folders[0], folders[1], "a folder each");
    for folder in &folders {
        assert!(folder.starts_with(std::env::temp_dir()), "{folder:?}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(folder).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700, "{folder:?}");
        }
    }
    let mut ids = Vec::new();
    for (client, prompt) in [(&one, "remember MANGO"), (&two, "remember KIWI")] {
        let turn = run_turn(&rt, client, prompt).await;
        ids.push(only_result(&turn).session_id().to_owned());
    }
    within(&rt, STEP, "close", one.close()).await;
    within(&rt, STEP, "close", two.close()).await;
    for folder in &folders {
        assert!(!folder.exists(), "{folder:?} is left behind");
    }
    assert!(
        !user_json.exists(),
        "an isolated session wrote ~/.claude.json"
    );
    // The transcripts are in the user's history: a plain resume continues the conversation.
    let history = History::at(env.home.path().join(".claude"));
    for id in &ids {
        history
            .session(id, Some(env.work.path()))
            .expect("in the user's history");
    }
    let resumed = env
        .options
        .clone()
        .session_start(SessionStart::resume(ids[0].clone()));
    ask(&rt, "what fruit?", resumed).await;
    let body = last_request_body(&env.stub);
    assert!(body.contains("remember MANGO"), "{body}");
    assert!(user_json.exists(), "a plain session writes ~/.claude.json");
}

/// `inherit_env_only(CLI_ENVIRONMENT)` against the real CLI: the session runs, and its Bash tool
/// sees the search path and what the options set, not the host's other variables.
pub async fn cleared_environment<R: Runtime>(rt: R) {
    let env = env();
    let host_only = "CARGO_MANIFEST_DIR";
    assert!(
        std::env::var_os(host_only).is_some(),
        "cargo sets {host_only} for its tests"
    );
    let options = env
        .options
        .clone()
        .inherit_env_only(CLI_ENVIRONMENT.iter().copied());
    let command = format!("echo \"[${host_only}] [${{PATH:+path}}] [$HOME]\"");
    let shown = printed_by_bash(&rt, &env, command, options).await;
    assert_eq!(shown, format!("[] [path] [{}]", env.home.path().display()));
}
