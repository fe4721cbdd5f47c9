//! Sessions that outlive a process: resume and continue, the CLI's history on disk, and session stores.

use super::*;

/// `SessionStart::Continue` in a folder with no conversation fails with
/// `Error::NothingToContinue` (the CLI would start a new one without a word); with `or_new` a
/// new session starts; once there is one, a continue goes on in it (same id, the model sees the
/// earlier turn).
pub async fn continue_needs_a_conversation<R: Runtime>(rt: R) {
    let env = env();
    let must = env
        .options
        .clone()
        .session_start(SessionStart::continue_last());
    let refused = within(&rt, STEP, "connect", connect_with(rt.clone(), must.clone())).await;
    match refused {
        Err(Error::NothingToContinue { cwd }) => {
            assert_eq!(cwd, std::fs::canonicalize(env.work.path()).unwrap())
        }
        other => panic!("not NothingToContinue: {other:?}"),
    }
    let or_new = env.options.clone().session_start(SessionStart::Continue {
        fork: None,
        or_new: true,
    });
    let first = ask(&rt, "remember MANGO", or_new).await;
    let session_id = only_result(&first).session_id().to_owned();
    let second = ask(&rt, "which fruit?", must).await;
    assert_eq!(only_result(&second).session_id(), session_id);
    let body = last_request_body(&env.stub);
    assert!(body.contains("remember MANGO"), "{body}");
}

/// A session resumed by id in a new process: the model sees the first conversation.
pub async fn resume<R: Runtime>(rt: R) {
    let env = env();
    let first = ask(&rt, "remember PINEAPPLE", env.options.clone()).await;
    let session_id = only_result(&first).session_id().to_owned();
    let options = env
        .options
        .clone()
        .session_start(SessionStart::resume(session_id.clone()));
    let second = ask(&rt, "what word?", options).await;
    assert_eq!(texts(&second), ["echo: what word?"]);
    let last = env.stub.main_requests().pop().expect("a request");
    let body = last.body.to_string();
    assert!(body.contains("remember PINEAPPLE"), "{body}");
    assert!(body.contains("echo: remember PINEAPPLE"), "{body}");
    assert_eq!(only_result(&second).session_id(), session_id);
}

/// A resume started in another folder than the session ran in: the CLI would not find the
/// session ("No conversation found"), so the start fails with `Error::ResumeElsewhere` naming
/// the folder; with `in_its_folder()` the session is resumed there, with its conversation.
pub async fn resume_from_another_folder<R: Runtime>(rt: R) {
    let env = env();
    let first = ask(&rt, "remember MANGO", env.options.clone()).await;
    let session_id = only_result(&first).session_id().to_owned();
    let elsewhere = TestDir::new("elsewhere").expect("another folder");
    let resume = Resume::new(session_id.clone());
    let from_elsewhere = env
        .options
        .clone()
        .cwd(elsewhere.path())
        .session_start(SessionStart::Resume(resume.clone()));
    let refused = within(
        &rt,
        STEP,
        "connect",
        connect_with(rt.clone(), from_elsewhere.clone()),
    )
    .await;
    match refused {
        Err(Error::ResumeElsewhere {
            session_id: id,
            ran_in,
            ..
        }) => {
            assert_eq!(id, session_id);
            assert_eq!(ran_in, std::fs::canonicalize(env.work.path()).unwrap());
        }
        other => panic!("not ResumeElsewhere: {other:?}"),
    }
    let there = from_elsewhere.session_start(SessionStart::Resume(resume.in_its_folder()));
    let second = ask(&rt, "which fruit?", there).await;
    assert_eq!(texts(&second), ["echo: which fruit?"]);
    assert_eq!(only_result(&second).session_id(), session_id);
    let body = last_request_body(&env.stub);
    assert!(body.contains("remember MANGO"), "{body}");
}

/// A session run in a folder whose name has characters outside the Basic Multilingual Plane
/// (an emoji: two UTF-16 units, so two `-` in the CLI's folder name) and others: the history
/// finds it where the CLI wrote it.
pub async fn history_of_a_folder_with_an_emoji<R: Runtime>(rt: R) {
    let env = env();
    let dir = env.work.path().join("café-😀-项目-e\u{301}");
    std::fs::create_dir(&dir).expect("the folder");
    let options = env.options.clone().cwd(&dir);
    let messages = ask(&rt, "hello there", options).await;
    let id = only_result(&messages).session_id().to_owned();
    let history = History::at(env.home.path().join(".claude"));
    let dir = std::fs::canonicalize(&dir).unwrap();
    let listed = history
        .list_sessions(&ListSessions::in_dir(&dir))
        .expect("listed");
    let ids: Vec<&str> = listed.iter().map(|s| s.session_id.as_str()).collect();
    assert_eq!(ids, [id.as_str()]);
    let session = history.session(&id, Some(&dir)).expect("found");
    assert!(!session.messages(Page::ALL).expect("read").is_empty());
}

