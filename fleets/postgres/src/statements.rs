//! The statements of a fleet's ledger in PostgreSQL ([`PostgresFleetLedger`]): places, fair
//! queue, leases and spending, so that the sessions of many hosts share one fleet's limits.
//!
//! [`PostgresFleetLedger`]: crate::PostgresFleetLedger
//!
//! The tables, in the store's schema:
//! - `fleets`: each fleet's session limit and how many places it has given (the order keys are
//!   served in);
//! - `fleet_hosts`: each host's lease (`lease_until`) and epoch, which grows each time the host
//!   joins again: a place or a write carries the epoch it was made under, so a host that lost its
//!   lease (killed, frozen, cut off) finds out before it writes again;
//! - `fleet_places`: the places given, with the key, the host and epoch that hold each, the
//!   session's id once its CLI told it, and the host that claimed it to take its session over;
//! - `fleet_waiters`: the places asked for, in arrival order;
//! - `fleet_keys`: each key's spending, the budget level already reported, and when it was last
//!   served a place;
//! - `fleet_charges`: the charges made in the last day, each with its id, key, cost and time:
//!   a charge tried again after its commit went unanswered counts once, and a key's spending
//!   can be read back charge by charge.
//!
//! Every decision that must hold across hosts is one transaction: admission locks the fleet's
//! row, so two hosts never give the last place twice; a charge is one `UPDATE … RETURNING`, so
//! exactly one charge crosses each budget level.

use std::time::Duration;

use claude_agent_core::cost::{Budget, BudgetLevel, Spent, TurnCost};
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Error, GenericClient};

/// A host of a fleet, as it joined: its name and the epoch its places and writes carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostLease {
    /// The fleet.
    pub fleet: String,
    /// The host's name (unique in the fleet).
    pub host: String,
    /// This incarnation of the host: a new one each time it joins.
    pub epoch: i64,
}

/// A place whose host's lease has run out: another host may take its session over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Orphan {
    /// The place.
    pub place: String,
    /// Its session, once the session's CLI told its id (`None`: it died before).
    pub session_id: Option<String>,
    /// The session was in a turn when its host stopped renewing.
    pub cut_off_turn: bool,
    /// Its key.
    pub key: String,
    /// The host that held it.
    pub host: String,
}

/// The advisory lock the tables are created under.
const CREATE_LOCK: i64 = 0x636c_6175_6465_666c;

/// The tables, made on first use (`IF NOT EXISTS`), in `schema`.
/// Hosts joining at once create them one after the other (an advisory lock held by the
/// transaction): `IF NOT EXISTS` alone races on the catalog.
pub async fn create(client: &Client, schema: &str) -> Result<(), Error> {
    client
        .batch_execute(&format!(
            "BEGIN;
             SELECT pg_advisory_xact_lock({CREATE_LOCK});
             CREATE SCHEMA IF NOT EXISTS {schema};
             CREATE TABLE IF NOT EXISTS {schema}.fleets (
                 fleet text PRIMARY KEY,
                 max_sessions integer,
                 served bigint NOT NULL DEFAULT 0);
             CREATE TABLE IF NOT EXISTS {schema}.fleet_hosts (
                 fleet text NOT NULL,
                 host text NOT NULL,
                 epoch bigint NOT NULL,
                 lease_until timestamptz NOT NULL,
                 PRIMARY KEY (fleet, host));
             CREATE TABLE IF NOT EXISTS {schema}.fleet_places (
                 fleet text NOT NULL,
                 place text NOT NULL,
                 key text NOT NULL,
                 host text NOT NULL,
                 epoch bigint NOT NULL,
                 session_id text,
                 in_turn boolean NOT NULL DEFAULT false,
                 claimed_by text,
                 claimed_epoch bigint,
                 PRIMARY KEY (fleet, place));
             ALTER TABLE {schema}.fleet_places ADD COLUMN IF NOT EXISTS claimed_by text;
             ALTER TABLE {schema}.fleet_places ADD COLUMN IF NOT EXISTS claimed_epoch bigint;
             CREATE TABLE IF NOT EXISTS {schema}.fleet_waiters (
                 fleet text NOT NULL,
                 ticket bigserial,
                 key text NOT NULL,
                 place text NOT NULL,
                 host text NOT NULL,
                 epoch bigint NOT NULL,
                 granted boolean NOT NULL DEFAULT false,
                 PRIMARY KEY (fleet, ticket));
             CREATE TABLE IF NOT EXISTS {schema}.fleet_keys (
                 fleet text NOT NULL,
                 key text NOT NULL,
                 usd double precision NOT NULL DEFAULT 0,
                 input_tokens bigint NOT NULL DEFAULT 0,
                 output_tokens bigint NOT NULL DEFAULT 0,
                 cache_read_tokens bigint NOT NULL DEFAULT 0,
                 cache_creation_tokens bigint NOT NULL DEFAULT 0,
                 turns bigint NOT NULL DEFAULT 0,
                 uncosted_turns bigint NOT NULL DEFAULT 0,
                 reported smallint NOT NULL DEFAULT 0,
                 last_served bigint NOT NULL DEFAULT 0,
                 PRIMARY KEY (fleet, key));
             CREATE TABLE IF NOT EXISTS {schema}.fleet_charges (
                 fleet text NOT NULL,
                 charge text NOT NULL,
                 at timestamptz NOT NULL DEFAULT clock_timestamp(),
                 key text,
                 usd double precision,
                 PRIMARY KEY (fleet, charge));
             ALTER TABLE {schema}.fleet_charges ADD COLUMN IF NOT EXISTS key text;
             ALTER TABLE {schema}.fleet_charges ADD COLUMN IF NOT EXISTS usd double precision;
             COMMIT;"
        ))
        .await
}

