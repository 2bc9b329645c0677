//! The toolkit steps: options and `build`, `close`, the tool list, the adapters, and the build
//! answer's statuses, errors and warnings.

use serde_json::{json, Value};

use super::derived;
use super::helpers::{
    adapter, build, escape_ptr, expect_json, live_tools, mentioned, names, snapshot_json, tool,
    with_context,
};
use crate::compare::expectation::Kind;
use crate::scenario::state::{fail, fail_as, StepFailure};
use crate::steps::StepCtx;
use toolnexus_ports::port::PortError;
use toolnexus_ports::secret;
use toolnexus_protocol::ErrorKind;

step! {
    toolkit_options: Setup, r#"^the toolkit options:$"# + "JSON",
    "stores `build` options (see PROTOCOL.md)",
    |StepCtx { st, step, .. }| {
        st.options = Some(st.json_doc(step)?);
        Ok(())
    }
}

step! {
    toolkit_built_with: Setup, r#"^a toolkit built with:$"# + "JSON",
    "stores the options and builds",
    |StepCtx { port, st, step, .. }| {
        st.options = Some(st.json_doc(step)?);
        build(port, st).await
    }
}

step! {
    toolkit_built_no_options: Setup, r#"^a toolkit built with no options$"#,
    "builds with `{}`",
    |StepCtx { port, st, .. }| {
        st.options = Some(json!({}));
        build(port, st).await
    }
}

step! {
    toolkit_built: Setup, r#"^the toolkit is built$"#,
        "builds with the stored options",
        |StepCtx { port, st, .. }| { build(port, st).await }
}

step! {
    toolkit_closed: Actions, r#"^the toolkit is closed$"#,
    "`close`",
    |StepCtx { port, st, .. }| {
        let id = st.toolkit_id()?;
        port.close(&id).await?;
        Ok(())
    }
}

step! {
    toolkit_no_longer_known_port: Expectations, r#"^the toolkit is no longer known to the port$"#,
    "`tools` answers `unknown_toolkit` (after `close`)",
    records Kind::Pinned,
    |StepCtx { port, st, .. }| {
        let id = st.toolkit_id()?;
        match port.tools(&id).await {
            Err(PortError::Driver { kind: ErrorKind::UnknownToolkit, .. }) => {
                Ok(())
            }
            Err(e) if e.is_transport() => fail(e.to_string()),
            other => fail(format!(
                "after close, `tools` for \"{id}\" should answer unknown_toolkit, got {other:?}"
            )),
        }
    }
}

step! {
    tool_names: Expectations, r#"^the tool names are:$"# + "JSON array",
    "`tools()` order, pinned",
    |StepCtx { port, st, step, .. }| {
        let listed = live_tools(port, st).await?;
        expect_json(st, &st.expect_doc(step)?, &names(&listed))
    }
}

step! {
    tool_names_match: Expectations, r#"^the tool names match:$"# + "JSON",
    "`tools()` order against matchers",
    |StepCtx { port, st, step, .. }| {
        let listed = live_tools(port, st).await?;
        expect_json(st, &st.expect_doc(step)?, &names(&listed))
    }
}

step! {
    sorted_tool_names: Expectations, r#"^the sorted tool names are:$"# + "JSON array",
    "the port's sorted `names`",
    |StepCtx { st, step, .. }| {
        let actual = st.built()?.get("names").cloned().unwrap_or(Value::Null);
        expect_json(st, &st.expect_doc(step)?, &actual)
    }
}

step! {
    toolkit_n_tools: Expectations, r#"^the toolkit has (?P<N>\d+) tools$"#,
    "count",
    records Kind::Pinned,
    |StepCtx { port, st, arg, .. }| {
        let listed = live_tools(port, st).await?;
        let n = arg.at(1).parse::<usize>().unwrap_or(0);
        let got = names(&listed).as_array().map_or(0, Vec::len);
        if got == n {
            Ok(())
        } else {
            fail(format!("expected {n} tools, got {got}: {}", names(&listed)))
        }
    }
}

step! {
    toolkit_has_tool: Expectations, r#"^the toolkit has the tool "(?P<X>[^"]+)"$"#,
    "presence",
    records Kind::Pinned,
    |StepCtx { port, st, arg, .. }| {
        let listed = live_tools(port, st).await?;
        let name = arg.at(1);
        if tool(&listed, &name).is_some() {
            Ok(())
        } else {
            fail(format!("no tool \"{name}\"; tools: {}", names(&listed)))
        }
    }
}

step! {
    toolkit_has_no_tool: Expectations, r#"^the toolkit has no tool "(?P<X>[^"]+)"$"#,
    "absence",
    records Kind::Pinned,
    |StepCtx { port, st, arg, .. }| {
        let listed = live_tools(port, st).await?;
        let name = arg.at(1);
        if tool(&listed, &name).is_some() {
            fail(format!("tool \"{name}\" is present but should not be"))
        } else {
            Ok(())
        }
    }
}

