//! [`ApiError`]: how the CLI classifies a Messages API call that failed.

use crate::unknown_name::wire_name_traits;
use crate::UnknownName;

/// How the CLI classified a failed Messages API call: the `error` of the synthetic
/// [`AssistantMessage`](crate::message::AssistantMessage) it writes in place of the model's
/// reply, which a turn that gave up ends with (and [`ResultError::api_error`] carries).
///
/// [`ResultError::api_error`]: crate::session::ResultError::api_error
///
/// ```
/// use claude_agent_tokio::message::{ApiError, Message};
///
/// // What the CLI wrote after the API refused a request with HTTP 429.
/// let line = r#"{"type":"assistant","message":{"id":"m","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"API Error: 429 slow down"}]},"error":"rate_limit","is_api_error_message":true,"api_error_status":429,"api_error_type":"rate_limit_error","parent_tool_use_id":null,"session_id":"s","uuid":"u"}"#;
/// let Message::Assistant(reply) = Message::parse(line).unwrap() else { panic!("not assistant") };
/// assert!(reply.is_api_error_message);
/// assert_eq!(reply.error, Some(ApiError::RateLimit));
/// assert_eq!((reply.api_error_status, reply.api_error_type.as_deref()), (Some(429), Some("rate_limit_error")));
/// assert!(ApiError::RateLimit.may_pass_on_retry());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ApiError {
    /// `authentication_failed`: the API key or sign-in was refused.
    AuthenticationFailed,
    /// `oauth_org_not_allowed`: the sign-in's organization may not use this.
    OauthOrgNotAllowed,
    /// `account_on_hold`: the account is on hold.
    AccountOnHold,
    /// `verification_required`: the account must be verified first.
    VerificationRequired,
    /// `billing_error`: a billing problem (credit, payment).
    BillingError,
    /// `rate_limit`: too many requests (HTTP 429).
    RateLimit,
    /// `overloaded`: the API is overloaded (HTTP 529).
    Overloaded,
    /// `invalid_request`: the request was refused as invalid.
    InvalidRequest,
    /// `model_not_found`: the model does not exist or is not available.
    ModelNotFound,
    /// `server_error`: the API failed (HTTP 5xx).
    ServerError,
    /// `max_output_tokens`: the reply hit the output token limit.
    MaxOutputTokens,
    /// `cloud_credential_error`: the cloud provider's credentials failed (Bedrock, Vertex).
    CloudCredentialError,
    /// `unknown`: the CLI could not classify the failure (the status and type say more).
    Unknown,
    /// A kind this crate does not know, as the CLI named it.
    Other(UnknownName),
}

/// Every known kind and its wire name.
const NAMES: [(ApiError, &str); 13] = [
    (ApiError::AuthenticationFailed, "authentication_failed"),
    (ApiError::OauthOrgNotAllowed, "oauth_org_not_allowed"),
    (ApiError::AccountOnHold, "account_on_hold"),
    (ApiError::VerificationRequired, "verification_required"),
    (ApiError::BillingError, "billing_error"),
    (ApiError::RateLimit, "rate_limit"),
    (ApiError::Overloaded, "overloaded"),
    (ApiError::InvalidRequest, "invalid_request"),
    (ApiError::ModelNotFound, "model_not_found"),
    (ApiError::ServerError, "server_error"),
    (ApiError::MaxOutputTokens, "max_output_tokens"),
    (ApiError::CloudCredentialError, "cloud_credential_error"),
    (ApiError::Unknown, "unknown"),
];

impl ApiError {
    /// The kind named `name`; unknown names become [`ApiError::Other`].
    ///
    /// ```
    /// use claude_agent_tokio::message::ApiError;
    ///
    /// assert_eq!(ApiError::from_name("overloaded"), ApiError::Overloaded);
    /// ```
    pub fn from_name(name: &str) -> Self {
        NAMES.iter().find(|(_, known)| *known == name).map_or_else(
            || ApiError::Other(UnknownName::new(name)),
            |(kind, _)| kind.clone(),
        )
    }

    /// The kind's wire name.
    ///
    /// ```
    /// use claude_agent_tokio::message::ApiError;
    ///
    /// assert_eq!(ApiError::BillingError.as_str(), "billing_error");
    /// ```
    pub fn as_str(&self) -> &str {
        match self {
            ApiError::Other(name) => name.as_str(),
            known => NAMES
                .iter()
                .find(|(kind, _)| kind == known)
                .map_or("", |(_, name)| name),
        }
    }

    /// Whether the same request may pass later, with nothing changed: rate limits, overload and
    /// server errors. The others need a change first (credentials, billing, the request, the
    /// model).
    ///
    /// ```
    /// use claude_agent_tokio::message::ApiError;
    ///
    /// assert!(ApiError::Overloaded.may_pass_on_retry());
    /// assert!(!ApiError::AuthenticationFailed.may_pass_on_retry());
    /// ```
    pub fn may_pass_on_retry(&self) -> bool {
        matches!(
            self,
            ApiError::RateLimit | ApiError::Overloaded | ApiError::ServerError
        )
    }
}

wire_name_traits!(ApiError);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_kind_round_trips_through_its_wire_name() {
        for (kind, name) in &NAMES {
            assert_eq!(kind.as_str(), *name);
            assert_eq!(&ApiError::from_name(name), kind);
            let back: ApiError = serde_json::from_str(&format!("\"{name}\"")).unwrap();
            assert_eq!(&back, kind);
        }
        assert_eq!(ApiError::from_name("newer").as_str(), "newer");
    }
}