/// The fleet's session limit as the database keeps it, when a host joining gives another one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitMismatch {
    /// The limit the fleet's live hosts keep (`None`: no limit).
    pub kept: Option<u32>,
}

/// The fleet's session limit (`None`: no limit): set by the first host, and by a host that
/// joins while no other host of the fleet holds a live lease (the fleet starts again, maybe
/// with new limits). A host giving another limit while others are live is refused: the
/// fleet's hosts must agree on it.
pub async fn join_limit(
    client: &mut Client,
    schema: &str,
    fleet: &str,
    host: &str,
    max_sessions: Option<u32>,
) -> Result<Result<(), LimitMismatch>, Error> {
    let max = max_sessions.map(|max| i32::try_from(max).unwrap_or(i32::MAX));
    let tx = client.transaction().await?;
    tx.execute(
        &format!(
            "INSERT INTO {schema}.fleets (fleet, max_sessions) VALUES ($1, $2)
             ON CONFLICT (fleet) DO NOTHING"
        ),
        &[&fleet, &max],
    )
    .await?;
    let kept: Option<i32> = tx
        .query_one(
            &format!("SELECT max_sessions FROM {schema}.fleets WHERE fleet = $1 FOR UPDATE"),
            &[&fleet],
        )
        .await?
        .get(0);
    if kept != max {
        let others: i64 = tx
            .query_one(
                &format!(
                    "SELECT count(*) FROM {schema}.fleet_hosts
                     WHERE fleet = $1 AND host <> $2 AND lease_until > clock_timestamp()"
                ),
                &[&fleet, &host],
            )
            .await?
            .get(0);
        if others > 0 {
            tx.rollback().await?;
            let kept = kept.map(|kept| u32::try_from(kept).unwrap_or(0));
            return Ok(Err(LimitMismatch { kept }));
        }
        tx.execute(
            &format!("UPDATE {schema}.fleets SET max_sessions = $2 WHERE fleet = $1"),
            &[&fleet, &max],
        )
        .await?;
    }
    tx.commit().await?;
    Ok(Ok(()))
}

fn seconds(lease: Duration) -> f64 {
    lease.as_secs_f64()
}

/// `host` joins `fleet` with a lease of `lease`: a new epoch, which fences whatever an earlier
/// incarnation of the host still holds.
pub async fn join(
    client: &Client,
    schema: &str,
    fleet: &str,
    host: &str,
    lease: Duration,
) -> Result<HostLease, Error> {
    let row = client
        .query_one(
            &format!(
                "INSERT INTO {schema}.fleet_hosts (fleet, host, epoch, lease_until)
                 VALUES ($1, $2, 1, clock_timestamp() + make_interval(secs => $3))
                 ON CONFLICT (fleet, host) DO UPDATE
                     SET epoch = {schema}.fleet_hosts.epoch + 1, lease_until = EXCLUDED.lease_until
                 RETURNING epoch"
            ),
            &[&fleet, &host, &seconds(lease)],
        )
        .await?;
    Ok(HostLease {
        fleet: fleet.to_owned(),
        host: host.to_owned(),
        epoch: row.get(0),
    })
}

