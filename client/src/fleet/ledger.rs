//! What each key of a fleet has spent, its budget, and the live sessions to tell when the
//! budget is crossed.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::task::{Context, Poll, Waker};

use crate::cost::{Budget, BudgetLevel, BudgetReport, BudgetScope, Spent, TurnCost};

/// The fleet's accounts, one per key.
pub(crate) struct Ledger {
    budget: Option<Budget>,
    keys: Mutex<HashMap<String, Account>>,
}

#[derive(Default)]
struct Account {
    spent: Spent,
    /// The budget's levels already reported.
    reported: Option<BudgetLevel>,
    /// The key's live sessions.
    sessions: Vec<Weak<Signal>>,
}

impl Ledger {
    pub(crate) fn new(budget: Option<Budget>) -> Ledger {
        Ledger {
            budget,
            keys: Mutex::new(HashMap::new()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Account>> {
        self.keys
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// What `key` has spent.
    pub(crate) fn spent(&self, key: &str) -> Spent {
        self.lock().get(key).map(|a| a.spent).unwrap_or_default()
    }

    /// Every key with what it has spent, by key.
    pub(crate) fn all(&self) -> Vec<(String, Spent)> {
        let mut all: Vec<(String, Spent)> = self
            .lock()
            .iter()
            .map(|(key, account)| (key.clone(), account.spent))
            .collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all
    }

    /// A session of `key` starts: the report that refuses it when the key's budget is already
    /// exceeded, else its signal, through which the key's budget reports reach it.
    pub(crate) fn join(&self, key: &str) -> Result<Arc<Signal>, Box<BudgetReport>> {
        let mut keys = self.lock();
        let account = keys.entry(key.to_owned()).or_default();
        if let Some(budget) = self.budget {
            if account.reported == Some(BudgetLevel::Exceeded) {
                return Err(Box::new(report(
                    key,
                    BudgetLevel::Exceeded,
                    budget,
                    account.spent,
                )));
            }
        }
        let signal = Arc::new(Signal::default());
        account.sessions.retain(|s| s.strong_count() > 0);
        account.sessions.push(Arc::downgrade(&signal));
        Ok(signal)
    }

    /// A turn of a session of `key` ended: count it, and tell every live session of the key
    /// when that crosses a level of the budget.
    pub(crate) fn turn(&self, key: &str, cost: &TurnCost) {
        let mut keys = self.lock();
        let account = keys.entry(key.to_owned()).or_default();
        account.spent.add(cost);
        let Some(budget) = self.budget else {
            return;
        };
        let Some(level) = budget.level(&account.spent) else {
            return;
        };
        if account.reported.is_some_and(|reported| reported >= level) {
            return;
        }
        account.reported = Some(level);
        let report = report(key, level, budget, account.spent);
        account.sessions.retain(|s| s.strong_count() > 0);
        for signal in account.sessions.iter().filter_map(Weak::upgrade) {
            signal.tell(report.clone());
        }
    }
}

fn report(key: &str, level: BudgetLevel, budget: Budget, spent: Spent) -> BudgetReport {
    BudgetReport {
        scope: BudgetScope::Key(key.to_owned()),
        level,
        budget,
        spent,
    }
}

/// How a key's budget reports reach one of its sessions' driver.
#[derive(Default)]
pub(crate) struct Signal {
    state: Mutex<SignalState>,
}

#[derive(Default)]
struct SignalState {
    reports: Vec<BudgetReport>,
    waker: Option<Waker>,
}

impl Signal {
    fn lock(&self) -> MutexGuard<'_, SignalState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn tell(&self, report: BudgetReport) {
        let mut state = self.lock();
        state.reports.push(report);
        let waker = state.waker.take();
        drop(state);
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// The next report for this session, or `Pending` with the driver's waker kept.
    pub(crate) fn poll_report(&self, cx: &mut Context<'_>) -> Poll<BudgetReport> {
        let mut state = self.lock();
        if state.reports.is_empty() {
            match &state.waker {
                Some(waker) if waker.will_wake(cx.waker()) => {}
                _ => state.waker = Some(cx.waker().clone()),
            }
            return Poll::Pending;
        }
        Poll::Ready(state.reports.remove(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cost::Tokens;

    fn turn(usd: f64) -> TurnCost {
        let tokens = Tokens {
            input: 10,
            output: 5,
            ..Tokens::default()
        };
        TurnCost::new(Some(usd), None, tokens, usd)
    }

    fn next(signal: &Signal) -> Option<BudgetLevel> {
        let mut cx = Context::from_waker(Waker::noop());
        match signal.poll_report(&mut cx) {
            Poll::Ready(report) => Some(report.level),
            Poll::Pending => None,
        }
    }

    #[test]
    fn each_key_counts_its_own_turns() {
        let ledger = Ledger::new(None);
        ledger.turn("a", &turn(0.25));
        ledger.turn("a", &turn(0.5));
        ledger.turn("b", &turn(1.0));
        assert_eq!(ledger.spent("a").usd, 0.75);
        assert_eq!(ledger.spent("a").tokens.total(), 30);
        assert_eq!(ledger.spent("a").turns, 2);
        let keys: Vec<String> = ledger.all().into_iter().map(|(key, _)| key).collect();
        assert_eq!(keys, ["a", "b"]);
    }

    #[test]
    fn every_live_session_of_the_key_is_told_and_later_ones_refused() {
        let ledger = Ledger::new(Some(Budget::usd(1.0)));
        let one = ledger.join("a").unwrap();
        let two = ledger.join("a").unwrap();
        let other = ledger.join("b").unwrap();
        ledger.turn("a", &turn(0.85));
        assert_eq!(
            (next(&one), next(&two)),
            (Some(BudgetLevel::Warning), Some(BudgetLevel::Warning))
        );
        ledger.turn("a", &turn(0.2));
        assert_eq!(
            (next(&one), next(&two)),
            (Some(BudgetLevel::Exceeded), Some(BudgetLevel::Exceeded))
        );
        assert_eq!(next(&other), None);
        let refused = ledger.join("a").err().expect("the key is spent");
        assert_eq!(refused.scope, BudgetScope::Key("a".into()));
        assert!(ledger.join("b").is_ok());
    }
}