step! {
    tool_has_source: Expectations, r#"^the tool "(?P<X>[^"]+)" has source "(?P<S>[^"]+)"$"#,
    "source",
    |StepCtx { port, st, arg, .. }| {
        let listed = live_tools(port, st).await?;
        let name = arg.at(1);
        let t = tool(&listed, &name)
            .ok_or_else(|| StepFailure::failed(format!("no tool \"{name}\"")))?;
        expect_json(st, &json!(arg.at(2)), t.get("source").unwrap_or(&Value::Null))
    }
}

step! {
    tool_matches: Expectations, r#"^the tool "(?P<X>[^"]+)" matches:$"# + "JSON",
    "the tool's `{name, description, inputSchema, source}`",
    |StepCtx { port, st, step, arg, .. }| {
        let listed = live_tools(port, st).await?;
        let name = arg.at(1);
        let t = tool(&listed, &name)
            .ok_or_else(|| StepFailure::failed(format!("no tool \"{name}\"")))?;
        let actual = st.norm(t);
        expect_json(st, &st.expect_doc(step)?, &actual)
    }
}

step! {
    format_adapter_output_matches: Expectations, r#"^the "(?P<FORMAT>openai|anthropic|gemini)" adapter output matches:$"# + "JSON",
    "`adapter` for openai, anthropic or gemini",
    |StepCtx { port, st, step, arg, .. }| {
        let actual = adapter(port, st, &arg.at(1)).await?;
        expect_json(st, &st.expect_doc(step)?, &actual)
    }
}

step! {
    format_adapter_output_matches_snapshot_name_without: Expectations, r#"^the "(?P<FORMAT>openai|anthropic|gemini)" adapter output matches snapshot "(?P<NAME>[^"]+)"( without the skill tool)?( ignoring builtin descriptions)?$"#,
    "against a snapshot; `without the skill tool` drops the snapshot's `skill` entry (a toolkit built without skills), `ignoring builtin descriptions` blanks builtin tool/property descriptions and `additionalProperties`",
    |StepCtx { port, env, st, arg, .. }| {
        let actual = adapter(port, st, &arg.at(1)).await?;
        let drop = (!arg.at(3).is_empty()).then_some("skill");
        snapshot_json(st, env, &arg.at(2), &actual, !arg.at(4).is_empty(), drop)
    }
}

step! {
    three_adapters_list_tools_toolkit_order: Expectations, r#"^the three adapters list the tools in the toolkit's order$"#,
    "openai, anthropic and gemini names equal `tools()` order; gemini is one element",
    |StepCtx { port, st, .. }| {
        let order = names(&live_tools(port, st).await?);
        let openai = adapter(port, st, "openai").await?;
        let anthropic = adapter(port, st, "anthropic").await?;
        let gemini = adapter(port, st, "gemini").await?;
        let pick = |v: &Value, ptr: &str| -> Value {
            Value::Array(
                v.as_array()
                    .map(|a| {
                        a.iter()
                            .map(|e| e.pointer(ptr).cloned().unwrap_or(Value::Null))
                            .collect()
                    })
                    .unwrap_or_default(),
            )
        };
        expect_json(st, &order, &pick(&openai, "/function/name"))?;
        expect_json(st, &order, &pick(&anthropic, "/name"))?;
        let decls = gemini
            .pointer("/0/functionDeclarations")
            .cloned()
            .unwrap_or(Value::Null);
        if gemini.as_array().map(Vec::len) != Some(1) {
            return fail(format!(
                "gemini output must be one element wrapping all declarations, got {gemini}"
            ));
        }
        expect_json(st, &order, &pick(&decls, "/name"))
    }
}

step! {
    status_source: Expectations, r#"^the status of "(?P<SOURCE>[^"]+)" is "(?P<S>[^"]+)"$"#,
    "`statuses`",
    |StepCtx { st, arg, .. }| {
        let found = st
            .built()?
            .pointer(&format!("/statuses/{}", escape_ptr(&arg.at(1))))
            .cloned();
        if found.is_none() && arg.at(1) == "builtin" {
            return Err(derived::skipped(derived::BUILTIN_STATUS));
        }
        let actual = found.unwrap_or(Value::Null);
        expect_json(st, &json!(arg.at(2)), &actual).map_err(|e| {
            with_context(
                e,
                &format!(
                    "statuses: {}",
                    st.built()
                        .map(|b| b["statuses"].to_string())
                        .unwrap_or_default()
                ),
            )
        })
    }
}

step! {
    no_status_for_source: Expectations, r#"^there is no status for "(?P<SOURCE>[^"]+)"$"#,
    "`statuses` has no entry for SOURCE",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        match st
            .built()?
            .pointer(&format!("/statuses/{}", escape_ptr(&arg.at(1))))
        {
            Some(v) => fail(format!("expected no status for \"{}\", got {v}", arg.at(1))),
            None => Ok(()),
        }
    }
}