/// What became of a renewal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Renewal {
    /// The lease runs for another `lease`.
    Renewed,
    /// It had run out: the host's places may be another host's now, and it must stop them;
    /// it may join again under a new epoch.
    Expired,
    /// Another process joined the fleet under this host's name since: this one must stop for
    /// good, or the two would fence each other off at every renewal.
    Superseded,
}

/// The host leaves the fleet: its lease under `me`'s epoch ends now, so the limits it joined
/// with stand no more, and any place it still holds is an orphan at once.
pub async fn end_lease(client: &Client, schema: &str, me: &HostLease) -> Result<(), Error> {
    client
        .execute(
            &format!(
                "UPDATE {schema}.fleet_hosts SET lease_until = clock_timestamp()
                 WHERE fleet = $1 AND host = $2 AND epoch = $3 AND lease_until > clock_timestamp()"
            ),
            &[&me.fleet, &me.host, &me.epoch],
        )
        .await?;
    Ok(())
}

/// Renew the host's lease for `lease` more.
pub async fn renew(
    client: &Client,
    schema: &str,
    me: &HostLease,
    lease: Duration,
) -> Result<Renewal, Error> {
    let renewed = client
        .execute(
            &format!(
                "UPDATE {schema}.fleet_hosts
                 SET lease_until = clock_timestamp() + make_interval(secs => $4)
                 WHERE fleet = $1 AND host = $2 AND epoch = $3 AND lease_until > clock_timestamp()"
            ),
            &[&me.fleet, &me.host, &me.epoch, &seconds(lease)],
        )
        .await?;
    if renewed == 1 {
        return Ok(Renewal::Renewed);
    }
    let epoch: Option<i64> = client
        .query_opt(
            &format!("SELECT epoch FROM {schema}.fleet_hosts WHERE fleet = $1 AND host = $2"),
            &[&me.fleet, &me.host],
        )
        .await?
        .map(|row| row.get(0));
    Ok(match epoch {
        Some(epoch) if epoch > me.epoch => Renewal::Superseded,
        _ => Renewal::Expired,
    })
}

/// A session of `key` asks for `place`: its ticket in the fleet's queue.
pub async fn enqueue(
    client: &Client,
    schema: &str,
    me: &HostLease,
    key: &str,
    place: &str,
) -> Result<i64, Error> {
    let row = client
        .query_one(
            &format!(
                "INSERT INTO {schema}.fleet_waiters (fleet, key, place, host, epoch)
                 VALUES ($1, $2, $3, $4, $5) RETURNING ticket"
            ),
            &[&me.fleet, &key, &place, &me.host, &me.epoch],
        )
        .await?;
    Ok(row.get(0))
}

