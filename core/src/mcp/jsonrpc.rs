//! JSON-RPC 2.0 response bodies the in-process servers answer with.

use crate::Json;
use serde::Serialize;
use serde_json::value::RawValue;

/// `-32600`: the message is not a valid JSON-RPC request.
pub(super) const INVALID_REQUEST: i32 = -32600;
/// `-32601`: no such method (also used, as the Python SDK does, for an unknown server).
pub(super) const METHOD_NOT_FOUND: i32 = -32601;
/// `-32602`: the method's params are wrong.
pub(super) const INVALID_PARAMS: i32 = -32602;
/// `-32002`: no such resource (the code the MCP specification gives it).
pub(super) const RESOURCE_NOT_FOUND: i32 = -32002;

#[derive(Serialize)]
struct ResultResponse<'a, I: Serialize, R: Serialize> {
    jsonrpc: &'static str,
    id: I,
    result: &'a R,
}

#[derive(Serialize)]
struct ErrorResponse<'a> {
    jsonrpc: &'static str,
    id: Option<&'a RawValue>,
    error: ErrorObject<'a>,
}

#[derive(Serialize)]
struct ErrorObject<'a> {
    code: i32,
    message: &'a str,
}

#[derive(Serialize)]
struct Empty {}

/// `{"jsonrpc":"2.0","id":id,"result":result}`.
pub(crate) fn result(id: &RawValue, result: &impl Serialize) -> Json {
    to_raw(&ResultResponse {
        jsonrpc: "2.0",
        id,
        result,
    })
}

/// `{"jsonrpc":"2.0","id":id,"error":{"code","message"}}`; `id` is `null` when unknown.
pub(super) fn error(id: Option<&RawValue>, code: i32, message: &str) -> Json {
    to_raw(&ErrorResponse {
        jsonrpc: "2.0",
        id,
        error: ErrorObject { code, message },
    })
}

/// `{"jsonrpc":"2.0","result":{},"id":0}`: the ack a notification gets (as the CLI was answered
/// in the recordings and by the TypeScript SDK).
pub(super) fn notification_ack() -> Json {
    to_raw(&ResultResponse {
        jsonrpc: "2.0",
        id: 0,
        result: &Empty {},
    })
}

/// `{}`.
pub(super) fn empty_result(id: &RawValue) -> Json {
    result(id, &Empty {})
}

/// Serializes one of this crate's response bodies.
pub(super) fn to_raw(body: &impl Serialize) -> Json {
    Json::from_serialize(body).expect(
        "response bodies hold only strings, numbers, booleans and raw JSON, which always serialize",
    )
}