step! {
    no_errors: Expectations, r#"^there are no errors$"#,
    "`errors` is empty",
    records Kind::Pinned,
    |StepCtx { st, .. }| {
        let errors = derived::built(st, "errors", derived::ERRORS)?.clone();
        if errors.as_object().is_some_and(|m| m.is_empty()) {
            Ok(())
        } else {
            fail(format!("expected no errors, got {}", st.norm(&errors)))
        }
    }
}

step! {
    error_mentions_text: Expectations, r#"^an error mentions "(?P<TEXT>[^"]+)"$"#,
        "some entry of `errors` contains TEXT (lenient)",
        records Kind::Lenient("contains"),
        |StepCtx { st, arg, .. }| {
            derived::built(st, "errors", derived::ERRORS)?;
            mentioned(st, "errors", "error", &arg.at(1))
        }
}

step! {
    error_key_mentions_text: Expectations, r#"^the error for "(?P<KEY>[^"]+)" mentions "(?P<TEXT>[^"]+)"$"#,
    "`errors`'s entry for KEY contains TEXT (lenient)",
    records Kind::Lenient("contains"),
    |StepCtx { st, arg, .. }| {
        let errors = st.norm(derived::built(st, "errors", derived::ERRORS)?);
        match errors.get(arg.at(1)).and_then(Value::as_str) {
            Some(text) if text.contains(&arg.at(2)) => Ok(()),
            _ => fail_as(Kind::Lenient("contains"), format!("expected an error for \"{}\" mentioning \"{}\"; errors: {errors}", arg.at(1), arg.at(2))),
        }
    }
}

step! {
    an_error_for_key: Expectations, r#"^there is an error for "(?P<KEY>[^"]+)"$"#,
    "`errors` has a non-empty entry for KEY (its wording is the port's)",
    records Kind::Lenient("non-empty"),
    |StepCtx { st, arg, .. }| {
        let errors = st.norm(derived::built(st, "errors", derived::ERRORS)?);
        match errors.get(arg.at(1)).and_then(Value::as_str) {
            Some(text) if !text.trim().is_empty() => Ok(()),
            _ => fail_as(Kind::Lenient("non-empty"), format!("expected a non-empty error for \"{}\"; errors: {errors}", arg.at(1))),
        }
    }
}

step! {
    warning_mentions_text: Expectations, r#"^a warning mentions "(?P<TEXT>[^"]+)"$"#,
        "the build's `warnings` (free-form strings; lenient)",
        records Kind::Lenient("contains"),
        |StepCtx { st, arg, .. }| {
            derived::built(st, "warnings", derived::WARNINGS)?;
            mentioned(st, "warnings", "warning", &arg.at(1))
        }
}

step! {
    a_warning: Expectations, r#"^there is a warning$"#,
    "the build's `warnings` has a non-empty entry (where the SPEC says \"warn\" but gives no words)",
    records Kind::Lenient("non-empty"),
    |StepCtx { st, .. }| {
        let warnings = st.norm(derived::built(st, "warnings", derived::WARNINGS)?);
        let some = warnings
            .as_array()
            .is_some_and(|a| a.iter().any(|w| w.as_str().is_some_and(|s| !s.trim().is_empty())));
        if some {
            Ok(())
        } else {
            fail_as(Kind::Lenient("non-empty"), format!("expected a warning; warnings: {warnings}"))
        }
    }
}

step! {
    build_took_less_than_n_ms: Expectations, r#"^the build took less than (?P<N>\d+) ms$"#,
    "the last `build` request's round trip (a bound, not a benchmark: it tells a bounded failure from a hang)",
    records Kind::UpperBound,
    |StepCtx { st, arg, .. }| {
        let bound: u128 = arg.at(1).parse().unwrap_or(0);
        match st.build_ms {
            Some(ms) if ms < bound => Ok(()),
            Some(ms) => fail_as(Kind::UpperBound, format!(
                "the build took {ms} ms, more than {bound} ms"
            )),
            None => fail("no toolkit has been built in this scenario"),
        }
    }
}

step! {
    nothing_port_reported_mentions_secret: Expectations, r#"^nothing the port reported mentions the secret$"#,
    "the build answer, every tool result and the MCP inventory do not contain the canary secret",
    records Kind::Pinned,
    |StepCtx { st, .. }| {
        let Some(secret) = secret::current() else {
            return fail(format!(
                "{} is not set, so there is nothing to look for",
                secret::SECRET_VAR
            ));
        };
        let answers = [
            ("the build answer", st.built.clone()),
            ("the MCP inventory", st.mcp_inventory.clone()),
        ];
        let mut leaks: Vec<&str> = answers
            .iter()
            .filter(|(_, v)| v.as_ref().is_some_and(|v| v.to_string().contains(&secret)))
            .map(|(what, _)| *what)
            .collect();
        if st.answers.iter().any(|v| v.to_string().contains(&secret)) {
            leaks.push("a tool result");
        }
        if leaks.is_empty() {
            Ok(())
        } else {
            // Never print the secret itself: the report would then leak it.
            fail_as(Kind::Pinned, format!(
                "the secret appears in {}",
                leaks.join(", ")
            ))
        }
    }
}