/// Give free places to waiters, in one transaction that holds the fleet's row: while fewer
/// sessions than the limit hold a place under a live lease, the waiting key served longest ago
/// (then the oldest ticket) gets the next. Waiters of hosts whose lease ran out leave the queue,
/// granted or not. Returns the tickets granted.
///
/// With nobody waiting, nothing is locked: a waiter that comes after this look is served by its
/// own host's grant, which then sees any place freed before it.
pub async fn grant(client: &mut Client, schema: &str, fleet: &str) -> Result<Vec<i64>, Error> {
    let anyone = client
        .query_one(
            &format!(
                "SELECT EXISTS (SELECT 1 FROM {schema}.fleet_waiters
                 WHERE fleet = $1 AND NOT granted)"
            ),
            &[&fleet],
        )
        .await?;
    if !anyone.get::<_, bool>(0) {
        return Ok(Vec::new());
    }
    let tx = client.transaction().await?;
    let Some(row) = tx
        .query_opt(
            &format!(
                "SELECT max_sessions, served FROM {schema}.fleets WHERE fleet = $1 FOR UPDATE"
            ),
            &[&fleet],
        )
        .await?
    else {
        tx.commit().await?;
        return Ok(Vec::new());
    };
    let max: Option<i32> = row.get(0);
    let mut served: i64 = row.get(1);
    tx.execute(
        &format!(
            "DELETE FROM {schema}.fleet_waiters w WHERE w.fleet = $1
             AND NOT EXISTS (SELECT 1 FROM {schema}.fleet_hosts h
                 WHERE h.fleet = w.fleet AND h.host = w.host AND h.epoch = w.epoch
                 AND h.lease_until > clock_timestamp())"
        ),
        &[&fleet],
    )
    .await?;
    let mut live = live_places(&tx, schema, fleet).await?;
    let mut granted = Vec::new();
    while max.is_none_or(|max| live < i64::from(max)) {
        let Some(next) = tx
            .query_opt(
                &format!(
                    "SELECT w.ticket, w.key, w.place, w.host, w.epoch
                     FROM {schema}.fleet_waiters w
                     LEFT JOIN {schema}.fleet_keys k ON k.fleet = w.fleet AND k.key = w.key
                     WHERE w.fleet = $1 AND NOT w.granted
                     ORDER BY coalesce(k.last_served, 0), w.ticket
                     LIMIT 1"
                ),
                &[&fleet],
            )
            .await?
        else {
            break;
        };
        let (ticket, key, place, host, epoch): (i64, String, String, String, i64) = (
            next.get(0),
            next.get(1),
            next.get(2),
            next.get(3),
            next.get(4),
        );
        // The waiter's row first: a host giving its waiter up meanwhile (`leave`) deletes it
        // only once this transaction ends, and then sees the place to delete too; a waiter
        // already gone gets no place.
        let still_waiting = tx
            .execute(
                &format!(
                    "UPDATE {schema}.fleet_waiters SET granted = true
                     WHERE fleet = $1 AND ticket = $2 AND NOT granted"
                ),
                &[&fleet, &ticket],
            )
            .await?;
        if still_waiting == 0 {
            continue;
        }
        served += 1;
        tx.execute(
            &format!(
                "INSERT INTO {schema}.fleet_places (fleet, place, key, host, epoch)
                 VALUES ($1, $2, $3, $4, $5)"
            ),
            &[&fleet, &place, &key, &host, &epoch],
        )
        .await?;
        tx.execute(
            &format!(
                "INSERT INTO {schema}.fleet_keys (fleet, key, last_served) VALUES ($1, $2, $3)
                 ON CONFLICT (fleet, key) DO UPDATE SET last_served = EXCLUDED.last_served"
            ),
            &[&fleet, &key, &served],
        )
        .await?;
        granted.push(ticket);
        live += 1;
    }
    tx.execute(
        &format!("UPDATE {schema}.fleets SET served = $2 WHERE fleet = $1"),
        &[&fleet, &served],
    )
    .await?;
    if !granted.is_empty() {
        tx.execute("SELECT pg_notify($1, '')", &[&places_channel(fleet)])
            .await?;
    }
    tx.commit().await?;
    Ok(granted)
}

/// The channel on which a fleet's hosts hear that places were given: `fleet_` and the fleet's
/// name with every character that is not an ASCII letter or digit as `_` (at most 63 bytes, the
/// server's limit on a name).
pub fn places_channel(fleet: &str) -> String {
    channel("fleet_", fleet)
}

/// The channel on which a fleet's hosts hear that a key crossed a budget level (the payload is
/// the key's MD5 digest, in hex: [`spending_of_digest`] reads it back).
pub fn budget_channel(fleet: &str) -> String {
    channel("fleetbudget_", fleet)
}

fn channel(prefix: &str, fleet: &str) -> String {
    let name: String = fleet
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    let mut channel = format!("{prefix}{name}");
    channel.truncate(63);
    channel
}

async fn live_places(client: &impl GenericClient, schema: &str, fleet: &str) -> Result<i64, Error> {
    let row = client
        .query_one(
            &format!(
                "SELECT count(*) FROM {schema}.fleet_places p
                 JOIN {schema}.fleet_hosts h
                     ON h.fleet = p.fleet AND h.host = p.host AND h.epoch = p.epoch
                 WHERE p.fleet = $1 AND h.lease_until > clock_timestamp()"
            ),
            &[&fleet],
        )
        .await?;
    Ok(row.get(0))
}

