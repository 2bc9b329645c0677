//! Why a runtime verb was refused: one kind per refusal, with the handles and numbers that
//! make it specific. The `Display` text is the message hosts and scenarios read.

use std::fmt;

use super::home::HomeError;

/// The message form a `closed` refusal takes, by verb.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClosedVerb {
    /// A spawn under a closed parent.
    Spawn,
    /// A post to a closed handle.
    Post,
    /// A wake of a handle that is closing.
    WakeClosing,
    /// Any other verb on a closed handle.
    Other,
}

/// A refused agent-runtime verb.
#[derive(Debug)]
#[non_exhaustive]
pub enum AgentError {
    /// A registry entry names a tool the runtime was not given.
    UnknownTool {
        /// The registry entry.
        agent: String,
        /// The tool it names.
        tool: String,
    },
    /// A registry entry has a team member the registry lacks.
    UnknownTeamMember {
        /// The registry entry.
        agent: String,
        /// The team member.
        member: String,
    },
    /// No registry entry has this name; `known` lists the registry (`None`: not listed).
    UnknownAgent {
        /// The name asked for.
        name: String,
        /// The registry's names, when the message lists them.
        known: Option<Vec<String>>,
    },
    /// The entry's home directory could not be composed into a soul (§7E).
    Home {
        /// The registry entry.
        agent: String,
        /// Why.
        source: HomeError,
    },
    /// The runtime was closed and spawns nothing.
    RuntimeClosed,
    /// No handle has this id.
    NoHandle {
        /// The id asked for.
        id: String,
    },
    /// The handle is closed (or closing).
    Closed {
        /// The handle.
        id: String,
        /// Which verb it refused.
        verb: ClosedVerb,
    },
    /// A spawn would pass the parent's `maxChildren`.
    MaxChildren {
        /// The parent.
        parent: String,
        /// Its live children.
        live: u64,
        /// The cap.
        max: u64,
    },
    /// A spawn would sit deeper than `maxDepth` allows.
    MaxDepth {
        /// The registry entry.
        def: String,
        /// The parent (`root` included).
        parent: String,
        /// The depth it would sit at.
        depth: u64,
        /// The cap.
        max: u64,
    },
    /// A spendable limit on the chain is spent.
    BudgetExhausted {
        /// The limit, SPEC-spelled.
        limit: String,
        /// The handle whose limit it is.
        owner: String,
        /// What was used.
        used: u64,
        /// The limit's value.
        max: u64,
    },
    /// The inbox holds `inboxCap` items.
    InboxFull {
        /// The handle.
        id: String,
        /// What it holds.
        len: usize,
        /// The cap.
        cap: usize,
    },
    /// The handle already waits in its parent's FIFO.
    AlreadyQueued {
        /// The handle.
        id: String,
    },
    /// The handle is already running.
    AlreadyRunning {
        /// The handle.
        id: String,
    },
    /// The handle is suspended: only the Answer resumes it.
    Suspended {
        /// The handle.
        id: String,
    },
    /// A heartbeat interval of zero.
    ZeroHeartbeat,
    /// An Answer whose id matches no pending Request.
    NoPendingRequest {
        /// The Answer's id.
        answer: String,
        /// Each open checkpoint as `handle (request id)`.
        pending: Vec<String>,
    },
    /// A handle on the resume chain lost its checkpoint.
    NoCheckpoint {
        /// The handle.
        id: String,
    },
    /// A handle was closed while its resume ran.
    ClosedDuringResume {
        /// The handle.
        id: String,
    },
    /// The resume chain was empty.
    NothingResumed,
}

impl fmt::Display for AgentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentError::UnknownTool { agent, tool } => write!(
                f,
                "agent {agent:?} uses tool {tool:?}, which the runtime does not have"
            ),
            AgentError::UnknownTeamMember { agent, member } => write!(
                f,
                "agent {agent:?} has {member:?} on its team, which is not in the registry"
            ),
            AgentError::UnknownAgent { name, known: None } => write!(f, "unknown agent {name:?}"),
            AgentError::UnknownAgent {
                name,
                known: Some(known),
            } => write!(f, "unknown agent {name:?} (registry: {})", known.join(", ")),
            AgentError::Home { agent, source } => {
                write!(f, "agent {agent:?}: its home cannot be read: {source}")
            }
            AgentError::RuntimeClosed => f.write_str("the runtime is closed"),
            AgentError::NoHandle { id } => write!(f, "no handle {id:?}"),
            AgentError::Closed { id, verb } => match verb {
                ClosedVerb::Spawn => write!(f, "closed: {id} is closed and spawns nothing"),
                ClosedVerb::Post => write!(f, "closed: {id} is closed and accepts no posts"),
                ClosedVerb::WakeClosing => write!(f, "closed: {id} is closing"),
                ClosedVerb::Other => write!(f, "closed: {id} is closed"),
            },
            AgentError::MaxChildren { parent, live, max } => write!(
                f,
                "maxChildren: {parent} already has {live} live children (maxChildren {max})"
            ),
            AgentError::MaxDepth {
                def,
                parent,
                depth,
                max,
            } => write!(
                f,
                "maxDepth: a {def} under {parent} would sit at depth {depth} (maxDepth {max})"
            ),
            AgentError::BudgetExhausted {
                limit,
                owner,
                used,
                max,
            } => write!(
                f,
                "budget exhausted: {limit} of {owner} (used {used} of {max})"
            ),
            AgentError::InboxFull { id, len, cap } => write!(
                f,
                "inbox full: {id} holds {len} items (inboxCap {cap}); the post was rejected"
            ),
            AgentError::AlreadyQueued { id } => write!(f, "{id} already has a queued wake"),
            AgentError::AlreadyRunning { id } => write!(f, "{id} is already running"),
            AgentError::Suspended { id } => write!(
                f,
                "{id} is suspended: only the Answer to its pending Request resumes it"
            ),
            AgentError::ZeroHeartbeat => f.write_str("heartbeat everyMs must be positive"),
            AgentError::NoPendingRequest { answer, pending } => write!(
                f,
                "the Answer's id {answer:?} matches no pending Request (pending: {})",
                if pending.is_empty() {
                    "none".to_string()
                } else {
                    pending.join(", ")
                }
            ),
            AgentError::NoCheckpoint { id } => write!(f, "{id} has no checkpoint to resume"),
            AgentError::ClosedDuringResume { id } => write!(f, "{id} was closed during resume"),
            AgentError::NothingResumed => f.write_str("nothing was resumed"),
        }
    }
}

impl std::error::Error for AgentError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AgentError::Home { source, .. } => Some(source),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_messages_keep_their_wording() {
        let cases = [
            (
                AgentError::UnknownAgent {
                    name: "x".into(),
                    known: Some(vec!["a".into(), "b".into()]),
                },
                "unknown agent \"x\" (registry: a, b)",
            ),
            (
                AgentError::NoHandle {
                    id: "root/a.1".into(),
                },
                "no handle \"root/a.1\"",
            ),
            (
                AgentError::MaxDepth {
                    def: "a".into(),
                    parent: "root".into(),
                    depth: 1,
                    max: 0,
                },
                "maxDepth: a a under root would sit at depth 1 (maxDepth 0)",
            ),
            (
                AgentError::NoPendingRequest {
                    answer: "q".into(),
                    pending: vec![],
                },
                "the Answer's id \"q\" matches no pending Request (pending: none)",
            ),
        ];
        for (e, want) in cases {
            assert_eq!(e.to_string(), want);
        }
    }
}
