//! Registering a core builtin with its help: its parameters' names and its text go into rhai's
//! metadata beside the function, where the catalog (`catalog.rs`) reads them, as the vendor
//! namespaces' doc comments do. The runtime embeds no document to parse help back out of.

use rhai::{Engine, FuncRegistration, RhaiNativeFunc, Variant};

/// Registers `func` as `name`, its parameters named `params` (one name per parameter: the
/// array's length is the function's arity) and `doc` as its help.
pub(crate) fn register<A, const N: usize, const X: bool, R, const F: bool, FUNC>(
    engine: &mut Engine,
    name: &str,
    params: [&str; N],
    doc: &str,
    func: FUNC,
) where
    A: 'static,
    R: Variant + Clone,
    FUNC: RhaiNativeFunc<A, N, X, R, F> + Send + Sync + 'static,
{
    let mut info: Vec<String> = params
        .iter()
        .zip(FUNC::param_names())
        .map(|(name, rust)| format!("{name}: {rust}"))
        .collect();
    // The last entry past the parameters is the return type.
    info.push(FUNC::return_type_name().to_owned());
    let comments: Vec<String> = doc.lines().map(|line| format!("/// {line}")).collect();
    FuncRegistration::new(name)
        .with_params_info(info)
        .with_comments([comments.join("\n")])
        .register_into_engine(engine, func);
}
