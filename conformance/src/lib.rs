//! The conformance suite: one set of tests that every runtime adapter runs, written once and
//! generic over the runtime.
//!
//! An adapter's test crate names its runtime with a [`Harness`] and stamps one `#[test]` per
//! test of the suite with [`conformance_tests!`] (against the testkit's scripted `fake-claude`)
//! and [`e2e_tests!`] (against the pinned real CLI):
//!
//! ```text
//! struct Smol;
//!
//! impl claude_agent_conformance::Harness for Smol {
//!     type Runtime = claude_agent_smol::runtime::SmolRuntime;
//!     fn runtime() -> Self::Runtime { Default::default() }
//!     fn block_on<F: std::future::Future>(future: F) -> F::Output { smol::block_on(future) }
//! }
//!
//! claude_agent_conformance::conformance_tests!(crate::Smol);
//! ```
//!
//! * [`endings`] — no call waits for ever: after a failed start (raced from the runtime's
//!   threads), a CLI that closes its stdout, or one that exits before `initialize`;
//! * [`fake_cli`] — against the testkit's scripted `fake-claude`: every user-facing capability,
//!   callback failures, shutdown and bad output;
//! * [`faults`] — surviving faults: a killed or silent CLI, huge and broken lines, stuck
//!   callbacks, a stalled consumer, many sessions in a row, early closed stdin, argv and secrets;
//! * [`orphans`] — nothing the SDK started outlives it: the CLI's tools die with a dropped child
//!   handle and with the host process;
//! * [`fleet`] — many sessions on one host: a fleet's session limit holds, and a session dropped
//!   while it waits starts nothing;
//! * [`e2e`] — the real Claude Code CLI against the testkit's stub Messages API, grouped by
//!   concern.
//!
//! [`fake`] is the suite's handle on a `fake-claude` process, and [`trace_log`] a `tracing`
//! subscriber that keeps what a session reports.

pub mod e2e;
pub mod endings;
pub mod fake;
pub mod fake_cli;
pub mod faults;
pub mod fleet;
pub mod orphans;
pub mod trace_log;

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use claude_agent_client::{Error, Runtime};
use claude_agent_core::message::Message;

/// The runtime under test: how the suite runs a test's future, and the [`Runtime`] its sessions
/// run on. Implemented by a type of the adapter's test crate.
pub trait Harness: 'static {
    /// The adapter's runtime.
    type Runtime: Runtime;

    /// A value of the runtime, for the sessions a test starts.
    fn runtime() -> Self::Runtime;

    /// Run a test's future to completion.
    fn block_on<F: Future>(future: F) -> F::Output;

    /// Run a test's future where the sessions it starts run on threads of the runtime's own
    /// (with a multi-thread runtime, when `block_on` is single-threaded).
    fn block_on_threaded<F: Future>(future: F) -> F::Output {
        Self::block_on(future)
    }

    /// Pause the calling task, on the runtime's timer.
    fn sleep(duration: Duration) -> <Self::Runtime as Runtime>::Sleep {
        Self::runtime().sleep_until(Instant::now() + duration)
    }
}