/// How many sessions hold a place under a live lease.
pub async fn running(client: &Client, schema: &str, fleet: &str) -> Result<i64, Error> {
    live_places(client, schema, fleet).await
}

/// Whether the ticket was granted; a granted ticket leaves the queue.
pub async fn take_grant(
    client: &Client,
    schema: &str,
    me: &HostLease,
    ticket: i64,
) -> Result<bool, Error> {
    let taken = client
        .execute(
            &format!(
                "DELETE FROM {schema}.fleet_waiters
                 WHERE fleet = $1 AND ticket = $2 AND host = $3 AND epoch = $4 AND granted"
            ),
            &[&me.fleet, &ticket, &me.host, &me.epoch],
        )
        .await?;
    Ok(taken == 1)
}

/// The places granted to this host's waiters since it last looked: they leave the queue.
pub async fn take_grants(
    client: &Client,
    schema: &str,
    me: &HostLease,
) -> Result<Vec<String>, Error> {
    let rows = client
        .query(
            &format!(
                "DELETE FROM {schema}.fleet_waiters
                 WHERE fleet = $1 AND host = $2 AND epoch = $3 AND granted
                 RETURNING place"
            ),
            &[&me.fleet, &me.host, &me.epoch],
        )
        .await?;
    Ok(rows.iter().map(|row| row.get(0)).collect())
}

/// Waiters left before their places came, or sessions ended (their handles were dropped):
/// their tickets leave the queue, and their places (given just then, or held) are free again.
/// One round trip for them all, however many a host queued while the database was out of reach.
pub async fn leave(
    client: &Client,
    schema: &str,
    me: &HostLease,
    places: &[String],
) -> Result<(), Error> {
    // Two statements, the waiters first: a grant committing a place to one of them meanwhile
    // holds the waiter's row, so the first waits for it, and the second (a snapshot of its
    // own) sees the place it gave. One statement would not see that place, and keep it.
    let params: [&(dyn ToSql + Sync); 4] = [&me.fleet, &places, &me.host, &me.epoch];
    client
        .execute(
            &format!(
                "DELETE FROM {schema}.fleet_waiters
                 WHERE fleet = $1 AND place = ANY($2) AND host = $3 AND epoch = $4"
            ),
            &params,
        )
        .await?;
    client
        .execute(
            &format!(
                "DELETE FROM {schema}.fleet_places
                 WHERE fleet = $1 AND place = ANY($2) AND host = $3 AND epoch = $4 AND {}",
                my_live_lease(schema)
            ),
            &params,
        )
        .await?;
    Ok(())
}

/// Whether the host of `me` holds a live lease under its epoch: what every change of a place
/// needs, so that a host whose lease ran out changes nothing of its orphans.
fn my_live_lease(schema: &str) -> String {
    format!(
        "EXISTS (SELECT 1 FROM {schema}.fleet_hosts me
             WHERE me.fleet = $1 AND me.host = $3 AND me.epoch = $4
             AND me.lease_until > clock_timestamp())"
    )
}

/// The session's CLI is gone: its place is free (only for the host and epoch holding it, while
/// its lease is live: an orphan stays for another host to take over).
pub async fn release(
    client: &Client,
    schema: &str,
    me: &HostLease,
    place: &str,
) -> Result<bool, Error> {
    let released = client
        .execute(
            &format!(
                "DELETE FROM {schema}.fleet_places
                 WHERE fleet = $1 AND place = $2 AND host = $3 AND epoch = $4 AND {}",
                my_live_lease(schema)
            ),
            &[&me.fleet, &place, &me.host, &me.epoch],
        )
        .await?;
    Ok(released == 1)
}

/// Whether the session holding `place` is in a turn.
pub async fn turn_running(
    client: &Client,
    schema: &str,
    me: &HostLease,
    place: &str,
    running: bool,
) -> Result<(), Error> {
    client
        .execute(
            &format!(
                "UPDATE {schema}.fleet_places SET in_turn = $5
                 WHERE fleet = $1 AND place = $2 AND host = $3 AND epoch = $4 AND {}",
                my_live_lease(schema)
            ),
            &[&me.fleet, &place, &me.host, &me.epoch, &running],
        )
        .await?;
    Ok(())
}

