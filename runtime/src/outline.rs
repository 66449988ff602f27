//! What a runbook declares, read from its syntax tree without running it.

use rhai::{AST, ASTNode, Expr};

use crate::CONTROLLER;

/// A `stage` or `param` declaration with its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declaration {
    /// A pipelined stage's var (`after VAR`).
    pub after: Option<String>,
    /// The stage's group (empty for a param).
    pub group: String,
    /// 1-based line.
    pub line: usize,
    /// The stage's or param's name.
    pub name: String,
    /// A param whose default is wrapped in `secret(...)`.
    pub secret: bool,
}

/// The stages and params of a compiled runbook.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outline {
    /// `param` declarations, in order.
    pub params: Vec<Declaration>,
    /// `stage` declarations, in order of appearance.
    pub stages: Vec<Declaration>,
}

impl Outline {
    /// Walks `ast` for `stage` and `param` forms.
    pub fn of(ast: &AST) -> Self {
        let mut outline = Self::default();
        ast.walk(&mut |path: &[ASTNode]| {
            if let Some(ASTNode::Expr(Expr::Custom(custom, position))) = path.last() {
                let line = position.line().unwrap_or(0);
                let keyword = custom.tokens.first().map(|t| t.as_str());
                match keyword {
                    Some("stage") => {
                        let name = match custom.inputs.first() {
                            Some(Expr::StringConstant(name, _)) => name.to_string(),
                            _ => String::new(),
                        };
                        let group = ident(custom.inputs.get(1));
                        let after = pipelined_var(custom);
                        outline.stages.push(Declaration { after, group, line, name, secret: false });
                    }
                    Some("param") => {
                        let name = ident(custom.inputs.first());
                        let secret = matches!(custom.inputs.get(1), Some(Expr::FnCall(call, _)) if call.name == "secret");
                        outline.params.push(Declaration { after: None, group: String::new(), line, name, secret });
                    }
                    _ => {}
                }
            }
            true
        });
        outline
    }

    /// Whether any stage runs on the controller.
    pub fn has_controller_stages(&self) -> bool {
        self.stages.iter().any(|stage| stage.group == CONTROLLER)
    }
}

/// The var of a pipelined stage (`stage "NAME" on GROUP after VAR { }`).
pub(crate) fn pipelined_var(custom: &rhai::CustomExpr) -> Option<String> {
    if !custom.tokens.iter().any(|t| t.as_str() == "after") {
        return None;
    }
    Some(ident(custom.inputs.get(2))).filter(|var| !var.is_empty())
}

/// The name of a `$ident$` input.
fn ident(input: Option<&Expr>) -> String {
    match input {
        Some(Expr::Variable(variable, ..)) => variable.1.to_string(),
        _ => String::new(),
    }
}
