//! The app's command line: `outside-app [tokio|smol] [PROMPT…]` asks one question (read-only, as
//! the library's policy says) and prints the answer and its cost. With no API key at hand, run it
//! offline from its folder: `scripts/offline cargo run -- smol "Say hello"`.

use std::process::ExitCode;

use claude_agent_client::Options;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let runtime = args.next().unwrap_or_else(|| "tokio".to_owned());
    let words: Vec<String> = args.collect();
    let prompt = if words.is_empty() {
        "Say hello".to_owned()
    } else {
        words.join(" ")
    };
    let answer = match runtime.as_str() {
        "tokio" => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime")
            .block_on(outside_app::ask_tokio(&prompt, Options::new())),
        "smol" => smol::block_on(outside_app::ask_smol(&prompt, Options::new())),
        other => {
            eprintln!("outside-app: no runtime {other:?}: say tokio or smol");
            return ExitCode::from(2);
        }
    };
    match answer {
        Ok(answer) => {
            println!("answer: {}", answer.text);
            println!("cost: ${:.4}", answer.cost_usd);
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("outside-app: {error}");
            ExitCode::FAILURE
        }
    }
}
