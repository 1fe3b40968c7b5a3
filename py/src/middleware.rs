//! What `summary_memory.langchain.SummaryMemoryMiddleware` asks the engine: each fold decision
//! (`Policy::decide`, on the view the dry run builds), the request's head (`request_head`: the
//! system prompt and the summary where the policy places it), the summariser's request
//! (`render_fold_request`) and a message's size under the policy's counter. The middleware
//! holds the conversation and calls the user's model; the engine decides.

use pyo3::prelude::*;
use summary_memory::engine::Role;
use summary_memory::engine::message::{Message, ToolCall};
use summary_memory::engine::policy::{
    Check, FoldMode, FoldView, HeadPart, Measured, Moment, SUMMARY_ACK, SUMMARY_HEADER,
    head_measured, request_head, summary_size,
};
use summary_memory::engine::prompts::render_fold_request;

use crate::{Policy, SummaryMemoryError, counting};

fn role(name: &str) -> PyResult<Role> {
    match name {
        "system" => Ok(Role::System),
        "user" => Ok(Role::User),
        "assistant" => Ok(Role::Assistant),
        "tool" => Ok(Role::Tool),
        other => Err(SummaryMemoryError::new_err(format!(
            "role {other:?}: expected \"system\", \"user\", \"assistant\" or \"tool\""
        ))),
    }
}

/// The request's messages before the conversation's: `(kind, role, text)` with kind
/// "system" (the system prompt as it is), "summary" or "fixed" (an acknowledgement, a context
/// message), in order.
#[pyfunction]
#[pyo3(signature = (policy, system_prompt, summary = None))]
pub fn request_head_of(
    policy: &Policy,
    system_prompt: &str,
    summary: Option<&str>,
) -> Vec<(&'static str, &'static str, String)> {
    request_head(
        &policy.column.policy.exact,
        policy.column.policy.placement,
        system_prompt,
        summary,
        SUMMARY_HEADER,
        SUMMARY_ACK,
    )
    .into_iter()
    .map(|part| match part {
        HeadPart::SystemPrompt => ("system", "system", system_prompt.to_owned()),
        HeadPart::Summary { role, text } => ("summary", role.as_str(), text),
        HeadPart::Fixed { role, text } => ("fixed", role.as_str(), text),
    })
    .collect()
}

/// The policy's fold decision at one check: `(messages folded, summariser called)`.
///
/// `messages`: the verbatim messages, oldest first, as `(role, tokens, chars, calls a tool)`;
/// `moment`: "before_request" (the last message is the one the request answers) or
/// "after_reply" (the last is the reply that ends a turn); `count(text)`: a text's tokens, as
/// the middleware counts them.
#[pyfunction]
#[pyo3(signature = (policy, messages, moment, *, system_prompt, system_tokens, summary, reported, messages_before, messages_now, count))]
#[allow(clippy::too_many_arguments)]
pub fn decide(
    policy: &Policy,
    messages: Vec<(String, u32, u32, bool)>,
    moment: &str,
    system_prompt: &str,
    system_tokens: u64,
    summary: Option<&str>,
    reported: Option<u64>,
    messages_before: usize,
    messages_now: usize,
    count: &Bound<'_, PyAny>,
) -> PyResult<(usize, bool)> {
    let moment = match moment {
        "before_request" => Moment::BeforeRequest,
        "after_reply" => Moment::AfterReply,
        other => {
            return Err(SummaryMemoryError::new_err(format!(
                "moment {other:?}: expected \"before_request\" or \"after_reply\""
            )));
        }
    };
    let measured: Vec<Measured> = messages
        .into_iter()
        .map(|(r, tokens, chars, calls)| {
            Ok(Measured {
                role: role(&r)?,
                tokens,
                chars,
                calls,
            })
        })
        .collect::<PyResult<_>>()?;
    // The counts of the texts the head holds, asked of Python first (a callback cannot fail
    // inside the engine's closures).
    let policy = &policy.column.policy;
    let head = request_head(
        &policy.exact,
        policy.placement,
        system_prompt,
        summary,
        SUMMARY_HEADER,
        SUMMARY_ACK,
    );
    let mut sizes = std::collections::HashMap::new();
    for part in &head {
        if let HeadPart::Summary { text, .. } | HeadPart::Fixed { text, .. } = part {
            sizes.insert(
                text.clone(),
                count.call1((text.as_str(),))?.extract::<u32>()?,
            );
        }
    }
    let tokens = |t: &str| sizes.get(t).copied().unwrap_or(0);
    let chars = |_: Role, t: &str| t.chars().count() as u32;
    let stored = head_measured(&head, tokens, chars);
    let size = summary_size(
        &head,
        policy.exact.context_message.as_deref(),
        system_tokens,
        |t| u64::from(tokens(t)),
        |r, t| u64::from(chars(r, t)),
    );
    let fold = policy.decide(&Check {
        view: FoldView {
            messages: &measured,
            moment,
            system_tokens,
            summary: size,
            head: &stored,
            reported,
        },
        messages_before,
        messages_now,
    });
    Ok((fold.messages, fold.call))
}

