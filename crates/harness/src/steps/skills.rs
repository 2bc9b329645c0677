//! The skill steps: `list_skills`, the skills prompt and the build's skill catalog.

use serde_json::{json, Value};

use super::helpers::{expect_json, expect_text, skills_prompt};
use crate::compare::expectation::Kind;
use crate::compare::snapshots;
use crate::scenario::state::{fail, StepFailure};
use crate::steps::StepCtx;

step! {
    skills_listed: Actions, r#"^the skills are listed with:$"# + "JSON options",
    "`list_skills`",
    |StepCtx { port, st, step, .. }| {
        let options = st.json_doc(step)?;
        let inventory = port.list_skills(&options).await?;
        st.inventory = Some(st.norm(&inventory));
        Ok(())
    }
}

step! {
    skills_prompt_is: Expectations, r#"^the skills prompt is:$"# + "text",
    "`skills_prompt`, pinned",
    |StepCtx { port, st, step, .. }| {
        let prompt = skills_prompt(port, st).await?;
        expect_text(st, &st.raw_doc(step)?, &prompt)
    }
}

step! {
    skills_prompt_matches: Expectations, r#"^the skills prompt matches:$"# + "JSON",
    "`skills_prompt` (a JSON string expectation, usually a matcher)",
    |StepCtx { port, st, step, .. }| {
        let prompt = skills_prompt(port, st).await?;
        expect_json(st, &st.expect_doc(step)?, &json!(prompt))
    }
}

step! {
    skills_prompt_matches_snapshot_name: Expectations, r#"^the skills prompt matches snapshot "(?P<NAME>[^"]+)"$"#,
    "`skills_prompt` against a snapshot body",
    |StepCtx { port, env, st, arg, .. }| {
        let prompt = skills_prompt(port, st).await?;
        expect_text(
            st,
            &snapshots::body(&env.snapshots, &arg.at(1)).map_err(StepFailure::failed)?,
            &prompt,
        )
    }
}

step! {
    skills_prompt_does_not_mention_text: Expectations, r#"^the skills prompt does not mention "(?P<TEXT>[^"]+)"$"#,
    "absence",
    records Kind::Pinned,
    |StepCtx { port, st, arg, .. }| {
        let prompt = skills_prompt(port, st).await?;
        if prompt.contains(&arg.at(1)) {
            fail(format!(
                "the skills prompt mentions \"{}\": {prompt:?}",
                arg.at(1)
            ))
        } else {
            Ok(())
        }
    }
}

step! {
    skill_catalog_names: Expectations, r#"^the skill catalog names are:$"# + "JSON array",
    "the build's `skills` (the filtered catalog), in any order",
    |StepCtx { st, step, .. }| {
        // §3 fixes which skills win, not the order a catalog is listed in (the prompt,
        // which is sorted, is checked by its own steps): compare as sorted name lists.
        let sorted = |v: &Value| {
            let mut names: Vec<String> = v
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|s| {
                            s.get("name")
                                .unwrap_or(s)
                                .as_str()
                                .unwrap_or("")
                                .to_string()
                        })
                        .collect()
                })
                .unwrap_or_default();
            names.sort();
            json!(names)
        };
        let actual = sorted(super::derived::built(st, "skills", super::derived::SKILLS)?);
        let expected = sorted(&st.expect_doc(step)?);
        expect_json(st, &expected, &actual)
    }
}

step! {
    skill_inventory_matches: Expectations, r#"^the skill inventory matches:$"# + "JSON",
    "`list_skills` `{skills, skipped}`",
    |StepCtx { st, step, .. }| {
        let inv = st.inventory.clone().ok_or_else(|| {
            StepFailure::Failed("no skills were listed in this scenario".into())
        })?;
        expect_json(st, &st.expect_doc(step)?, &inv)
    }
}
