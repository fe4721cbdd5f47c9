//! What sessions cost: tokens and dollars per turn, prices to check the CLI's figure against, and
//! budgets.
//!
//! The CLI reports a session's cost as a running total (`total_cost_usd` of each result, which a
//! resumed session even carries over from the process before). A session started by this SDK
//! turns it into what each turn cost ([`TurnCost`], on
//! [`ResultMessage::turn_cost`](crate::message::ResultMessage::turn_cost)), can price the turn's
//! tokens itself with a [`PriceTable`], and can end itself at a [`Budget`].
//!
//! ```
//! use claude_agent_tokio::cost::{Budget, ModelPrice, PriceTable};
//!
//! let prices = PriceTable::new().with("claude-sonnet-5", ModelPrice::per_million(3.0, 15.0));
//! let budget = Budget { warn_at: 0.5, ..Budget::usd(2.00) };
//! assert_eq!(budget.max_usd, Some(2.00));
//! # let _ = prices;
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::ops::{Add, AddAssign};

/// Tokens of one call, turn or session.
///
/// ```
/// use claude_agent_tokio::cost::Tokens;
///
/// let turn = Tokens { input: 12, output: 7, cache_read: 2048, cache_creation: 0 };
/// assert_eq!(turn.total(), 2067);
/// assert_eq!((turn + turn).output, 14);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tokens {
    /// Input tokens neither read from nor written to the prompt cache.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read: u64,
    /// Input tokens written to the prompt cache.
    pub cache_creation: u64,
}

impl Tokens {
    /// Every token counted: input, output and both kinds of cached input. This is what a token
    /// [`Budget`] counts.
    ///
    /// ```
    /// use claude_agent_tokio::cost::Tokens;
    ///
    /// assert_eq!(Tokens { input: 1, output: 2, cache_read: 3, cache_creation: 4 }.total(), 10);
    /// ```
    pub fn total(&self) -> u64 {
        self.input
            .saturating_add(self.output)
            .saturating_add(self.cache_read)
            .saturating_add(self.cache_creation)
    }
}

/// Saturating: counts from the CLI that would overflow stay at `u64::MAX` (so a token budget is
/// reached, never wrapped past).
///
/// ```
/// use claude_agent_tokio::cost::Tokens;
///
/// let huge = Tokens { input: u64::MAX, ..Tokens::default() };
/// assert_eq!((huge + huge).input, u64::MAX);
/// ```
impl Add for Tokens {
    type Output = Tokens;

    fn add(self, other: Tokens) -> Tokens {
        Tokens {
            input: self.input.saturating_add(other.input),
            output: self.output.saturating_add(other.output),
            cache_read: self.cache_read.saturating_add(other.cache_read),
            cache_creation: self.cache_creation.saturating_add(other.cache_creation),
        }
    }
}

impl AddAssign for Tokens {
    fn add_assign(&mut self, other: Tokens) {
        *self = *self + other;
    }
}

/// What one turn cost, worked out by the session from the CLI's running totals.
///
/// ```
/// use claude_agent_tokio::message::ResultMessage;
///
/// fn show(result: &ResultMessage) {
///     if let Some(cost) = &result.turn_cost {
///         match cost.usd() {
///             Some(usd) => println!("this turn: ${usd:.4}, {} tokens", cost.tokens.total()),
///             None => println!("this turn: {} tokens, cost unknown", cost.tokens.total()),
///         }
///     }
/// }
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TurnCost {
    /// The CLI's figure for this turn, in US dollars: its running total now, less what it was
    /// after the turn before. When the total the turn started from is unknown (the first turn
    /// of a resumed session whose earlier total the CLI did not say), the whole running total:
    /// what the turn cost at most. `None` when the CLI gave no figure (a turn that ended without
    /// a result).
    pub cli_usd: Option<f64>,
    /// This turn's tokens priced by the session's [`PriceTable`]; `None` without a table, or
    /// when a model of the turn is not in it.
    pub priced_usd: Option<f64>,
    /// This turn's tokens (the result's `usage`).
    pub tokens: Tokens,
    /// The CLI's running total for the session, in US dollars (the result's `total_cost_usd`).
    pub session_usd: f64,
}

impl TurnCost {
    /// A turn's cost from its parts: the CLI's figure, the priced one, the tokens and the CLI's
    /// running total. The session works them out from each result; this is for tests of what
    /// reads them (a fleet's ledger, a budget).
    ///
    /// ```
    /// use claude_agent_tokio::cost::{Tokens, TurnCost};
    ///
    /// let cost = TurnCost::new(Some(0.02), Some(0.03), Tokens::default(), 0.02);
    /// assert_eq!(cost.usd(), Some(0.03));
    /// ```
    pub fn new(
        cli_usd: Option<f64>,
        priced_usd: Option<f64>,
        tokens: Tokens,
        session_usd: f64,
    ) -> TurnCost {
        TurnCost {
            cli_usd,
            priced_usd,
            tokens,
            session_usd,
        }
    }

