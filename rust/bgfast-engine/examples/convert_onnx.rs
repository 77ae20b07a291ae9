//! Converts ONNX nets to a `.bgnet` file, weights unchanged bit for bit:
//!
//! ```text
//! cargo run --release -p bgfast-engine --example convert_onnx -- \
//!     CONTACT.onnx [RACE.onnx] OUT.bgnet [--inputs wildbg|board]
//! ```
//!
//! The input encoding defaults to `wildbg`. The net is read back from the file written and
//! compared with what was converted before the command reports success.

use std::path::PathBuf;
use std::process::ExitCode;

use bgfast_engine::net::onnx::read_mlp_file;
use bgfast_engine::net::{Inputs, Net};

const USAGE: &str =
    "usage: convert_onnx CONTACT.onnx [RACE.onnx] OUT.bgnet [--inputs wildbg|board]";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("convert_onnx: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let mut inputs = Inputs::Wildbg;
    let mut paths = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--inputs" => {
                let name = args.next().ok_or(USAGE)?;
                inputs = Inputs::from_name(&name).ok_or_else(|| {
                    let known: Vec<_> = Inputs::ALL.iter().map(|i| i.name()).collect();
                    format!(
                        "unknown input encoding {name:?}; known: {}",
                        known.join(", ")
                    )
                })?;
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            _ if arg.starts_with("--") => return Err(format!("unknown option {arg}\n{USAGE}")),
            _ => paths.push(PathBuf::from(arg)),
        }
    }
    let (out, parts) = match paths.split_last() {
        Some((out, parts @ [_] | parts @ [_, _])) => (out, parts),
        _ => return Err(USAGE.to_string()),
    };
    let read = |path: &PathBuf| read_mlp_file(path).map_err(|e| format!("{}: {e}", path.display()));
    let contact = read(&parts[0])?;
    let race = parts.get(1).map(read).transpose()?;
    let net = Net::new(inputs, contact, race).map_err(|e| e.to_string())?;
    net.save(out).map_err(|e| e.to_string())?;
    let back = Net::load(out).map_err(|e| e.to_string())?;
    if back != net {
        return Err(format!("{} does not read back as written", out.display()));
    }
    let describe = |mlp: &bgfast_engine::net::Mlp| {
        let widths: Vec<String> = core::iter::once(mlp.inputs())
            .chain(mlp.layers().iter().map(|l| l.outputs()))
            .map(|w| w.to_string())
            .collect();
        let activations: Vec<_> = mlp.layers().iter().map(|l| l.activation().name()).collect();
        format!("{} ({})", widths.join("-"), activations.join(", "))
    };
    println!(
        "wrote {} ({} bytes): {} inputs; contact {}{}",
        out.display(),
        net.to_bytes().len(),
        inputs.name(),
        describe(net.contact()),
        net.race()
            .map(|r| format!("; race {}", describe(r)))
            .unwrap_or_default()
    );
    Ok(())
}
