//! The `otel` feature: the caller's OpenTelemetry trace continues in the CLI.

use opentelemetry::trace::TraceContextExt;
use tracing_opentelemetry::OpenTelemetrySpanExt;

use crate::options::Options;

/// `options` with the current span's OpenTelemetry context as the CLI's `TRACEPARENT` and
/// `TRACESTATE`, unless the options set a trace context, or there is no sampled-or-not valid
/// context (no `tracing-opentelemetry` layer, or no span).
pub(crate) fn with_current_trace(options: &Options) -> Options {
    if options.config().trace_context.is_some() {
        return options.clone();
    }
    let context = tracing::Span::current().context();
    let span = context.span();
    let span_context = span.span_context();
    if !span_context.is_valid() {
        return options.clone();
    }
    let traceparent = format!(
        "00-{}-{}-{:02x}",
        span_context.trace_id(),
        span_context.span_id(),
        span_context.trace_flags().to_u8()
    );
    let state = span_context.trace_state().header();
    let tracestate = (!state.is_empty()).then_some(state);
    options
        .clone()
        .trace_context(traceparent, tracestate.as_deref())
}
