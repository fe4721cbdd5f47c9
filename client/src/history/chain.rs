//! The conversation of a transcript: the entries on the `parentUuid` chain that ends at the last
//! message, with the tool calls and results of parallel tool use put back.

use std::collections::{HashMap, HashSet};

use serde::Deserialize;

use super::{lax, SessionMessage};
use crate::message::Message;
use crate::Json;

/// What the chain needs of one transcript line; the line itself is kept for the typed parse.
/// Only `type` and `uuid` must be strings: every other field reads any value, one of another
/// shape reading as absent, so an odd field never drops its entry (and the chain behind it).
#[derive(Deserialize)]
pub(crate) struct Entry {
    #[serde(rename = "type")]
    pub(crate) ty: String,
    pub(crate) uuid: String,
    #[serde(default, rename = "parentUuid", deserialize_with = "lax::string")]
    pub(crate) parent: Option<String>,
    #[serde(default, rename = "isSidechain", deserialize_with = "lax::truthy")]
    sidechain: bool,
    #[serde(default, rename = "isMeta", deserialize_with = "lax::truthy")]
    meta: bool,
    #[serde(default, rename = "teamName", deserialize_with = "lax::truthy")]
    team: bool,
    #[serde(default, rename = "agentId", deserialize_with = "lax::string")]
    agent_id: Option<String>,
    #[serde(default, deserialize_with = "lax::string")]
    timestamp: Option<String>,
    #[serde(default, rename = "sessionId", deserialize_with = "lax::string")]
    session_id: Option<String>,
    #[serde(
        default,
        rename = "sourceToolAssistantUUID",
        deserialize_with = "lax::string"
    )]
    source_assistant: Option<String>,
    #[serde(default, deserialize_with = "lax::object")]
    message: Option<Body>,
    #[serde(default, deserialize_with = "lax::string")]
    subtype: Option<String>,
    #[serde(default, rename = "compactMetadata", deserialize_with = "lax::fitting")]
    compact: Option<Compaction>,
    #[serde(skip)]
    pub(crate) line: String,
}

/// What a compaction boundary says it kept of the conversation before it.
#[derive(Deserialize)]
struct Compaction {
    #[serde(default, rename = "preservedSegment")]
    segment: Option<PreservedSegment>,
    #[serde(default, rename = "preservedMessages")]
    messages: Option<PreservedMessages>,
}

/// The kept messages as a run of the chain: from `head` to `tail`, to follow `anchor` (the
/// summary).
#[derive(Deserialize)]
struct PreservedSegment {
    #[serde(rename = "headUuid")]
    head: String,
    #[serde(rename = "anchorUuid")]
    anchor: String,
    #[serde(rename = "tailUuid")]
    tail: String,
}

/// The kept messages as a list, in order, to follow `anchor`.
#[derive(Deserialize)]
struct PreservedMessages {
    #[serde(rename = "anchorUuid")]
    anchor: String,
    uuids: Vec<String>,
}

#[derive(Deserialize, Default)]
struct Body {
    #[serde(default, deserialize_with = "lax::string")]
    id: Option<String>,
    #[serde(default, deserialize_with = "lax::objects")]
    content: Vec<Block>,
}

#[derive(Deserialize)]
struct Block {
    #[serde(default, rename = "type", deserialize_with = "lax::string")]
    ty: Option<String>,
    #[serde(default, deserialize_with = "lax::string")]
    id: Option<String>,
    #[serde(default, deserialize_with = "lax::string")]
    tool_use_id: Option<String>,
}

/// The entry kinds that are links of the chain.
const CHAIN_TYPES: [&str; 5] = ["user", "assistant", "progress", "system", "attachment"];

/// The chain entries of a transcript, in file order; other lines (metadata, corrupt lines) are
/// passed over.
pub(crate) fn parse_entries(text: &str) -> Vec<Entry> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .filter_map(|line| {
            let mut entry: Entry = serde_json::from_str(line).ok()?;
            CHAIN_TYPES.contains(&entry.ty.as_str()).then(|| {
                entry.line = line.to_owned();
                entry
            })
        })
        .collect()
}

impl Entry {
    fn is_message(&self) -> bool {
        self.ty == "user" || self.ty == "assistant"
    }

