//! Cost: what each turn costs, and a session budget that ends the session.

use super::*;

/// The stub's model at the price the real CLI charges for it (13 input and 6 output tokens cost
/// it $0.000172).
fn stub_prices() -> PriceTable {
    PriceTable::new().with("claude-opus-5", ModelPrice::per_million(4.0, 20.0))
}

/// Each turn's cost against the real CLI: the CLI's figure (its running total's growth)
/// matches the turn's tokens priced, also for the first turn after a resume, whose running
/// total the CLI carries over from the earlier process; the fleet's key counts every turn.
pub async fn turn_costs<R: Runtime>(rt: R) {
    let env = env();
    let fleet = Fleet::default();
    let options = env
        .options
        .clone()
        .price_table(stub_prices())
        .fleet(fleet.member("tenant"));
    let mut costs = Vec::new();
    let client = connected(&rt, options.clone()).await;
    let mut session_id = String::new();
    for turn in ["first question", "second question"] {
        let messages = run_turn(&rt, &client, turn).await;
        let result = only_result(&messages);
        session_id = result.session_id().to_owned();
        costs.push(result.turn_cost.clone().expect("a turn cost"));
    }
    within(&rt, STEP, "close", client.close()).await;
    let resumed = options.session_start(SessionStart::resume(session_id));
    let again = ask(&rt, "third", resumed).await;
    let result = only_result(&again);
    let carried = result.total_cost_usd.expect("a running total");
    costs.push(result.turn_cost.clone().expect("a turn cost"));
    for cost in &costs {
        let cli = cost.cli_usd.expect("the CLI's figure");
        let priced = cost.priced_usd.expect("priced");
        assert!(cli > 0.0 && (cli - priced).abs() < 1e-9, "{costs:?}");
        assert!(!cost.disagrees(), "{cost:?}");
    }
    // The resumed CLI's running total covers all three turns; the third turn cost its own.
    let sum: f64 = costs.iter().filter_map(|cost| cost.cli_usd).sum();
    assert!((carried - sum).abs() < 1e-9, "{carried} vs {costs:?}");
    let spent = fleet.spent("tenant");
    assert_eq!((spent.turns, spent.uncosted_turns), (3, 0));
    assert!((spent.usd - sum).abs() < 1e-9, "{spent:?}");
}

/// A session's budget against the real CLI: a notice when it is nearly spent, then the turn
/// that spends it ends the session with `Error::OverBudget`, and no later prompt runs.
pub async fn session_budget<R: Runtime>(rt: R) {
    let env = env();
    // Three turns of $0.000172 each: the second passes 80 % of $0.0004, the third all of it.
    let options = env.options.clone().budget(Budget::usd(0.0004));
    let client = connected(&rt, options).await;
    let mut items = Vec::new();
    for turn in ["first question", "second question", "third question"] {
        within(&rt, STEP, "send", client.send(turn)).await.unwrap();
        items.extend(collect(&rt, "turn", client.receive_response()).await);
    }
    items.extend(collect(&rt, "the rest", client.receive_messages()).await);
    let warnings: Vec<BudgetLevel> = items
        .iter()
        .filter_map(|item| match item {
            Ok(Message::Notice(notice)) => match &notice.kind {
                NoticeKind::Budget(report) => Some(report.level),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(warnings, [BudgetLevel::Warning], "{items:?}");
    // The interrupt sent as the session closed is failed by the close: it brings no notice.
    let messages: Vec<Message> = items
        .iter()
        .filter_map(|i| i.as_ref().ok().cloned())
        .collect();
    assert_eq!(interrupts_not_applied(&messages), [], "{items:?}");
    let Some(Err(Error::OverBudget(report))) = items.last() else {
        panic!("{items:?}")
    };
    assert_eq!(
        (report.scope.clone(), report.spent.turns),
        (BudgetScope::Session, 3)
    );
    assert!(
        client.send("fourth").await.is_err(),
        "the session is closed"
    );
    assert_eq!(env.stub.main_requests().len(), 3, "no fourth model call");
}
