//! Requests the CLI sent us that are not answered yet.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::time::Instant;

use crate::control::{InboundId, Reply};
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
    /// Handed to the host ([`InboundTable::hand_out`]).
    handed_out: bool,
    /// When the session answers in the host's place, and what it answers then.
    deadline: Option<(Instant, Reply)>,
}

/// How many withdrawn ids are remembered, so a late `respond` says why rather than `UnknownId`.
const REMEMBERED_CANCELS: usize = 1024;

/// Why a request is no longer open though the host never answered it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Withdrawn {
    /// The CLI withdrew it, or the session ended.
    Cancelled,
    /// Its time limit passed and the session answered in the host's place.
    Expired,
}

#[derive(Debug, Default)]
pub(crate) struct InboundTable {
    next: u64,
    open: BTreeMap<InboundId, Entry>,
    by_wire: HashMap<String, InboundId>,
    withdrawn: VecDeque<(InboundId, Withdrawn)>,
    /// Requests handed to the host that it has not answered, nor been told are withdrawn.
    handed_out: usize,
    /// Requests handed to the host and withdrawn since, whose withdrawal
    /// ([`Event::Cancelled`](super::Event::Cancelled), [`Event::Expired`](super::Event::Expired))
    /// the host has not been handed yet: they still count as in its hands.
    withdrawal_untold: Vec<InboundId>,
}

impl InboundTable {
    /// Whether a request with this wire id is already open (the CLI repeated it).
    pub(crate) fn is_open(&self, wire_id: &str) -> bool {
        self.by_wire.contains_key(wire_id)
    }

    /// Open a request; with a `deadline`, the session answers it in the host's place then, with
    /// the reply given.
    pub(crate) fn insert(
        &mut self,
        wire_id: String,
        awaiting: Awaiting,
        deadline: Option<(Instant, Reply)>,
    ) -> InboundId {
        let id = InboundId::from_raw(self.next);
        self.next += 1;
        self.by_wire.insert(wire_id.clone(), id);
        let entry = Entry {
            wire_id,
            awaiting,
            handed_out: false,
            deadline,
        };
        self.open.insert(id, entry);
        id
    }

    pub(crate) fn get(&self, id: InboundId) -> Option<&Awaiting> {
        self.open.get(&id).map(|e| &e.awaiting)
    }

    /// Whether `id` is open and not yet handed to the host.
    pub(crate) fn waits_to_be_handed_out(&self, id: InboundId) -> bool {
        self.open.get(&id).is_some_and(|e| !e.handed_out)
    }

    /// The host has the request `id` (its [`Event::Inbound`](super::Event::Inbound) was polled).
    pub(crate) fn hand_out(&mut self, id: InboundId) {
        if let Some(entry) = self.open.get_mut(&id) {
            if !entry.handed_out {
                entry.handed_out = true;
                self.handed_out += 1;
            }
        }
    }

    /// Requests the host has, and has neither answered nor been told are withdrawn.
    pub(crate) fn handed_out(&self) -> usize {
        self.handed_out
    }

    /// Take out the request `id`, answered by the host.
    pub(crate) fn take(&mut self, id: InboundId) -> Option<Entry> {
        let entry = self.open.remove(&id)?;
        self.by_wire.remove(&entry.wire_id);
        self.handed_out -= usize::from(entry.handed_out);
        Some(entry)
    }

    /// Take out the request `id`, withdrawn: one the host has stays in its hands until it is
    /// told ([`InboundTable::withdrawal_told`]).
    fn withdraw(&mut self, id: InboundId, why: Withdrawn) -> Option<Entry> {
        let entry = self.open.remove(&id)?;
        self.by_wire.remove(&entry.wire_id);
        if entry.handed_out {
            self.withdrawal_untold.push(id);
        }
        self.remember(id, why);
        Some(entry)
    }

    /// Whether `id` was handed to the host and withdrawn since, without the host being told.
    pub(crate) fn withdrawal_untold(&self, id: InboundId) -> bool {
        self.withdrawal_untold.contains(&id)
    }

    /// The host was handed the withdrawal of `id`.
    pub(crate) fn withdrawal_told(&mut self, id: InboundId) {
        if let Some(at) = self
            .withdrawal_untold
            .iter()
            .position(|untold| *untold == id)
        {
            self.withdrawal_untold.swap_remove(at);
            self.handed_out -= 1;
        }
    }

    /// Why `id` was withdrawn, if it was and is still remembered.
    pub(crate) fn withdrawn(&self, id: InboundId) -> Option<Withdrawn> {
        self.withdrawn
            .iter()
            .find_map(|(withdrawn, why)| (*withdrawn == id).then_some(*why))
    }

    fn remember(&mut self, id: InboundId, why: Withdrawn) {
        if self.withdrawn.len() == REMEMBERED_CANCELS {
            self.withdrawn.pop_front();
        }
        self.withdrawn.push_back((id, why));
    }

    /// Withdraw the request with this wire id; returns its id if it was open.
    pub(crate) fn cancel(&mut self, wire_id: &str) -> Option<InboundId> {
        let id = *self.by_wire.get(wire_id)?;
        self.withdraw(id, Withdrawn::Cancelled);
        Some(id)
    }

    /// The earliest time the session answers a request in the host's place.
    pub(crate) fn next_deadline(&self) -> Option<Instant> {
        self.open
            .values()
            .filter_map(|e| e.deadline.as_ref().map(|(at, _)| *at))
            .min()
    }

    /// Take out every request whose time limit has passed at `now`, each with the reply the
    /// session answers in the host's place, in the order they came.
    pub(crate) fn expire(&mut self, now: Instant) -> Vec<(InboundId, Entry, Reply)> {
        let due: Vec<InboundId> = self
            .open
            .iter()
            .filter(|(_, e)| e.deadline.as_ref().is_some_and(|(at, _)| *at <= now))
            .map(|(id, _)| *id)
            .collect();
        due.into_iter()
            .filter_map(|id| {
                let mut entry = self.withdraw(id, Withdrawn::Expired)?;
                let (_, reply) = entry.deadline.take()?;
                Some((id, entry, reply))
            })
            .collect()
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

    /// How many withdrawn ids are remembered.
    #[cfg(test)]
    pub(crate) fn remembered_cancels(&self) -> usize {
        self.withdrawn.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.open.is_empty()
    }

    pub(crate) fn len(&self) -> usize {
        self.open.len()
    }
}
