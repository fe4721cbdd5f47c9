//! What the session has spent: each turn's cost from the CLI's running totals
//! ([`TurnCost`]), priced by the session's table where one is given, and the session's
//! [`Budget`] checked after every model call and every turn.

use std::collections::BTreeMap;

use crate::cost::TurnCost;
use crate::cost::{Budget, BudgetLevel, BudgetReport, BudgetScope, PriceTable, Spent, Tokens};
use crate::message::{AssistantMessage, ModelUsage, ResultMessage, Usage};

/// The session's spending so far.
#[derive(Debug)]
pub(crate) struct SpendTracker {
    prices: Option<PriceTable>,
    budget: Option<Budget>,
    /// The CLI's running total after the last turn; `None` while unknown (a resumed session
    /// before the CLI said what it carried over).
    last_total: Option<f64>,
    /// The CLI's per-model tokens after the last turn, known when `last_total` is.
    last_models: BTreeMap<String, Tokens>,
    spent: Spent,
    /// The model calls of the running turn: message id, model, tokens so far.
    calls: Vec<(String, Option<String>, Tokens)>,
    /// The budget's levels already reported.
    reported: Option<BudgetLevel>,
    /// Count model calls even without a budget.
    count_calls: bool,
}

impl SpendTracker {
    /// `carried_over`: the CLI's running total starts from an earlier process's (a resume or a
    /// continue), to be learnt from [`SpendTracker::baseline`].
    pub(crate) fn new(
        prices: Option<PriceTable>,
        budget: Option<Budget>,
        carried_over: bool,
        count_calls: bool,
    ) -> SpendTracker {
        SpendTracker {
            prices,
            budget,
            last_total: (!carried_over).then_some(0.0),
            last_models: BTreeMap::new(),
            spent: Spent::default(),
            calls: Vec::new(),
            reported: None,
            count_calls,
        }
    }

    /// Whether the running total the first turn starts from is still to be asked.
    pub(crate) fn needs_baseline(&self) -> bool {
        self.last_total.is_none()
    }

    /// What the CLI carried over from before: its `get_usage` answer, before the first turn.
    /// An answer without the session's total is no baseline.
    pub(crate) fn baseline(&mut self, answer: &crate::control::ResponseBody) {
        let Ok(CarriedOver { session }) = answer.parse::<CarriedOver>() else {
            return;
        };
        if self.last_total.is_none() && self.spent.turns == 0 {
            self.last_total = Some(session.total_cost_usd);
            self.last_models = per_model(&session.model_usage);
        }
    }

    /// What the session has spent so far.
    pub(crate) fn spent(&self) -> Spent {
        self.spent
    }

    /// Whether model calls are counted during a turn (there is a budget to check, or a turn
    /// ended without a result is to be charged).
    #[inline]
    pub(crate) fn checks_calls(&self) -> bool {
        self.budget.is_some() || self.count_calls
    }

    /// A model call of the running turn (its usage grows over the frames of one message):
    /// counted, and the budget checked against what the turn has used so far.
    pub(crate) fn assistant(&mut self, message: &AssistantMessage) -> Option<BudgetReport> {
        if !self.checks_calls() {
            return None;
        }
        let (Some(id), Some(usage)) = (message.message_id(), message.message.usage.as_ref()) else {
            return None;
        };
        let tokens = tokens_of(usage);
        match self.calls.iter_mut().find(|(call, _, _)| call == id) {
            Some((_, _, seen)) => *seen = most(*seen, tokens),
            None => self
                .calls
                .push((id.to_owned(), message.model().map(str::to_owned), tokens)),
        }
        self.budget?;
        let mut estimate = self.spent;
        for (_, model, tokens) in &self.calls {
            estimate.tokens += *tokens;
            if let Some(price) = model.as_deref().and_then(|m| self.price_of(m)) {
                estimate.usd += price.cost(tokens);
            }
        }
        self.check(estimate)
    }

    /// The turn's end: its [`TurnCost`] goes on the result, and the budget is checked.
    pub(crate) fn result(&mut self, result: &mut ResultMessage) -> Option<BudgetReport> {
        self.calls.clear();
        let models = per_model(&result.model_usage);
        let tokens = result.usage.as_ref().map(tokens_of).unwrap_or_default();
        let session_usd = result
            .total_cost_usd
            .unwrap_or_else(|| self.last_total.unwrap_or(0.0));
        let cli_usd = match (result.total_cost_usd, self.last_total) {
            (Some(total), Some(before)) => Some((total - before).max(0.0)),
            // What the CLI carried over is unknown (its `get_usage` answer did not come): the
            // whole running total, which this turn cost at most, so a budget never counts less.
            (Some(total), None) => Some(total.max(0.0)),
            _ => None,
        };
        let priced_usd = self.priced(&models, &tokens);
        self.last_total = Some(session_usd);
        self.last_models = models;
        let cost = TurnCost {
            cli_usd,
            priced_usd,
            tokens,
            session_usd,
        };
        self.spent.add(&cost);
        result.turn_cost = Some(cost);
        self.check(self.spent)
    }