/// The session holding `place` has this id (its CLI told it): a host that takes the place over
/// resumes the session by it. The orphan of the same session that this host claimed
/// ([`take_over`]) is gone now: the session runs here again.
pub async fn bind(
    client: &Client,
    schema: &str,
    me: &HostLease,
    place: &str,
    session_id: &str,
) -> Result<(), Error> {
    client
        .execute(
            &format!(
                "WITH bound AS (
                     UPDATE {schema}.fleet_places SET session_id = $5
                     WHERE fleet = $1 AND place = $2 AND host = $3 AND epoch = $4 AND {}
                     RETURNING place)
                 DELETE FROM {schema}.fleet_places
                 WHERE fleet = $1 AND session_id = $5 AND place <> $2
                 AND claimed_by = $3 AND claimed_epoch = $4
                 AND EXISTS (SELECT 1 FROM bound)",
                my_live_lease(schema)
            ),
            &[&me.fleet, &place, &me.host, &me.epoch, &session_id],
        )
        .await?;
    Ok(())
}

/// The sessions holding a place under a lease that ran out, or under an earlier epoch of their
/// host, and that no host holding a live lease has claimed: what another host may take over.
pub async fn orphans(client: &Client, schema: &str, fleet: &str) -> Result<Vec<Orphan>, Error> {
    let rows = client
        .query(
            &format!(
                "SELECT p.place, p.session_id, p.key, p.host, p.in_turn FROM {schema}.fleet_places p
                 LEFT JOIN {schema}.fleet_hosts h ON h.fleet = p.fleet AND h.host = p.host
                 WHERE p.fleet = $1
                 AND (h.host IS NULL OR h.epoch <> p.epoch OR h.lease_until <= clock_timestamp())
                 AND NOT {}
                 ORDER BY p.place",
                live_claim(schema)
            ),
            &[&fleet],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| Orphan {
            place: row.get(0),
            session_id: row.get(1),
            key: row.get(2),
            host: row.get(3),
            cut_off_turn: row.get(4),
        })
        .collect())
}

/// Whether `p`'s place is claimed by a host that holds a live lease under the epoch it
/// claimed it with.
fn live_claim(schema: &str) -> String {
    format!(
        "EXISTS (SELECT 1 FROM {schema}.fleet_hosts c
             WHERE c.fleet = p.fleet AND c.host = p.claimed_by AND c.epoch = p.claimed_epoch
             AND c.lease_until > clock_timestamp())"
    )
}

/// Claim an orphaned place: this host (which must hold a live lease) is to resume its session,
/// under a place of its own. The place's key, or `None` when it is no orphan (its host is
/// alive, or another live host claimed it first): exactly one host gets it. The orphan stays
/// until the claiming host's session binds the same session id ([`bind`]): a host that dies
/// before its claim is kept loses the claim with its lease, and the orphan is listed again.
///
/// The holding host's lease row is locked first: an append of a store it fences, under way, is
/// committed before the place is claimed (and seen by the session's new host), and a later one
/// finds the lease gone.
pub async fn take_over(
    client: &mut Client,
    schema: &str,
    me: &HostLease,
    place: &str,
) -> Result<Option<String>, Error> {
    let tx = client.transaction().await?;
    tx.query(
        &format!(
            "SELECT 1 FROM {schema}.fleet_hosts h
             WHERE h.fleet = $1
             AND h.host = (SELECT p.host FROM {schema}.fleet_places p
                 WHERE p.fleet = $1 AND p.place = $2)
             FOR UPDATE"
        ),
        &[&me.fleet, &place],
    )
    .await?;
    let row = tx
        .query_opt(
            &format!(
                "UPDATE {schema}.fleet_places p SET claimed_by = $2, claimed_epoch = $3
                 WHERE p.fleet = $1 AND p.place = $4
                 AND NOT EXISTS (SELECT 1 FROM {schema}.fleet_hosts h
                     WHERE h.fleet = p.fleet AND h.host = p.host AND h.epoch = p.epoch
                     AND h.lease_until > clock_timestamp())
                 AND NOT {}
                 AND EXISTS (SELECT 1 FROM {schema}.fleet_hosts me
                     WHERE me.fleet = $1 AND me.host = $2 AND me.epoch = $3
                     AND me.lease_until > clock_timestamp())
                 RETURNING p.key",
                live_claim(schema)
            ),
            &[&me.fleet, &me.host, &me.epoch, &place],
        )
        .await?;
    tx.commit().await?;
    Ok(row.map(|row| row.get(0)))
}

