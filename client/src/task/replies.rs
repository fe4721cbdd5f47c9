//! The handles' calls that wait on the session: `connect`, each control request, a spare's
//! claim. The driver answers each one from the session's events, and every one still waiting
//! when the session ends.

use std::collections::HashMap;

use crate::control::{ClaimInfo, ClaimRefusal, RequestId, ResponseBody};
use crate::error::ClaimError;
use crate::error::Error;
use crate::session::RequestFailure;
use crate::task::message_queue::Reply;

/// The calls waiting on the session.
pub(super) struct Replies {
    /// `connect` waits until the session is ready or has failed.
    connect: Option<Reply<Result<(), Error>>>,
    /// Control requests sent, by id.
    requests: HashMap<RequestId, Reply<Result<ResponseBody, Error>>>,
    /// A claim sent to a spare.
    claim: Option<Reply<Result<Box<ClaimInfo>, ClaimError>>>,
}

impl Replies {
    pub(super) fn new(connect: Option<Reply<Result<(), Error>>>) -> Self {
        Replies {
            connect,
            requests: HashMap::new(),
            claim: None,
        }
    }

    /// The session is ready: `connect` returns.
    pub(super) fn ready(&mut self) {
        if let Some(reply) = self.connect.take() {
            let _ = reply.try_send(Ok(()));
        }
    }

    /// The session ended before it was ready, with `error` (none: it was closed): `connect`
    /// returns it. The error comes back when `connect` has returned already, for the stream.
    pub(super) fn connect_failed(&mut self, error: Option<Error>) -> Option<Error> {
        match self.connect.take() {
            Some(reply) => {
                let _ = reply.try_send(Err(error.unwrap_or(Error::Closed)));
                None
            }
            None => error,
        }
    }

    /// A control request went out as `id`.
    pub(super) fn request_sent(
        &mut self,
        id: RequestId,
        reply: Reply<Result<ResponseBody, Error>>,
    ) {
        self.requests.insert(id, reply);
    }

    /// The CLI answered the control request `id`, or it failed.
    pub(super) fn request_done(
        &mut self,
        id: RequestId,
        outcome: Result<ResponseBody, RequestFailure>,
    ) {
        if let Some(reply) = self.requests.remove(&id) {
            let _ = reply.try_send(outcome.map_err(Error::from_failure));
        }
    }

    /// A claim went out to the spare.
    pub(super) fn claim_sent(&mut self, reply: Reply<Result<Box<ClaimInfo>, ClaimError>>) {
        self.claim = Some(reply);
    }

    /// The spare answered the claim.
    pub(super) fn claimed(&mut self, outcome: Result<Box<ClaimInfo>, Box<ClaimRefusal>>) {
        if let Some(reply) = self.claim.take() {
            let _ = reply.try_send(outcome.map_err(ClaimError::Refused));
        }
    }

    /// The session has ended: a claim finds the spare gone, and a request left has no answer.
    /// Failed requests were answered through their events.
    pub(super) fn session_ended(&mut self) {
        if let Some(reply) = self.claim.take() {
            let _ = reply.try_send(Err(ClaimError::SpareExited));
        }
        for (_, reply) in self.requests.drain() {
            let _ = reply.try_send(Err(Error::Closed));
        }
    }
}