    /// The session ends in a turn with no result: what its model calls used (tokens, priced
    /// when a table is given), counted as a turn; `None` when no call was counted.
    pub(crate) fn unfinished_turn(&mut self) -> Option<TurnCost> {
        if self.calls.is_empty() {
            return None;
        }
        let mut tokens = Tokens::default();
        let mut priced = self.prices.as_ref().map(|_| 0.0);
        for (_, model, used) in std::mem::take(&mut self.calls) {
            tokens += used;
            priced = match (priced, model.as_deref().and_then(|m| self.price_of(m))) {
                (Some(sum), Some(price)) => Some(sum + price.cost(&used)),
                _ => None,
            };
        }
        let cost = TurnCost {
            cli_usd: None,
            priced_usd: priced,
            tokens,
            session_usd: self.last_total.unwrap_or(0.0),
        };
        self.spent.add(&cost);
        Some(cost)
    }

    /// The turn's tokens priced model by model (the growth of each model's running tokens);
    /// a turn whose starting tokens are unknown is priced whole when it used one model.
    fn priced(&self, models: &BTreeMap<String, Tokens>, turn: &Tokens) -> Option<f64> {
        self.prices.as_ref()?;
        if self.last_total.is_none() {
            let [(model, _)] = models.iter().collect::<Vec<_>>()[..] else {
                return None;
            };
            return self.price_of(model).map(|price| price.cost(turn));
        }
        let mut usd = 0.0;
        for (model, now) in models {
            let before = self.last_models.get(model).copied().unwrap_or_default();
            let grown = less(*now, before);
            if grown == Tokens::default() {
                continue;
            }
            usd += self.price_of(model)?.cost(&grown);
        }
        Some(usd)
    }

    fn price_of(&self, model: &str) -> Option<&crate::cost::ModelPrice> {
        self.prices.as_ref()?.price_of(model)
    }

    /// A report when `spent` crosses a level of the budget not reported yet.
    fn check(&mut self, spent: Spent) -> Option<BudgetReport> {
        let budget = self.budget?;
        let level = budget.level(&spent)?;
        if self.reported.is_some_and(|reported| reported >= level) {
            return None;
        }
        self.reported = Some(level);
        Some(BudgetReport {
            scope: BudgetScope::Session,
            level,
            budget,
            spent,
        })
    }
}

/// The part of a `get_usage` answer a baseline needs; the total must be there.
#[derive(serde::Deserialize)]
struct CarriedOver {
    session: CarriedSession,
}

#[derive(serde::Deserialize)]
struct CarriedSession {
    total_cost_usd: f64,
    #[serde(default)]
    model_usage: BTreeMap<String, ModelUsage>,
}

fn tokens_of(usage: &Usage) -> Tokens {
    Tokens {
        input: usage.input_tokens,
        output: usage.output_tokens,
        cache_read: usage.cache_read_input_tokens.unwrap_or(0),
        cache_creation: usage.cache_creation_input_tokens.unwrap_or(0),
    }
}

fn per_model(usage: &BTreeMap<String, ModelUsage>) -> BTreeMap<String, Tokens> {
    usage
        .iter()
        .map(|(model, usage)| {
            let tokens = Tokens {
                input: usage.input_tokens,
                output: usage.output_tokens,
                cache_read: usage.cache_read_input_tokens,
                cache_creation: usage.cache_creation_input_tokens,
            };
            (model.clone(), tokens)
        })
        .collect()
}

fn most(a: Tokens, b: Tokens) -> Tokens {
    Tokens {
        input: a.input.max(b.input),
        output: a.output.max(b.output),
        cache_read: a.cache_read.max(b.cache_read),
        cache_creation: a.cache_creation.max(b.cache_creation),
    }
}

