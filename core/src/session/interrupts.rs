//! Interrupts the CLI accepted but did not apply: one sent while no turn ran, and one whose
//! turn ended anyway (it finished before the interrupt reached it).

use crate::control::RequestId;
use crate::message::InterruptNotApplied;

/// The interrupts the session sent, and how the turns they were sent into ended.
#[derive(Debug, Default)]
pub(crate) struct InterruptWatch {
    /// Results seen so far.
    results: u64,
    /// Interrupts sent and not settled yet.
    asked: Vec<Asked>,
}

#[derive(Debug)]
struct Asked {
    id: RequestId,
    /// A turn ran when it was sent.
    running: bool,
    /// `results` when it was sent.
    results_before: u64,
    /// How the first result after it ended: interrupted or not.
    first_result_interrupted: Option<bool>,
    /// The CLI answered it with success.
    accepted: bool,
}

impl InterruptWatch {
    /// An interrupt went out as request `id` (`running`: while a turn ran).
    pub(crate) fn sent(&mut self, id: RequestId, running: bool) {
        self.asked.push(Asked {
            id,
            running,
            results_before: self.results,
            first_result_interrupted: None,
            accepted: false,
        });
    }

    /// The CLI answered request `id` (`accepted`: with success; `running`: a turn runs now). An
    /// accepted interrupt that had no turn to stop, or whose turn already ended without being
    /// interrupted, was not applied.
    pub(crate) fn answered(
        &mut self,
        id: RequestId,
        accepted: bool,
        running: bool,
    ) -> Option<InterruptNotApplied> {
        let at = self.asked.iter().position(|asked| asked.id == id)?;
        let asked = &mut self.asked[at];
        asked.accepted = accepted;
        let outcome = match asked.first_result_interrupted {
            _ if !accepted => None,
            None if !asked.running && !running => Some(InterruptNotApplied::NoTurnRunning),
            // The turn it was sent into has not ended yet: its result says.
            None => return None,
            Some(false) => Some(InterruptNotApplied::TurnEndedAnyway),
            Some(true) => None,
        };
        self.asked.remove(at);
        outcome
    }

    /// A turn ended with a result (`interrupted`: an interrupt ended it): the interrupts it
    /// settles; `Some` when one of them was accepted and not applied.
    pub(crate) fn turn_ended(&mut self, interrupted: bool) -> Option<InterruptNotApplied> {
        let before = self.results;
        self.results += 1;
        let mut missed = None;
        self.asked.retain_mut(|asked| {
            if asked.results_before == before && asked.first_result_interrupted.is_none() {
                asked.first_result_interrupted = Some(interrupted);
            }
            match (asked.accepted, asked.first_result_interrupted) {
                (true, Some(false)) => {
                    missed = Some(InterruptNotApplied::TurnEndedAnyway);
                    false
                }
                (true, Some(true)) => false,
                _ => true,
            }
        });
        missed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u64) -> RequestId {
        RequestId::from_raw(n)
    }

    #[test]
    fn an_interrupt_with_no_turn_running_is_not_applied() {
        let mut watch = InterruptWatch::default();
        watch.sent(id(1), false);
        assert_eq!(
            watch.answered(id(1), true, false),
            Some(InterruptNotApplied::NoTurnRunning)
        );
    }

    #[test]
    fn an_interrupt_that_ends_its_turn_is_applied_whichever_comes_first() {
        let mut watch = InterruptWatch::default();
        watch.sent(id(1), true);
        assert_eq!(watch.answered(id(1), true, true), None);
        assert_eq!(watch.turn_ended(true), None);
        // The result before the answer.
        watch.sent(id(2), true);
        assert_eq!(watch.turn_ended(true), None);
        assert_eq!(watch.answered(id(2), true, false), None);
        assert!(watch.asked.is_empty());
    }

    #[test]
    fn a_turn_that_ends_anyway_did_not_apply_the_interrupt() {
        let mut watch = InterruptWatch::default();
        watch.sent(id(1), true);
        assert_eq!(watch.answered(id(1), true, true), None);
        assert_eq!(
            watch.turn_ended(false),
            Some(InterruptNotApplied::TurnEndedAnyway)
        );
        // The result before the answer.
        watch.sent(id(2), true);
        assert_eq!(watch.turn_ended(false), None);
        assert_eq!(
            watch.answered(id(2), true, false),
            Some(InterruptNotApplied::TurnEndedAnyway)
        );
    }

    #[test]
    fn a_refused_or_failed_interrupt_is_no_notice() {
        let mut watch = InterruptWatch::default();
        watch.sent(id(1), true);
        assert_eq!(watch.answered(id(1), false, true), None);
        assert_eq!(watch.answered(id(9), true, false), None, "not an interrupt");
        assert!(watch.asked.is_empty());
    }
}
