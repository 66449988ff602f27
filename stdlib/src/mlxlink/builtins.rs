//! The `mlxlink::` builtins: a port's link health as the adapter firmware reports it.

use rhai::plugin::*;

/// The `mlxlink::` module: `mlxlink::read(device)` runs `mlxlink -d DEVICE -c` (MFT) and
/// returns the port's state, speed, width, FEC, raw and effective bit error rates, symbol
/// errors, link downs and the firmware's recommendation.
///
/// ```rhai
/// let l = mlxlink::read("mlx5_0");
/// log(`${l.speed} ${l.width} FEC ${l.fec}: effective BER ${l.effective_ber}`);
/// ```
#[export_module]
pub mod mlxlink_builtins {
    use rhai::{Map, NativeCallContext};
    use serde_json::json;

    use crate::action::{self, RhaiResult};
    use crate::mlxlink::LinkReading;

    /// `mlxlink -d DEVICE -c`: `#{device, state, physical_state, speed, width, fec, raw_ber,
    /// effective_ber, symbol_errors, effective_errors, link_downs, recommendation}`; a BER as
    /// printed (`3E-9`; `15E-255` is mlxlink's none), `width` as `4x`, `speed` as `IB-EDR`.
    ///
    /// ```rhai
    /// let l = mlxlink::read("mlx5_0");
    /// expect(l.state == "Active", `mlx5_0 is ${l.state}`);
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn read(ctx: NativeCallContext, device: &str) -> RhaiResult<Map> {
        if !action::valid_device(device) {
            return Err(action::bad_argument(
                &ctx,
                format!("`{device}` is not a device name"),
            ));
        }
        let device = device.to_owned();
        let args = json!({ "device": device });
        let reading = action::query_typed(
            &ctx,
            crate::mlxlink::NAMESPACE,
            args,
            "mlxlink's reading",
            |io| {
                let argv = crate::mlxlink::command::read(&device);
                let out = action::run_parsed(io, &argv, crate::mlxlink::parse)?;
                Ok(LinkReading::of(&device, &out))
            },
        )?;
        action::as_map(&reading)
    }
}
