//! Test-only access to the recorded CLI transcripts in `tests/transcripts/`.

use crate::Json;
use serde::Deserialize;

#[derive(Deserialize)]
struct Line {
    dir: String,
    msg: Json,
}

#[derive(Deserialize)]
struct Envelope {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    request_id: Option<String>,
    #[serde(default)]
    request: Option<Json>,
    #[serde(default)]
    response: Option<InnerResponse>,
}

#[derive(Deserialize)]
struct InnerResponse {
    request_id: String,
    #[serde(default)]
    response: Option<Json>,
}

#[derive(Deserialize)]
struct Subtype {
    subtype: String,
}

/// Every line of `tests/transcripts/<name>.jsonl` as (`dir`, raw `msg`).
fn lines(name: &str) -> Vec<(String, Envelope)> {
    let path = format!(
        "{}/tests/transcripts/{name}.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let line: Line = serde_json::from_str(l).unwrap();
            (line.dir, serde_json::from_str(line.msg.as_str()).unwrap())
        })
        .collect()
}

/// The `request` objects of the CLI's `control_request`s with `subtype`, each paired with the
/// success body the recording answered it with (the inner `response`), in order.
pub(crate) fn recorded_exchanges(name: &str, subtype: &str) -> Vec<(Json, Json)> {
    let all = lines(name);
    let mut out = Vec::new();
    for (dir, msg) in &all {
        let (Some(id), Some(request)) = (&msg.request_id, &msg.request) else {
            continue;
        };
        let kind: Subtype = serde_json::from_str(request.as_str()).unwrap();
        if dir != "out" || msg.kind != "control_request" || kind.subtype != subtype {
            continue;
        }
        let reply = all
            .iter()
            .filter(|(d, m)| d == "in" && m.kind == "control_response")
            .filter_map(|(_, m)| m.response.as_ref())
            .find(|r| &r.request_id == id)
            .and_then(|r| r.response.clone())
            .unwrap_or_else(|| panic!("{name}: no recorded reply to {id}"));
        out.push((request.clone(), reply));
    }
    out
}

/// The `request` objects of the CLI's `control_request`s with `subtype`, in order.
pub(crate) fn recorded_requests(name: &str, subtype: &str) -> Vec<Json> {
    recorded_exchanges(name, subtype)
        .into_iter()
        .map(|(request, _)| request)
        .collect()
}
