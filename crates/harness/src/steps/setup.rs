//! Setup around the port: files, directories and symlinks, mock A2A agents and a local HTTP
//! server, and checks on what the port left on disk, sent over HTTP or left running.

use super::helpers::{expect_json, expect_text, unescape, write_file};
use crate::compare::expectation::Kind;
use crate::scenario::state::{fail, fail_as, StepFailure};
use crate::scenario::surroundings;
use crate::steps::StepCtx;
use toolnexus_ports::mock_launch;

step! {
    file_path_containing: Setup, r#"^a file "(?P<PATH>[^"]+)" containing:$"# + "text",
    "writes the file (parents created)",
    |StepCtx { st, step, arg, .. }| {
        let path = st.path(&arg.at(1))?;
        let body = st.expand(&st.raw_doc(step)?)?;
        write_file(&path, body.as_bytes())
    }
}

step! {
    file_path_containing_invalid_utf_8: Setup, r#"^a file "(?P<PATH>[^"]+)" containing invalid UTF-8$"#,
    "writes a SKILL.md-shaped file with invalid bytes",
    |StepCtx { st, arg, .. }| {
        let path = st.path(&arg.at(1))?;
        write_file(&path, b"---\nname: bad\xff\xfe\n---\nbody \xc3\x28\n")
    }
}

step! {
    file_path_containing_utf_8_byte_order: Setup, r#"^a file "(?P<PATH>[^"]+)" containing a UTF-8 byte-order mark and:$"# + "text",
    "writes the bytes EF BB BF, then the text (parents created)",
    |StepCtx { st, step, arg, .. }| {
        // An invisible U+FEFF in a feature file would be unreviewable: the step adds it.
        let path = st.path(&arg.at(1))?;
        let body = st.expand(&st.raw_doc(step)?)?;
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend_from_slice(body.as_bytes());
        write_file(&path, &bytes)
    }
}

step! {
    file_path_containing_text: Setup, r#"^a file "(?P<PATH>[^"]+)" containing "(?P<TEXT>.*)"$"#,
    "writes the file, `\\n`, `\\t` and `\\\"` unescaped (for a tab a doc string would hide)",
    |StepCtx { st, arg, .. }| {
        let path = st.path(&arg.at(1))?;
        let body = st.expand(&unescape(&arg.at(2)))?;
        write_file(&path, body.as_bytes())
    }
}

step! {
    n_files_path_containing_text: Setup, r#"^(?P<N>\d+) files "(?P<PATH>[^"]+)" containing "(?P<TEXT>.*)"$"#,
    "writes N files; `{n}` in PATH becomes 001, 002, …",
    |StepCtx { st, arg, .. }| {
        // `{n}` in the name becomes 001, 002, … so the files sort in creation order.
        let count = arg.at(1).parse::<usize>().unwrap_or(0);
        let text = unescape(&arg.at(3));
        for n in 1..=count {
            let path = st.path(&arg.at(2).replace("{n}", &format!("{n:03}")))?;
            write_file(&path, text.as_bytes())?;
        }
        Ok(())
    }
}

step! {
    directory_path: Setup, r#"^a directory "(?P<PATH>[^"]+)"$"#,
    "creates it",
    |StepCtx { st, arg, .. }| {
        let path = st.path(&arg.at(1))?;
        std::fs::create_dir_all(&path)
            .or_else(|e| fail(format!("cannot create {}: {e}", path.display())))
    }
}

step! {
    symlink_link_pointing_target: Setup, r#"^a symlink "(?P<LINK>[^"]+)" pointing to "(?P<TARGET>[^"]+)"$"#,
    "creates a symlink",
    |StepCtx { st, arg, .. }| {
        let link = st.path(&arg.at(1))?;
        let target = st.path(&arg.at(2))?;
        if let Some(parent) = link.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        std::os::unix::fs::symlink(&target, &link)
            .or_else(|e| fail(format!("cannot symlink {}: {e}", link.display())))
    }
}

step! {
    files_under_dir_recorded: Setup, r#"^the files under "(?P<DIR>[^"]+)" are recorded$"#,
    "keeps every file's bytes under DIR, to compare later",
    |StepCtx { st, arg, .. }| {
        let dir = st.path(&arg.at(1))?;
        let tree = surroundings::record_tree(&dir).map_err(StepFailure::failed)?;
        st.recorded = Some((dir, tree));
        Ok(())
    }
}

step! {
    mock_a2a_agent_name_runs_file: Setup, r#"^a mock A2A agent(?: "(?P<NAME>[^"]+)")? runs "(?P<FILE>[^"]+)"$"#,
    "starts `{{BIN}} mock a2a --scenario {{MOCKS}}/a2a/FILE`; `{{A2A}}` (or `{{A2A:NAME}}`) is its base URL, its card at `…/.well-known/agent-card.json`; stopped when the scenario ends",
    |StepCtx { env, st, arg, .. }| {
        let scenario = env.mocks.join("a2a").join(arg.at(2));
        let agent = mock_launch::a2a(&env.mock_bin, &scenario)
            .await
            .map_err(StepFailure::failed)?;
        let placeholder = match arg.opt(1) {
            Some(name) => format!("{{{{A2A:{}}}}}", name),
            None => "{{A2A}}".to_string(),
        };
        st.placeholders.add_text(&placeholder, &agent.url);
        st.mocks.push(agent);
        Ok(())
    }
}

