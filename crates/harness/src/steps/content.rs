//! SPEC §1B content-part steps (PROTOCOL.md §5.28): one `content_part` request, then the part
//! it made (or the port's construction error) and what the port renders of it.

use serde_json::{Map, Value};
use toolnexus_ports::port::{self, PortError};
use toolnexus_protocol::{Command, TypedResponse};

use super::helpers::{expect_json, unescape};
use super::StepCtx;
use crate::compare::expectation::Kind;
use crate::scenario::state::{fail, fail_as, ScenarioState, StepFailure};

/// What the content-part steps keep: the last `content_part` answer.
#[derive(Default)]
pub(crate) struct ContentState {
    /// The answer's body (`part`, `bytes`, …), or `Err` with the `raised` message.
    answer: Option<Result<Value, String>>,
}

fn answer(st: &mut ScenarioState) -> Result<Result<Value, String>, StepFailure> {
    st.areas
        .get_mut::<ContentState>()
        .answer
        .clone()
        .ok_or_else(|| StepFailure::failed("no content part has been made in this scenario"))
}

/// The part the port made; a construction error fails the step with its message.
fn made(st: &mut ScenarioState) -> Result<Value, StepFailure> {
    match answer(st)? {
        Ok(body) => Ok(body),
        Err(raised) => Err(StepFailure::failed(format!(
            "the port refused to make the part: {raised}"
        ))),
    }
}

step! {
    content_part_made_from: Actions, r#"^a content part is made from:$"# + "JSON `from`",
    "`content_part` (PROTOCOL.md §5.28)",
    |StepCtx { port, st, step, .. }| {
        let from = st.json_doc(step)?;
        let fields = Map::from_iter([("from".to_string(), from)]);
        let got = match port::send_object(port, Command::ContentPart, fields).await {
            Ok((_, TypedResponse::Raised(message))) | Err(PortError::Raised(message)) => {
                Err(message)
            }
            Ok((raw, _)) => Ok(raw),
            Err(e) => return Err(e.into()),
        };
        st.areas.get_mut::<ContentState>().answer = Some(got);
        Ok(())
    }
}

step! {
    content_part_is: Expectations, r#"^the content part is:$"# + "JSON",
    "the made part in its wire form",
    |StepCtx { st, step, .. }| {
        let body = made(st)?;
        let part = st.norm(body.get("part").unwrap_or(&Value::Null));
        expect_json(st, &st.expect_doc(step)?, &part)
    }
}

step! {
    content_part_field_is: Expectations, r#"^the content part's (?P<FIELD>bytes|descriptor|described|placeholder|tokens) is:$"# + "JSON",
    "what the port renders of the part; skipped when its driver gives none (the port has no public function for it)",
    |StepCtx { st, step, arg, .. }| {
        let field = arg.at(1);
        let body = made(st)?;
        let Some(value) = body.get(field.as_str()).cloned() else {
            return Err(StepFailure::Skipped(format!(
                "the driver gives no content part `{field}` (the port exposes none)"
            )));
        };
        expect_json(st, &st.expect_doc(step)?, &st.norm(&value))
    }
}

step! {
    content_part_refused_naming: Expectations, r#"^the content part is refused, naming "(?P<TEXT>.*)"$"#,
    "the port's construction error (`raised`) contains TEXT",
    records Kind::Lenient("contains"),
    |StepCtx { st, arg, .. }| {
        let needle = unescape(&arg.at(1));
        match answer(st)? {
            Err(raised) if raised.contains(&needle) => Ok(()),
            Err(raised) => fail_as(Kind::Lenient("contains"), format!(
                "the construction error does not name {needle:?}: {raised:?}"
            )),
            Ok(body) => fail(format!(
                "expected a construction error naming {needle:?}, the port made {}",
                st.norm(body.get("part").unwrap_or(&Value::Null))
            )),
        }
    }
}

step! {
    content_part_refused: Expectations, r#"^the content part is refused$"#,
    "the port's constructor raised (a typed error, never a broken part)",
    records Kind::Pinned,
    |StepCtx { st, .. }| {
        match answer(st)? {
            Err(_) => Ok(()),
            Ok(body) => fail_as(Kind::Pinned, format!(
                "expected a construction error, the port made {}",
                st.norm(body.get("part").unwrap_or(&Value::Null))
            )),
        }
    }
}

step! {
    content_part_does_not_contain: Expectations, r#"^the content part does not contain "(?P<TEXT>.*)"$"#,
    "absence in the made part's JSON text (placeholders put back first)",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let needle = unescape(&arg.at(1));
        let body = made(st)?;
        let part = st.norm(body.get("part").unwrap_or(&Value::Null)).to_string();
        if part.contains(&needle) {
            fail_as(Kind::Pinned, format!("the part contains {needle:?}: {part}"))
        } else {
            Ok(())
        }
    }
}
