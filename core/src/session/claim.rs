//! The claim of a parked CLI (`--await-claim`): where the session is in it, and how the answers
//! to its requests (the overlay ahead of it, `claim_session`, the options behind it) make one
//! outcome.

use crate::control::{
    ClaimInfo, ClaimOption, ClaimRefusal, ClaimRefusalReason, NotApplied, RequestId, ResponseBody,
};
use crate::session::RequestFailure;

/// Where a session stands with respect to claims.
#[derive(Debug)]
pub(crate) enum ClaimState {
    /// The CLI was not started with `--await-claim`.
    NotSpare,
    /// A spare that waits for its claim.
    Parked,
    /// The claim's requests are out.
    Claiming(Box<Claiming>),
    /// The claim's outcome has been reported.
    Done,
}

/// The requests of one claim, and their answers so far.
#[derive(Debug)]
pub(crate) struct Claiming {
    claim: RequestId,
    /// The overlay's keys that decide what the claim starts, sent ahead of it.
    settings_before: Option<RequestId>,
    /// The overlay's keys that follow the claim.
    settings_after: Option<RequestId>,
    /// `set_model`, `set_max_thinking_tokens`.
    options: Vec<(ClaimOption, RequestId)>,
    outstanding: usize,
    info: Option<ClaimInfo>,
    refusal: Option<ClaimRefusal>,
    not_applied: Vec<NotApplied>,
}

impl Claiming {
    pub(crate) fn new(
        claim: RequestId,
        settings_before: Option<RequestId>,
        settings_after: Option<RequestId>,
        options: Vec<(ClaimOption, RequestId)>,
    ) -> Self {
        let outstanding = 1
            + usize::from(settings_before.is_some())
            + usize::from(settings_after.is_some())
            + options.len();
        Claiming {
            claim,
            settings_before,
            settings_after,
            options,
            outstanding,
            info: None,
            refusal: None,
            not_applied: Vec::new(),
        }
    }

    /// Whether `id` is one of the claim's requests.
    pub(crate) fn owns(&self, id: RequestId) -> bool {
        id == self.claim
            || self.settings_before == Some(id)
            || self.settings_after == Some(id)
            || self.options.iter().any(|(_, o)| *o == id)
    }

    /// Take the outcome of one of the claim's requests; once every one is in, the claim's own.
    pub(crate) fn answered(
        &mut self,
        id: RequestId,
        outcome: Result<ResponseBody, RequestFailure>,
    ) -> Option<Result<ClaimInfo, ClaimRefusal>> {
        self.outstanding = self.outstanding.saturating_sub(1);
        if id == self.claim {
            match outcome {
                Ok(body) => self.info = Some(body.parse().unwrap_or_default()),
                Err(failure) => self.refuse(refusal_of(failure)),
            }
        } else if self.settings_before == Some(id) || self.settings_after == Some(id) {
            if let Err(failure) = outcome {
                let message = format!("settings_not_applied: {}", failure_text(&failure));
                // The overlay ahead of the claim stops the claim itself: that refusal is the one
                // to report, before whatever the CLI then said to the claim.
                if self.settings_before == Some(id) {
                    self.refusal = None;
                }
                self.refuse(ClaimRefusal::new(message, None));
            }
        } else if let Some((option, _)) = self.options.iter().find(|(_, o)| *o == id) {
            if let Err(failure) = outcome {
                self.not_applied.push(NotApplied {
                    option: *option,
                    message: failure_text(&failure),
                });
            }
        }
        if self.outstanding > 0 {
            return None;
        }
        Some(match (self.refusal.take(), self.info.take()) {
            (Some(refusal), _) => Err(refusal),
            (None, Some(mut info)) => {
                info.not_applied = std::mem::take(&mut self.not_applied);
                Ok(info)
            }
            (None, None) => Err(ClaimRefusal::new("claim_failed: no answer".into(), None)),
        })
    }

    fn refuse(&mut self, refusal: ClaimRefusal) {
        if self.refusal.is_none() {
            self.refusal = Some(refusal);
        }
    }
}

fn failure_text(failure: &RequestFailure) -> String {
    match failure {
        RequestFailure::Refused { message, .. } => message.clone(),
        other => other.to_string(),
    }
}

fn refusal_of(failure: RequestFailure) -> ClaimRefusal {
    match failure {
        RequestFailure::Refused { message, code } => ClaimRefusal::new(message, code),
        other => ClaimRefusal {
            reason: ClaimRefusalReason::ClaimFailed,
            message: format!("claim_failed: {other}"),
            code: None,
        },
    }
}