/// Stamps one `#[test]` per test of the suite against the testkit's `fake-claude`
/// ([`endings`], [`fake_cli`], [`faults`], [`fleet`], [`orphans`]), in a module per group:
/// `conformance_tests!(crate::MyHarness)`. The harness is named by a path that resolves from
/// inside those modules (`crate::…`).
#[macro_export]
macro_rules! conformance_tests {
    ($harness:path) => {
        $crate::stamp_tests!($harness;
            endings: [
                a_request_sent_as_a_failed_start_ends_is_answered,
                every_call_answers_after_the_cli_closes_its_stdout,
                every_call_answers_after_the_cli_exits_before_initialize,
                first_errors_say_what_to_do_once,
            ];
            fake_cli: [
                query_with_text_yields_every_message_and_ends,
                query_with_a_stream_sends_every_message_then_ends,
                prompt_channel_keeps_input_open_until_the_sender_is_dropped,
                client_runs_several_turns_and_knows_the_server,
                every_control_call_sends_its_request_and_returns_a_typed_answer,
                can_use_tool_answers_allow_and_deny,
                hook_callback_gets_its_input_and_its_answer_reaches_the_cli,
                in_process_mcp_tool_is_listed_and_called_with_typed_arguments,
                cancel_request_drops_the_pending_callback_and_the_session_goes_on,
                panicking_callback_gives_an_error_reply_and_the_session_goes_on,
                a_hook_can_interrupt_through_its_context,
                a_callbacks_client_and_a_connected_client_share_one_type,
                elicitation_is_answered_by_the_callback_or_declined,
                user_dialogs_are_answered_by_the_callback_or_refused_without_one,
                dropping_the_client_shuts_the_cli_down,
                close_escalates_to_sigkill_when_sigterm_is_ignored,
                dropping_a_query_midway_shuts_the_cli_down,
                cli_exiting_early_is_reported_with_its_stderr_within_a_second,
                error_result_then_non_zero_exit_is_a_result_error,
                missing_cli_is_cli_not_found,
                a_missing_working_directory_is_named_not_taken_for_a_missing_cli,
                stderr_lines_reach_the_callback,
                a_line_that_is_not_json_is_a_notice_and_the_stream_goes_on,
                an_over_long_line_is_skipped_with_a_notice,
                a_reader_that_does_not_read_holds_the_cli_back,
            ];
            faults: [
                sigkill_mid_stream_ends_the_stream_with_the_signal_and_fails_pending_calls_at_once,
                send_after_the_cli_was_killed_fails_at_once,
                initialize_never_answered_times_out_at_the_deadline,
                a_ten_mib_line_arrives_whole_and_an_over_limit_line_is_skipped,
                garbage_and_ansi_prefixed_lines_are_notices_and_nothing_is_lost,
                a_callback_that_never_returns_is_freed_by_the_cli_cancel_and_the_session_goes_on,
                a_stalled_consumer_loses_nothing_of_a_flood_and_memory_stays_bounded,
                two_hundred_sessions_leak_no_descriptors_or_threads,
                a_cli_that_closes_its_stdin_early_gives_a_clean_error_and_no_deadlock,
                arguments_never_pass_through_a_shell_and_dash_values_stay_one_token,
                an_api_key_in_options_env_appears_neither_in_debug_nor_in_errors,
            ];
            fleet: [
                forty_sessions_with_a_limit_of_four_never_run_more_than_four_clis,
                a_session_dropped_while_it_waits_starts_nothing,
                a_clients_resources_are_its_clis_process_tree,
                a_memory_limit_starts_a_session_only_while_the_running_clis_leave_room,
            ];
            orphans: [
                dropping_the_cli_handle_kills_every_process_it_started,
                a_kill_returns_at_once_and_the_wait_ends_once_the_tree_is_gone,
                killing_the_host_kills_the_cli_and_its_tools,
                killing_a_host_with_three_sessions_kills_every_tree,
                a_host_exiting_with_a_session_running_kills_the_cli_and_its_tools,
            ];
        );

        /// The host process of `orphans::host_dies_with_a_session_running`, run by it in a
        /// process of its own.
        #[test]
        #[ignore = "run in a process of its own by the orphans tests"]
        fn host_of_a_session() {
            $crate::orphans::host_of_a_session::<$harness>();
        }
    };
}

