//! Failures the user must be told about: API errors and retries, a refused start, an invalid option, and what the launch doctor finds.

use super::*;

/// A CLI that refuses to start says why in a typed value: `HTTPS_PROXY` that is not a URL ends
/// `connect` with `Error::StartFailed` naming `ProxyInvalid`, and a `query` yields the CLI's
/// error result with the same reason before that error (the SDK asks the CLI for such results).
pub async fn startup_failure_reason<R: Runtime>(rt: R) {
    let env = env();
    let options = env.options.clone().env("HTTPS_PROXY", "bogus");
    let refused = within(
        &rt,
        STEP,
        "connect",
        connect_with(rt.clone(), options.clone()),
    )
    .await;
    let Err(Error::StartFailed { failure, .. }) = refused else {
        panic!("not a refused start: {refused:?}");
    };
    assert_eq!(failure.reason, Some(StartupFailureReason::ProxyInvalid));
    let message = failure.message.as_deref().unwrap_or_default();
    assert!(message.contains("HTTPS_PROXY"), "{failure}");
    assert_eq!(failure.exit.code, Some(1));

    let items = collect(&rt, "query", query_with(rt.clone(), "hello", options)).await;
    let reason = items.iter().find_map(|item| match item {
        Ok(Message::Result(result)) => result.startup_failure_reason.clone(),
        _ => None,
    });
    assert_eq!(
        reason,
        Some(StartupFailureReason::ProxyInvalid),
        "{items:#?}"
    );
    let last = items.last().expect("an item");
    assert!(
        matches!(last, Err(Error::StartFailed { failure, .. }) if failure.reason == Some(StartupFailureReason::ProxyInvalid)),
        "{last:?}"
    );
}