    /// The turn's cost: the larger of the CLI's figure and the priced one, or the one there is.
    /// Budgets count this, so a CLI (or a gateway before the API) that reports less than the
    /// tokens cost at the table's prices, say nothing, cannot keep a turn from being counted.
    ///
    /// ```
    /// # use claude_agent_tokio::message::ResultMessage;
    /// fn dollars(result: &ResultMessage) -> f64 {
    ///     result.turn_cost.as_ref().and_then(|cost| cost.usd()).unwrap_or(0.0)
    /// }
    /// ```
    pub fn usd(&self) -> Option<f64> {
        match (self.cli_usd, self.priced_usd) {
            (Some(cli), Some(priced)) => Some(cli.max(priced)),
            (cli, priced) => cli.or(priced),
        }
    }

    /// Whether the CLI's figure and the priced one differ by more than 1 % (and a hundredth of
    /// a cent): a price table out of date, or a CLI that counts differently. The session logs a
    /// warning when they do (with the client layer's `tracing` feature).
    ///
    /// ```
    /// # use claude_agent_tokio::message::ResultMessage;
    /// fn check(result: &ResultMessage) {
    ///     if let Some(cost) = result.turn_cost.as_ref().filter(|c| c.disagrees()) {
    ///         eprintln!("CLI says ${:?}, the price table ${:?}", cost.cli_usd, cost.priced_usd);
    ///     }
    /// }
    /// ```
    pub fn disagrees(&self) -> bool {
        match (self.cli_usd, self.priced_usd) {
            (Some(cli), Some(priced)) => {
                let gap = (cli - priced).abs();
                gap > 0.0001 && gap > 0.01 * cli.abs().max(priced.abs())
            }
            _ => false,
        }
    }
}

/// What a model's tokens cost, in US dollars per million tokens.
///
/// ```
/// use claude_agent_tokio::cost::ModelPrice;
///
/// let mut sonnet = ModelPrice::per_million(3.0, 15.0);
/// sonnet.cache_read = 0.30;
/// assert_eq!(sonnet.cache_creation, 3.75);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct ModelPrice {
    /// Per million input tokens.
    pub input: f64,
    /// Per million output tokens.
    pub output: f64,
    /// Per million input tokens read from the cache.
    pub cache_read: f64,
    /// Per million input tokens written to the cache.
    pub cache_creation: f64,
}

impl ModelPrice {
    /// Input and output prices per million tokens; cache reads at a tenth of the input price and
    /// cache writes at 1.25 times it, as the Messages API prices its five-minute cache.
    ///
    /// ```
    /// use claude_agent_tokio::cost::ModelPrice;
    ///
    /// let price = ModelPrice::per_million(5.0, 25.0);
    /// assert_eq!((price.cache_read, price.cache_creation), (0.5, 6.25));
    /// ```
    pub fn per_million(input: f64, output: f64) -> ModelPrice {
        ModelPrice {
            input,
            output,
            cache_read: input * 0.1,
            cache_creation: input * 1.25,
        }
    }

    /// What `tokens` cost at this price.
    ///
    /// ```
    /// use claude_agent_tokio::cost::{ModelPrice, Tokens};
    ///
    /// let tokens = Tokens { input: 1_000_000, output: 100_000, ..Tokens::default() };
    /// assert_eq!(ModelPrice::per_million(3.0, 15.0).cost(&tokens), 4.5);
    /// ```
    pub fn cost(&self, tokens: &Tokens) -> f64 {
        (tokens.input as f64 * self.input
            + tokens.output as f64 * self.output
            + tokens.cache_read as f64 * self.cache_read
            + tokens.cache_creation as f64 * self.cache_creation)
            / 1_000_000.0
    }
}

/// Prices by model, to work out a turn's cost from its tokens
/// ([`AgentConfig::prices`](crate::options::AgentConfig::prices)).
///
/// A model is found by its exact name, else by the longest name in the table that starts it
/// (`claude-sonnet-5` prices `claude-sonnet-5-20260101`).
///
/// ```
/// use claude_agent_tokio::cost::{ModelPrice, PriceTable};
///
/// let prices = PriceTable::new()
///     .with("claude-sonnet-5", ModelPrice::per_million(3.0, 15.0))
///     .with("claude-haiku-5", ModelPrice::per_million(1.0, 5.0));
/// assert_eq!(prices.price_of("claude-sonnet-5-20260101").map(|p| p.input), Some(3.0));
/// assert!(prices.price_of("claude-opus-5").is_none());
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PriceTable {
    models: BTreeMap<String, ModelPrice>,
}

