//! Why a transform refused its input ([`TransformError`]): the construct, where it
//! is (a block, an instruction or the function), and what the transform needs
//! instead. Errors name an entity of the program the *user* gave: every check that
//! can fail runs on the input before the first change, so a front end can turn the
//! site into `file:line:col` through the input's `SourceMap`.

use pllvm_semantics::ir::{Block, FuncId, Inst};

/// Where in the input program a [`TransformError`] points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Site {
    /// The function as a whole (its `define` line).
    Function(FuncId),
    /// A block's label.
    Block(FuncId, Block),
    /// A block's terminator.
    Terminator(FuncId, Block),
    /// A phi or command.
    Inst(FuncId, Inst),
}

/// A transform cannot take this input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransformError {
    /// The pass that refused (`dlt`, `pl`, `boscc`, `reconverge`, `ifconv`).
    pub pass: &'static str,
    /// Where the offending construct is.
    pub site: Site,
    /// Lowercase message naming the construct and what the pass needs instead.
    pub message: String,
}

impl TransformError {
    /// An error of `pass` at `site`.
    pub fn new(pass: &'static str, site: Site, message: impl Into<String>) -> Self {
        TransformError {
            pass,
            site,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for TransformError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.pass, self.message)
    }
}

impl std::error::Error for TransformError {}
