//! The `flint::` builtins: the firmware image on an adapter's flash.

use rhai::plugin::*;
use rhai::{Map, NativeCallContext};
use serde_json::json;

use super::command;
use crate::action::{self, RhaiResult};

/// The `flint::` module.
#[export_module]
pub mod flint_builtins {
    use super::*;

    /// The image on a device's flash (`3b:00.0`, `mt4119_pciconf1`), from `flint -d DEV
    /// query`: `#{image_type, fw_version, fw_release_date, product_version, rom_info: [#{type,
    /// version, cpu}], base_guid: #{uid, guids_number}, base_mac, psid, ...}`.
    ///
    /// ```rhai
    /// let image = flint::query("3b:00.0");
    /// expect(image.psid == "MT_0000000008", `unexpected board ${image.psid}`);
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn query(ctx: NativeCallContext, dev: String) -> RhaiResult<Map> {
        let value = action::query(
            &ctx,
            crate::flint::NAMESPACE,
            json!({ "device": dev }),
            |io| {
                let argv = command::query(&dev);
                let Some(output) = action::run_if_installed(io, &argv)? else {
                    if io.checking() {
                        return Ok(json!({ "predicted": true }));
                    }
                    return Err(action::not_installed("flint", io.host()));
                };
                let parsed = action::parsed(&argv, &output.stdout, crate::flint::parse_query)?;
                Ok(action::json(&parsed))
            },
        )?;
        action::result_as(&ctx, value)
    }
}
