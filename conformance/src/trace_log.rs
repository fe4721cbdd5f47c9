//! A subscriber that keeps every span and event, for the tests of what a session reports through
//! `tracing` (this crate's `tests/tracing.rs`, and the tokio crate's `tests/tracing.rs` with a
//! real process).

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

/// Field values as text.
pub type Fields = BTreeMap<String, String>;

/// An event as the subscriber saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub name: String,
    pub level: Level,
    pub target: String,
    pub fields: Fields,
    /// The span the event was in, and that span's fields at that moment.
    pub span: Option<(String, Fields)>,
}

#[derive(Default)]
pub struct Log {
    /// Spans by id: name and fields as recorded so far.
    pub spans: HashMap<u64, (String, Fields)>,
    pub events: Vec<Seen>,
}

/// A layer that keeps every span and event.
#[derive(Clone, Default)]
struct Keep(Arc<Mutex<Log>>);

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Keep {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _ctx: Context<'_, S>) {
        let mut fields = Fields::new();
        attrs.record(&mut Text(&mut fields));
        let name = attrs.metadata().name().to_owned();
        self.0
            .lock()
            .unwrap()
            .spans
            .insert(id.into_u64(), (name, fields));
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _ctx: Context<'_, S>) {
        let mut log = self.0.lock().unwrap();
        if let Some((_, fields)) = log.spans.get_mut(&id.into_u64()) {
            values.record(&mut Text(fields));
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let mut fields = Fields::new();
        event.record(&mut Text(&mut fields));
        let mut log = self.0.lock().unwrap();
        let span = ctx
            .event_span(event)
            .and_then(|span| log.spans.get(&span.id().into_u64()).cloned());
        let metadata = event.metadata();
        log.events.push(Seen {
            name: metadata.name().to_owned(),
            level: *metadata.level(),
            target: metadata.target().to_owned(),
            fields,
            span,
        });
    }
}

struct Text<'a>(&'a mut Fields);

impl Visit for Text<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

/// Runs `f` with a subscriber that keeps everything, on this thread, and returns what it kept.
pub fn capture<T>(f: impl FnOnce() -> T) -> (T, Log) {
    let keep = Keep::default();
    let subscriber = tracing_subscriber::registry().with(keep.clone());
    let out = tracing::subscriber::with_default(subscriber, f);
    let log = std::mem::take(&mut *keep.0.lock().unwrap());
    (out, log)
}

/// The events of the SDK named `name`.
pub fn named<'a>(log: &'a Log, name: &str) -> Vec<&'a Seen> {
    log.events
        .iter()
        .filter(|e| e.name == name && e.target.starts_with("claude_agent_client"))
        .collect()
}

/// The one event named `name` whose fields include `with`.
pub fn one<'a>(log: &'a Log, name: &str, with: &[(&str, &str)]) -> &'a Seen {
    let found: Vec<_> = named(log, name)
        .into_iter()
        .filter(|e| {
            with.iter()
                .all(|(k, v)| e.fields.get(*k).map(String::as_str) == Some(*v))
        })
        .collect();
    assert_eq!(
        found.len(),
        1,
        "{name} with {with:?}: {found:#?}\nall: {:#?}",
        log.events
    );
    found[0]
}

/// The fields of the one `session` span.
pub fn session_span(log: &Log) -> &Fields {
    let sessions: Vec<_> = log
        .spans
        .values()
        .filter(|(name, _)| name == "session")
        .collect();
    assert_eq!(sessions.len(), 1, "{:?}", log.spans);
    &sessions[0].1
}