    fn message_id(&self) -> Option<&str> {
        if self.ty != "assistant" {
            return None;
        }
        self.message
            .as_ref()?
            .id
            .as_deref()
            .filter(|id| !id.is_empty())
    }

    fn block_ids<'a>(&'a self, ty: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        let blocks = self
            .message
            .as_ref()
            .map_or(&[][..], |m| m.content.as_slice());
        blocks
            .iter()
            .filter(move |b| b.ty.as_deref() == Some(ty))
            .filter_map(move |b| {
                if ty == "tool_use" {
                    b.id.as_deref()
                } else {
                    b.tool_use_id.as_deref()
                }
            })
    }

    fn is_tool_result(&self) -> bool {
        self.ty == "user"
            && self.parent.as_deref().is_some_and(|p| !p.is_empty())
            && self.block_ids("tool_result").next().is_some()
    }

    fn same_writer(&self, other: &Entry) -> bool {
        self.sidechain == other.sidechain && self.agent_id == other.agent_id
    }

    /// Shown in a conversation: a user or assistant message of the main agent, not a meta
    /// message the CLI adds for the model.
    fn is_visible(&self) -> bool {
        self.is_message() && !self.meta && !self.sidechain && !self.team
    }

    /// A system entry of the main agent (a compaction boundary, a notice).
    fn is_visible_system(&self) -> bool {
        self.ty == "system" && !self.meta && !self.sidechain && !self.team
    }

    fn timestamp(&self) -> &str {
        self.timestamp.as_deref().unwrap_or("")
    }

    /// The typed message of this entry (an unknown message when it does not fit the types).
    pub(crate) fn into_session_message(self) -> SessionMessage {
        let message = Message::parse(&self.line).unwrap_or_else(|_| {
            Message::Unknown(Json::try_from(self.line.clone()).expect("a parsed JSON line"))
        });
        SessionMessage {
            message,
            uuid: self.uuid,
            parent_uuid: self.parent,
            session_id: self.session_id.unwrap_or_default(),
            timestamp: self.timestamp,
            parent_tool_use_id: None,
            parent_agent_id: None,
        }
    }
}

/// The visible messages of the main conversation, oldest first, as the CLI continues from
/// them (the messages a compaction kept put back after its summary); with `system`, its system
/// entries too.
pub(crate) fn conversation(mut entries: Vec<Entry>, system: bool) -> Vec<Entry> {
    relink_preserved(&mut entries);
    let order = build_chain(&entries);
    take_in_order(entries, order, |e| {
        e.is_visible() || (system && e.is_visible_system())
    })
}

/// Puts the messages each compaction kept after its summary, as the CLI does when it loads a
/// session: the kept run follows the summary (the anchor), and what followed the summary
/// follows the run's last message. On disk the run stays where it was written, before the
/// compaction boundary, which starts a new chain; a run with a message missing is left alone.
fn relink_preserved(entries: &mut [Entry]) {
    let by_uuid: HashMap<String, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.uuid.clone(), i))
        .collect();
    let boundaries: Vec<usize> = (0..entries.len())
        .filter(|&i| {
            by_uuid[&entries[i].uuid] == i
                && entries[i].ty == "system"
                && entries[i].subtype.as_deref() == Some("compact_boundary")
        })
        .collect();
    for boundary in boundaries {
        let Some(compact) = entries[boundary].compact.take() else {
            continue;
        };
        let (anchor, head, tail) = if let Some(kept) = compact.messages {
            let (Some(first), Some(last)) = (kept.uuids.first(), kept.uuids.last()) else {
                continue;
            };
            if !kept.uuids.iter().all(|u| by_uuid.contains_key(u)) {
                continue;
            }
            let mut parent = kept.anchor.clone();
            for uuid in &kept.uuids {
                entries[by_uuid[uuid]].parent = Some(std::mem::replace(&mut parent, uuid.clone()));
            }
            (kept.anchor, first.clone(), last.clone())
        } else if let Some(segment) = compact.segment {
            if let Some(&head) = by_uuid.get(&segment.head) {
                entries[head].parent = Some(segment.anchor.clone());
            }
            (segment.anchor, segment.head, segment.tail)
        } else {
            continue;
        };
        for (i, entry) in entries.iter_mut().enumerate() {
            if entry.parent.as_deref() == Some(anchor.as_str())
                && entry.uuid != head
                && by_uuid[&entry.uuid] == i
            {
                entry.parent = Some(tail.clone());
            }
        }
    }
}

