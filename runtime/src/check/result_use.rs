//! Whether the runbook reads the value of the call at a site: `let q = run([...]).stdout;` does,
//! `run([...]);` as a statement of its own does not.
//!
//! A resume answered `--assume done` for an action whose output was lost has no value to give
//! it; where the runbook reads that value, handing it an empty one would send the runbook down
//! a branch the host never asked for (an `mlxconfig set` of a key already set).

use rhai::{AST, ASTNode, Engine, Expr, Position, Stmt};

/// Whether the call at `line`:`column` of `file` has its value read: part of an expression, or
/// the last statement of a function (its return value). Unknown sites (a file that no longer
/// compiles, a call not found) count as not read, as before this check.
pub(crate) fn result_is_read(engine: &Engine, file: &str, line: u32, column: u32) -> bool {
    let Ok(source) = std::fs::read_to_string(file) else {
        return false;
    };
    match engine.compile(&source) {
        Ok(ast) => read_at(&ast, line, column),
        Err(_) => false,
    }
}

fn read_at(ast: &AST, line: u32, column: u32) -> bool {
    let at = |position: Position| {
        position.line() == usize::try_from(line).ok()
            && position.position() == usize::try_from(column).ok()
    };
    // The call as a statement of its own: rhai's optimizer makes it a `Stmt::FnCall`, and
    // leaves it an expression statement where it does not reach (a custom syntax's block).
    let is_statement = |statement: &Stmt| match statement {
        Stmt::FnCall(_, position) => at(*position),
        Stmt::Expr(expr) => matches!(expr.as_ref(), Expr::FnCall(_, position) if at(*position)),
        _ => false,
    };
    // A function's body statements are walked at the top, as the script's are: the last one
    // inside a body's span is what the function returns.
    let key = |p: Position| (p.line().unwrap_or(0), p.position().unwrap_or(0));
    let bodies: Vec<_> = ast
        .iter_fn_def()
        .map(|f| (key(f.body.start_position()), key(f.body.end_position())))
        .collect();
    let mut last_in_body: Vec<Option<bool>> = vec![None; bodies.len()];
    let mut read = false;
    ast.walk(&mut |path: &[ASTNode]| {
        if let [ASTNode::Stmt(statement)] = path {
            let here = key(statement.position());
            if let Some(body) = bodies.iter().position(|(s, e)| *s <= here && here <= *e) {
                last_in_body[body] = Some(is_statement(statement));
            }
        }
        if let [.., parent, ASTNode::Expr(Expr::FnCall(_, position))] = path
            && at(*position)
        {
            read = !matches!(parent, ASTNode::Stmt(statement) if is_statement(statement));
        }
        true
    });
    read || last_in_body.contains(&Some(true))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(script: &str, line: u32, column: u32) -> bool {
        let engine = Engine::new();
        let ast = engine
            .compile(script)
            .unwrap_or_else(|e| panic!("{e}: {script}"));
        read_at(&ast, line, column)
    }

    #[test]
    fn a_call_whose_value_is_kept_tested_or_returned_is_read_and_a_bare_statement_is_not() {
        let script = "fn run(x) { x }\n\
                      let q = run(1);\n\
                      run(2);\n\
                      if run(3) == 3 { run(4); }\n\
                      fn last() { run(5) }\n";
        assert!(read(script, 2, 9), "let");
        assert!(!read(script, 3, 1), "a statement of its own");
        assert!(read(script, 4, 4), "a condition");
        assert!(!read(script, 4, 18), "a statement inside the branch");
        assert!(read(script, 5, 13), "a function's return value");
        assert!(!read(script, 9, 1), "no call there");
    }

    #[test]
    fn a_statement_inside_a_custom_syntax_block_is_not_read() {
        let mut engine = Engine::new();
        engine.register_fn("run", |x: i64| x);
        let registered =
            engine.register_custom_syntax(["stage", "$block$"], false, |ctx, inputs| {
                ctx.eval_expression_tree(&inputs[0])
            });
        assert!(registered.is_ok());
        let script = "stage { run(1); let q = run(2); }\n";
        let ast = engine.compile(script).unwrap_or_else(|e| panic!("{e}"));
        assert!(!read_at(&ast, 1, 9), "a statement of its own");
        assert!(read_at(&ast, 1, 25), "kept");
    }
}
