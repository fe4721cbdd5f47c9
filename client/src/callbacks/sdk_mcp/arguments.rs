//! Checking a tool call's arguments against the tool's JSON Schema (feature `jsonschema`).
//!
//! Without the feature every call passes; the handler (or, for a typed tool, deserializing its
//! argument type) is then the only check.

#[cfg(feature = "schemars")]
use serde_json::value::RawValue;
use serde_json::Value;

/// At most this many problems are named in one error.
#[cfg(feature = "jsonschema")]
const MAX_PROBLEMS: usize = 5;

/// A tool's compiled input schema, or why it does not compile.
#[derive(Clone)]
pub(super) struct ArgumentCheck {
    #[cfg(feature = "jsonschema")]
    tool: String,
    #[cfg(feature = "jsonschema")]
    validator: std::sync::Arc<Result<jsonschema::Validator, String>>,
}

impl ArgumentCheck {
    /// The check of tool `tool`'s arguments against `schema`.
    #[cfg_attr(not(feature = "jsonschema"), allow(unused_variables))]
    pub(super) fn new(tool: &str, schema: &Value) -> ArgumentCheck {
        ArgumentCheck {
            #[cfg(feature = "jsonschema")]
            tool: tool.to_owned(),
            #[cfg(feature = "jsonschema")]
            validator: std::sync::Arc::new(
                jsonschema::validator_for(schema).map_err(|e| e.to_string()),
            ),
        }
    }

    /// `Ok` when `args` fit the schema, else the tool error the model gets, naming each problem
    /// (up to five) with where it is in the arguments.
    #[cfg_attr(not(feature = "jsonschema"), allow(unused_variables))]
    pub(super) fn check(&self, args: &Value) -> Result<(), String> {
        #[cfg(feature = "jsonschema")]
        {
            let validator = match &*self.validator {
                Ok(validator) => validator,
                Err(e) => {
                    return Err(format!(
                        "The input schema of tool {} is not a valid JSON Schema: {e}",
                        self.tool
                    ))
                }
            };
            let problems: Vec<String> = validator
                .iter_errors(args)
                .take(MAX_PROBLEMS)
                .map(|error| match error.instance_path().as_str() {
                    "" => error.to_string(),
                    path => format!("{path}: {error}"),
                })
                .collect();
            if !problems.is_empty() {
                return Err(format!(
                    "Invalid arguments for tool {}: {}",
                    self.tool,
                    problems.join("; ")
                ));
            }
        }
        Ok(())
    }

    /// [`ArgumentCheck::check`] of arguments as the CLI sent them.
    #[cfg(feature = "schemars")]
    pub(super) fn check_raw(&self, args: &RawValue) -> Result<(), String> {
        #[cfg(feature = "jsonschema")]
        {
            let args: Value =
                serde_json::from_str(args.get()).map_err(|e| format!("invalid arguments: {e}"))?;
            self.check(&args)
        }
        #[cfg(not(feature = "jsonschema"))]
        {
            let _ = args;
            Ok(())
        }
    }
}
