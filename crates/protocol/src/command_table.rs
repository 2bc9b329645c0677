//! The macro that turns the one table of protocol commands (invoked once, in
//! [`crate::messages`]) into everything a command's name would otherwise be written in.

/// Declares every protocol command once: its doc, its wire name, the decoder of its answer, the
/// type of its decoded answer (none for an envelope-only answer) and its request fields. From
/// the table it derives the `Command` enum (with `ALL`, `as_str`, `parse`), the `Request` enum
/// (tagged by `cmd`, each variant renamed to the wire name), the `TypedResponse` enum (one
/// variant per command, holding its answer type, beside `Failure` and `Raised`),
/// `Request::command` and `Command::answer_decoder`. Doc comments and attributes given at the
/// call site (on the two enums, on each command, on each field) are passed through, so a derive
/// added there reaches the generated items.
macro_rules! protocol_commands {
    (
        $(#[$command_attr:meta])*
        pub enum Command;
        $(#[$request_attr:meta])*
        pub enum Request;
        $(#[$response_attr:meta])*
        pub enum TypedResponse;
        $(
            $(#[$attr:meta])*
            $name:ident = $wire:literal => $decode:path $(as $answer:ty)? {
                $( $(#[$field_attr:meta])* $field:ident : $ty:ty ),* $(,)?
            }
        ),+ $(,)?
    ) => {
        $(#[$command_attr])*
        pub enum Command {
            $(
                $(#[$attr])*
                #[serde(rename = $wire)]
                $name,
            )+
        }

        impl Command {
            /// Every command, in PROTOCOL.md §5 order.
            pub const ALL: [Command; [$($wire),+].len()] = [$(Command::$name),+];

            /// The wire name (`"skills_prompt"`, ...).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Command::$name => $wire,)+
                }
            }

            /// The command named `name`, if protocol 1 has one.
            pub fn parse(name: &str) -> Option<Command> {
                match name {
                    $($wire => Some(Command::$name),)+
                    _ => None,
                }
            }

            /// How this command's success answer is decoded into its typed form.
            pub(crate) fn answer_decoder(self) -> $crate::decode::AnswerDecoder {
                match self {
                    $(Command::$name => $decode as $crate::decode::AnswerDecoder,)+
                }
            }
        }

        $(#[$request_attr])*
        pub enum Request {
            $(
                $(#[$attr])*
                #[serde(rename = $wire)]
                $name {
                    $(
                        $(#[$field_attr])*
                        $field: $ty,
                    )*
                },
            )+
        }

        $(#[$response_attr])*
        pub enum TypedResponse {
            /// `ok: false` (any command).
            Failure($crate::messages::ErrorBody),
            /// `build` or `serve` answered `raised` (PROTOCOL.md §5.2, §5.23): the port's
            /// `createToolkit` / `serve` threw this message. Not a driver failure, and not a
            /// success.
            Raised(String),
            $(
                $(#[$attr])*
                $name $(($answer))?,
            )+
        }

        impl Request {
            /// Which command this is.
            pub fn command(&self) -> Command {
                match self {
                    $(Request::$name { .. } => Command::$name,)+
                }
            }
        }
    };
}
