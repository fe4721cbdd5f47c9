//! `system` messages about hooks the CLI runs itself (shell hooks from settings).

use crate::message::raw::message_struct;

message_struct! {
    /// `system`/`hook_started`.
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"hook_started","hook_id":"a1b2c3d4","hook_name":"PreToolUse:Bash","hook_event":"PreToolUse","uuid":"u","session_id":"s"}"#;
    /// let Message::System(SystemMessage::HookStarted(hook)) = Message::parse(line).unwrap() else { panic!("not hook_started") };
    /// assert_eq!((hook.hook_event.as_str(), hook.hook_name.as_str()), ("PreToolUse", "PreToolUse:Bash"));
    /// ```
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
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"hook_progress","hook_id":"a1b2c3d4","hook_name":"Stop","hook_event":"Stop","stdout":"running cargo test…\n","stderr":"","output":"running cargo test…\n","uuid":"u","session_id":"s"}"#;
    /// let Message::System(SystemMessage::HookProgress(progress)) = Message::parse(line).unwrap() else { panic!("not hook_progress") };
    /// assert_eq!(progress.stdout, "running cargo test…\n");
    /// ```
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
    ///
    /// ```
    /// use claude_agent_tokio::message::{Message, SystemMessage};
    ///
    /// let line = r#"{"type":"system","subtype":"hook_response","hook_id":"a1b2c3d4","hook_name":"PreToolUse:Bash","hook_event":"PreToolUse","output":"","stdout":"","stderr":"rm is not allowed\n","exit_code":2,"outcome":"error","uuid":"u","session_id":"s"}"#;
    /// let Message::System(SystemMessage::HookResponse(hook)) = Message::parse(line).unwrap() else { panic!("not hook_response") };
    /// if hook.outcome.as_deref() == Some("error") {
    ///     eprintln!("hook {} failed ({:?}): {}", hook.hook_name, hook.exit_code, hook.stderr.trim_end());
    /// }
    /// assert_eq!(hook.exit_code, Some(2));
    /// ```
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