/// Rows no host can use any more: places of hosts whose lease ran out that never had a session
/// id (nothing to take over), and hosts gone for a day whose epochs no place carries. Places
/// with a session id stay, for a host to take over.
pub async fn sweep(client: &Client, schema: &str, fleet: &str) -> Result<(), Error> {
    for statement in [
        format!(
            "DELETE FROM {schema}.fleet_places p
             WHERE p.fleet = $1 AND p.session_id IS NULL
             AND NOT EXISTS (SELECT 1 FROM {schema}.fleet_hosts h
                 WHERE h.fleet = p.fleet AND h.host = p.host AND h.epoch = p.epoch
                 AND h.lease_until > clock_timestamp())"
        ),
        format!(
            "DELETE FROM {schema}.fleet_hosts h
             WHERE h.fleet = $1 AND h.lease_until < clock_timestamp() - interval '1 day'
             AND NOT EXISTS (SELECT 1 FROM {schema}.fleet_places p
                 WHERE p.fleet = h.fleet AND (p.host = h.host OR p.claimed_by = h.host))"
        ),
        format!(
            "DELETE FROM {schema}.fleet_charges
             WHERE fleet = $1 AND at < clock_timestamp() - interval '1 day'"
        ),
    ] {
        client.execute(&statement, &[&fleet]).await?;
    }
    Ok(())
}

fn level_code(level: Option<BudgetLevel>) -> i16 {
    match level {
        None => 0,
        Some(BudgetLevel::Warning) => 1,
        Some(_) => 2,
    }
}

fn tokens(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// A turn of a session of `key` cost `cost`: add it to the key's spending, in one transaction,
/// and return the spending and, when this charge crossed a level of `budget` that no charge
/// before it reported, that level (exactly one charge crosses each level, whichever host made
/// it). `charge` is the charge's id: a charge made again under the same id (its first commit
/// went unanswered) adds nothing.
pub async fn charge(
    client: &mut Client,
    schema: &str,
    fleet: &str,
    charge: &str,
    key: &str,
    cost: &TurnCost,
    budget: Option<Budget>,
) -> Result<(Spent, Option<BudgetLevel>), Error> {
    let mut add = Spent::default();
    add.add(cost);
    let tx = client.transaction().await?;
    let first = tx
        .execute(
            &format!(
                "INSERT INTO {schema}.fleet_charges (fleet, charge, key, usd)
                 VALUES ($1, $2, $3, $4)
                 ON CONFLICT DO NOTHING"
            ),
            &[&fleet, &charge, &key, &cost.usd()],
        )
        .await?;
    if first == 0 {
        tx.commit().await?;
        let spent = spending(client, schema, fleet, key).await?;
        return Ok((spent.map(|(spent, _)| spent).unwrap_or_default(), None));
    }
    let row = tx
        .query_one(
            &format!(
                "INSERT INTO {schema}.fleet_keys AS k (fleet, key, usd, input_tokens, output_tokens,
                     cache_read_tokens, cache_creation_tokens, turns, uncosted_turns)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                 ON CONFLICT (fleet, key) DO UPDATE SET
                     usd = k.usd + EXCLUDED.usd,
                     input_tokens = k.input_tokens + EXCLUDED.input_tokens,
                     output_tokens = k.output_tokens + EXCLUDED.output_tokens,
                     cache_read_tokens = k.cache_read_tokens + EXCLUDED.cache_read_tokens,
                     cache_creation_tokens = k.cache_creation_tokens + EXCLUDED.cache_creation_tokens,
                     turns = k.turns + EXCLUDED.turns,
                     uncosted_turns = k.uncosted_turns + EXCLUDED.uncosted_turns
                 RETURNING {SPENDING}, reported"
            ),
            &[
                &fleet,
                &key,
                &add.usd,
                &tokens(add.tokens.input),
                &tokens(add.tokens.output),
                &tokens(add.tokens.cache_read),
                &tokens(add.tokens.cache_creation),
                &tokens(add.turns),
                &tokens(add.uncosted_turns),
            ],
        )
        .await?;
    let spent = spent_of(&row);
    let reported: i16 = row.get(7);
    let level = budget.and_then(|budget| budget.level(&spent));
    let crossed = (level_code(level) > reported).then_some(level).flatten();
    if crossed.is_some() {
        tx.execute(
            &format!("UPDATE {schema}.fleet_keys SET reported = $3 WHERE fleet = $1 AND key = $2"),
            &[&fleet, &key, &level_code(level)],
        )
        .await?;
        // The key's digest: a notification's payload is limited to 8000 bytes, a key is not.
        tx.execute(
            "SELECT pg_notify($1, md5($2))",
            &[&budget_channel(fleet), &key],
        )
        .await?;
    }
    tx.commit().await?;
    Ok((spent, crossed))
}

