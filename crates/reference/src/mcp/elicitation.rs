//! §2 elicitation bridge: a server's `elicitation/create` during a call becomes one §10
//! `waitFor` request, and the answer goes back inline (the tool is not re-executed).

use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationCapability, FormElicitationCapability, Implementation,
};
use rmcp::service::RequestContext;
use rmcp::{ClientHandler, RoleClient};
use serde_json::{Map, Value};

use crate::suspension::{new_request_id, Answer, Request, WaitFor};

/// The rmcp client handler; advertises elicitation only when a `waitFor` exists.
#[derive(Clone, Default)]
pub struct Bridge {
    /// The host slot from `createToolkit({waitFor})`.
    pub wait_for: Option<WaitFor>,
}

impl ClientHandler for Bridge {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if self.wait_for.is_some() {
            let mut elicitation = ElicitationCapability::new();
            elicitation.form = Some(FormElicitationCapability::new());
            capabilities.elicitation = Some(elicitation);
        }
        let mut info = ClientConfig::default();
        info.capabilities = capabilities;
        info.client_info = Implementation::new("toolnexus-conformance", env!("CARGO_PKG_VERSION"));
        info
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        let Some(wait_for) = self.wait_for.clone() else {
            // Not advertised, so a compliant server never gets here; decline if one does.
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        let params = serde_json::to_value(&request).unwrap_or(Value::Null);
        let answer = wait_for(to_request(&params)).await;
        Ok(to_elicit_result(&answer))
    }
}

/// Form mode ⇒ `kind:"input"` with `data.schema`; URL mode ⇒ `kind:"authorization"` with `url`.
pub fn to_request(params: &Value) -> Request {
    let text = |key: &str| params.get(key).and_then(Value::as_str).map(str::to_string);
    let prompt = text("message").unwrap_or_default();
    if params.get("mode").and_then(Value::as_str) == Some("url") {
        return Request {
            id: new_request_id("elc"),
            kind: "authorization".to_string(),
            prompt,
            url: text("url"),
            data: None,
            expires_at: None,
        };
    }
    let data = params
        .get("requestedSchema")
        .filter(|s| !s.is_null())
        .map(|schema| {
            let mut data = Map::new();
            data.insert("schema".to_string(), schema.clone());
            Value::Object(data)
        });
    Request {
        id: new_request_id("elc"),
        kind: "input".to_string(),
        prompt,
        url: None,
        data,
        expires_at: None,
    }
}

/// `ok` ⇒ accept with `answer.data` (or `{}`); `reason:"declined"` ⇒ decline; else cancel.
pub fn to_elicit_result(answer: &Answer) -> ElicitResult {
    if answer.ok {
        let mut result = ElicitResult::new(ElicitationAction::Accept);
        result.content = Some(
            answer
                .data
                .clone()
                .unwrap_or_else(|| Value::Object(Map::new())),
        );
        return result;
    }
    if answer.reason.as_deref() == Some("declined") {
        ElicitResult::new(ElicitationAction::Decline)
    } else {
        ElicitResult::new(ElicitationAction::Cancel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn form_and_url_modes_map_onto_requests() {
        let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
        let r = to_request(&json!({"mode": "form", "message": "Name?", "requestedSchema": schema}));
        assert_eq!((r.kind.as_str(), r.prompt.as_str()), ("input", "Name?"));
        assert_eq!(r.data, Some(json!({"schema": schema})));
        assert!(r.id.starts_with("elc-"));
        let r = to_request(&json!({"mode": "url", "message": "Sign in", "url": "https://x/y"}));
        assert_eq!(r.kind, "authorization");
        assert_eq!(r.url.as_deref(), Some("https://x/y"));
        assert_eq!(r.data, None);
    }

    #[test]
    fn answers_map_onto_actions() {
        let answer = |ok, data: Option<Value>, reason: Option<&str>| Answer {
            id: "elc-1".into(),
            ok,
            data,
            reason: reason.map(str::to_string),
        };
        let wire = |a: &Answer| serde_json::to_value(to_elicit_result(a)).unwrap();
        assert_eq!(
            wire(&answer(true, Some(json!({"name": "Ada"})), None)),
            json!({"action": "accept", "content": {"name": "Ada"}})
        );
        assert_eq!(
            wire(&answer(true, None, None)),
            json!({"action": "accept", "content": {}})
        );
        assert_eq!(
            wire(&answer(false, None, Some("declined"))),
            json!({"action": "decline"})
        );
        assert_eq!(
            wire(&answer(false, None, Some("timeout"))),
            json!({"action": "cancel"})
        );
        assert_eq!(
            wire(&answer(false, None, None)),
            json!({"action": "cancel"})
        );
    }
}
