//! The permission callback: allowing, denying and rewriting a tool call, and how the CLI classifies the decision.

use super::*;

/// `can_use_tool` allows a Bash command that asks; its output reaches the model and the result.
pub async fn bash_allowed<R: Runtime>(rt: R) {
    let env = env();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let options = allow_and_record(env.options.clone(), asked.clone());
    let messages = ask(&rt, "BASH:touch made-by-e2e && ls", options).await;
    assert_eq!(*asked.lock().unwrap(), ["Bash:touch made-by-e2e && ls"]);
    assert!(env.work.path().join("made-by-e2e").exists());
    assert!(last_tool_result(&env.stub).contains("made-by-e2e"));
    let result = only_result(&messages);
    assert_eq!(result.subtype, "success");
    assert!(
        result
            .result
            .as_deref()
            .unwrap_or_default()
            .contains("made-by-e2e"),
        "{result:?}"
    );
}

/// `can_use_tool` denies a Bash command: the tool does not run and the model gets our message.
pub async fn bash_denied<R: Runtime>(rt: R) {
    let env = env();
    let asked = Arc::new(AtomicUsize::new(0));
    let count = asked.clone();
    let options = env
        .options
        .clone()
        .on_permission_request(move |_request, _ctx| {
            count.fetch_add(1, Ordering::SeqCst);
            async { PermissionResult::deny("denied by the e2e test") }
        });
    let messages = ask(&rt, "BASH:touch never-made && ls", options).await;
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    assert!(!env.work.path().join("never-made").exists());
    let tool_result = last_tool_result(&env.stub);
    assert!(
        tool_result.contains("denied by the e2e test"),
        "{tool_result}"
    );
    assert_eq!(only_result(&messages).subtype, "success");
}

/// `updatedInput` rewrites the command: the rewritten one is what runs.
pub async fn updated_input<R: Runtime>(rt: R) {
    let env = env();
    let options = env
        .options
        .clone()
        .on_permission_request(|_request, _ctx| async {
            let rewritten = json!({"command": "touch rewritten && ls", "description": "rewritten"});
            PermissionResult::allow().with_updated_input(rewritten)
        });
    let messages = ask(&rt, "BASH:touch original && ls", options).await;
    assert!(env.work.path().join("rewritten").exists());
    assert!(!env.work.path().join("original").exists());
    let tool_result = last_tool_result(&env.stub);
    assert!(tool_result.contains("rewritten"), "{tool_result}");
    assert_eq!(only_result(&messages).subtype, "success");
}

/// A permission answer's `decisionClassification` reaches the CLI: it records it with the tool's
/// result (`tool_result_meta[].permission_decision.source`); an answer without one is taken as
/// allowed once.
pub async fn permission_decision_classification<R: Runtime>(rt: R) {
    use claude_agent_core::permission::DecisionClassification;

    let env = env();
    env.stub.push_reply(Reply::tool_use(
        "Bash",
        json!({"command": "touch always && ls", "description": "first"}),
    ));
    env.stub.push_reply(Reply::tool_use(
        "Bash",
        json!({"command": "touch once && ls", "description": "second"}),
    ));
    env.stub.push_reply(Reply::text("both ran"));
    let options = env
        .options
        .clone()
        .on_permission_request(|request, _ctx| async move {
            let input: serde_json::Value =
                serde_json::from_str(request.tool_input.as_str()).unwrap_or_default();
            let answer = PermissionResult::allow().with_tool_use_id(request.tool_use_id);
            if input["command"]
                .as_str()
                .unwrap_or_default()
                .contains("always")
            {
                answer.with_decision_classification(DecisionClassification::UserPermanent)
            } else {
                answer
            }
        });
    let messages = ask(&rt, "run both", options).await;
    assert_eq!(only_result(&messages).result.as_deref(), Some("both ran"));
    let sources: Vec<String> = messages
        .iter()
        .filter_map(|m| match m {
            Message::User(user) => user.tool_result_meta(),
            _ => None,
        })
        .map(|meta| {
            let meta: serde_json::Value = serde_json::from_str(meta).expect("JSON");
            meta[0]["permission_decision"]["source"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    assert_eq!(sources, ["user_permanent", "user_temporary"]);
    assert!(env.work.path().join("always").exists());
    assert!(env.work.path().join("once").exists());
}

/// `permission_prompts(Nobody)`: what would be asked is refused at once, and the model is told
/// no one can approve it.
pub async fn permission_prompts_nobody<R: Runtime>(rt: R) {
    use claude_agent_core::options::PermissionPrompts;

    let env = env();
    let options = env
        .options
        .clone()
        .permission_prompts(PermissionPrompts::Nobody);
    let messages = ask(&rt, "BASH:touch unapproved && ls", options).await;
    assert_eq!(only_result(&messages).subtype, "success");
    assert!(!env.work.path().join("unapproved").exists());
    let refusal = last_tool_result(&env.stub);
    assert!(refusal.contains("no approval surface"), "{refusal}");
}
