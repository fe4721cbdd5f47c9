//! Warm starts: a started session, a parked spare and its claim, and pools of spares.

use super::*;

/// The `system/init` of a list of messages.
fn init_of(messages: &[Message]) -> &claude_agent_core::message::Init {
    messages
        .iter()
        .find_map(|m| match m {
            Message::System(SystemMessage::Init(init)) => Some(&**init),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no system/init in {messages:#?}"))
}

/// `startup` spawns and initializes the CLI before the prompt; `query` on the warm handle then
/// runs the prompt as a cold query would.
pub async fn warm_startup<R: Runtime>(rt: R) {
    let env = env();
    let warm = within(
        &rt,
        STEP,
        "startup",
        startup_with(rt.clone(), env.options.clone()),
    )
    .await
    .expect("started");
    assert!(warm.server_info().is_some_and(|info| info.pid.is_some()));
    let messages = all_ok(collect(&rt, "warm query", warm.query("hello there")).await);
    assert_eq!(texts(&messages), ["echo: hello there"]);
    assert_eq!(only_result(&messages).subtype, "success");
}

/// `prewarm` parks a CLI; the claim moves it to the session's folder with the model and
/// permission mode of the claim, as `system/init` shows, and runs the prompt there.
pub async fn prewarm_claim<R: Runtime>(rt: R) {
    let env = env();
    let spare = within(
        &rt,
        STEP,
        "prewarm",
        prewarm_with(rt.clone(), host_options(&env)),
    )
    .await
    .expect("parked");
    assert!(spare.is_alive());
    let parking = parked_in(spare.pid().expect("the spare's pid"));
    let claim = ClaimOptions::new(env.work.path())
        .model("claude-haiku-9")
        .permission_mode(PermissionMode::AcceptEdits)
        .max_thinking_tokens(Some(2048));
    let claimed = within(&rt, STEP, "claim", spare.claim("hello there", claim))
        .await
        .expect("claimed");
    let work = std::fs::canonicalize(env.work.path()).unwrap();
    assert_eq!(claimed.info.cwd.as_deref(), work.to_str());
    assert!(!claimed.info.session_id.is_empty());
    assert!(
        claimed.info.not_applied.is_empty(),
        "{:?}",
        claimed.info.not_applied
    );
    assert!(claimed.info.initialize.is_some());
    let messages = all_ok(collect(&rt, "claimed query", claimed.messages).await);
    let init = init_of(&messages);
    assert_eq!(init.cwd(), work.to_str());
    assert_eq!(init.model(), Some("claude-haiku-9"));
    assert_eq!(init.permission_mode(), Some("acceptEdits"));
    assert_eq!(init.session_id(), claimed.info.session_id);
    assert_eq!(texts(&messages), ["echo: hello there"]);
    let asked = env.stub.main_requests();
    assert_eq!(asked.last().and_then(|r| r.model()), Some("claude-haiku-9"));
    wait_until(&rt, STEP, "the parking folder removed", || {
        !parking.exists()
    })
    .await;
}

/// A claim the CLI cannot honour (a folder that does not exist) is a typed refusal, and the
/// spare goes away.
pub async fn claim_refused<R: Runtime>(rt: R) {
    let env = env();
    let spare = within(
        &rt,
        STEP,
        "prewarm",
        prewarm_with(rt.clone(), host_options(&env)),
    )
    .await
    .expect("parked");
    let pid = spare.pid().expect("the spare's pid");
    let parking = parked_in(pid);
    let missing = env.work.path().join("no-such-folder");
    let refused = within(
        &rt,
        STEP,
        "claim",
        spare.claim("hello there", ClaimOptions::new(missing)),
    )
    .await
    .expect_err("refused");
    let ClaimError::Refused(refusal) = refused else {
        panic!("not a refusal: {refused:?}")
    };
    assert_eq!(refusal.reason, ClaimRefusalReason::CwdNotFound);
    assert!(
        refusal.message.starts_with("cwd_not_found"),
        "{}",
        refusal.message
    );
    wait_until(&rt, STEP, "the refused spare exits", || process_gone(pid)).await;
    wait_until(&rt, STEP, "the parking folder removed", || {
        !parking.exists()
    })
    .await;
    assert!(
        env.stub.main_requests().is_empty(),
        "the prompt did not run"
    );
}

/// A pool hands out its parked spare for a session (the claim's folder in `system/init`), and
/// parks another in its place.
pub async fn pool_hands_out_and_refills<R: Runtime>(rt: R) {
    let env = env();
    let host = host_options(&env);
    let pool = SparePool::new(rt.clone());
    pool.prewarm(&host).expect("options");
    wait_until(&rt, STEP, "a spare parked", || pool.ready(&host) == 1).await;
    let first = pool.pids();
    let session = within(
        &rt,
        STEP,
        "pool query",
        pool.query(&host, "hello there", ClaimOptions::new(env.work.path())),
    )
    .await
    .expect("started");
    assert!(
        matches!(session.start, PoolStart::Claimed(_)),
        "{:?}",
        session.start
    );
    let messages = all_ok(collect(&rt, "pooled query", session.messages).await);
    assert_eq!(texts(&messages), ["echo: hello there"]);
    let work = std::fs::canonicalize(env.work.path()).unwrap();
    assert_eq!(init_of(&messages).cwd(), work.to_str());
    wait_until(&rt, STEP, "a new spare parked", || pool.ready(&host) == 1).await;
    assert_ne!(pool.pids(), first);
    // A claim the spare refuses starts the session cold, transparently.
    let missing = env.work.path().join("gone");
    std::fs::create_dir(&missing).unwrap();
    let claim = ClaimOptions::new(&missing);
    std::fs::remove_dir(&missing).unwrap();
    let session = within(&rt, STEP, "refused", pool.query(&host, "hi", claim)).await;
    let session = session.expect("a cold start is attempted");
    assert!(
        matches!(&session.start, PoolStart::Cold { refused: Some(r) } if r.reason == ClaimRefusalReason::CwdNotFound),
        "{:?}",
        session.start
    );
    let items = collect(&rt, "cold query", session.messages).await;
    assert!(
        items.iter().any(Result::is_err),
        "the cold start fails in a missing folder"
    );
}

/// Dropping a pool shuts its parked spares down: no CLI outlives it.
pub async fn pool_drop_reaps_spares<R: Runtime>(rt: R) {
    let env = env();
    let host = host_options(&env);
    let pool = SparePool::new(rt.clone()).per_options(2);
    pool.prewarm(&host).expect("options");
    wait_until(&rt, STEP, "two spares parked", || pool.ready(&host) == 2).await;
    let pids = pool.pids();
    assert_eq!(pids.len(), 2);
    let folders: Vec<_> = pids.iter().map(|&pid| parked_in(pid)).collect();
    assert_ne!(folders[0], folders[1], "each spare has a folder of its own");
    drop(pool);
    for pid in pids {
        wait_until(&rt, STEP, "the pool's spares exit", || process_gone(pid)).await;
    }
    for folder in folders {
        wait_until(&rt, STEP, "the parking folders removed", || {
            !folder.exists()
        })
        .await;
    }
}

/// A spare whose CLI died is no longer counted as ready, costs the next query nothing (it starts
/// cold, with no refusal), and a new spare takes its place. `discard` lets go of a set of options' spares at once.
pub async fn pool_replaces_a_dead_spare_and_discards<R: Runtime>(rt: R) {
    let env = env();
    let host = host_options(&env);
    let pool = SparePool::new(rt.clone());
    pool.prewarm(&host).expect("options");
    wait_until(&rt, STEP, "a spare parked", || pool.ready(&host) == 1).await;
    let dead = pool.pids()[0];
    let killed = std::process::Command::new("kill")
        .args(["-KILL", &dead.to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    wait_until(&rt, STEP, "the killed CLI reaped", || process_gone(dead)).await;
    wait_until(&rt, STEP, "the dead spare no longer ready", || {
        pool.ready(&host) == 0
    })
    .await;
    let session = within(
        &rt,
        STEP,
        "pool query",
        pool.query(&host, "still there?", ClaimOptions::new(env.work.path())),
    )
    .await
    .expect("started");
    assert!(
        matches!(session.start, PoolStart::Cold { refused: None }),
        "{:?}",
        session.start
    );
    let messages = all_ok(collect(&rt, "cold query", session.messages).await);
    assert_eq!(texts(&messages), ["echo: still there?"]);
    let work = std::fs::canonicalize(env.work.path()).unwrap();
    assert_eq!(init_of(&messages).cwd(), work.to_str());
    wait_until(&rt, STEP, "a new spare parked", || pool.ready(&host) == 1).await;
    let fresh = pool.pids();
    assert_eq!(fresh.len(), 1);
    assert_ne!(fresh[0], dead);
    pool.discard(&host);
    assert_eq!(pool.ready(&host), 0);
    assert!(pool.pids().is_empty());
    wait_until(&rt, STEP, "the discarded spare exits", || {
        process_gone(fresh[0])
    })
    .await;
}

/// A spare closed unused shuts its CLI down and removes its parking folder.
pub async fn spare_close_removes_folder<R: Runtime>(rt: R) {
    let env = env();
    let spare = within(
        &rt,
        STEP,
        "prewarm",
        prewarm_with(rt.clone(), host_options(&env)),
    )
    .await
    .expect("parked");
    let pid = spare.pid().expect("the spare's pid");
    let parking = parked_in(pid);
    within(&rt, STEP, "close", spare.close()).await;
    wait_until(&rt, STEP, "the parking folder removed", || {
        !parking.exists()
    })
    .await;
}
