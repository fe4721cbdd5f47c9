//! Many sessions on one host: two tenants ask three questions each, all at once, through a
//! `Fleet` that runs at most two CLIs at a time (the others wait their turn, fairly between the
//! tenants) and gives each tenant a small budget. Each answer prints what its turn cost; a
//! tenant's session that spends the rest of its budget is stopped with `Error::OverBudget`; at
//! the end, what each tenant spent and how many CLIs ran at once.
//!
//! Run: `cargo run --example fleet` (needs the `claude` CLI and an API key: the budget is tiny
//! on purpose, so the first real turns spend it), or offline with the real CLI and a stub model:
//! `scripts/quick-start fleet`.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use claude_agent_tokio::cost::Budget;
use claude_agent_tokio::message::NoticeKind;
use claude_agent_tokio::{cli, query, Error, Fleet, FleetLimits, Message, Options};

/// One tenant's question: what its turn cost, or why it was stopped.
async fn ask(fleet: Fleet, tenant: &'static str, question: String) -> Result<(), Error> {
    let options = Options::new()
        .fleet(fleet.member(tenant))
        // Private configuration folders: concurrent CLIs do not share the user's files.
        .isolated_config(true);
    let mut messages = query(question, options);
    while let Some(message) = messages.next().await {
        match message {
            Ok(Message::Result(result)) => {
                let answer = result.result.clone().unwrap_or_default();
                match result.turn_cost.as_ref().and_then(|cost| cost.usd()) {
                    Some(usd) => println!("[{tenant}] {answer} (${usd:.6})"),
                    None => println!("[{tenant}] {answer} (cost unknown)"),
                }
            }
            Ok(Message::Notice(notice)) => {
                if let NoticeKind::Budget(report) = &notice.kind {
                    println!("[{tenant}] warning: {report}");
                }
            }
            Ok(_) => {}
            Err(Error::OverBudget(report)) => println!("[{tenant}] stopped: {report}"),
            Err(error) => return Err(error),
        }
    }
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A server running many sessions needs more than the common 1,024 open files.
    cli::raise_open_file_limit()?;
    let fleet = Fleet::new(FleetLimits {
        max_sessions: Some(2),
        budget_per_key: Some(Budget::usd(0.0005)),
        ..FleetLimits::default()
    })?;

    // How many CLIs run at once, sampled while the questions are answered.
    let most = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let sampler = tokio::spawn({
        let (fleet, most, done) = (fleet.clone(), most.clone(), done.clone());
        async move {
            while !done.load(Ordering::Relaxed) {
                most.fetch_max(fleet.running(), Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
    });

    let mut questions = Vec::new();
    for n in 1..=3 {
        for tenant in ["tenant-a", "tenant-b"] {
            let question = format!("Say hello to visitor {n}.");
            questions.push(tokio::spawn(ask(fleet.clone(), tenant, question)));
        }
    }
    for question in questions {
        question.await??;
    }
    done.store(true, Ordering::Relaxed);
    sampler.await?;

    println!("at most {} CLIs ran at once", most.load(Ordering::Relaxed));
    for (tenant, spent) in fleet.spent_by_key() {
        println!(
            "{tenant}: ${:.6} over {} turns, {} tokens",
            spent.usd,
            spent.turns,
            spent.tokens.total()
        );
    }
    Ok(())
}
