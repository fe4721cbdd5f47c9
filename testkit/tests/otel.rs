//! With the SDK's `otel` feature, a session started inside a span of an app traced with
//! OpenTelemetry (through `tracing-opentelemetry`) gives the CLI that span's context as its
//! `TRACEPARENT`, so the CLI's own spans join the app's trace; `Options::trace_context` wins,
//! and outside a traced span nothing is set.

use claude_agent_client::query_with;
use claude_agent_client::Options;
use claude_agent_testkit::fake_cli::Script;
use claude_agent_testkit::runtime::TestRuntime;
use claude_agent_testkit::transport::FakeTransport;
use futures_lite::StreamExt;
use opentelemetry::trace::{TraceContextExt, TracerProvider as _};
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::layer::SubscriberExt;

/// The `TRACEPARENT` the CLI of a one-turn session with `options` was started with.
fn traceparent_of(options: Options) -> Option<String> {
    let fake = FakeTransport::new(Script::single_turn("hi"));
    let runtime = TestRuntime::new();
    let items: Vec<_> = runtime
        .block_on(query_with(runtime.clone(), "hi", options.transport(fake.clone())).collect());
    assert!(items.iter().all(Result::is_ok), "{items:?}");
    let spec = fake.launch().expect("started");
    spec.env
        .iter()
        .find(|(name, _)| name == "TRACEPARENT")
        .map(|(_, value)| value.clone())
}

#[test]
fn the_current_span_becomes_the_clis_traceparent() {
    let provider = SdkTracerProvider::builder().build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("app")));
    tracing::subscriber::with_default(subscriber, || {
        let request = tracing::info_span!("handle_request");
        let expected = {
            let context = request.context();
            let span = context.span();
            let ids = span.span_context();
            format!("00-{}-{}-01", ids.trace_id(), ids.span_id())
        };
        let inside = request.in_scope(|| traceparent_of(Options::new()));
        assert_eq!(inside, Some(expected));

        let given = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        let own = request.in_scope(|| traceparent_of(Options::new().trace_context(given, None)));
        assert_eq!(own.as_deref(), Some(given), "the options' own context wins");

        if std::env::var_os("TRACEPARENT").is_none() {
            assert_eq!(traceparent_of(Options::new()), None, "no span, no context");
        }
    });
}
