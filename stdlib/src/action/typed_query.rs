//! A query whose result is the parser's type end to end: the live value is journaled as that
//! type serialized, and a replayed value is read back into it. A journal of another shape (a
//! renamed field, written by another cairn or by hand) fails naming the record, so a runbook
//! never goes on with a default it would take for "none".

use cairn_runtime::{ActionCall, ActionError, HostContext, HostIo, Outcome, Reconcile};
use rhai::{Dynamic, NativeCallContext};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::change::{Change, Compared, Probe};
use super::{RhaiResult, builtin_name, json};

/// Runs a read-only query builtin on the current host as an action (redone on resume),
/// journaled under its registered name, its result read as `T` live and replayed alike;
/// `expected` says what `T` is (`mlxconfig's device query`), for the error.
pub(crate) fn query_typed<T: Serialize + DeserializeOwned>(
    ctx: &NativeCallContext,
    namespace: &str,
    args: Value,
    expected: &str,
    live: impl FnOnce(&mut HostIo<'_>) -> Result<T, ActionError>,
) -> RhaiResult<T> {
    query_typed_as(ctx, &builtin_name(ctx, namespace), args, expected, live)
}

/// As [`query_typed`], journaled under a name of its own: a record inside a builtin
/// (`fabric::all_pairs`' verdict), not the builtin's call.
pub(crate) fn query_typed_as<T: Serialize + DeserializeOwned>(
    ctx: &NativeCallContext,
    builtin: &str,
    args: Value,
    expected: &str,
    live: impl FnOnce(&mut HostIo<'_>) -> Result<T, ActionError>,
) -> RhaiResult<T> {
    let host = HostContext::current(ctx)?;
    let site = host.site(ctx);
    let call = ActionCall {
        args,
        assumed: Value::Null,
        builtin: builtin.to_owned(),
        reconcile: Reconcile::Redo,
    };
    let value = host
        .perform(call, &site, |io| {
            live(io).map(|typed| Outcome::unchanged(json(&typed)))
        })
        .map_err(|e| host.fail(e, ctx.call_position()))?;
    read_typed(&host, builtin, value, expected).map_err(|e| host.fail(e, ctx.call_position()))
}

/// A change's result (live, or replayed from the journal) as the type `T` the builtin returns,
/// or a journal-shape error naming the record; `expected` says what `T` is.
pub(crate) fn result_typed<T: Serialize + DeserializeOwned>(
    ctx: &NativeCallContext,
    value: &Dynamic,
    expected: &str,
) -> RhaiResult<T> {
    let host = HostContext::current(ctx)?;
    let builtin = ctx.fn_name();
    let value: Value = rhai::serde::from_dynamic(value).map_err(|e| {
        host.fail(
            host.result_shape_error(builtin, expected, &e),
            ctx.call_position(),
        )
    })?;
    read_typed(&host, builtin, value, expected).map_err(|e| host.fail(e, ctx.call_position()))
}

/// `value` read as `T`, refused when it does not read or has a field `T` does not keep.
fn read_typed<T: Serialize + DeserializeOwned>(
    host: &HostContext,
    builtin: &str,
    value: Value,
    expected: &str,
) -> Result<T, ActionError> {
    let typed: T = host.read_result(builtin, value.clone(), expected)?;
    match unread_field(&value, &json(&typed)) {
        None => Ok(typed),
        Some(field) => {
            let problem = format!("it has a field `{field}` that {expected} does not have");
            Err(host.result_shape_error(builtin, expected, &problem))
        }
    }
}

/// The first field of `journaled` (a path: `devices[0].firmware`) that reading it as its type
/// dropped. Serde ignores a field it does not know, and reads a missing `Option` as none, so a
/// renamed optional field would replay as "none" unless this notices the new name.
pub fn unread_field(journaled: &Value, reread: &Value) -> Option<String> {
    match (journaled, reread) {
        (Value::Object(then), Value::Object(now)) => then.iter().find_map(|(key, value)| {
            let Some(kept) = now.get(key) else {
                return Some(key.clone());
            };
            unread_field(value, kept).map(|inner| join_path(key, &inner))
        }),
        (Value::Array(then), Value::Array(now)) => {
            then.iter()
                .zip(now)
                .enumerate()
                .find_map(|(at, (value, kept))| {
                    unread_field(value, kept).map(|inner| join_path(&format!("[{at}]"), &inner))
                })
        }
        _ => None,
    }
}

fn join_path(outer: &str, inner: &str) -> String {
    if inner.starts_with('[') {
        format!("{outer}{inner}")
    } else {
        format!("{outer}.{inner}")
    }
}

/// A typed result as the rhai map a builtin returns.
pub(crate) fn as_map<T: Serialize>(value: &T) -> RhaiResult<rhai::Map> {
    let dynamic: Dynamic = rhai::serde::to_dynamic(value)?;
    let kind = dynamic.type_name();
    dynamic.try_cast::<rhai::Map>().ok_or_else(|| {
        ActionError::Failed(format!("a builtin's result is {kind}, not a map"))
            .raise(rhai::Position::NONE)
    })
}

/// A typed list as the rhai array a builtin returns.
pub(crate) fn as_array<T: Serialize>(value: &[T]) -> RhaiResult<rhai::Array> {
    let dynamic: Dynamic = rhai::serde::to_dynamic(value)?;
    let kind = dynamic.type_name();
    dynamic.try_cast::<rhai::Array>().ok_or_else(|| {
        ActionError::Failed(format!("a builtin's result is {kind}, not an array"))
            .raise(rhai::Position::NONE)
    })
}

/// For an `Option` field of a journaled type: the field must be there, `null` when none.
/// Serde reads a missing `Option` as `None`, so a renamed field would replay as "none";
/// `#[serde(deserialize_with = "action::present")]` makes it a journal-shape error instead.
pub(crate) fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer)
}

