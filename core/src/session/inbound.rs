//! Requests the CLI sent us that are not answered yet.

use std::collections::{BTreeMap, HashMap, VecDeque};

use crate::control::InboundId;
use crate::mcp::ToolCall;
use crate::Json;

/// What kind of answer an inbound request takes, and what is needed to write it.
#[derive(Debug)]
pub(crate) enum Awaiting {
    /// `can_use_tool`: the original input, sent back when the host allows without changes.
    Permission {
        original_input: Json,
    },
    Hook,
    McpTool(ToolCall),
    /// `resources/read` and `prompts/get`: the server, and the JSON-RPC id to answer with.
    McpResource(String, Json),
    McpPrompt(String, Json),
    Elicitation,
    UserDialog,
}

impl Awaiting {
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Awaiting::Permission { .. } => "can_use_tool",
            Awaiting::Hook => "hook_callback",
            Awaiting::McpTool(_) => "mcp tools/call",
            Awaiting::McpResource(..) => "mcp resources/read",
            Awaiting::McpPrompt(..) => "mcp prompts/get",
            Awaiting::Elicitation => "elicitation",
            Awaiting::UserDialog => "request_user_dialog",
        }
    }
}

#[derive(Debug)]
pub(crate) struct Entry {
    pub(crate) wire_id: String,
    pub(crate) awaiting: Awaiting,
}

/// How many cancelled ids are remembered, so a late `respond` says `Cancelled` rather than `UnknownId`.
const REMEMBERED_CANCELS: usize = 1024;

#[derive(Debug, Default)]
pub(crate) struct InboundTable {
    next: u64,
    open: BTreeMap<InboundId, Entry>,
    by_wire: HashMap<String, InboundId>,
    cancelled: VecDeque<InboundId>,
}

impl InboundTable {
    /// Whether a request with this wire id is already open (the CLI repeated it).
    pub(crate) fn is_open(&self, wire_id: &str) -> bool {
        self.by_wire.contains_key(wire_id)
    }

    pub(crate) fn insert(&mut self, wire_id: String, awaiting: Awaiting) -> InboundId {
        let id = InboundId::from_raw(self.next);
        self.next += 1;
        self.by_wire.insert(wire_id.clone(), id);
        self.open.insert(id, Entry { wire_id, awaiting });
        id
    }

    pub(crate) fn get(&self, id: InboundId) -> Option<&Awaiting> {
        self.open.get(&id).map(|e| &e.awaiting)
    }

    pub(crate) fn take(&mut self, id: InboundId) -> Option<Entry> {
        let entry = self.open.remove(&id)?;
        self.by_wire.remove(&entry.wire_id);
        Some(entry)
    }

    pub(crate) fn was_cancelled(&self, id: InboundId) -> bool {
        self.cancelled.contains(&id)
    }

    /// Withdraw the request with this wire id; returns its id if it was open.
    pub(crate) fn cancel(&mut self, wire_id: &str) -> Option<InboundId> {
        let id = self.by_wire.remove(wire_id)?;
        self.open.remove(&id);
        if self.cancelled.len() == REMEMBERED_CANCELS {
            self.cancelled.pop_front();
        }
        self.cancelled.push_back(id);
        Some(id)
    }

    /// The wire id of the open `tools/call` of `server` whose JSON-RPC id is `jsonrpc_id`.
    pub(crate) fn open_tool_call(
        &self,
        server: &str,
        jsonrpc_id: &serde_json::Value,
    ) -> Option<String> {
        self.open.values().find_map(|entry| match &entry.awaiting {
            Awaiting::McpTool(call)
                if call.server == server && call.jsonrpc_id.to_value() == *jsonrpc_id =>
            {
                Some(entry.wire_id.clone())
            }
            _ => None,
        })
    }

    /// Whether a request of `server` with the JSON-RPC id `jsonrpc_id` (a tool call, a resource
    /// read or a prompt get) is still waiting for the host.
    pub(crate) fn mcp_request_open(&self, server: &str, jsonrpc_id: &Json) -> bool {
        self.open.values().any(|entry| match &entry.awaiting {
            Awaiting::McpTool(call) => call.server == server && call.jsonrpc_id == *jsonrpc_id,
            Awaiting::McpResource(on, id) | Awaiting::McpPrompt(on, id) => {
                on == server && id == jsonrpc_id
            }
            _ => false,
        })
    }

    /// Withdraw everything (the CLI is gone); returns the ids that were open.
    pub(crate) fn cancel_all(&mut self) -> Vec<InboundId> {
        let wire_ids: Vec<String> = self.open.values().map(|e| e.wire_id.clone()).collect();
        wire_ids.iter().filter_map(|w| self.cancel(w)).collect()
    }

    /// How many cancelled ids are remembered.
    #[cfg(test)]
    pub(crate) fn remembered_cancels(&self) -> usize {
        self.cancelled.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.open.is_empty()
    }

    pub(crate) fn len(&self) -> usize {
        self.open.len()
    }
}