/// A subagent's transcript read back: the model starts an agent, and the history lists it and
/// reads its messages with the `tool_use` id that started it (from the CLI's `.meta.json`), and
/// no parent agent, as the main conversation started it.
pub async fn subagent_history<R: Runtime>(rt: R) {
    let env = env();
    env.stub.push_reply(Reply::tool_use(
        "Agent",
        json!({"description": "greet", "prompt": "say hi", "subagent_type": "general-purpose"}),
    ));
    env.stub.push_reply(Reply::text("hi from the agent"));
    env.stub.push_reply(Reply::text("all done"));
    let messages = ask(
        &rt,
        "use an agent",
        env.options.clone().allowed_tools(["Agent"]),
    )
    .await;
    let started = messages
        .iter()
        .find_map(|m| match m {
            Message::Assistant(reply) => reply.message.content.iter().find_map(|b| match b {
                ContentBlock::ToolUse(call) if call.name == "Agent" => Some(call.id.clone()),
                _ => None,
            }),
            _ => None,
        })
        .expect("the Agent call");
    let session_id = messages
        .iter()
        .find_map(|m| match m {
            Message::Result(result) => Some(result.session_id().to_owned()),
            _ => None,
        })
        .expect("a result");
    let history = History::at(env.home.path().join(".claude"));
    let work = std::fs::canonicalize(env.work.path()).unwrap();
    let session = history
        .session(&session_id, Some(&work))
        .expect("the session");
    let agents = session.subagents().expect("listed");
    assert_eq!(agents.len(), 1, "{agents:?}");
    let transcript = session
        .subagent_messages(&agents[0], Page::ALL)
        .expect("the agent's messages");
    assert!(!transcript.is_empty());
    for message in &transcript {
        assert_eq!(
            message.parent_tool_use_id.as_deref(),
            Some(started.as_str())
        );
        assert_eq!(message.parent_agent_id, None);
    }
}