impl PriceTable {
    /// An empty table.
    ///
    /// ```
    /// use claude_agent_tokio::cost::PriceTable;
    ///
    /// assert!(PriceTable::new().price_of("claude-sonnet-5").is_none());
    /// ```
    pub fn new() -> PriceTable {
        PriceTable::default()
    }

    /// The table with `model` priced at `price`.
    ///
    /// ```
    /// use claude_agent_tokio::cost::{ModelPrice, PriceTable};
    ///
    /// let prices = PriceTable::new().with("claude-opus-5", ModelPrice::per_million(5.0, 25.0));
    /// assert!(prices.price_of("claude-opus-5").is_some());
    /// ```
    pub fn with(mut self, model: impl Into<String>, price: ModelPrice) -> PriceTable {
        self.models.insert(model.into(), price);
        self
    }

    /// The price of `model`: its own entry, else the longest entry its name starts with.
    ///
    /// ```
    /// use claude_agent_tokio::cost::{ModelPrice, PriceTable};
    ///
    /// let prices = PriceTable::new().with("claude-opus-5", ModelPrice::per_million(5.0, 25.0));
    /// assert_eq!(prices.price_of("claude-opus-5[1m]").map(|p| p.output), Some(25.0));
    /// ```
    pub fn price_of(&self, model: &str) -> Option<&ModelPrice> {
        self.models.get(model).or_else(|| {
            self.models
                .iter()
                .filter(|(name, _)| model.starts_with(name.as_str()))
                .max_by_key(|(name, _)| name.len())
                .map(|(_, price)| price)
        })
    }
}

/// A spending limit: US dollars, tokens ([`Tokens::total`]), or both, with a warning before it.
///
/// Given to one session ([`AgentConfig::budget`](crate::options::AgentConfig::budget)) or to each key
/// of a fleet. Crossing [`Budget::warn_at`] of a limit brings a notice; reaching a limit
/// interrupts the running turn and closes the session, whose stream then ends with an
/// over-budget error carrying a [`BudgetReport`].
///
/// ```
/// use claude_agent_tokio::cost::Budget;
///
/// let both = Budget { max_tokens: Some(2_000_000), ..Budget::usd(5.0) };
/// assert_eq!(both.warn_at, 0.8);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// The most a session (or key) may spend, in US dollars.
    pub max_usd: Option<f64>,
    /// The most tokens it may use.
    pub max_tokens: Option<u64>,
    /// The share of a limit (0 to 1) at which a warning comes; 0.8 by default.
    pub warn_at: f64,
}

impl Budget {
    /// A limit in US dollars, with a warning at 80 %.
    ///
    /// ```
    /// use claude_agent_tokio::cost::Budget;
    ///
    /// assert_eq!(Budget::usd(1.5).max_usd, Some(1.5));
    /// ```
    pub fn usd(max: f64) -> Budget {
        Budget {
            max_usd: Some(max),
            max_tokens: None,
            warn_at: 0.8,
        }
    }

    /// A limit in tokens, with a warning at 80 %.
    ///
    /// ```
    /// use claude_agent_tokio::cost::Budget;
    ///
    /// assert_eq!(Budget::tokens(1_000_000).max_tokens, Some(1_000_000));
    /// ```
    pub fn tokens(max: u64) -> Budget {
        Budget {
            max_usd: None,
            max_tokens: Some(max),
            warn_at: 0.8,
        }
    }

    /// Whether it limits something: a positive, finite dollar figure or a positive token
    /// count, and a warning share above 0 and at most 1.
    ///
    /// ```
    /// use claude_agent_tokio::cost::Budget;
    ///
    /// assert!(Budget::usd(1.0).is_usable());
    /// assert!(!Budget::usd(0.0).is_usable());
    /// assert!(!Budget { warn_at: 1.5, ..Budget::tokens(10) }.is_usable());
    /// ```
    pub fn is_usable(&self) -> bool {
        let usd = self.max_usd.is_none_or(|max| max.is_finite() && max > 0.0);
        let tokens = self.max_tokens.is_none_or(|max| max > 0);
        let some = self.max_usd.is_some() || self.max_tokens.is_some();
        usd && tokens && some && self.warn_at > 0.0 && self.warn_at <= 1.0
    }