/// Here, beside [`result_typed`], which it reads with: `change.rs` names nothing of this file.
impl Change<'_> {
    /// As [`Change::run`], the value (replayed or live) read back as the builtin's result
    /// type `R` ([`result_typed`]: a replayed record of another shape is refused naming it);
    /// when `probe` finds in it that the change waits for the next reboot, its check is left
    /// for after that reboot: a change that did not take then fails the host instead of
    /// being staged again.
    pub(crate) fn run_staged<N, T, R: serde::Serialize + serde::de::DeserializeOwned>(
        self,
        ctx: &NativeCallContext,
        read: impl FnOnce(&mut HostIo<'_>) -> Result<N, ActionError>,
        compare: impl FnOnce(&HostIo<'_>, N) -> Result<Compared<T>, ActionError>,
        apply: impl FnOnce(&mut HostIo<'_>, T, Outcome) -> Result<Outcome, ActionError>,
        expected: &str,
        probe: impl FnOnce(&R) -> Option<Probe>,
    ) -> RhaiResult<R> {
        let value = self.run(ctx, read, compare, apply)?;
        let typed: R = result_typed(ctx, &value, expected)?;
        let host = HostContext::current(ctx)?;
        if !host.shared.options().check
            && let Some(probe) = probe(&typed)
        {
            host.check_after_boot(probe.what, probe.check);
        }
        Ok(typed)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::unread_field;

    #[test]
    fn a_field_the_type_dropped_is_named_with_its_path() {
        let journaled = json!({ "devices": [{ "fw": "1" }, { "firmware": "2" }], "ok": true });
        let reread = json!({ "devices": [{ "fw": "1" }, { "fw": null }], "ok": true });
        assert_eq!(
            unread_field(&journaled, &reread).as_deref(),
            Some("devices[1].firmware")
        );
    }

    #[test]
    fn a_field_read_back_and_one_defaulted_are_fine() {
        let journaled = json!({ "a": [1, 2], "b": { "c": null } });
        let reread = json!({ "a": [1, 2], "b": { "c": null }, "predicted": false });
        assert_eq!(unread_field(&journaled, &reread), None);
    }
}
