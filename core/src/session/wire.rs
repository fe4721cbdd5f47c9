//! Control-protocol envelopes: parsing the CLI's frames and writing ours.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::mcp::McpServerSpec;
use crate::option_types::mcp_config::McpServerConfig;
use crate::Json;

/// `{"type":"control_response","response":{…}}` from the CLI.
#[derive(Deserialize)]
pub(crate) struct ResponseEnvelope<'a> {
    #[serde(borrow)]
    pub(crate) response: ResponsePayload<'a>,
}

#[derive(Deserialize)]
pub(crate) struct ResponsePayload<'a> {
    #[serde(borrow)]
    pub(crate) subtype: Cow<'a, str>,
    #[serde(borrow)]
    pub(crate) request_id: Cow<'a, str>,
    #[serde(default)]
    pub(crate) response: Option<Json>,
    #[serde(default)]
    pub(crate) error: Option<String>,
    #[serde(default)]
    pub(crate) error_code: Option<String>,
    /// Inbound requests still waiting, sent along with the `initialize` answer (CLI ≥ 2.1.268).
    #[serde(default, borrow)]
    pub(crate) pending_permission_requests: Vec<&'a RawValue>,
    #[serde(default, borrow)]
    pub(crate) pending_user_dialog_requests: Vec<&'a RawValue>,
    #[serde(default, borrow)]
    pub(crate) pending_elicitation_requests: Vec<&'a RawValue>,
}

/// `{"type":"control_request","request_id":…,"request":{"subtype":…,…}}` from the CLI.
#[derive(Deserialize)]
pub(crate) struct RequestEnvelope<'a> {
    pub(crate) request_id: String,
    #[serde(borrow)]
    pub(crate) request: &'a RawValue,
}

#[derive(Deserialize)]
pub(crate) struct Subtype<'a> {
    #[serde(borrow)]
    pub(crate) subtype: Cow<'a, str>,
}

/// `{"type":"control_cancel_request","request_id":…}` from the CLI.
#[derive(Deserialize)]
pub(crate) struct CancelEnvelope {
    pub(crate) request_id: String,
}

/// `{"type":"keep_alive"}`, which carries a `startup_mark` while a CLI told to report them starts.
#[derive(Deserialize)]
pub(crate) struct KeepAlive<'a> {
    #[serde(borrow, default)]
    pub(crate) startup_mark: Option<std::borrow::Cow<'a, str>>,
}

/// The `hook_callback` request body.
#[derive(Deserialize)]
pub(crate) struct HookCallbackBody<'a> {
    pub(crate) callback_id: String,
    #[serde(borrow)]
    pub(crate) input: &'a RawValue,
    #[serde(default)]
    pub(crate) tool_use_id: Option<String>,
}

/// The `mcp_message` request body.
#[derive(Deserialize)]
pub(crate) struct McpMessageBody<'a> {
    pub(crate) server_name: String,
    #[serde(borrow)]
    pub(crate) message: &'a RawValue,
}

/// Append `{"type":"control_request","request_id":"<id>","request":<body>}\n`.
pub(crate) fn write_request(out: &mut Vec<u8>, request_id: &str, body: &str) {
    out.extend_from_slice(br#"{"type":"control_request","request_id":"#);
    write_json_string(out, request_id);
    out.extend_from_slice(br#","request":"#);
    out.extend_from_slice(body.as_bytes());
    out.extend_from_slice(b"}\n");
}

/// Append a success `control_response` carrying `body` (a JSON object).
pub(crate) fn write_success(out: &mut Vec<u8>, request_id: &str, body: &str) {
    out.extend_from_slice(
        br#"{"type":"control_response","response":{"subtype":"success","request_id":"#,
    );
    write_json_string(out, request_id);
    out.extend_from_slice(br#","response":"#);
    out.extend_from_slice(body.as_bytes());
    out.extend_from_slice(b"}}\n");
}

#[derive(Serialize)]
struct ErrorPayload<'a> {
    subtype: &'static str,
    request_id: &'a str,
    error: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error_code: Option<&'a str>,
}

#[derive(Serialize)]
struct ErrorEnvelope<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    response: ErrorPayload<'a>,
}

/// Append an error `control_response`.
pub(crate) fn write_error(out: &mut Vec<u8>, request_id: &str, error: &str, code: Option<&str>) {
    let envelope = ErrorEnvelope {
        ty: "control_response",
        response: ErrorPayload {
            subtype: "error",
            request_id,
            error,
            error_code: code,
        },
    };
    serde_json::to_writer(&mut *out, &envelope).expect("writing JSON to a Vec cannot fail");
    out.push(b'\n');
}

fn write_json_string(out: &mut Vec<u8>, s: &str) {
    serde_json::to_writer(&mut *out, s).expect("writing JSON to a Vec cannot fail");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(bytes: &[u8]) -> serde_json::Value {
        assert_eq!(bytes.last(), Some(&b'\n'));
        serde_json::from_slice(bytes).unwrap()
    }

    #[test]
    fn writes_the_recorded_envelope_shapes() {
        let mut out = Vec::new();
        write_request(&mut out, "req_1", r#"{"subtype":"interrupt"}"#);
        assert_eq!(
            value(&out),
            serde_json::json!({"type":"control_request","request_id":"req_1","request":{"subtype":"interrupt"}})
        );
        out.clear();
        write_success(&mut out, "ab\"c", r#"{"continue":true}"#);
        assert_eq!(
            value(&out),
            serde_json::json!({"type":"control_response","response":{"subtype":"success","request_id":"ab\"c","response":{"continue":true}}})
        );
        out.clear();
        write_error(
            &mut out,
            "x",
            "Unsupported control request subtype: y",
            Some("unsupported_request"),
        );
        assert_eq!(
            value(&out),
            serde_json::json!({"type":"control_response","response":{"subtype":"error","request_id":"x","error":"Unsupported control request subtype: y","error_code":"unsupported_request"}})
        );
    }

    #[test]
    fn parses_response_without_body() {
        let line = r#"{"type":"control_response","response":{"subtype":"success","request_id":"r_set_max_thinking_tokens"}}"#;
        let env: ResponseEnvelope<'_> = serde_json::from_str(line).unwrap();
        assert_eq!(env.response.request_id, "r_set_max_thinking_tokens");
        assert!(env.response.response.is_none());
    }
}

/// The `servers` of an `mcp_set_servers` request: the external servers' configurations, then
/// `{"type":"sdk","name":…}` for each in-process server, as the TypeScript SDK writes them. An
/// external server named like an in-process one is left out: the in-process one wins.
pub(crate) struct SetServers<'a> {
    pub(crate) external: &'a [(String, McpServerConfig)],
    pub(crate) sdk: &'a [McpServerSpec],
}

#[derive(Serialize)]
struct SdkEntry<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
}

impl Serialize for SetServers<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        for (name, config) in self.external {
            if !self.sdk.iter().any(|server| server.name == *name) {
                map.serialize_entry(name, config)?;
            }
        }
        for server in self.sdk {
            let entry = SdkEntry {
                kind: "sdk",
                name: &server.name,
            };
            map.serialize_entry(&server.name, &entry)?;
        }
        map.end()
    }
}