/// Stamps one `#[test]` per end-to-end scenario ([`e2e`]), in a module per group:
/// `e2e_tests!(crate::MyHarness)`. The harness is named by a path that resolves from inside
/// those modules (`crate::…`).
///
/// `e2e_tests!(crate::MyHarness, process_groups_only)` runs only the groups where the real CLI's
/// process meets the runtime's own primitives (spawning, pipes, timers, signals and exits:
/// `turns`, `failures` and `warm`) and stamps the others `#[ignore]`d: they drive the same client
/// code on every runtime, which the fake-CLI suite ([`conformance_tests!`]) already runs on each.
/// The second and third runtimes of CI use it, since a real CLI costs a core for a second or two
/// to start; `cargo test --test e2e -- --include-ignored` runs every scenario there too.
#[macro_export]
macro_rules! e2e_tests {
    (@stamp $harness:path, [$rest:meta]) => {
        $crate::stamp_scenarios!($harness;
            turns [cfg_attr(any(), ignore)]: [
                hello,
                interrupt_long_tool,
                stalled_turn_closes,
                long_tool_is_not_a_stall,
                multi_turn,
                background_task,
                background_server_ends_with_the_run,
                a_turn_taken_up_after_idle_keeps_its_prompts,
                max_turns,
                partial_messages,
                structured_output,
                record_and_replay,
                custom_transport,
                interrupt_not_applied,
                context_only_message,
                queued_message_control,
            ];
            failures [cfg_attr(any(), ignore)]: [
                startup_failure_reason,
                doctor_findings,
                api_400,
                api_429_retried,
                api_529_overloaded,
                api_401_retries,
                invalid_option,
            ];
            permissions [$rest]: [
                bash_allowed,
                bash_denied,
                updated_input,
                permission_decision_classification,
                permission_prompts_nobody,
            ];
            hooks [$rest]: [
                stop_hook_feedback,
                hooks,
                cancel_pending_hook,
                hook_fail_closed,
                skill_shell_command_hook,
            ];
            mcp [$rest]: [
                mcp_call,
                mcp_tool,
                mcp_tool_result_blocks,
                interrupt_cancels_mcp_tools,
                mcp_tool_timeout,
                mcp_status_right_after_connect,
                mcp_tool_options,
                mcp_resources,
                set_in_process_mcp_servers,
                mcp_secrets_stay_off_argv,
                mcp_config_text_and_file,
            ];
            control [$rest]: [
                control_requests,
                server_info_fields,
                settings_control_requests,
                reload_control_requests,
                file_and_task_control_requests,
                initialize_fields,
            ];
            launch [$rest]: [
                skills_found_without_setting_sources,
                tool_aliases,
                managed_settings,
                settings_stay_off_argv,
                project_config_root,
                tool_config,
                agent_definition_fields,
                environment_options,
                run_as_another_user,
                builtin_tools_typed,
                isolated_config,
                cleared_environment,
            ];
            sessions [$rest]: [
                continue_needs_a_conversation,
                resume,
                resume_from_another_folder,
                history_of_a_folder_with_an_emoji,
                subagent_history,
                session_history,
                session_store_resume,
                session_store_history,
                compaction_history,
                session_store_failing,
                session_lookups,
            ];
            warm [cfg_attr(any(), ignore)]: [
                warm_startup,
                prewarm_claim,
                claim_refused,
                pool_hands_out_and_refills,
                pool_drop_reaps_spares,
                pool_replaces_a_dead_spare_and_discards,
                spare_close_removes_folder,
            ];
            cost [$rest]: [
                turn_costs,
                session_budget,
            ];
        );
    };
    ($harness:path) => {
        $crate::e2e_tests!(@stamp $harness, [cfg_attr(any(), ignore)]);
    };
    ($harness:path, process_groups_only) => {
        $crate::e2e_tests!(@stamp $harness, [ignore = "runs on tokio; --include-ignored runs it here"]);
    };
}

/// [`conformance_tests!`]' stamp: `group: [test, …]; …`.
#[doc(hidden)]
#[macro_export]
macro_rules! stamp_tests {
    ($harness:path; $($group:ident: [$($name:ident),* $(,)?];)*) => {
        $(
            mod $group {
                $(
                    #[test]
                    fn $name() {
                        $crate::$group::$name::<$harness>();
                    }
                )*
            }
        )*
    };
}

/// [`e2e_tests!`]' stamp: `group [attribute]: [scenario, …]; …`, the attribute on each of the
/// group's tests.
#[doc(hidden)]
#[macro_export]
macro_rules! stamp_scenarios {
    ($harness:path; $($group:ident [$attr:meta]: [$($name:ident),* $(,)?];)*) => {
        $(
            mod $group {
                $crate::stamp_group!($harness; $group; $attr; $($name),*);
            }
        )*
    };
}

/// [`stamp_scenarios!`]' stamp of one group, each test with the group's attribute.
#[doc(hidden)]
#[macro_export]
macro_rules! stamp_group {
    ($harness:path; $group:ident; $attr:meta; $($name:ident),*) => {
        $(
            #[test]
            #[$attr]
            fn $name() {
                <$harness as $crate::Harness>::block_on_threaded($crate::e2e::$group::$name(
                    <$harness as $crate::Harness>::runtime(),
                ));
            }
        )*
    };
}

/// `future`'s output, or a panic naming `limit` if it takes longer. Timed by a thread of its own,
/// not by the runtime under test, so that a runtime whose timers are stuck fails the test too.
pub async fn within<T>(limit: Duration, future: impl Future<Output = T>) -> T {
    futures_lite::future::or(future, async move {
        Deadline::after(limit).await;
        panic!("did not finish within {limit:?}")
    })
    .await
}

/// A future that completes once `limit` has passed, timed by a thread of its own that ends as
/// soon as the future is dropped.
struct Deadline {
    state: Arc<Mutex<DeadlineState>>,
    timer: std::thread::Thread,
}

#[derive(Default)]
struct DeadlineState {
    passed: bool,
    dropped: bool,
    waker: Option<Waker>,
}

impl Deadline {
    fn after(limit: Duration) -> Self {
        let state = Arc::new(Mutex::new(DeadlineState::default()));
        let shared = state.clone();
        let deadline = Instant::now() + limit;
        let timer = std::thread::spawn(move || loop {
            let now = Instant::now();
            let mut state = shared.lock().expect("the deadline's lock");
            if state.dropped {
                return;
            }
            if now >= deadline {
                state.passed = true;
                if let Some(waker) = state.waker.take() {
                    waker.wake();
                }
                return;
            }
            drop(state);
            std::thread::park_timeout(deadline - now);
        });
        Self {
            state,
            timer: timer.thread().clone(),
        }
    }
}

