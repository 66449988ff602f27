//! What a runbook's or module's text declares that an editor jumps to or completes: its
//! functions (with the comment above each, which is how the shipped modules document them) and
//! its imports. Read from the text, line by line, so a file that does not compile while being
//! typed still has them.

/// `fn NAME(PARAMS)` in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Function {
    /// The function's name.
    pub(crate) name: String,
    /// Its parameters as written (`devices, family`).
    pub(crate) params: String,
    /// 0-based line of the `fn`.
    pub(crate) line: usize,
    /// The `//` comment lines right above it, without the slashes.
    pub(crate) doc: String,
    /// `private fn`: not callable through the module's alias.
    pub(crate) private: bool,
}

impl Function {
    /// `name(params)`, as hover and completion show it.
    pub(crate) fn signature(&self) -> String {
        format!("fn {}({})", self.name, self.params)
    }
}

/// `import "MODULE" as ALIAS;` in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Import {
    /// The module as written (`vsphere`).
    pub(crate) module: String,
    /// The alias its functions are called through.
    pub(crate) alias: String,
    /// 0-based line.
    pub(crate) line: usize,
}

/// The functions `text` defines, in order.
pub(crate) fn functions(text: &str) -> Vec<Function> {
    let mut found = Vec::new();
    let mut doc: Vec<&str> = Vec::new();
    for (line, content) in text.lines().enumerate() {
        let content = content.trim_start();
        if let Some(comment) = content.strip_prefix("//") {
            doc.push(
                comment
                    .trim_start_matches('/')
                    .strip_prefix(' ')
                    .unwrap_or(comment),
            );
            continue;
        }
        let (private, rest) = match content.strip_prefix("private ") {
            Some(rest) => (true, rest.trim_start()),
            None => (false, content),
        };
        if let Some(rest) = rest.strip_prefix("fn ")
            && let Some((name, after)) = rest.split_once('(')
            && is_name(name.trim())
        {
            let params = after.split(')').next().unwrap_or("").trim().to_owned();
            found.push(Function {
                name: name.trim().to_owned(),
                params,
                line,
                doc: doc.join("\n"),
                private,
            });
        }
        doc.clear();
    }
    found
}

/// The names of the params `text` declares (`param mtu = 9000;`), compiled or not.
pub(crate) fn params(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|line| {
            let rest = line.trim_start().strip_prefix("param ")?;
            let name = rest
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()?;
            is_name(name).then_some(name)
        })
        .collect()
}

/// The imports `text` makes.
pub(crate) fn imports(text: &str) -> Vec<Import> {
    text.lines()
        .enumerate()
        .filter_map(|(line, content)| {
            let rest = content.trim_start().strip_prefix("import")?.trim_start();
            let rest = rest.strip_prefix('"')?;
            let (module, rest) = rest.split_once('"')?;
            let alias = rest.trim_start().strip_prefix("as")?.trim();
            let alias = alias.trim_end_matches(';').trim();
            is_name(alias).then(|| Import {
                module: module.to_owned(),
                alias: alias.to_owned(),
                line,
            })
        })
        .collect()
}

fn is_name(word: &str) -> bool {
    !word.is_empty() && word.chars().all(|c| c.is_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_shipped_modules_functions_and_imports() {
        let connectx = include_str!("../../runbooks/lib/connectx.rhai");
        let found = functions(connectx);
        let ports = found.iter().find(|f| f.name == "ports");
        let ports = ports.unwrap_or_else(|| panic!("no `ports` in {found:?}"));
        assert_eq!(ports.params, "devices, family");
        assert!(ports.doc.contains("in PCI order"), "{ports:?}");
        let runbook = include_str!("../../runbooks/esxi-ib-roce-ports.rhai");
        assert_eq!(params(runbook).first(), Some(&"mft_vib"));
        let found = imports(runbook);
        assert_eq!(
            found.first().map(|i| (i.module.as_str(), i.alias.as_str())),
            Some(("vsphere", "vsphere"))
        );
    }
}