/// The messages of a subagent's transcript (linear: from its last message back to the root).
pub(crate) fn subagent_conversation(entries: Vec<Entry>) -> Vec<Entry> {
    let by_uuid: HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.uuid.as_str(), i))
        .collect();
    let mut order = Vec::new();
    let mut seen = HashSet::new();
    let mut current = entries.iter().rposition(Entry::is_message);
    while let Some(i) = current {
        if !seen.insert(i) {
            break;
        }
        order.push(i);
        current = entries[i]
            .parent
            .as_deref()
            .and_then(|p| by_uuid.get(p).copied());
    }
    order.reverse();
    take_in_order(entries, order, |e| e.is_message() && !e.meta)
}

fn take_in_order(
    entries: Vec<Entry>,
    order: Vec<usize>,
    keep: impl Fn(&Entry) -> bool,
) -> Vec<Entry> {
    let mut slots: Vec<Option<Entry>> = entries.into_iter().map(Some).collect();
    order
        .into_iter()
        .filter_map(|i| slots[i].take())
        .filter(|e| keep(e))
        .collect()
}

/// Indices of the chain entries, root first: from the most recent main-conversation message that
/// nothing follows, back along `parentUuid`; then the parallel tool calls and results put back.
fn build_chain(entries: &[Entry]) -> Vec<usize> {
    // The last entry with a uuid wins, as in a map built in file order.
    let by_uuid: HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.uuid.as_str(), i))
        .collect();
    let parent_of = |i: usize| {
        entries[i]
            .parent
            .as_deref()
            .and_then(|p| by_uuid.get(p).copied())
    };
    let parents: HashSet<&str> = entries.iter().filter_map(|e| e.parent.as_deref()).collect();

    // From each entry nothing points to, the nearest message back along the chain.
    let mut leaves = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        if parents.contains(entry.uuid.as_str()) || by_uuid[entry.uuid.as_str()] != i {
            continue;
        }
        let mut seen = HashSet::new();
        let mut current = Some(i);
        while let Some(c) = current {
            if !seen.insert(c) {
                break;
            }
            if entries[c].is_message() {
                leaves.push(c);
                break;
            }
            current = parent_of(c);
        }
    }
    let main = leaves
        .iter()
        .copied()
        .filter(|&i| !entries[i].sidechain && !entries[i].team && !entries[i].meta)
        .max();
    let Some(leaf) = main.or_else(|| leaves.iter().copied().max()) else {
        return Vec::new();
    };

    let mut chain = Vec::new();
    let mut seen = HashSet::new();
    let mut current = Some(leaf);
    while let Some(c) = current {
        if !seen.insert(c) {
            break;
        }
        chain.push(c);
        current = parent_of(c);
    }
    chain.reverse();
    recover_parallel_tool_use(entries, &by_uuid, chain, seen)
}