/// One conversation message as the engine holds it: `(role, content, tool calls as
/// (id, name, arguments), tool name)`.
pub type PyMessage = (
    String,
    String,
    Vec<(String, String, String)>,
    Option<String>,
);

fn message(m: PyMessage) -> PyResult<Message> {
    let (r, content, calls, tool_name) = m;
    let mut message = Message::counted(role(&r)?, content, 0, 0);
    message.calls = calls
        .into_iter()
        .map(|(id, name, arguments)| ToolCall {
            id,
            name,
            arguments,
        })
        .collect();
    message.tool_name = tool_name;
    Ok(message)
}

/// The summariser's request for a fold, as the app sends it: `(role, content)` pairs (the
/// policy's prompt, then the summary so far when the policy folds progressively and the
/// messages to fold).
#[pyfunction]
#[pyo3(signature = (policy, summary, messages))]
pub fn fold_request(
    policy: &Policy,
    summary: Option<&str>,
    messages: Vec<PyMessage>,
) -> PyResult<Vec<(&'static str, String)>> {
    let turns: Vec<Message> = messages.into_iter().map(message).collect::<PyResult<_>>()?;
    let existing = match policy.column.policy.fold {
        FoldMode::Progressive => summary,
        FoldMode::RebuildFromArchive => None,
    };
    Ok(
        render_fold_request(&policy.column.policy.prompt, existing, &turns)
            .into_iter()
            .map(|m| (m.role.as_str(), m.content))
            .collect(),
    )
}

/// Whether the policy rebuilds its summary from every folded message (else it folds the
/// summary so far with the new messages).
#[pyfunction]
pub fn rebuilds(policy: &Policy) -> bool {
    policy.column.policy.fold == FoldMode::RebuildFromArchive
}

/// What the middleware cannot run of a policy: the exact fields it does not carry out, named.
#[pyfunction]
pub fn unsupported(policy: &Policy) -> Vec<&'static str> {
    let exact = &policy.column.policy.exact;
    let mut out = Vec::new();
    if exact.keep_user_tokens.is_some() {
        out.push("keep_user_tokens (the user messages a fold keeps beside the summary)");
    }
    if exact.calls_per_fold > 1 {
        out.push("calls_per_fold (more than one summariser call a fold)");
    }
    if exact.tools_in_turn_only {
        out.push("tools_in_turn_only (tool traffic sent in its own turn only)");
    }
    if policy.column.policy.summary_budget.is_some() {
        out.push("summary_budget (compressing the summary one level up)");
    }
    out
}

/// One message's tokens under the policy's own counter (`encoding`: the run's count, for a
/// policy that counts as the app does).
#[pyfunction]
#[pyo3(signature = (policy, message, encoding = "o200k_base"))]
pub fn count_message(policy: &Policy, message: PyMessage, encoding: &str) -> PyResult<u32> {
    let mut m = self::message(message)?;
    let counter = policy.column.policy.exact.counter;
    Ok(counting(encoding)?.with(|run| {
        m.tokens = run.count(&m.content);
        counter.sized(&m, run)
    }))
}