/// Whether `key`'s budget is spent: its new sessions are refused on every host.
pub async fn over_budget(
    client: &Client,
    schema: &str,
    fleet: &str,
    key: &str,
) -> Result<bool, Error> {
    Ok(spending(client, schema, fleet, key)
        .await?
        .is_some_and(|(_, level)| level >= Some(BudgetLevel::Exceeded)))
}

/// What `key` has spent on every host, and the budget level reported for it; `None` for a key
/// that never spent.
pub async fn spending(
    client: &Client,
    schema: &str,
    fleet: &str,
    key: &str,
) -> Result<Option<(Spent, Option<BudgetLevel>)>, Error> {
    let row = client
        .query_opt(
            &format!(
                "SELECT {SPENDING}, reported FROM {schema}.fleet_keys WHERE fleet = $1 AND key = $2"
            ),
            &[&fleet, &key],
        )
        .await?;
    Ok(row.map(|row| (spent_of(&row), level_of(row.get(7)))))
}

/// The key whose MD5 digest is `digest` (a budget notification's payload), with what it spent
/// and the budget level reported for it.
pub async fn spending_of_digest(
    client: &Client,
    schema: &str,
    fleet: &str,
    digest: &str,
) -> Result<Option<(String, Spent, Option<BudgetLevel>)>, Error> {
    let row = client
        .query_opt(
            &format!(
                "SELECT {SPENDING}, key, reported FROM {schema}.fleet_keys
                 WHERE fleet = $1 AND md5(key) = $2"
            ),
            &[&fleet, &digest],
        )
        .await?;
    Ok(row.map(|row| (row.get(7), spent_of(&row), level_of(row.get(8)))))
}

/// The keys of the fleet that spent anything with what each spent and the budget level
/// reported for it, in key order: all of them, or only `keys`.
pub async fn spending_by_key(
    client: &Client,
    schema: &str,
    fleet: &str,
    keys: Option<&[String]>,
) -> Result<Vec<(String, Spent, Option<BudgetLevel>)>, Error> {
    let rows = client
        .query(
            &format!(
                "SELECT {SPENDING}, key, reported FROM {schema}.fleet_keys
                 WHERE fleet = $1 AND turns > 0 AND ($2::text[] IS NULL OR key = ANY($2))
                 ORDER BY key"
            ),
            &[&fleet, &keys],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| (row.get(7), spent_of(row), level_of(row.get(8))))
        .collect())
}

/// The spending columns of `fleet_keys`, in the order [`spent_of`] reads them.
const SPENDING: &str = "usd, input_tokens, output_tokens, cache_read_tokens, \
     cache_creation_tokens, turns, uncosted_turns";

fn spent_of(row: &tokio_postgres::Row) -> Spent {
    let count = |i: usize| u64::try_from(row.get::<_, i64>(i)).unwrap_or(0);
    let mut spent = Spent::default();
    spent.usd = row.get(0);
    spent.tokens.input = count(1);
    spent.tokens.output = count(2);
    spent.tokens.cache_read = count(3);
    spent.tokens.cache_creation = count(4);
    spent.turns = count(5);
    spent.uncosted_turns = count(6);
    spent
}

fn level_of(code: i16) -> Option<BudgetLevel> {
    match code {
        0 => None,
        1 => Some(BudgetLevel::Warning),
        _ => Some(BudgetLevel::Exceeded),
    }
}
