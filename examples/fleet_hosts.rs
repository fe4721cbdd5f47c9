//! Many hosts, one fleet: two host processes, each with its own `Fleet` on a
//! `PostgresFleetLedger`, share one limit of two CLIs at once and each tenant's budget. Each
//! host asks three questions of two tenants at once; every answer says which host gave it, and
//! at the end the fleet's ledger says what each tenant spent on both hosts together.
//!
//! Needs: postgres
//!
//! Run: `scripts/quick-start fleet_hosts`, which starts a throwaway PostgreSQL cluster and the
//! stub model offline. Against your own database and the real API:
//! `CLAUDE_AGENT_FLEET_DB="host=127.0.0.1 user=postgres dbname=postgres" cargo run --example fleet_hosts`.
//! With `--host NAME` it runs as one host only (start one per machine).

use std::process::Command;
use std::sync::Arc;

use claude_agent_fleet_postgres::{FleetHost, PostgresFleetLedger};
use claude_agent_tokio::cost::Budget;
use claude_agent_tokio::{query, Error, Fleet, FleetLimits, Message, Options};

/// The variable naming the database (a `tokio-postgres` configuration or `postgresql://` URL).
const DATABASE: &str = "CLAUDE_AGENT_FLEET_DB";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Ok(database) = std::env::var(DATABASE) else {
        eprintln!(
            "set {DATABASE} to the fleet's PostgreSQL database (host=… user=… dbname=…), or run \
             scripts/quick-start fleet_hosts, which starts a throwaway cluster"
        );
        std::process::exit(2);
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag, name] if flag == "--host" => host(&database, name).await,
        _ => both_hosts(&database).await,
    }
}

/// Two host processes (this program again, with `--host`), as two machines would run them;
/// then what the tenants spent on both.
async fn both_hosts(database: &str) -> Result<(), Box<dyn std::error::Error>> {
    let me = std::env::current_exe()?;
    let hosts: Vec<_> = ["host-a", "host-b"]
        .into_iter()
        .map(|name| Command::new(&me).args(["--host", name]).spawn())
        .collect::<Result<_, _>>()?;
    for mut host in hosts {
        let status = host.wait()?;
        if !status.success() {
            return Err(format!("a host failed: {status}").into());
        }
    }
    let watcher = FleetHost::new("example", "watcher", limits());
    let ledger = PostgresFleetLedger::connect(database, watcher).await?;
    for (tenant, spent) in ledger.spending().await? {
        let tokens = spent.tokens.total();
        println!(
            "{tenant}: {} turns, {tokens} tokens, on both hosts",
            spent.turns
        );
    }
    Ok(())
}

/// The fleet's limits, the same on every host.
fn limits() -> FleetLimits {
    FleetLimits {
        max_sessions: Some(2),
        budget_per_key: Some(Budget::usd(1.0)),
        ..FleetLimits::default()
    }
}

/// One host of the fleet: its questions through the fleet's shared limits.
async fn host(database: &str, name: &str) -> Result<(), Box<dyn std::error::Error>> {
    let host = FleetHost::new("example", name, limits());
    let ledger = PostgresFleetLedger::connect(database, host).await?;
    let fleet = Fleet::shared(Arc::new(ledger.clone()))?;
    let questions = [
        ("tenant-a", "What is a fleet of hosts?"),
        ("tenant-b", "Why keep limits in a database?"),
        ("tenant-a", "What is a lease?"),
    ];
    let mut asked = Vec::new();
    for (tenant, question) in questions {
        let options = Options::new()
            .fleet(fleet.member(tenant))
            .isolated_config(true);
        let name = name.to_owned();
        asked.push(tokio::spawn(async move {
            let mut messages = query(question, options);
            while let Some(message) = messages.next().await {
                match message {
                    Ok(Message::Result(result)) => {
                        let answer = result.result.unwrap_or_default();
                        println!("[{name}] {tenant}: {answer}");
                    }
                    Err(Error::OverBudget(report)) => {
                        println!("[{name}] {tenant} stopped: {report}")
                    }
                    Err(error) => return Err(error),
                    Ok(_) => {}
                }
            }
            Ok(())
        }));
    }
    for question in asked {
        question.await??;
    }
    // What the sessions spent reaches the fleet before this host exits.
    ledger.flush().await?;
    Ok(())
}
