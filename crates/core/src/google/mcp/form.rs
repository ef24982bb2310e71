//! The approval forms Google's MCP servers ask the person to fill in, as data the approval layer can show.
//!
//! A form arrives as an `elicitation/create` request (form mode) inside an `InputRequiredResult`. Everything
//! in it is written by a server and repeated from documents and mail, so it is hostile text: the card shows it
//! escaped (`shown`), and the answer sent back is checked against the form's own schema before it leaves.

use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema, InputRequest, InputResponses};
use serde_json::{Map, Value};

/// One form Google asks the person to fill in before it runs a call.
#[derive(Debug, Clone, PartialEq)]
pub struct GoogleForm {
    /// The key Google gave this request in `inputRequests`; the answer goes back under the same key.
    pub key: String,
    /// Google's message, as Google wrote it.
    pub message: String,
    /// The fields Google asks for (an object of primitive-typed properties, per the MCP spec).
    pub requested_schema: ElicitationSchema,
}

/// What the person answered on a form's card. There is no answer without the person: a timeout is
/// [`FormAnswer::Cancel`], *Deny* is [`FormAnswer::Decline`].
#[derive(Debug, Clone, PartialEq)]
pub enum FormAnswer {
    /// The person filled the form in and approved.
    Accept(Map<String, Value>),
    /// The person refused the action.
    Decline,
    /// The person dismissed the card, or it timed out.
    Cancel,
}

/// What one round of a call to a Google MCP server gave: its result, or forms for the person first.
#[derive(Debug, Clone, PartialEq)]
pub enum Round<T> {
    /// Google ran the call (or refused it in words): the call is over.
    Done(T),
    /// Google asks the person first; the same call is repeated with [`Repeat`].
    AsksPerson {
        /// The forms, in Google's order (usually one).
        forms: Vec<GoogleForm>,
        /// Google's opaque state, sent back unchanged on the repeated call.
        request_state: Option<String>,
    },
}

/// What the repeated call carries: the person's answers, and Google's state unchanged.
#[derive(Debug, Clone, PartialEq)]
pub struct Repeat {
    /// Each form's answer under its key (`inputResponses`).
    pub input_responses: InputResponses,
    /// Google's `requestState`, as it came.
    pub request_state: Option<String>,
}

impl Repeat {
    /// The repeated call's payload from the person's answers, one per form.
    pub fn new(answers: &[(GoogleForm, FormAnswer)], request_state: Option<String>) -> Self {
        let input_responses =
            answers.iter().map(|(form, answer)| (form.key.clone(), answer.to_elicit_result())).collect();
        Self { input_responses, request_state }
    }
}

impl GoogleForm {
    /// The form of one input request, or `None` for a request that is not a form (a URL elicitation,
    /// sampling, roots): Gatehouse answers none of those on the person's behalf.
    pub fn from_input_request(key: &str, request: &InputRequest) -> Option<Self> {
        let InputRequest::Elicitation(elicit) = request else {
            return None;
        };
        match &elicit.params {
            ElicitRequestParams::FormElicitationParams { message, requested_schema, .. } => {
                Some(Self { key: key.to_owned(), message: message.clone(), requested_schema: requested_schema.clone() })
            }
            _ => None,
        }
    }
}

impl FormAnswer {
    /// The `ElicitResult` this answer is sent back as, under the form's key in `inputResponses`.
    pub fn to_elicit_result(&self) -> Value {
        let (action, content) = match self {
            FormAnswer::Accept(content) => (ElicitationAction::Accept, Some(content.clone())),
            FormAnswer::Decline => (ElicitationAction::Decline, None),
            FormAnswer::Cancel => (ElicitationAction::Cancel, None),
        };
        let mut result = Map::new();
        result.insert("action".into(), serde_json::to_value(action).unwrap_or(Value::Null));
        if let Some(content) = content {
            result.insert("content".into(), Value::Object(content));
        }
        Value::Object(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_sent_back_as_elicit_results() {
        let mut content = Map::new();
        content.insert("confirm".into(), Value::Bool(true));
        assert_eq!(
            FormAnswer::Accept(content).to_elicit_result(),
            serde_json::json!({"action": "accept", "content": {"confirm": true}})
        );
        assert_eq!(FormAnswer::Decline.to_elicit_result(), serde_json::json!({"action": "decline"}));
        assert_eq!(FormAnswer::Cancel.to_elicit_result(), serde_json::json!({"action": "cancel"}));
    }

    #[test]
    fn only_form_elicitations_become_forms() {
        let form: InputRequest = serde_json::from_value(serde_json::json!({
            "method": "elicitation/create",
            "params": {"mode": "form", "message": "Send this mail?",
                       "requestedSchema": {"type": "object", "properties": {"confirm": {"type": "boolean"}}}}
        }))
        .expect("a form request parses");
        let parsed = GoogleForm::from_input_request("send", &form).expect("a form");
        assert_eq!(parsed.key, "send");
        assert_eq!(parsed.message, "Send this mail?");
        let url: InputRequest = serde_json::from_value(serde_json::json!({
            "method": "elicitation/create",
            "params": {"mode": "url", "message": "Open this", "url": "https://example.com", "elicitationId": "e1"}
        }))
        .expect("a url request parses");
        assert_eq!(GoogleForm::from_input_request("u", &url), None);
    }
}
