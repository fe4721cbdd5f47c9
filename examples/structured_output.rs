//! Structured output: the answer comes back as JSON that matches a schema, here derived from a
//! Rust type with `schemars`, and is read back into that type.
//!
//! Run: `cargo run --example structured_output` (needs the `claude` CLI and an API key), or
//! offline with the real CLI and a stub model: `scripts/quick-start structured_output`.

use claude_agent_tokio::{query, Message, Options};

/// A capital city. The doc comments and examples go into the schema the model sees.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Capital {
    /// The country.
    #[schemars(example = &"France")]
    country: String,
    /// Its capital city.
    #[schemars(example = &"Paris")]
    capital: String,
    /// The city's population, in millions.
    #[schemars(example = 2.1)]
    population_millions: f64,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let schema = schemars::schema_for!(Capital);
    let options = Options::new().json_schema(schema.to_value());
    let mut messages = query(
        "Pick a country in Europe and tell me about its capital.",
        options,
    );
    while let Some(message) = messages.next().await {
        if let Message::Result(result) = message? {
            match result.structured_output {
                Some(json) => {
                    println!("structured output: {}", json.as_str());
                    let c: Capital = serde_json::from_str(json.as_str())?;
                    println!(
                        "{} is the capital of {} ({} million people)",
                        c.capital, c.country, c.population_millions
                    );
                }
                None => println!("no structured output: {:?}", result.result),
            }
        }
    }
    Ok(())
}