step! {
    http_server_answers: Setup, r#"^an HTTP server answers:$"# + r#"JSON `{"GET /path": {status?, body?, contentType?, headers?, delayMs?}}`"#,
    "starts a local server (127.0.0.1, ephemeral port); `{{HTTP}}` is its base URL",
    |StepCtx { st, step, .. }| {
        let routes = st.json_doc(step)?;
        let server = surroundings::http_server(&routes)
            .await
            .map_err(StepFailure::failed)?;
        st.placeholders.add_text("{{HTTP}}", &server.uri());
        st.http = Some(server);
        Ok(())
    }
}

step! {
    file_path_now_contains: Expectations, r#"^the file "(?P<PATH>[^"]+)" now contains:$"# + "text",
    "the file's bytes, pinned",
    |StepCtx { st, step, arg, .. }| {
        let path = st.path(&arg.at(1))?;
        let bytes = std::fs::read(&path)
            .map_err(|e| StepFailure::failed(format!("cannot read {}: {e}", path.display())))?;
        expect_text(st, &st.raw_doc(step)?, &String::from_utf8_lossy(&bytes))
    }
}

step! {
    file_path_does_not_exist: Expectations, r#"^the file "(?P<PATH>[^"]+)" does not exist$"#,
    "absence on disk",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let path = st.path(&arg.at(1))?;
        if path.symlink_metadata().is_ok() {
            fail(format!(
                "{} exists",
                st.placeholders.normalise_text(&path.to_string_lossy())
            ))
        } else {
            Ok(())
        }
    }
}

step! {
    files_under_dir_unchanged: Expectations, r#"^the files under "(?P<DIR>[^"]+)" are unchanged$"#,
    "byte-identical to when they were recorded (nothing created, removed or changed)",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let dir = st.path(&arg.at(1))?;
        let Some((recorded_dir, before)) = st.recorded.as_ref() else {
            return fail("no files were recorded in this scenario");
        };
        if *recorded_dir != dir {
            return fail(format!(
                "the files recorded were under {}",
                recorded_dir.display()
            ));
        }
        let after = surroundings::record_tree(&dir).map_err(StepFailure::failed)?;
        match surroundings::tree_difference(before, &after) {
            None => Ok(()),
            Some(d) => fail_as(Kind::Pinned, format!("files changed: {d}")),
        }
    }
}

step! {
    http_server_last_request_matches: Expectations, r#"^the HTTP server's last request matches:$"# + "JSON",
    "the last request the local HTTP server got, as `{method, path, query, headers, body, json?}` (query decoded, header names lower case, `json` when the body parses); the canary secret reads `{{SECRET}}`",
    |StepCtx { st, step, .. }| {
        let expected = st.expect_doc(step)?;
        let server = st.http.as_ref().ok_or_else(|| {
            StepFailure::Failed("no HTTP server runs in this scenario".into())
        })?;
        let last = surroundings::last_request(server)
            .await
            .ok_or_else(|| StepFailure::Failed("the HTTP server received no request".into()))?;
        expect_json(st, &expected, &st.norm(&last))
    }
}

step! {
    process_whose_pid_path_gone: Expectations, r#"^the process whose pid is in "(?P<PATH>[^"]+)" is gone$"#,
    "the process (e.g. a backgrounded grandchild) has exited, waiting up to 3 s",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let path = st.path(&arg.at(1))?;
        // Polling sleeps; on a blocking thread it cannot stall other scenarios' timers.
        let within = std::time::Duration::from_secs(3);
        tokio::task::spawn_blocking(move || surroundings::process_gone(&path, within))
            .await
            .unwrap_or_else(|e| Err(format!("the process check failed: {e}")))
            .map_err(StepFailure::failed)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::{file_path_containing_text, file_path_now_contains};
    use crate::scenario::features::StepSpec;
    use crate::scenario::state::{Env, ScenarioState, StepFailure};
    use crate::steps::StepDef;
    use toolnexus_ports::inprocess::InProcessPort;

    /// A port these steps never ask: every request answers `null`.
    struct Silent;

    #[async_trait::async_trait]
    impl toolnexus_protocol::Handler for Silent {
        async fn handle(&mut self, _request: Value) -> Value {
            Value::Null
        }
        async fn close_all(&mut self) {}
    }

    async fn run(
        def: StepDef,
        text: &str,
        doc: Option<&str>,
        st: &mut ScenarioState,
    ) -> Result<(), StepFailure> {
        let env = Env::from_root(std::path::Path::new(env!("CARGO_MANIFEST_DIR")));
        let step = StepSpec {
            keyword: "Given".into(),
            text: text.into(),
            docstring: doc.map(str::to_string),
        };
        let arg = crate::steps::select(std::slice::from_ref(&def), text)?.1;
        let mut port = InProcessPort::new(Silent);
        (def.handler)(crate::steps::StepCtx {
            port: &mut port,
            env: &env,
            st,
            step: &step,
            arg,
        })
        .await
    }

    /// A named step runs alone: one writes a file, another checks its bytes.
    #[tokio::test]
    async fn a_written_file_is_read_back_by_name() {
        let mut st = ScenarioState::default();
        let write = r#"a file "x/note.txt" containing "a\tb""#;
        run(file_path_containing_text(), write, None, &mut st)
            .await
            .unwrap_or_else(|e| panic!("{e:?}"));
        let check = r#"the file "x/note.txt" now contains:"#;
        run(file_path_now_contains(), check, Some("a\tb"), &mut st)
            .await
            .unwrap_or_else(|e| panic!("{e:?}"));
        let wrong = run(file_path_now_contains(), check, Some("a b"), &mut st).await;
        assert!(matches!(wrong, Err(StepFailure::Failed(_))), "{wrong:?}");
    }
}