fn less(a: Tokens, b: Tokens) -> Tokens {
    Tokens {
        input: a.input.saturating_sub(b.input),
        output: a.output.saturating_sub(b.output),
        cache_read: a.cache_read.saturating_sub(b.cache_read),
        cache_creation: a.cache_creation.saturating_sub(b.cache_creation),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::ResponseBody;
    use crate::cost::ModelPrice;
    use crate::message::Message;

    /// Results of a real session of CLI 2.1.331 against the test stub: two turns, then two more
    /// after a resume, whose first result carries the earlier total over.
    fn result(
        total: f64,
        input: u64,
        output: u64,
        model_input: u64,
        model_output: u64,
    ) -> ResultMessage {
        let line = format!(
            r#"{{"type":"result","subtype":"success","is_error":false,"num_turns":1,"session_id":"s","total_cost_usd":{total},"usage":{{"input_tokens":{input},"output_tokens":{output},"cache_creation_input_tokens":0,"cache_read_input_tokens":0}},"modelUsage":{{"claude-opus-5-5":{{"inputTokens":{model_input},"outputTokens":{model_output},"cacheReadInputTokens":0,"cacheCreationInputTokens":0,"costUSD":{total}}}}}}}"#
        );
        match Message::parse(&line).unwrap() {
            Message::Result(result) => *result,
            other => panic!("{other:?}"),
        }
    }

    fn opus() -> PriceTable {
        // The stub's model at the price the CLI charged it: 13 in, 6 out = $0.000172.
        PriceTable::new().with("claude-opus-5", ModelPrice::per_million(4.0, 20.0))
    }

    #[test]
    fn each_turn_costs_the_growth_of_the_running_total() {
        let mut spend = SpendTracker::new(Some(opus()), None, false, false);
        let mut first = result(0.000172, 13, 6, 13, 6);
        let mut second = result(0.000344, 13, 6, 26, 12);
        spend.result(&mut first);
        spend.result(&mut second);
        let cost = second.turn_cost.unwrap();
        assert!((cost.cli_usd.unwrap() - 0.000172).abs() < 1e-12, "{cost:?}");
        assert!(
            (cost.priced_usd.unwrap() - 0.000172).abs() < 1e-12,
            "{cost:?}"
        );
        assert!(!cost.disagrees());
        assert_eq!(cost.tokens.total(), 19);
        assert_eq!(spend.spent().turns, 2);
        assert!((spend.spent().usd - 0.000344).abs() < 1e-12);
    }

    #[test]
    fn a_resumed_session_counts_from_what_the_cli_carried_over() {
        // Without the baseline, the first turn's CLI figure is the whole running total, which
        // it cost at most: a budget never counts it as nothing.
        let mut unknown = SpendTracker::new(None, None, true, false);
        let mut first = result(0.000516, 13, 6, 39, 18);
        unknown.result(&mut first);
        assert_eq!(first.turn_cost.as_ref().unwrap().cli_usd, Some(0.000516));
        assert_eq!(unknown.spent().uncosted_turns, 0);
        assert!((unknown.spent().usd - 0.000516).abs() < 1e-12);
        // Priced whole too, since it used one model; the larger figure counts.
        let mut priced = SpendTracker::new(Some(opus()), None, true, false);
        let mut first = result(0.000516, 13, 6, 39, 18);
        priced.result(&mut first);
        let cost = first.turn_cost.unwrap();
        assert!(
            (cost.priced_usd.unwrap() - 0.000172).abs() < 1e-12,
            "{cost:?}"
        );
        assert_eq!(cost.usd(), Some(0.000516));
        // With the baseline the CLI gave, its figure is the turn's.
        let mut known = SpendTracker::new(None, None, true, false);
        assert!(known.needs_baseline());
        // An answer without the total is none.
        let answer = |text: &str| {
            ResponseBody::from_raw(Some(crate::Json::try_from(text.to_owned()).unwrap()))
        };
        known.baseline(&answer(r#"{"session":{}}"#));
        assert!(known.needs_baseline());
        known.baseline(&answer(
            r#"{"session":{"total_cost_usd":0.000344,"model_usage":{"claude-opus-5-5":{"inputTokens":26,"outputTokens":12,"costUSD":0.000344}}}}"#,
        ));
        let mut first = result(0.000516, 13, 6, 39, 18);
        known.result(&mut first);
        let cli = first.turn_cost.unwrap().cli_usd.unwrap();
        assert!((cli - 0.000172).abs() < 1e-12, "{cli}");
    }

    #[test]
    fn a_price_table_that_disagrees_is_seen() {
        let cheap = PriceTable::new().with("claude-opus-5", ModelPrice::per_million(1.0, 5.0));
        let mut spend = SpendTracker::new(Some(cheap), None, false, false);
        let mut first = result(0.172, 13_000, 6_000, 13_000, 6_000);
        spend.result(&mut first);
        assert!(first.turn_cost.unwrap().disagrees());
    }

    #[test]
    fn the_budget_warns_once_then_is_exceeded_once() {
        let budget = Budget::usd(0.0005);
        let mut spend = SpendTracker::new(None, Some(budget), false, false);
        let levels: Vec<Option<BudgetLevel>> = [0.000172, 0.000344, 0.000430, 0.000516, 0.000688]
            .into_iter()
            .map(|total| {
                spend
                    .result(&mut result(total, 13, 6, 0, 0))
                    .map(|r| r.level)
            })
            .collect();
        assert_eq!(
            levels,
            [
                None,
                None,
                Some(BudgetLevel::Warning),
                Some(BudgetLevel::Exceeded),
                None
            ]
        );
    }

    #[test]
    fn a_token_budget_is_checked_during_the_turn() {
        let mut spend = SpendTracker::new(None, Some(Budget::tokens(1_000)), false, false);
        let call = |id: &str, output: u64| {
            let line = format!(
                r#"{{"type":"assistant","message":{{"id":"{id}","model":"claude-opus-5-5","content":[],"usage":{{"input_tokens":600,"output_tokens":{output}}}}},"session_id":"s"}}"#
            );
            match Message::parse(&line).unwrap() {
                Message::Assistant(message) => *message,
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(spend.assistant(&call("m1", 1)), None);
        // The same call's frames are counted once, at their largest.
        assert_eq!(spend.assistant(&call("m1", 150)).map(|r| r.level), None);
        assert_eq!(
            spend.assistant(&call("m1", 250)).map(|r| r.level),
            Some(BudgetLevel::Warning)
        );
        let report = spend.assistant(&call("m2", 1)).expect("over");
        assert_eq!(report.level, BudgetLevel::Exceeded);
        assert_eq!(report.spent.tokens.total(), 1_451);
    }

    /// A turn the session ends without a result still costs what its calls used: tokens always,
    /// dollars with a price table; it counts as a turn of the session.
    #[test]
    fn a_turn_without_a_result_costs_what_its_calls_used() {
        let call = |id: &str| {
            let line = format!(
                r#"{{"type":"assistant","message":{{"id":"{id}","model":"claude-opus-5","content":[],"usage":{{"input_tokens":13,"output_tokens":6}}}},"session_id":"s"}}"#
            );
            match Message::parse(&line).unwrap() {
                Message::Assistant(message) => *message,
                other => panic!("{other:?}"),
            }
        };
        let mut uncounted = SpendTracker::new(None, None, false, false);
        assert_eq!(uncounted.assistant(&call("m1")), None);
        assert_eq!(
            uncounted.unfinished_turn(),
            None,
            "calls are counted only when asked"
        );

        let mut spend = SpendTracker::new(Some(opus()), None, false, true);
        spend.assistant(&call("m1"));
        spend.assistant(&call("m1"));
        spend.assistant(&call("m2"));
        let cost = spend.unfinished_turn().expect("two calls");
        assert_eq!(cost.tokens.total(), 38);
        assert!(
            (cost.priced_usd.unwrap() - 0.000344).abs() < 1e-12,
            "{cost:?}"
        );
        assert_eq!(cost.cli_usd, None);
        assert_eq!(spend.spent().turns, 1);
        assert_eq!(spend.unfinished_turn(), None, "charged once");
        // A result clears the calls: the finished turn is not charged twice.
        spend.assistant(&call("m3"));
        spend.result(&mut result(0.000172, 13, 6, 13, 6));
        assert_eq!(spend.unfinished_turn(), None);
    }

    /// A budget is counted with the larger of the CLI's figure and the priced one (a CLI or
    /// gateway that says 0 does not slip past a dollar budget), a figure that is no amount
    /// counts as none, and token counts that would overflow stay at the most.
    #[test]
    fn budgets_count_the_larger_figure_and_nothing_overflows() {
        let cost = |cli_usd: Option<f64>, priced_usd: Option<f64>, input: u64| TurnCost {
            cli_usd,
            priced_usd,
            tokens: Tokens {
                input,
                ..Tokens::default()
            },
            session_usd: 0.0,
        };
        assert_eq!(cost(Some(0.0), Some(0.5), 1).usd(), Some(0.5));
        assert_eq!(cost(Some(0.7), Some(0.5), 1).usd(), Some(0.7));
        assert_eq!(cost(None, Some(0.5), 1).usd(), Some(0.5));
        let mut spent = Spent::default();
        spent.add(&cost(Some(f64::NAN), None, 1));
        spent.add(&cost(Some(-3.0), None, 1));
        spent.add(&cost(Some(0.25), None, u64::MAX));
        assert_eq!(spent.usd, 0.25);
        assert_eq!(spent.uncosted_turns, 2);
        assert_eq!(spent.tokens.input, u64::MAX);
        assert_eq!(spent.tokens.total(), u64::MAX);
        assert_eq!(
            Budget::tokens(1_000).level(&spent),
            Some(BudgetLevel::Exceeded)
        );
    }
}
