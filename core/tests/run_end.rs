//! The run-end rule on real recordings (CLI 2.1.332 against the stub API): when the session
//! closes the CLI's stdin, replayed line by line and in pieces of 7 bytes, with a host that ends
//! its input as the recorded one did. Each recording's output runs on past the close, as the
//! real CLI's did: what it printed after the close is delivered too.

use std::time::{Duration, Instant};

use claude_agent_core::control::Reply;
use claude_agent_core::message::{Message, SystemMessage};
use claude_agent_core::recording::{Pace, Pieces, Recording};
use claude_agent_core::session::{EndReason, Event, InputMode, Session, Transmit};

/// What a replay showed.
struct RunEnd {
    /// Every message delivered.
    messages: Vec<Message>,
    /// How many of them came before stdin closed; `None` if it never closed.
    closed_after: Option<usize>,
    /// The wire ids of the CLI's requests the host answered.
    answered: Vec<String>,
    /// The session, after the last line.
    session: Session,
}

fn recording(name: &str) -> Recording {
    let path = format!(
        "{}/tests/releases/2.1.332/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    Recording::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Replays `name` with the session in `input` mode; a host in streaming mode ends its input as
/// soon as `end_input` holds for the messages delivered so far.
fn replay(
    name: &str,
    input: InputMode,
    pieces: Pieces,
    end_input: impl Fn(&[Message]) -> bool,
) -> RunEnd {
    let recording = recording(name);
    let pace = Pace {
        pieces,
        ..Pace::new(Instant::now())
    };
    let mut session = Session::new(recording.session_config(input), pace.start);
    let mut messages = Vec::new();
    let mut closed_after = None;
    let mut answered = Vec::new();
    let mut input_ended = false;
    recording.replay(&mut session, &pace, |session, now| {
        while let Some(event) = session.poll_event() {
            match event {
                Event::Message(message) => messages.push(message),
                Event::Inbound(request) => {
                    let answer = recording
                        .answer_to(&request.wire_id)
                        .unwrap_or_else(|| panic!("{name}: the recording answered it"));
                    session
                        .respond(now, request.id, Reply::Raw(answer.to_owned()))
                        .unwrap();
                    answered.push(request.wire_id.clone());
                }
                _ => {}
            }
        }
        if !input_ended && input == InputMode::Streaming && end_input(&messages) {
            session.end_input(now);
            input_ended = true;
        }
        while let Some(transmit) = session.poll_transmit() {
            if transmit == Transmit::CloseStdin {
                closed_after = Some(messages.len());
            }
        }
    });
    RunEnd {
        messages,
        closed_after,
        answered,
        session,
    }
}

fn results(messages: &[Message]) -> usize {
    messages
        .iter()
        .filter(|m| matches!(m, Message::Result(_)))
        .count()
}

fn position(messages: &[Message], is: impl Fn(&Message) -> bool) -> usize {
    messages.iter().position(is).expect("the recording has it")
}

fn is_notification(m: &Message) -> bool {
    matches!(m, Message::System(SystemMessage::TaskNotification(_)))
}

/// A short background shell, a permission callback and a single prompt: stdin closes at the
/// first result's `idle`, not when the shell ends. The CLI still delivered the shell's end and
/// the turn it woke for (whose permission prompt it refused itself, with no request to the
/// host), and all of it reaches the host.
#[test]
fn a_background_shell_does_not_hold_stdin_and_what_follows_is_delivered() {
    for pieces in [Pieces::Lines, Pieces::Every(7)] {
        let run = replay(
            "background_shell_after_input.jsonl",
            InputMode::SingleTurn,
            pieces,
            |_| true,
        );
        let closed_after = run.closed_after.expect("stdin closed");
        assert_eq!(results(&run.messages[..closed_after]), 1);
        assert!(closed_after <= position(&run.messages, is_notification));
        assert_eq!(results(&run.messages), 2, "the woken turn is delivered");
        assert!(run.answered.is_empty());
    }
}

/// A background shell that runs on: stdin closes at the first result's `idle`; the CLI, which
/// would wait for the shell however long it ran, is ended when the run-end ceiling has passed
/// since its last turn. (The recorded CLI was ended so; the shell's end it printed then is
/// delivered too.)
#[test]
fn a_cli_waiting_on_a_background_server_is_ended_at_the_ceiling() {
    let mut run = replay(
        "background_server.jsonl",
        InputMode::SingleTurn,
        Pieces::Lines,
        |_| true,
    );
    let closed_after = run.closed_after.expect("stdin closed");
    assert_eq!(results(&run.messages[..closed_after]), 1);
    let deadline = run.session.poll_timeout().expect("the wait is bounded");
    run.session.handle_timeout(deadline);
    let closing = std::iter::from_fn(|| run.session.poll_event()).find_map(|e| match e {
        Event::Closing(reason) => Some(reason),
        _ => None,
    });
    assert_eq!(
        closing,
        Some(EndReason::BackgroundWaitPassed(Duration::from_secs(600)))
    );
}

/// A client that ends its input as the turn the CLI took up after `idle` starts (its `init`):
/// that turn's permission prompt is still answered, and stdin closes only at its end.
#[test]
fn work_taken_up_after_idle_keeps_stdin_open_for_its_prompts() {
    for pieces in [Pieces::Lines, Pieces::Every(7)] {
        let run = replay(
            "wake_after_idle.jsonl",
            InputMode::Streaming,
            pieces,
            |messages| {
                results(messages) == 1
                    && matches!(
                        messages.last(),
                        Some(Message::System(SystemMessage::Init(_)))
                    )
            },
        );
        assert_eq!(
            run.answered.len(),
            1,
            "the woken turn's prompt was answered"
        );
        assert_eq!(
            run.closed_after,
            Some(run.messages.len()),
            "closed at the end"
        );
        assert_eq!(results(&run.messages), 2);
    }
}
