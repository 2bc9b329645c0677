//! The builtin steps: `select_builtins` and its selection, and `sanitize`.

use serde_json::Value;

use super::helpers::{expect_json, selection, snapshot_json, unescape};
use crate::compare::expectation::Kind;
use crate::scenario::state::fail_as;
use crate::steps::StepCtx;

step! {
    builtins_selected: Actions, r#"^the builtins are selected with:$"# + "JSON config",
    "`select_builtins`",
    |StepCtx { port, st, step, .. }| {
        let config = st.json_doc(step)?;
        st.selection = Some(port.select_builtins(&config).await?);
        Ok(())
    }
}

step! {
    this_value_sanitized: Actions, r#"^this value is sanitized:$"# + "text",
    "`sanitize`",
    |StepCtx { port, st, step, .. }| {
        let value = st.raw_doc(step)?;
        st.sanitized = Some(port.sanitize(&value).await?);
        Ok(())
    }
}

step! {
    selected_builtin_names: Expectations, r#"^the selected builtin names are:$"# + "JSON array",
    "`select_builtins` names",
    |StepCtx { st, step, .. }| {
        let sel = selection(st)?;
        let names: Value = sel
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|t| t.get("name").cloned().unwrap_or(Value::Null))
                    .collect()
            })
            .unwrap_or_default();
        expect_json(st, &st.expect_doc(step)?, &names)
    }
}

step! {
    selected_builtins_match: Expectations, r#"^the selected builtins match:$"# + "JSON",
    "`select_builtins` tools",
    |StepCtx { st, step, .. }| {
        let sel = selection(st)?;
        expect_json(st, &st.expect_doc(step)?, &sel)
    }
}

step! {
    selected_builtins_match_snapshot_name_ignoring_builtin: Expectations, r#"^the selected builtins match snapshot "(?P<NAME>[^"]+)" ignoring builtin descriptions$"#,
    "against a snapshot",
    |StepCtx { env, st, arg, .. }| {
        let sel = selection(st)?;
        snapshot_json(st, env, &arg.at(1), &sel, true, None)
    }
}

// An escaped quote may stand inside X, a bare one may not: the either-or step below
// must not match this pattern too.
step! {
    sanitized_value_is: Expectations, r#"^the sanitized value is "(?P<X>(?:[^"\\]|\\.)*)"$"#,
    "`sanitize`, pinned",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        match &st.sanitized {
            Some(v) if *v == unescape(&arg.at(1)) => Ok(()),
            other => fail_as(Kind::Pinned, format!(
                "expected sanitized value {:?}, got {other:?}",
                unescape(&arg.at(1))
            )),
        }
    }
}

step! {
    sanitized_value_is_either: Expectations, r#"^the sanitized value is "(?P<X>[^"]*)" or "(?P<Y>[^"]*)"$"#,
    "`sanitize`, either reading of SPEC-quoted code (NOTES #27)",
    records Kind::Lenient("one of"),
    |StepCtx { st, arg, .. }| {
        let readings = [unescape(&arg.at(1)), unescape(&arg.at(2))];
        match &st.sanitized {
            Some(v) if readings.contains(v) => Ok(()),
            other => fail_as(Kind::Lenient("one of"), format!(
                "expected sanitized value {:?} or {:?}, got {other:?}",
                readings[0], readings[1]
            )),
        }
    }
}
