//! Print a scenario's complete output in a form that can be compared byte for byte:
//! `cargo run --release --example digest -- FILE...`.
//!
//! For each file: one line `FILE summary=<FNV-1a of the summary JSON> tables=<FNV-1a of every table's
//! JSON> rows=<rows>`, then (with `--summary`) the summary JSON itself. Used to check that an
//! optimisation leaves results bit-identical, and by the cross-process determinism test.

/// 64-bit FNV-1a (Fowler–Noll–Vo), offset basis and prime from the reference description
/// (<http://www.isthe.com/chongo/tech/comp/fnv/>).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let show = args.iter().any(|a| a == "--summary");
    for path in args.iter().filter(|a| !a.starts_with("--")) {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
            eprintln!("{path}: {e}");
            std::process::exit(2)
        });
        let scenario = accelbrake_sim::Scenario::from_json(&text).unwrap_or_else(|e| {
            eprintln!("{path}: {e}");
            std::process::exit(2)
        });
        // The interruptible path, as the Python layer runs it (a flag that is never set), so
        // that timing this example includes the cost of looking at the flag.
        let never = std::sync::atomic::AtomicBool::new(false);
        let r = accelbrake_sim::simulate_interruptible(&scenario, &never).unwrap_or_else(|e| {
            eprintln!("{path}: {e}");
            std::process::exit(2)
        });
        let summary = serde_json::to_string(&r.summary).expect("summary serialises");
        let tables = serde_json::to_string(&r.tables).expect("tables serialise");
        let rows: usize = r
            .tables
            .values()
            .map(|t| t.columns.first().map_or(0, |(_, c)| c.len()))
            .sum();
        println!(
            "{path} summary={:016x} tables={:016x} rows={rows}",
            fnv1a(summary.as_bytes()),
            fnv1a(tables.as_bytes())
        );
        if show {
            println!("{summary}");
        }
    }
}
