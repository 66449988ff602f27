//! `host`, `hosts` and `publish`: the current host, the others of its group, and what each
//! published for them.

use rhai::{Array, Dynamic, Engine, Map, NativeCallContext};
use serde_json::{Value, json};

use super::RhaiResult;
use crate::{ActionCall, ActionError, HostContext, HostInfo, Outcome, Reconcile};

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const HOST_HELP: &str = "`#{name, groups, vars, published}` of the current host; `published` holds what it \
    published so far.";

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const HOSTS_HELP: &str = "An array of those maps for the hosts of a group that are still in the run (failed hosts \
    leave it), in inventory order; `published` holds what each host published.";

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const PUBLISH_HELP: &str = "A journaled value of this host that other instances read through `hosts(...)` once the \
    stage's barrier has passed.";

/// Registers `host`, `hosts` and `publish`.
pub(super) fn register(engine: &mut Engine) {
    crate::documented::register(
        engine,
        "host",
        [],
        HOST_HELP,
        |ctx: NativeCallContext| -> RhaiResult<Map> {
            let host = HostContext::current(&ctx)?;
            let published = host
                .shared
                .published
                .lock()
                .ok()
                .and_then(|all| all.get(&host.info.name).cloned());
            Ok(host_map(&host.info, Some(&published.unwrap_or_default())))
        },
    );
    crate::documented::register(
        engine,
        "hosts",
        ["GROUP"],
        HOSTS_HELP,
        |ctx: NativeCallContext, group: &str| -> RhaiResult<Array> {
            let host = HostContext::current(&ctx)?;
            if let Some((stage, var)) = host.pipelined_stage() {
                return Err(host.fail(
                    ActionError::Runbook(format!(
                        "`hosts(\"{group}\")` in stage `{stage}`, which is pipelined (`after {var}`): the other hosts may not have reached it, so what they published is not all there; drop `after {var}` to keep the stage's barrier"
                    )),
                    ctx.call_position(),
                ));
            }
            let published = host
                .shared
                .published
                .lock()
                .map(|p| p.clone())
                .unwrap_or_default();
            let failed = host
                .shared
                .failed
                .lock()
                .map(|f| f.clone())
                .unwrap_or_default();
            Ok(host
                .shared
                .hosts
                .iter()
                .filter(|info| {
                    info.groups.iter().any(|g| g == group) && !failed.contains_key(&info.name)
                })
                .map(|info| Dynamic::from_map(host_map(info, published.get(&info.name))))
                .collect())
        },
    );
    crate::documented::register(
        engine,
        "publish",
        ["KEY", "value"],
        PUBLISH_HELP,
        |ctx: NativeCallContext, key: &str, value: Dynamic| -> RhaiResult<()> {
            let host = HostContext::current(&ctx)?;
            let value: Value = rhai::serde::from_dynamic(&value)?;
            let call = ActionCall {
                args: json!({ "key": key, "value": value }),
                assumed: value.clone(),
                builtin: "publish".into(),
                reconcile: Reconcile::Redo,
            };
            let site = host.site(&ctx);
            let value = host
                .perform(call, &site, |_| Ok(Outcome::unchanged(value.clone())))
                .map_err(|e| host.fail(e, ctx.call_position()))?;
            if let Ok(mut published) = host.shared.published.lock() {
                published
                    .entry(host.info.name.clone())
                    .or_default()
                    .insert(key.to_owned(), value);
            }
            Ok(())
        },
    );
}

/// `#{name, groups, vars, published}`: what the host published so far (nothing yet: `#{}`).
fn host_map(info: &HostInfo, published: Option<&std::collections::BTreeMap<String, Value>>) -> Map {
    let mut map = Map::new();
    map.insert("name".into(), info.name.clone().into());
    let groups: Array = info
        .groups
        .iter()
        .map(|g| Dynamic::from(g.clone()))
        .collect();
    map.insert("groups".into(), groups.into());
    map.insert(
        "vars".into(),
        rhai::serde::to_dynamic(&info.vars).unwrap_or_default(),
    );
    if let Some(published) = published {
        map.insert(
            "published".into(),
            rhai::serde::to_dynamic(published).unwrap_or_default(),
        );
    } else if !map.contains_key("published") {
        map.insert("published".into(), Dynamic::from_map(Map::new()));
    }
    map
}
