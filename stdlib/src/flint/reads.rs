//! What the `flint::` builtins read from a host, as typed values: `query` journals a
//! [`FlashImage`] (`action::query_typed`), so a replayed image of another shape is refused
//! naming the record.

use cairn_runtime::{ActionError, HostIo};
use serde::{Deserialize, Deserializer, Serialize};

use super::{FlintQuery, command};
use crate::action;

/// What `flint::query` gives a script: the image, or (check mode, flint not installed yet)
/// `#{predicted: true}`. Journaled as the inner value alone, as the builtin always has.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum FlashImage {
    Found(Box<FlintQuery>),
    Predicted(Predicted),
}

/// Check mode's answer before MFT is installed: nothing was queried.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Predicted {
    pub predicted: bool,
}

/// Read back by `predicted`, so a record of another shape fails with the field that is wrong
/// (an untagged enum would only say that no variant matched).
impl<'de> Deserialize<'de> for FlashImage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        let read = if value["predicted"] == true {
            serde_json::from_value(value).map(FlashImage::Predicted)
        } else {
            serde_json::from_value(value).map(FlashImage::Found)
        };
        read.map_err(serde::de::Error::custom)
    }
}

/// `flint -d DEV query`: the image on the device's flash; `None` when flint is not installed.
pub(super) fn image(io: &mut HostIo<'_>, dev: &str) -> Result<Option<FlintQuery>, ActionError> {
    let argv = command::query(dev);
    let Some(output) = action::run_if_installed(io, &argv)? else {
        return Ok(None);
    };
    action::parsed(&argv, &output.stdout, super::parse_query).map(Some)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::test_support::{INSTALL_TOOLS, TestHost};
    use crate::test_support::{journal_of, shape_error};

    #[test]
    fn an_image_journals_as_flint_printed_it_and_reads_back() {
        let t = TestHost::esxi("").build();
        t.run(INSTALL_TOOLS);
        let live = t.eval(r#"flint::query("3b:00.0")"#);
        let journaled: serde_json::Value = rhai::serde::from_dynamic(&live).expect("json");
        assert!(journaled["psid"].is_string(), "{journaled}");
        let back: FlashImage = serde_json::from_value(journaled.clone()).expect("reads back");
        assert_eq!(action::json(&back), journaled);
        let predicted = json!({ "predicted": true });
        let back: FlashImage = serde_json::from_value(predicted.clone()).expect("reads back");
        assert_eq!(action::json(&back), predicted);
    }

    #[test]
    fn a_replayed_image_of_another_shape_is_refused_naming_the_record() {
        let args = json!({ "device": "3b:00.0" });
        let image = json!({ "image_type": "FS4", "rom_info": "PXE" });
        let t = TestHost::esxi("")
            .replaying(journal_of("flint::query", args, image))
            .build();
        let error = t.error(r#"flint::query("3b:00.0")"#);
        let expected = shape_error("flint::query", "flint's image query");
        assert!(error.contains(&expected), "{error}");
        assert!(error.contains("(journal test.jsonl line 3)"), "{error}");
    }
}