impl Drop for Deadline {
    fn drop(&mut self) {
        self.state.lock().expect("the deadline's lock").dropped = true;
        self.timer.unpark();
    }
}

impl Future for Deadline {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut state = self.state.lock().expect("the deadline's lock");
        if state.passed {
            Poll::Ready(())
        } else {
            state.waker = Some(cx.waker().clone());
            Poll::Pending
        }
    }
}

/// The JSON line of a message.
pub fn json(message: &Message) -> serde_json::Value {
    serde_json::from_str(message.raw_json()).expect("messages carry their JSON line")
}

/// The `type` of a message (`system/<subtype>` for system messages).
pub fn kind(message: &Message) -> String {
    let value = json(message);
    let kind = value["type"].as_str().unwrap_or_default();
    match value["subtype"].as_str() {
        Some(subtype) if kind == "system" => format!("system/{subtype}"),
        _ => kind.to_owned(),
    }
}

/// The kinds of a list of items that must all be messages.
pub fn kinds(items: &[Result<Message, Error>]) -> Vec<String> {
    items
        .iter()
        .map(|item| kind(item.as_ref().expect("no error items")))
        .collect()
}

/// The `result` text of a result message.
pub fn result_text(message: &Message) -> Option<String> {
    let value = json(message);
    (value["type"] == "result").then(|| value["result"].as_str().unwrap_or_default().to_owned())
}

/// Whether the process `pid` is gone (reaped: no `/proc` entry at all).
pub fn process_gone(pid: u32) -> bool {
    !std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// Wait up to `limit` for `pid` to be gone.
pub async fn wait_gone<H: Harness>(pid: u32, limit: Duration) -> bool {
    let deadline = std::time::Instant::now() + limit;
    while std::time::Instant::now() < deadline {
        if process_gone(pid) {
            return true;
        }
        H::sleep(Duration::from_millis(20)).await;
    }
    process_gone(pid)
}

#[cfg(test)]
mod tests {
    /// The names of the functions in `source` declared as `pub fn name<H: Harness>()` (a test)
    /// or `pub async fn name<R: Runtime>(rt: R)` (a scenario), however they are wrapped.
    fn declared(source: &str) -> Vec<&str> {
        let mut names = Vec::new();
        for (prefix, parameter) in [
            ("\npub fn ", "H: Harness"),
            ("\npub async fn ", "R: Runtime"),
        ] {
            for (at, _) in source.match_indices(prefix) {
                let rest = &source[at + prefix.len()..];
                let Some((name, generics)) = rest.split_once('<') else {
                    continue;
                };
                if generics.trim_start().starts_with(parameter)
                    && !name.contains(char::is_whitespace)
                {
                    names.push(name);
                }
            }
        }
        names
    }

    #[test]
    fn every_test_and_scenario_is_stamped() {
        let lib = include_str!("lib.rs");
        let macros = &lib[lib.find("macro_rules! conformance_tests").unwrap()
            ..lib.find("macro_rules! stamp_tests").unwrap()];
        let sources = [
            include_str!("endings.rs"),
            include_str!("fake_cli.rs"),
            include_str!("faults.rs"),
            include_str!("fleet.rs"),
            include_str!("orphans.rs"),
            include_str!("e2e/control.rs"),
            include_str!("e2e/cost.rs"),
            include_str!("e2e/failures.rs"),
            include_str!("e2e/hooks.rs"),
            include_str!("e2e/launch.rs"),
            include_str!("e2e/mcp.rs"),
            include_str!("e2e/permissions.rs"),
            include_str!("e2e/sessions.rs"),
            include_str!("e2e/turns.rs"),
            include_str!("e2e/warm.rs"),
        ];
        let names: Vec<&str> = sources.iter().flat_map(|s| declared(s)).collect();
        assert!(
            names.len() > 100,
            "only {} found: the parser missed some",
            names.len()
        );
        let stamped = |name: &str| {
            macros
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|word| word == name)
        };
        let missing: Vec<&str> = names.into_iter().filter(|n| !stamped(n)).collect();
        assert!(missing.is_empty(), "never stamped: {missing:?}");
        let files = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/src/e2e"))
            .unwrap()
            .count();
        assert_eq!(
            files, 10,
            "a group file of src/e2e is missing from `sources`"
        );
    }
}
