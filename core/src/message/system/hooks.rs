//! `system` messages about hooks the CLI runs itself (shell hooks from settings).

use crate::message::raw::message_struct;

message_struct! {
    /// `system`/`hook_started`.
    pub struct HookStarted {
        /// The hook run's id.
        #[serde(default)]
        pub hook_id: String,
        /// The hook's name.
        #[serde(default)]
        pub hook_name: String,
        /// The hook event (`PreToolUse`, `Stop`, …).
        #[serde(default)]
        pub hook_event: String,
    }
}

message_struct! {
    /// `system`/`hook_progress`: output so far of a running hook.
    pub struct HookProgress {
        /// The hook run's id.
        #[serde(default)]
        pub hook_id: String,
        /// The hook's name.
        #[serde(default)]
        pub hook_name: String,
        /// The hook event.
        #[serde(default)]
        pub hook_event: String,
        /// Standard output so far.
        #[serde(default)]
        pub stdout: String,
        /// Standard error so far.
        #[serde(default)]
        pub stderr: String,
        /// Combined output so far.
        #[serde(default)]
        pub output: String,
    }
}

message_struct! {
    /// `system`/`hook_response`: a hook finished.
    pub struct HookResponse {
        /// The hook run's id.
        #[serde(default)]
        pub hook_id: String,
        /// The hook's name.
        #[serde(default)]
        pub hook_name: String,
        /// The hook event.
        #[serde(default)]
        pub hook_event: String,
        /// Combined output.
        #[serde(default)]
        pub output: String,
        /// Standard output.
        #[serde(default)]
        pub stdout: String,
        /// Standard error.
        #[serde(default)]
        pub stderr: String,
        /// The exit code.
        #[serde(default)]
        pub exit_code: Option<i32>,
        /// `success`, `error` or `cancelled`.
        #[serde(default)]
        pub outcome: Option<String>,
    }
}