/// Puts back what a turn with parallel tool calls leaves off the chain.
///
/// The CLI writes one assistant entry per content block, chained one after the other, and each
/// tool result's parent is the entry of its own call. With several calls the results fan out, and
/// the walk back from the last message follows only the branch the conversation went on from:
/// the other calls and their results are not on it. For each reply on the chain, its entries and
/// their results that the walk missed are inserted after the reply's last entry on the chain
/// (calls, then results, each in timestamp order).
fn recover_parallel_tool_use(
    entries: &[Entry],
    by_uuid: &HashMap<&str, usize>,
    chain: Vec<usize>,
    mut seen: HashSet<usize>,
) -> Vec<usize> {
    let mut anchor: HashMap<&str, usize> = HashMap::new();
    for &i in &chain {
        if let Some(id) = entries[i].message_id() {
            anchor.insert(id, i);
        }
    }
    if anchor.is_empty() {
        return chain;
    }

    // Every entry of each reply, and which entry made each call (None when two replies claim it).
    let live: Vec<usize> = by_uuid
        .values()
        .copied()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut replies: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut call_owner: HashMap<&str, Option<usize>> = HashMap::new();
    let mut results = Vec::new();
    for &i in &live {
        let entry = &entries[i];
        if let Some(id) = entry.message_id() {
            replies.entry(id).or_default().push(i);
            for call in entry.block_ids("tool_use") {
                let owner = call_owner.entry(call).or_insert(Some(i));
                if let Some(o) = *owner {
                    if o != i {
                        *owner = (entries[o].message_id() == Some(id)).then_some(i);
                    }
                }
            }
        } else if entry.is_tool_result() {
            results.push(i);
        }
    }

    // Each result under the entries it may belong to: its parent, the entry it names as its
    // call's, and the owner of each call it answers (the last two only from the same writer).
    let mut results_of: HashMap<usize, Vec<usize>> = HashMap::new();
    for &r in &results {
        let result = &entries[r];
        if let Some(&p) = result.parent.as_deref().and_then(|p| by_uuid.get(p)) {
            results_of.entry(p).or_default().push(r);
        }
        if let Some(&s) = result
            .source_assistant
            .as_deref()
            .and_then(|s| by_uuid.get(s))
        {
            if result.same_writer(&entries[s]) {
                results_of.entry(s).or_default().push(r);
            }
        }
        for call in result.block_ids("tool_result") {
            if let Some(Some(o)) = call_owner.get(call) {
                if result.same_writer(&entries[*o]) {
                    results_of.entry(*o).or_default().push(r);
                }
            }
        }
    }

    let answered_on_chain: HashSet<&str> = chain
        .iter()
        .flat_map(|&i| entries[i].block_ids("tool_result"))
        .collect();
    let mut done = HashSet::new();
    let mut inserts: HashMap<usize, Vec<usize>> = HashMap::new();
    for &a in &chain {
        let Some(id) = entries[a].message_id() else {
            continue;
        };
        if !done.insert(id) {
            continue;
        }
        let group = replies.get(id).cloned().unwrap_or_else(|| vec![a]);
        let members: HashSet<&str> = group.iter().map(|&m| entries[m].uuid.as_str()).collect();
        let mut siblings: Vec<usize> = group
            .iter()
            .copied()
            .filter(|m| !seen.contains(m))
            .collect();
        let mut found = Vec::new();
        let mut strays = Vec::new();
        let mut collected = HashSet::new();
        for &m in &group {
            for &r in results_of.get(&m).map(Vec::as_slice).unwrap_or(&[]) {
                if seen.contains(&r) || !collected.insert(r) {
                    continue;
                }
                if entries[r]
                    .parent
                    .as_deref()
                    .is_some_and(|p| members.contains(p))
                {
                    found.push(r);
                } else {
                    strays.push(r);
                }
            }
        }
        // A result whose parent is not of this reply counts only if it answers an open call.
        if !strays.is_empty() {
            let mut answered = answered_on_chain.clone();
            answered.extend(
                found
                    .iter()
                    .flat_map(|&r| entries[r].block_ids("tool_result")),
            );
            strays.sort_unstable();
            for r in strays {
                let calls: Vec<&str> = entries[r].block_ids("tool_result").collect();
                let open = calls.iter().any(|c| {
                    !answered.contains(c)
                        && matches!(call_owner.get(c), Some(Some(o)) if members.contains(entries[*o].uuid.as_str()))
                });
                if open {
                    answered.extend(calls);
                    found.push(r);
                }
            }
        }
        if siblings.is_empty() && found.is_empty() {
            continue;
        }
        siblings.sort_by(|&x, &y| entries[x].timestamp().cmp(entries[y].timestamp()));
        found.sort_by(|&x, &y| entries[x].timestamp().cmp(entries[y].timestamp()));
        siblings.extend(found);
        seen.extend(siblings.iter().copied());
        inserts.insert(anchor[id], siblings);
    }
    if inserts.is_empty() {
        return chain;
    }
    let mut out = Vec::with_capacity(chain.len());
    for i in chain {
        out.push(i);
        if let Some(extra) = inserts.remove(&i) {
            out.extend(extra);
        }
    }
    out
}
