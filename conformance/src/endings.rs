//! No call ever waits forever, on a real runtime with real processes: a request made just as a
//! failed start ends (a race the executor's threads decide, so run many times), and every call
//! after a CLI that closes its stdout, or exits before answering `initialize`.

use std::time::Duration;

use claude_agent_testkit::real_cli::TestDir;

use crate::fake::write_script;
use crate::within;
use claude_agent_client::Options;
use claude_agent_client::{query_with, Client, Error};

use crate::Harness;
use futures_lite::StreamExt;

/// How long an answer may take: far above what any of them needs (microseconds), far below a
/// wait for ever.
const ANSWER: Duration = Duration::from_secs(2);

/// Each handle call there is of each kind of command (a control request, a message, the end of
/// input, `close`), after the session is over: each answers, with an error where it has one.
async fn every_call_answers(client: &Client) {
    let closed = |name: &str, outcome: Result<(), Error>| {
        assert!(
            matches!(outcome, Err(Error::Closed)),
            "{name} after the end: {outcome:?}"
        );
    };
    closed(
        "mcp_status",
        within(ANSWER, client.mcp_status()).await.map(drop),
    );
    closed(
        "interrupt",
        within(ANSWER, client.interrupt()).await.map(drop),
    );
    closed("send", within(ANSWER, client.send("more")).await.map(drop));
    closed("end_input", within(ANSWER, client.end_input()).await);
    let rest: Vec<_> = within(ANSWER, client.receive_messages().collect()).await;
    assert!(rest.is_empty(), "{rest:?}");
    within(ANSWER, client.close()).await;
}

/// The start fails (no CLI at the path given), the stream ends, and a request sent right then
/// is answered: 300 times, with the session's task on the runtime's other threads, so that some
/// requests land while the failed start is still ending. Before, a request in that window was
/// queued where nobody would ever answer it (about a third of the rounds on smol and
/// async-std).
pub fn a_request_sent_as_a_failed_start_ends_is_answered<H: Harness>() {
    let dir = TestDir::new("endings").expect("temp dir");
    let missing = dir.path().join("no-such-claude");
    H::block_on_threaded(async {
        for round in 0..300 {
            let mut messages = query_with(H::runtime(), "hi", Options::new().cli_path(&missing));
            let client = messages.client();
            let first = within(ANSWER, messages.next()).await;
            assert!(
                matches!(first, Some(Err(Error::CliNotFound { .. }))),
                "round {round}: {first:?}"
            );
            assert!(within(ANSWER, messages.next()).await.is_none());
            let status = within(ANSWER, client.mcp_status()).await;
            assert!(
                matches!(status, Err(Error::Closed)),
                "round {round}: {status:?}"
            );
        }
    });
}

/// A CLI that closes its stdout before answering `initialize` and sleeps with its stdin open:
/// the session fails at once, shuts the CLI down, and then every call answers.
pub fn every_call_answers_after_the_cli_closes_its_stdout<H: Harness>() {
    let dir = TestDir::new("endings").expect("temp dir");
    let cli = dir.path().join("claude");
    write_script(&cli, "exec 1>&-\nexec sleep 30\n");
    H::block_on_threaded(async {
        let mut messages = query_with(H::runtime(), "hi", Options::new().cli_path(&cli));
        let client = messages.client();
        let items: Vec<_> = within(Duration::from_secs(20), (&mut messages).collect()).await;
        assert!(
            matches!(items.last(), Some(Err(Error::StartFailed { .. }))),
            "{items:?}"
        );
        every_call_answers(&client).await;
    });
}

/// A CLI that exits before answering `initialize`: the stream ends with `Error::StartFailed`,
/// its exit status and stderr, then every call answers.
pub fn every_call_answers_after_the_cli_exits_before_initialize<H: Harness>() {
    let dir = TestDir::new("endings").expect("temp dir");
    let cli = dir.path().join("claude");
    write_script(&cli, "echo 'fatal: no login' >&2\nexit 3\n");
    H::block_on_threaded(async {
        let mut messages = query_with(H::runtime(), "hi", Options::new().cli_path(&cli));
        let client = messages.client();
        let items: Vec<_> = within(Duration::from_secs(10), (&mut messages).collect()).await;
        match items.last() {
            Some(Err(Error::StartFailed {
                failure,
                stderr_tail,
            })) => {
                assert_eq!(failure.exit.code, Some(3));
                assert!(stderr_tail.contains("no login"), "{stderr_tail}");
            }
            other => panic!("{other:?}"),
        }
        every_call_answers(&client).await;
    });
}

/// The errors a newcomer meets first read as what to do, through `Display` and through `Debug`
/// (what `main() -> Result` prints), and say nothing twice: a missing CLI is one line with the
/// install command and the first places searched; a start the CLI refused with the same text on
/// stderr says it once, and the stderr lines it did not say.
pub fn first_errors_say_what_to_do_once<H: Harness>() {
    let dir = TestDir::new("endings").expect("temp dir");
    let refusing = dir.path().join("claude");
    let said = "HTTPS_PROXY is not a valid URL";
    write_script(
        &refusing,
        &format!(
            "echo '{said}' >&2\necho 'proxy: bogus' >&2\n\
             echo '{{\"type\":\"result\",\"subtype\":\"error_during_execution\",\"is_error\":true,\
             \"num_turns\":0,\"errors\":[\"{said}\"],\"startup_failure_reason\":\"proxy_invalid\",\
             \"session_id\":\"s\"}}'\n\
             exit 1\n"
        ),
    );
    H::block_on_threaded(async {
        let missing = Options::new().cli_path(dir.path().join("nowhere/claude"));
        let items: Vec<_> = within(
            Duration::from_secs(10),
            query_with(H::runtime(), "hi", missing).collect(),
        )
        .await;
        let Some(Err(error @ Error::CliNotFound { .. })) = items.last() else {
            panic!("{items:?}")
        };
        let text = error.to_string();
        assert!(!text.contains('\n'), "{text}");
        assert!(
            text.contains("npm install -g @anthropic-ai/claude-code"),
            "{text}"
        );
        assert!(text.contains("CLAUDE_AGENT_CLI_PATH"), "{text}");
        assert_eq!(format!("{error:?}"), text);

        let refused = Options::new().cli_path(&refusing);
        let items: Vec<_> = within(
            Duration::from_secs(10),
            query_with(H::runtime(), "hi", refused).collect(),
        )
        .await;
        let Some(Err(error @ Error::StartFailed { stderr_tail, .. })) = items.last() else {
            panic!("{items:?}")
        };
        assert!(stderr_tail.contains(said), "{stderr_tail}");
        let text = error.to_string();
        assert_eq!(text.matches(said).count(), 1, "{text}");
        assert!(text.ends_with("; stderr: proxy: bogus"), "{text}");
        assert_eq!(format!("{error:?}"), text);
    });
}