/// Two sessions, then the history the CLI stored: both listed with their first prompt and
/// working directory, the conversation read back typed; a rename and a tag show in the listing,
/// a fork is resumed by the CLI with the forked conversation, a deleted session is gone.
pub async fn session_history<R: Runtime>(rt: R) {
    let env = env();
    let mut ids = Vec::new();
    for prompt in ["first question", "second question"] {
        let messages = all_ok(
            collect(
                &rt,
                prompt,
                query_with(rt.clone(), prompt, env.options.clone()),
            )
            .await,
        );
        ids.push(only_result(&messages).session_id().to_owned());
    }
    let (first, second) = (ids[0].as_str(), ids[1].as_str());
    let history = History::at(env.home.path().join(".claude"));
    let work = std::fs::canonicalize(env.work.path()).unwrap();

    // This SDK ran them (`"entrypoint":"sdk-rust"`): a picker for people lists neither.
    let typed = history
        .list_sessions(&ListSessions::in_dir(&work).include_programmatic(false))
        .expect("listed");
    assert!(typed.is_empty(), "{typed:?}");
    let listed = history
        .list_sessions(&ListSessions::in_dir(&work))
        .expect("listed");
    let summary: Vec<(&str, Option<&str>, Option<&std::path::Path>)> = listed
        .iter()
        .map(|s| {
            (
                s.session_id.as_str(),
                s.first_prompt.as_deref(),
                s.cwd.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (second, Some("second question"), Some(work.as_path())),
            (first, Some("first question"), Some(work.as_path())),
        ]
    );

    let conversation = history
        .session(first, Some(&work))
        .and_then(|s| s.messages(Page::ALL))
        .expect("messages");
    let said: Vec<String> = conversation
        .iter()
        .map(|m| match &m.message {
            Message::User(user) => match &user.content {
                MessageContent::Text(text) => format!("user: {text}"),
                other => format!("user: {other:?}"),
            },
            Message::Assistant(_) => {
                format!(
                    "claude: {}",
                    texts(std::slice::from_ref(&m.message)).join(" ")
                )
            }
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        said,
        ["user: first question", "claude: echo: first question"]
    );

    history
        .session(first, None)
        .and_then(|s| s.rename("Renamed session"))
        .unwrap();
    history
        .session(first, None)
        .and_then(|s| s.tag(Some("kept")))
        .unwrap();
    let info = history
        .session(first, Some(&work))
        .and_then(|s| s.info())
        .unwrap();
    assert_eq!(info.summary, "Renamed session");
    assert_eq!(info.tag.as_deref(), Some("kept"));

    let fork = history
        .session(first, Some(&work))
        .and_then(|s| s.fork(ForkOptions::new()))
        .unwrap();
    let summary_of = |id: &str| {
        history
            .session(id, Some(&work))
            .and_then(|s| s.info())
            .unwrap()
            .summary
    };
    assert_eq!(summary_of(&fork), "Renamed session (fork)");
    let titled = history
        .session(first, Some(&work))
        .and_then(|s| s.fork(ForkOptions::new().title("Plan B")))
        .unwrap();
    assert_eq!(summary_of(&titled), "Plan B");
    let resumed = ask(
        &rt,
        "what came before?",
        env.options
            .clone()
            .session_start(SessionStart::resume(fork.clone())),
    )
    .await;
    assert_eq!(texts(&resumed), ["echo: what came before?"]);
    let last = env.stub.main_requests().pop().expect("a request");
    let body = last.body.to_string();
    assert!(body.contains("echo: first question"), "{body}");
    assert!(!body.contains("second question"), "{body}");

    // Archived, unarchived, archived again; then a prompt sent in the session unarchives it (the
    // CLI rewrites the mark, `"by":"cli"`).
    let archived = |id: &str| {
        history
            .session(id, Some(&work))
            .and_then(|s| s.info())
            .unwrap()
            .archived
    };
    assert_eq!(archived(first), None);
    let session = history.session(first, Some(&work)).unwrap();
    session.archive().unwrap();
    assert_eq!(archived(first), Some(true));
    let listed = history.list_sessions(&ListSessions::in_dir(&work)).unwrap();
    assert!(
        listed
            .iter()
            .any(|s| s.session_id == first && s.archived == Some(true)),
        "{listed:?}"
    );
    session.unarchive().unwrap();
    assert_eq!(archived(first), Some(false));
    session.archive().unwrap();
    let resumed = ask(
        &rt,
        "back again",
        env.options
            .clone()
            .session_start(SessionStart::resume(first.to_owned())),
    )
    .await;
    assert_eq!(texts(&resumed), ["echo: back again"]);
    assert_eq!(archived(first), Some(false));

    history
        .session(second, None)
        .and_then(|s| s.delete())
        .unwrap();
    let left: Vec<String> = history
        .list_sessions(&ListSessions::all())
        .unwrap()
        .into_iter()
        .map(|s| s.session_id)
        .collect();
    assert!(
        left.contains(&fork) && left.iter().any(|id| id == first),
        "{left:?}"
    );
    assert!(!left.iter().any(|id| id == second), "{left:?}");
}

/// The text of every `user` and `assistant` entry of a stored transcript, in order.
fn stored_texts(entries: &[serde_json::Value]) -> Vec<String> {
    entries
        .iter()
        .filter(|e| e["type"] == "user" || e["type"] == "assistant")
        .map(|e| {
            let content = &e["message"]["content"];
            let text = match content.as_str() {
                Some(text) => text.to_owned(),
                None => content
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|b| b["text"].as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
            };
            format!("{}: {text}", e["type"].as_str().unwrap_or(""))
        })
        .collect()
}

/// A session mirrored to a store from one machine (a HOME of its own), then resumed on another
/// whose HOME is empty, from the store alone: the model's next request carries the first turn,
/// the new turn is mirrored back, and the temporary configuration directory is gone afterwards.
pub async fn session_store_resume<R: Runtime>(rt: R) {
    let env = env();
    let store = Arc::new(InMemorySessionStore::new());
    let machine_a = env.options.clone().session_store(store.clone());
    let client = connected(&rt, machine_a).await;
    let first = run_turn(&rt, &client, "remember PINEAPPLE").await;
    let session_id = only_result(&first).session_id().to_owned();
    let key = SessionKey::new(
        project_key_for_directory(Some(env.work.path())),
        &session_id,
    );
    // The turn is in the store as soon as its result is read, before the session ends.
    assert_eq!(
        stored_texts(&store.entries(&key)),
        [
            "user: remember PINEAPPLE",
            "assistant: echo: remember PINEAPPLE"
        ]
    );
    within(&rt, STEP, "close", client.close()).await;

    let machine_b_home = TestDir::new("home-b").expect("temp HOME");
    let machine_b = env
        .options
        .clone()
        .env("HOME", machine_b_home.path().display().to_string())
        .session_store(store.clone())
        .session_start(SessionStart::resume(session_id.clone()));
    let second = ask(&rt, "what word?", machine_b).await;
    assert_eq!(texts(&second), ["echo: what word?"]);
    assert_eq!(only_result(&second).session_id(), session_id);
    let last = env.stub.main_requests().pop().expect("a request");
    let body = last.body.to_string();
    assert!(
        body.contains("remember PINEAPPLE") && body.contains("echo: remember PINEAPPLE"),
        "{body}"
    );
    assert_eq!(
        stored_texts(&store.entries(&key)),
        [
            "user: remember PINEAPPLE",
            "assistant: echo: remember PINEAPPLE",
            "user: what word?",
            "assistant: echo: what word?",
        ]
    );
    // Machine B kept nothing: not in its HOME, and the temporary config dir is removed.
    let transcript = format!("{session_id}.jsonl");
    let leftovers: Vec<std::path::PathBuf> = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("claude-agent-resume-"))
        })
        .filter(|p| {
            p.join("projects")
                .join(&key.project_key)
                .join(&transcript)
                .exists()
        })
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    assert!(!machine_b_home
        .path()
        .join(".claude/projects")
        .join(&key.project_key)
        .join(&transcript)
        .exists());
}