    /// Where `spent` stands against this budget: `None` below the warning.
    ///
    /// ```
    /// use claude_agent_tokio::cost::{Budget, BudgetLevel, Spent};
    ///
    /// let budget = Budget::usd(1.0);
    /// let spent = |usd| {
    ///     let mut spent = Spent::default();
    ///     spent.usd = usd;
    ///     spent
    /// };
    /// assert_eq!(budget.level(&spent(0.5)), None);
    /// assert_eq!(budget.level(&spent(0.85)), Some(BudgetLevel::Warning));
    /// assert_eq!(budget.level(&spent(1.0)), Some(BudgetLevel::Exceeded));
    /// ```
    pub fn level(&self, spent: &Spent) -> Option<BudgetLevel> {
        let tokens = spent.tokens.total() as f64;
        let shares = [
            self.max_usd.map(|max| spent.usd / max),
            self.max_tokens.map(|max| tokens / max as f64),
        ];
        let share = shares.into_iter().flatten().fold(0.0_f64, f64::max);
        if share >= 1.0 {
            Some(BudgetLevel::Exceeded)
        } else if share >= self.warn_at {
            Some(BudgetLevel::Warning)
        } else {
            None
        }
    }
}

/// How far a budget is spent ([`Budget::level`]).
///
/// ```
/// use claude_agent_tokio::cost::BudgetLevel;
///
/// assert!(BudgetLevel::Warning < BudgetLevel::Exceeded);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub enum BudgetLevel {
    /// Past the warning share of a limit.
    Warning,
    /// At or past a limit.
    Exceeded,
}

/// What a session, or a fleet's key, has spent.
///
/// ```
/// use claude_agent_tokio::cost::Spent;
///
/// let spent = Spent::default();
/// assert_eq!((spent.usd, spent.turns, spent.uncosted_turns), (0.0, 0, 0));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[non_exhaustive]
pub struct Spent {
    /// US dollars: the sum of the turns' [`TurnCost::usd`].
    pub usd: f64,
    /// Tokens of every turn.
    pub tokens: Tokens,
    /// Turns counted.
    pub turns: u64,
    /// Turns whose cost is unknown (no CLI figure and no price, or a figure that is no amount):
    /// counted in `tokens`, not in `usd`.
    pub uncosted_turns: u64,
}

impl Spent {
    /// Count one turn.
    ///
    /// ```
    /// use claude_agent_tokio::cost::Spent;
    /// # use claude_agent_tokio::message::ResultMessage;
    ///
    /// fn total(results: &[ResultMessage]) -> Spent {
    ///     let mut spent = Spent::default();
    ///     for cost in results.iter().filter_map(|r| r.turn_cost.as_ref()) {
    ///         spent.add(cost);
    ///     }
    ///     spent
    /// }
    /// ```
    pub fn add(&mut self, turn: &TurnCost) {
        self.turns += 1;
        self.tokens += turn.tokens;
        // A figure that is no amount (NaN, infinite, negative) would make every later sum
        // meaningless, and a budget unreachable: such a turn counts as one without a cost.
        match turn.usd().filter(|usd| usd.is_finite() && *usd >= 0.0) {
            Some(usd) => self.usd += usd,
            None => self.uncosted_turns += 1,
        }
    }
}

/// Whose budget was crossed.
///
/// ```
/// use claude_agent_tokio::cost::BudgetScope;
///
/// let scope = BudgetScope::Key("tenant-42".into());
/// assert_eq!(scope.to_string(), "key tenant-42");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BudgetScope {
    /// The session's own ([`AgentConfig::budget`](crate::options::AgentConfig::budget)).
    Session,
    /// A fleet's key, over all its sessions.
    Key(String),
}

impl fmt::Display for BudgetScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BudgetScope::Session => f.write_str("session"),
            BudgetScope::Key(key) => write!(f, "key {key}"),
        }
    }
}

/// A budget crossed: whose, how far, and what was spent.
///
/// ```
/// use claude_agent_tokio::cost::{Budget, BudgetLevel, BudgetReport, BudgetScope, Spent};
///
/// let mut spent = Spent::default();
/// spent.usd = 1.02;
/// let report = BudgetReport {
///     scope: BudgetScope::Session,
///     level: BudgetLevel::Exceeded,
///     budget: Budget::usd(1.0),
///     spent,
/// };
/// assert_eq!(report.to_string(), "session budget exceeded: $1.0200 of $1.0000, 0 tokens");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetReport {
    /// Whose budget.
    pub scope: BudgetScope,
    /// Warning or exceeded.
    pub level: BudgetLevel,
    /// The budget.
    pub budget: Budget,
    /// What was spent when it was crossed.
    pub spent: Spent,
}

impl fmt::Display for BudgetReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.level {
            BudgetLevel::Warning => "nearly spent",
            BudgetLevel::Exceeded => "exceeded",
        };
        write!(f, "{} budget {level}: ${:.4}", self.scope, self.spent.usd)?;
        if let Some(max) = self.budget.max_usd {
            write!(f, " of ${max:.4}")?;
        }
        write!(f, ", {} tokens", self.spent.tokens.total())?;
        if let Some(max) = self.budget.max_tokens {
            write!(f, " of {max}")?;
        }
        Ok(())
    }
}
