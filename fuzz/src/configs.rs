//! Session configurations the targets pick from with one input byte, from bare to rich, some
//! with tiny limits so the over-long-line, full-queue, too-many-requests and tool time limit
//! paths are reached.

use std::time::Duration;

use claude_agent_core::cost::{Budget, ModelPrice, PriceTable};
use claude_agent_core::hooks::HookEvent;
use claude_agent_core::mcp::{
    McpServerSpec, PromptArgument, PromptSpec, ResourceSpec, ResourceTemplateSpec, ToolSpec,
};
use claude_agent_core::session::{
    HookMatcherConfig, InputMode, OnStall, SessionConfig, StallWatch,
};
use claude_agent_core::Json;

/// Number of configurations [`config`] chooses from.
pub const COUNT: u8 = 7;

/// Line limit of the small-limit configurations.
pub const SMALL_LINE: usize = 96;

fn raw(json: &str) -> Json {
    json.parse().expect("the harness's JSON literals are valid")
}

/// The in-process `calc` server of the rich configurations: a tool, a resource, a resource
/// template and a prompt.
pub fn calc() -> McpServerSpec {
    let schema =
        raw(r#"{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}"#);
    McpServerSpec::new("calc", "1.0.0")
        .tool(ToolSpec::new("add", "add two numbers", schema))
        .resource(ResourceSpec::new("calc://constants/pi", "pi"))
        .resource_template(ResourceTemplateSpec::new("calc://numbers/{n}", "number"))
        .prompt(PromptSpec::new("explain").argument(PromptArgument::required("topic")))
        .with_instructions("adds")
}

/// Hooks, `can_use_tool`, elicitation, dialogs and the in-process `calc` server, as the
/// recordings use.
fn rich(input: InputMode) -> SessionConfig {
    let mut config = SessionConfig::new(input);
    config.can_use_tool = true;
    config.elicitation = true;
    config.user_dialog = true;
    config.hooks = vec![
        HookMatcherConfig::new(HookEvent::PreToolUse, Some("Bash".into()), 2),
        HookMatcherConfig::new(HookEvent::PostToolUse, None, 1),
        HookMatcherConfig::new(HookEvent::UserPromptSubmit, None, 1),
    ];
    config.mcp_servers = vec![calc()];
    config.initialize_fields = Some(raw(r#"{"sdkMcpServers":["calc"]}"#));
    config
}

/// Configuration number `n % COUNT`.
pub fn config(n: u8) -> SessionConfig {
    match n % COUNT {
        0 => SessionConfig::new(InputMode::SingleTurn),
        1 => SessionConfig::new(InputMode::Streaming),
        2 => {
            // A client's connect, session store and shared fleet: ready once `calc` is
            // connected, and each result after its turn's lines are stored and its cost is
            // charged (the harness stores and charges as time passes). It takes two requests at
            // once, and a `calc` call unanswered for 2 s is answered by the session.
            let mut config = rich(InputMode::Streaming);
            config.ready_after_servers = true;
            config.results_after_store = true;
            config.results_after_charge = true;
            config.limits.max_inbound_in_flight = 2;
            config.mcp_servers[0].tools[0].timeout = Some(Duration::from_secs(2));
            config
        }
        3 => {
            let mut config = rich(InputMode::SingleTurn);
            config.stall = Some(StallWatch {
                then: OnStall::Interrupt,
                ..StallWatch::new(Duration::from_secs(1))
            });
            config
        }
        4 => {
            let mut config = rich(InputMode::Streaming);
            config.limits.max_line_bytes = SMALL_LINE;
            config.limits.max_queued_events = 4;
            config.limits.max_pending_requests = 2;
            config.timeouts.initialize = Duration::from_millis(500);
            config.timeouts.control_request = Duration::from_millis(300);
            config.timeouts.run_end_ceiling = Some(Duration::from_secs(2));
            config
        }
        5 => {
            // A resumed session of a fleet that prices its turns and keeps a budget: it asks
            // the CLI what it carried over, counts every model call, and has each turn charged
            // before its result goes on.
            let mut config = rich(InputMode::Streaming);
            config.cost_carried_over = true;
            config.results_after_charge = true;
            config.prices =
                Some(PriceTable::new().with("claude-opus-5", ModelPrice::per_million(4.0, 20.0)));
            config.budget = Some(Budget {
                max_tokens: Some(5_000),
                ..Budget::usd(0.01)
            });
            // A second of silence in a turn ends the session.
            config.stall = Some(StallWatch {
                then: OnStall::InterruptThenClose,
                ..StallWatch::new(Duration::from_secs(1))
            });
            config
        }
        _ => {
            let mut config = SessionConfig::new(InputMode::SingleTurn);
            config.other_bidirectional_needs = true;
            config.limits.max_line_bytes = SMALL_LINE;
            config.timeouts.run_end_ceiling = None;
            config
        }
    }
}
