//! §6 native tools: a plain function becomes a `Tool` with source `native`.

use std::future::Future;
use std::sync::Arc;

use async_trait::async_trait;
use futures::future::BoxFuture;
use serde_json::Value;

use super::tool::{Context, Source, Tool, ToolExec, ToolResult};

/// What a native function may return: text (⇒ success), a full result, or an error message.
pub enum NativeReturn {
    /// Plain text ⇒ `{output, isError:false}`.
    Text(String),
    /// A complete result, passed through.
    Result(ToolResult),
}

type NativeFn =
    Arc<dyn Fn(Value, Context) -> BoxFuture<'static, Result<NativeReturn, String>> + Send + Sync>;

struct NativeExec(NativeFn);

#[async_trait]
impl ToolExec for NativeExec {
    async fn execute(&self, args: Value, ctx: &Context) -> ToolResult {
        match (self.0)(args, ctx.clone()).await {
            Ok(NativeReturn::Text(text)) => ToolResult::ok(text),
            Ok(NativeReturn::Result(result)) => result,
            Err(message) => ToolResult::error(message),
        }
    }
}

/// `defineTool`: wraps an async function; `Err(message)` becomes an `isError` result.
pub fn define_tool<F, Fut>(name: &str, description: &str, input_schema: Value, run: F) -> Tool
where
    F: Fn(Value, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<NativeReturn, String>> + Send + 'static,
{
    let run = Arc::new(run);
    let f: NativeFn = Arc::new(move |args, ctx| {
        let run = Arc::clone(&run);
        Box::pin(async move { run(args, ctx).await })
    });
    Tool::new(
        name,
        description,
        input_schema,
        Source::Native,
        Arc::new(NativeExec(f)),
    )
}