/// `doctor` against the real CLI: the test environment has nothing in its way (the version the
/// CLI reports); each cause it checks is found when set up, and a CLI older than supported is
/// found through a stand-in that reports 2.0.14.
pub async fn doctor_findings<R: Runtime>(rt: R) {
    use claude_agent_client::cli::{doctor, Finding};
    use claude_agent_core::permission::PermissionMode;

    let env = env();
    let clean = doctor(&env.options);
    assert!(clean.is_ok(), "{:?}", clean.findings);
    assert_eq!(
        clean.version,
        Some(
            RealCli::locate()
                .unwrap()
                .version()
                .expect("the CLI's version")
        )
    );

    let missing = env.work.path().join("gone");
    let found = |options: &Options| doctor(options).findings;
    assert_eq!(
        found(&env.options.clone().cwd(&missing)),
        [Finding::WorkingDirectoryMissing {
            path: missing.clone()
        }]
    );
    let refused = within(
        &rt,
        STEP,
        "connect",
        connect_with(rt.clone(), env.options.clone().cwd(&missing)),
    )
    .await;
    assert_eq!(
        refused.err().and_then(|e| e.finding()),
        Some(Finding::WorkingDirectoryMissing { path: missing })
    );
    assert_eq!(
        found(&env.options.clone().env("CLAUDECODE", "1")),
        [Finding::NestedSession]
    );
    assert_eq!(
        found(&env.options.clone().env("NODE_OPTIONS", "--inspect")),
        [Finding::NodeOptions {
            value: "--inspect".into()
        }]
    );
    assert_eq!(
        found(&env.options.clone().env_remove("ANTHROPIC_API_KEY")),
        [Finding::NoCredentials]
    );
    let bypass = env
        .options
        .clone()
        .permission_mode(PermissionMode::BypassPermissions);
    let as_root = std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(2) == Some("0"))
    });
    if as_root {
        assert_eq!(found(&bypass), [Finding::RootWithBypassPermissions]);
        assert!(found(&bypass.clone().env("IS_SANDBOX", "1")).is_empty());
        // The same cause, recognised after the CLI refused to start.
        let refused = within(&rt, STEP, "connect", connect_with(rt.clone(), bypass)).await;
        let Err(error) = refused else {
            panic!("the CLI started with bypassPermissions as root")
        };
        assert_eq!(
            error.finding(),
            Some(Finding::RootWithBypassPermissions),
            "{error}"
        );
    } else {
        assert!(found(&bypass).is_empty());
    }

    // A CLI that cannot be started: `doctor` and the failed start name the same cause, with
    // the same fix.
    let not_there = env.work.path().join("no-such-claude");
    let not_executable = env.work.path().join("claude-not-executable");
    std::fs::write(&not_executable, "#!/bin/sh\necho '2.1.0 (Claude Code)'\n").unwrap();
    let no_interpreter = env.work.path().join("claude-without-node");
    std::fs::write(&no_interpreter, "#!/nonexistent/node\n").unwrap();
    std::fs::set_permissions(
        &no_interpreter,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let unstartable = [
        (&not_there, Finding::CliNotFound),
        (
            &not_executable,
            Finding::CliNotExecutable {
                program: not_executable.clone(),
            },
        ),
        (
            &no_interpreter,
            Finding::CliInterpreterMissing {
                program: no_interpreter.clone(),
                interpreter: "/nonexistent/node".into(),
            },
        ),
    ];
    for (cli, expected) in unstartable {
        let options = env.options.clone().cli_path(cli);
        let diagnosis = doctor(&options);
        assert_eq!(
            diagnosis.findings,
            std::slice::from_ref(&expected),
            "{cli:?}"
        );
        let failed = within(&rt, STEP, "connect", connect_with(rt.clone(), options)).await;
        let finding = failed.err().and_then(|e| e.finding());
        assert_eq!(finding.as_ref(), Some(&expected), "{cli:?}");
        assert_eq!(finding.map(|f| f.fix()), Some(expected.fix()));
        if expected == Finding::CliNotFound {
            assert_eq!(
                diagnosis.cli, None,
                "a path that is not there is no CLI found"
            );
        }
    }

    let old = env.work.path().join("old-claude");
    std::fs::write(&old, "#!/bin/sh\necho '2.0.14 (Claude Code)'\n").unwrap();
    std::os::unix::fs::PermissionsExt::set_mode(
        &mut std::fs::metadata(&old).unwrap().permissions(),
        0o755,
    );
    std::fs::set_permissions(&old, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let too_old = doctor(&env.options.clone().cli_path(&old));
    assert!(
        matches!(&too_old.findings[..], [Finding::CliTooOld { version }] if version.to_string() == "2.0.14"),
        "{:?}",
        too_old.findings
    );
}

/// An API 400: an error result with `api_error_status` 400, then [`Error::Result`] (the CLI
/// exits 1).
///
/// The real CLI reports it as subtype `success` with `is_error: true` and `terminal_reason`
/// `api_error`, after trying the turn again without its betas (six requests in all); the rule
/// answers every one of them (a plain prompt matches none of the conventions).
pub async fn api_400<R: Runtime>(rt: R) {
    let env = env();
    env.stub.add_rule(Rule::any().reply(Reply::error(
        400,
        "invalid_request_error",
        "stub says no",
    )));
    let mut items = collect(
        &rt,
        "query",
        query_with(rt.clone(), "fail please", env.options.clone()),
    )
    .await;
    let last = items.pop().expect("some items");
    let messages = all_ok(items);
    assert_eq!(
        results(&messages).len(),
        1,
        "one result before the end: {messages:#?}, then {last:?}"
    );
    let result = only_result(&messages);
    assert!(result.is_error, "{result:?}");
    assert_eq!(result.api_error_status, Some(400), "{result:?}");
    assert_eq!(result.terminal_reason.as_deref(), Some("api_error"));
    assert_eq!(
        result.result.as_deref(),
        Some("API Error: 400 stub says no")
    );
    assert_eq!(
        result.api_error_type.as_deref(),
        Some("invalid_request_error")
    );
    // The CLI's stand-in for the model's reply says how the call failed.
    let failed = messages
        .iter()
        .find_map(|m| match m {
            Message::Assistant(reply) if reply.is_api_error_message => Some(reply),
            _ => None,
        })
        .expect("the synthetic assistant message of the failed call");
    assert_eq!(failed.api_error_status, Some(400));
    assert_eq!(
        failed.api_error_type.as_deref(),
        Some("invalid_request_error")
    );
    let kind = failed.error.clone().expect("a classified error");
    match &last {
        Err(Error::Result(error)) => {
            assert_eq!(error.api_error_status, Some(400));
            assert_eq!(
                error.api_error_type.as_deref(),
                Some("invalid_request_error")
            );
            assert_eq!(error.api_error.as_ref(), Some(&kind));
            assert!(!kind.may_pass_on_retry(), "{kind}");
            assert_eq!(error.exit.code, Some(1));
        }
        other => panic!("expected Error::Result last, got {other:?}"),
    }
    assert!(!env.stub.main_requests().is_empty());
}

/// An API 429 is retried and the turn then succeeds: the `system/api_retry` message in between
/// says the status, the CLI's class of the failure and the wait, as an app would show it.
pub async fn api_429_retried<R: Runtime>(rt: R) {
    retried_then_answered(
        rt,
        429,
        "rate_limit_error",
        ApiError::RateLimit,
        "rate_limit",
    )
    .await;
}

/// An API 529 (overloaded) is retried: the `system/api_retry` notice says so in types (status
/// 529, `ApiError::Overloaded`, worth retrying), then the turn succeeds.
pub async fn api_529_overloaded<R: Runtime>(rt: R) {
    retried_then_answered(
        rt,
        529,
        "overloaded_error",
        ApiError::Overloaded,
        "overloaded",
    )
    .await;
}

/// The stub answers the first request with a retryable `status` error of `error_type`, then
/// with text: the `system/api_retry` notice carries the status and the class (`named` in its
/// line), which is worth retrying, and the turn succeeds.
async fn retried_then_answered<R: Runtime>(
    rt: R,
    status: u16,
    error_type: &str,
    class: ApiError,
    named: &str,
) {
    let env = env();
    env.stub
        .push_reply(Reply::error(status, error_type, "try again later").retryable());
    env.stub.push_reply(Reply::text("made it"));
    let messages = ask(&rt, "hello", env.options.clone()).await;
    let retry = messages
        .iter()
        .find_map(|m| match m {
            Message::System(SystemMessage::ApiRetry(retry)) => Some(retry),
            _ => None,
        })
        .expect("a system/api_retry");
    assert_eq!(retry.error_status, Some(status), "{retry:?}");
    assert_eq!(retry.error.as_ref(), Some(&class), "{retry:?}");
    assert!(class.may_pass_on_retry());
    assert_eq!(retry.attempt, 1);
    let shown = retry.to_string();
    let expected = format!("API call failed (HTTP {status}, {named}): retry 1 of ");
    assert!(shown.starts_with(&expected), "{shown}");
    assert_eq!(texts(&messages), ["made it"]);
    assert_eq!(only_result(&messages).subtype, "success");
}

/// An API 401 is retried (`system/api_retry` messages); an interrupt then gives up at once.
pub async fn api_401_retries<R: Runtime>(rt: R) {
    let env = env();
    env.stub.add_rule(
        Rule::any().reply(Reply::error(401, "authentication_error", "bad key").retryable()),
    );
    let client = connected(&rt, env.options.clone()).await;
    within(&rt, STEP, "send", client.send("hello"))
        .await
        .unwrap();
    let mut messages = client.receive_messages();
    let retry = within(&rt, STEP, "system/api_retry", async {
        while let Some(item) = messages.next().await {
            if let Ok(Message::System(SystemMessage::ApiRetry(retry))) = item {
                return retry;
            }
        }
        panic!("stream ended without api_retry")
    })
    .await;
    assert_eq!(retry.error_status, Some(401), "{retry:?}");
    assert_eq!(
        retry.error,
        Some(ApiError::AuthenticationFailed),
        "{retry:?}"
    );
    assert!(retry.attempt >= 1);
    let gave_up = Instant::now();
    within(&rt, STEP, "interrupt", client.interrupt())
        .await
        .expect("interrupt answered");
    let turn = all_ok(collect(&rt, "interrupted turn", client.receive_response()).await);
    let result = only_result(&turn);
    assert!(result.is_error, "{turn:#?}");
    assert_eq!(result.terminal_reason.as_deref(), Some("aborted_streaming"));
    within(&rt, STEP, "close", client.close()).await;
    assert!(
        gave_up.elapsed() < Duration::from_secs(15),
        "{:?}",
        gave_up.elapsed()
    );
}

/// An invalid permission mode: the CLI exits at once and the error carries its stderr.
pub async fn invalid_option<R: Runtime>(rt: R) {
    let env = env();
    let options = env
        .options
        .clone()
        .permission_mode(PermissionMode::from_name("bogus"));
    let started = Instant::now();
    match within(&rt, STEP, "connect", connect_with(rt.clone(), options)).await {
        Err(Error::StartFailed {
            failure,
            stderr_tail,
        }) => {
            assert_eq!(failure.exit.code, Some(1));
            assert!(stderr_tail.contains("bogus"), "{stderr_tail}");
        }
        other => panic!("expected Error::StartFailed, got {other:?}"),
    }
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );

    // The same through `extra_arg` and `query`: the error is the stream's last item.
    let options = env
        .options
        .clone()
        .extra_arg("permission-mode", Some("bogus2".to_owned()));
    let started = Instant::now();
    let items = collect(&rt, "query", query_with(rt.clone(), "hi", options)).await;
    match items.last() {
        Some(Err(Error::StartFailed { stderr_tail, .. })) => {
            assert!(stderr_tail.contains("bogus2"), "{stderr_tail}")
        }
        other => panic!("expected Error::StartFailed last, got {other:?} in {items:?}"),
    }
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
}