/// A session that ran a subagent, mirrored to a store, then read and changed through
/// `StoreHistory` alone: its summary as the history on disk gives it, its subagent and that agent's
/// conversation, a rename and a tag, and a fork that the CLI resumes from the store (on a machine
/// whose HOME is empty) with the forked conversation.
pub async fn session_store_history<R: Runtime>(rt: R) {
    let env = env();
    let store = Arc::new(InMemorySessionStore::new());
    env.stub.push_reply(Reply::tool_use(
        "Agent",
        json!({"description": "greet", "prompt": "say hi", "subagent_type": "general-purpose"}),
    ));
    env.stub.push_reply(Reply::text("hi from the agent"));
    env.stub.push_reply(Reply::text("all done"));
    let options = env
        .options
        .clone()
        .allowed_tools(["Agent"])
        .session_store(store.clone());
    let messages = ask(&rt, "use an agent", options).await;
    let session_id = messages
        .iter()
        .find_map(|m| match m {
            Message::Result(result) => Some(result.session_id().to_owned()),
            _ => None,
        })
        .expect("a result");
    let work = std::fs::canonicalize(env.work.path()).unwrap();
    let dir = Some(work.as_path());

    let on_disk = History::at(env.home.path().join(".claude"))
        .session(&session_id, dir)
        .and_then(|s| s.info())
        .expect("the session on disk");
    let history = StoreHistory::new(&*store);
    let session = history.session(&session_id, dir);
    let info = session.info().await.expect("in the store");
    assert_eq!(info.summary, on_disk.summary);
    assert_eq!(info.first_prompt.as_deref(), Some("use an agent"));
    assert_eq!(info.cwd.as_deref(), dir);
    assert_eq!(info.created, on_disk.created);

    let agents = session.subagents().await.expect("listed");
    let disk_agents = History::at(env.home.path().join(".claude"))
        .session(&session_id, dir)
        .and_then(|s| s.subagents())
        .unwrap();
    assert_eq!(agents, disk_agents);
    assert_eq!(agents.len(), 1, "{agents:?}");
    let transcript = session
        .subagent_messages(&agents[0], Page::ALL)
        .await
        .expect("the agent's messages");
    let on_disk = History::at(env.home.path().join(".claude"))
        .session(&session_id, dir)
        .and_then(|s| s.subagent_messages(&agents[0], Page::ALL))
        .unwrap();
    assert!(!transcript.is_empty());
    let ids =
        |m: &[claude_agent_client::history::SessionMessage]| -> Vec<(String, Option<String>)> {
            m.iter()
                .map(|m| (m.uuid.clone(), m.parent_tool_use_id.clone()))
                .collect()
        };
    assert_eq!(ids(&transcript), ids(&on_disk));

    session.rename("Agent run").await.unwrap();
    session.tag(Some("kept")).await.unwrap();
    let listed = history
        .list_sessions(&ListSessions::in_dir(&work))
        .await
        .unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(
        (listed[0].summary.as_str(), listed[0].tag.as_deref()),
        ("Agent run", Some("kept"))
    );

    let conversation = session.messages(Page::ALL).await.unwrap();
    let first_reply = &conversation[1].uuid;
    let fork = session
        .fork(ForkOptions::new().up_to(first_reply).title("Plan B"))
        .await
        .expect("forked");
    let info = history.session(&fork, dir).info().await.unwrap();
    assert_eq!(info.summary, "Plan B");

    let machine_b_home = TestDir::new("home-b").expect("temp HOME");
    let resumed = env
        .options
        .clone()
        .env("HOME", machine_b_home.path().display().to_string())
        .session_store(store.clone())
        .session_start(SessionStart::resume(fork.clone()));
    let answer = ask(&rt, "and now?", resumed).await;
    assert_eq!(only_result(&answer).session_id(), fork);
    let last = env.stub.main_requests().pop().expect("a request");
    let body = last.body.to_string();
    assert!(
        body.contains("use an agent") && body.contains("and now?"),
        "{body}"
    );
    assert!(
        !body.contains("all done"),
        "the fork ends before the last reply: {body}"
    );
}

