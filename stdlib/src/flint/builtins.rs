//! The `flint::` builtins: the firmware image on an adapter's flash.

use rhai::plugin::*;
use rhai::{Map, NativeCallContext};
use serde_json::json;

use super::reads::{self, FlashImage, Predicted};
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
        let image = action::query_typed(
            &ctx,
            crate::flint::NAMESPACE,
            json!({ "device": dev }),
            "flint's image query",
            |io| match reads::image(io, &dev)? {
                Some(image) => Ok(FlashImage::Found(Box::new(image))),
                None if io.checking() => Ok(FlashImage::Predicted(Predicted { predicted: true })),
                None => Err(action::not_installed("flint", io.host())),
            },
        )?;
        action::as_map(&image)
    }
}
