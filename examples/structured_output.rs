//! Structured output: ask for a result matching a JSON Schema and read it back into a Rust type.

use claude_agent_tokio::{query, Message, Options, StreamExt};

#[derive(serde::Deserialize)]
struct Capital {
    country: String,
    capital: String,
    population_millions: f64,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "country": {"type": "string"},
            "capital": {"type": "string"},
            "population_millions": {"type": "number"}
        },
        "required": ["country", "capital", "population_millions"]
    });
    let mut messages = query(
        "Tell me about the capital of Japan.",
        Options::new().json_schema(schema),
    );
    while let Some(message) = messages.next().await {
        if let Message::Result(result) = message? {
            match result.structured_output {
                Some(json) => {
                    let c: Capital = serde_json::from_str(json.get())?;
                    println!(
                        "{} is the capital of {} ({} million people)",
                        c.capital, c.country, c.population_millions
                    );
                }
                None => println!(
                    "no structured output: {}",
                    result.result.unwrap_or_default()
                ),
            }
        }
    }
    Ok(())
}