/// The texts of a model request's messages, in order (each cut to 60 characters).
fn request_texts(body: &serde_json::Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|m| match &m["content"] {
            serde_json::Value::String(text) => vec![text.clone()],
            blocks => blocks
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|b| b["text"].as_str().map(str::to_owned))
                .collect(),
        })
        .map(|t| t.chars().take(60).collect())
        .collect()
}

/// Three turns, `/compact`, then a fourth: the compaction keeps the last reply, and reading the
/// session gives it after the summary, where the CLI's next model request has it; with system
/// messages the boundary comes first. A fork of the compacted session, resumed, sends the model
/// the same.
pub async fn compaction_history<R: Runtime>(rt: R) {
    let env = env();
    let client = connected(&rt, env.options.clone()).await;
    let mut session_id = String::new();
    for turn in [
        "first question",
        "second question",
        "third question",
        "/compact",
        "after compaction",
    ] {
        let messages = run_turn(&rt, &client, turn).await;
        session_id = only_result(&messages).session_id().to_owned();
    }
    within(&rt, STEP, "close", client.close()).await;
    let sent = request_texts(&env.stub.main_requests().pop().expect("a request").body);
    let summary = sent
        .iter()
        .position(|t| t.starts_with("This session is being continued"))
        .unwrap_or_else(|| panic!("no summary in {sent:?}"));
    assert_eq!(sent[summary + 1], "echo: third question", "{sent:?}");
    assert!(!sent.iter().any(|t| t == "first question"), "{sent:?}");

    let work = std::fs::canonicalize(env.work.path()).unwrap();
    let history = History::at(env.home.path().join(".claude"));
    let session = history
        .session(&session_id, Some(&work))
        .expect("the session");
    let read = session.messages(Page::ALL).expect("messages");
    let said = texts(&read.iter().map(|m| m.message.clone()).collect::<Vec<_>>());
    let user_said: Vec<String> = read
        .iter()
        .filter_map(|m| match &m.message {
            Message::User(user) => match &user.content {
                MessageContent::Text(text) => Some(text.chars().take(60).collect()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(
        user_said[0], sent[summary],
        "the conversation starts at the summary"
    );
    assert_eq!(said[0], "echo: third question", "{said:?}");
    assert_eq!(
        user_said.last().map(String::as_str),
        Some("after compaction")
    );
    let with_system = session
        .messages(Page::ALL.with_system_messages())
        .expect("messages");
    assert!(
        matches!(
            with_system[0].message,
            Message::System(SystemMessage::CompactBoundary(_))
        ),
        "{:?}",
        with_system[0].message
    );

    let fork = session.fork(ForkOptions::new()).expect("forked");
    let resumed = env
        .options
        .clone()
        .session_start(SessionStart::resume(fork));
    ask(&rt, "in the fork", resumed).await;
    let sent = request_texts(&env.stub.main_requests().pop().expect("a request").body);
    let summary = sent
        .iter()
        .position(|t| t.starts_with("This session is being continued"))
        .unwrap_or_else(|| panic!("no summary in {sent:?}"));
    assert_eq!(sent[summary + 1], "echo: third question", "{sent:?}");
}

/// A store whose appends fail.
struct FailingStore;

impl SessionStore for FailingStore {
    fn append<'a>(
        &'a self,
        _key: &'a SessionKey,
        _entries: &'a [serde_json::Value],
    ) -> StoreFuture<'a, ()> {
        Box::pin(async { Err(StoreError::backend("the store is down")) })
    }

    fn load<'a>(&'a self, _key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<serde_json::Value>>> {
        Box::pin(async { Ok(None) })
    }
}

/// A store that fails every append: the session goes on, each failed batch comes as a
/// `mirror_error` naming the session, before the result, and every message still arrives.
pub async fn session_store_failing<R: Runtime>(rt: R) {
    let env = env();
    let plain = ask(&rt, "hello", env.options.clone()).await;
    let items = collect(
        &rt,
        "with a failing store",
        query_with(
            rt.clone(),
            "hello",
            env.options.clone().session_store(FailingStore),
        ),
    )
    .await;
    let messages = all_ok(items);
    let session_id = only_result(&messages).session_id().to_owned();
    let errors: Vec<(usize, &claude_agent_core::message::MirrorError)> = messages
        .iter()
        .enumerate()
        .filter_map(|(i, m)| match m {
            Message::System(SystemMessage::MirrorError(e)) => Some((i, &**e)),
            _ => None,
        })
        .collect();
    assert!(!errors.is_empty(), "no mirror_error in {messages:#?}");
    for (_, error) in &errors {
        assert!(
            error
                .error
                .starts_with("session store failed: the store is down; "),
            "{}",
            error.error
        );
        let key = error.key.as_ref().expect("the key of the failed batch");
        assert_eq!(key.session_id, session_id);
        assert_eq!(error.session_id(), session_id);
    }
    let result_at = messages
        .iter()
        .position(|m| matches!(m, Message::Result(_)))
        .unwrap();
    assert!(
        errors[0].0 < result_at,
        "the turn's failure comes before its result"
    );
    // Everything else is what the same session without a store delivers.
    assert_eq!(texts(&messages), texts(&plain));
    let kinds = |ms: &[Message]| -> Vec<String> {
        ms.iter()
            .filter(|m| !matches!(m, Message::System(SystemMessage::MirrorError(_))))
            .map(|m| {
                let v: serde_json::Value = serde_json::from_str(m.raw_json()).unwrap();
                format!("{}/{}", v["type"], v["subtype"])
            })
            .collect()
    };
    assert_eq!(kinds(&messages), kinds(&plain));
    assert_eq!(only_result(&messages).subtype, "success");
}

/// The session's lookups: the permission mode a change put in effect, the models it can run,
/// its settings by source, and the files an `@`-mention offers.
pub async fn session_lookups<R: Runtime>(rt: R) {
    let env = env();
    std::fs::write(env.work.path().join("README.md"), "# read me\n").unwrap();
    let client = connected(&rt, env.options.clone()).await;
    let mode = within(
        &rt,
        STEP,
        "set_permission_mode",
        client.set_permission_mode(PermissionMode::Plan),
    )
    .await
    .unwrap();
    assert_eq!(mode, Some(PermissionMode::Plan));
    let models = within(&rt, STEP, "list_models", client.list_models())
        .await
        .unwrap();
    assert!(!models.is_empty());
    let settings = within(&rt, STEP, "settings", client.settings())
        .await
        .unwrap();
    assert!(settings.effective.as_str().starts_with('{'), "{settings:?}");
    // The CLI builds its file index in the background: ask until it has the file.
    let mut found = None;
    for _ in 0..50 {
        let answer = within(
            &rt,
            STEP,
            "file_suggestions",
            client.file_suggestions("readme"),
        )
        .await
        .unwrap();
        if answer
            .suggestions
            .iter()
            .any(|s| s.path.ends_with("README.md"))
        {
            found = Some(answer);
            break;
        }
        sleep(&rt, Duration::from_millis(200)).await;
    }
    let found = found.expect("README.md suggested");
    assert!(found.cwd.is_some(), "{found:?}");
    within(&rt, STEP, "close", client.close()).await;
}
