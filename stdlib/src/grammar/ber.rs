//! A bit error rate as mlxlink prints it, `COEFE-MAGNITUDE` (`3E-9`; `15E-255`, its zero:
//! mstflint's `MlxlinkCommander` prints `coef + "E-" + magnitude`), as a number: what the
//! `mlxlink::` reader, the fabric's BER threshold and the simulated cable share.

/// `3E-9` as 3e-9; `None` for text of another form.
pub(crate) fn ber(text: &str) -> Option<f64> {
    let (coef, magnitude) = text.trim().split_once("E-")?;
    let coef: u32 = coef.parse().ok()?;
    let magnitude: i32 = magnitude.parse().ok()?;
    Some(f64::from(coef) / 10f64.powi(magnitude))
}

#[cfg(test)]
mod tests {
    #[test]
    fn mlxlink_bers() {
        assert!(super::ber("3E-9").is_some_and(|b| (b - 3e-9).abs() < 1e-20));
        assert!(super::ber("15E-255").is_some_and(|b| b < 1e-250));
        assert_eq!(super::ber("0.001"), None);
    }
}
