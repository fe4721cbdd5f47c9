//! The PostgreSQL fleet ledger against throwaway PostgreSQL 15 clusters, as the store's tests
//! start them (their `cluster` module): the ledger's statements, several host processes (this
//! test binary again) sharing one fleet, and random schedules of kills, freezes, database
//! restarts and stalled connections. Needs the server's binaries in
//! `/usr/lib/postgresql/15/bin` (or `CLAUDE_AGENT_PG_BIN`): the tests fail, never skip, without
//! them.

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use claude_agent_client::store::{project_key_for_directory, SessionKey, SessionStore};
use claude_agent_core::message::{Message, SystemMessage};
use claude_agent_store_postgres::PostgresSessionStore;
use claude_agent_testkit::real_cli::{real_cli_env, RealCli, TestDir};
use claude_agent_testkit::stub_api::StubApi;
use claude_agent_tokio::options::SessionStart;
use claude_agent_tokio::Options;
use futures_lite::StreamExt;
use serde_json::Value;

// The store's tests start clusters and read transcripts the same way: one copy serves both.
#[path = "../../../../stores/postgres/tests/postgres/cluster.rs"]
mod cluster;
mod fleet_faults;
mod fleet_hosts;
mod fleet_ledger;
mod host_process;
mod proxy;
#[path = "../../../../stores/postgres/tests/postgres/transcripts.rs"]
mod transcripts;

use cluster::{tokio_rt, Cluster};
use transcripts::{line, session_of, stored_texts, texts};
