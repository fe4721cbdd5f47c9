//! Export a session's spans to OpenTelemetry: each turn is an `invoke_agent` span and each tool
//! call an `execute_tool` span, with the GenAI attributes OpenTelemetry backends read
//! (`gen_ai.request.model`, `gen_ai.usage.input_tokens`, `gen_ai.tool.name`, …). This example
//! collects them in memory and prints them; a real app puts an OTLP exporter in the same place.
//!
//! Needs the runtime crate's `otel` feature (`claude-agent-tokio = { features = ["otel"] }`;
//! `tracing` alone gives the spans): the query runs inside the app's own `handle_request` span,
//! and `otel` hands that span's context to the CLI as `TRACEPARENT`, so the CLI's own spans,
//! when it exports any, join the same trace.
//!
//! Run: `cargo run --example otel --features claude-agent-tokio/otel`, or offline with the
//! real CLI and a stub model: `scripts/quick-start otel`.
//!
//! Features: claude-agent-tokio/otel

use claude_agent_tokio::{query, Options};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use tracing::Instrument;
use tracing_subscriber::layer::SubscriberExt;

#[tokio::main]
async fn main() -> Result<(), claude_agent_tokio::Error> {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let tracer = provider.tracer("my-agent");
    let subscriber =
        tracing_subscriber::registry().with(tracing_opentelemetry::layer().with_tracer(tracer));
    tracing::subscriber::set_global_default(subscriber).expect("no other subscriber");

    let request = tracing::info_span!("handle_request");
    async {
        let options = Options::new().allowed_tools(["Bash"]);
        let mut messages = query("Run `echo traced` in the shell.", options);
        while let Some(message) = messages.next().await {
            message?;
        }
        Ok::<(), claude_agent_tokio::Error>(())
    }
    .instrument(request)
    .await?;
    provider.force_flush().expect("spans flushed");

    for span in exporter.get_finished_spans().expect("spans") {
        let attributes: Vec<String> = span
            .attributes
            .iter()
            .filter(|kv| kv.key.as_str().starts_with("gen_ai."))
            .map(|kv| format!("{}={}", kv.key, kv.value))
            .collect();
        if !attributes.is_empty() {
            println!("span {}: {}", span.name, attributes.join(" "));
        }
    }
    Ok(())
}
