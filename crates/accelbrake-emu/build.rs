//! Compiles the BPF congestion controls (ABC: `bpf/abc.bpf.c`, `bpf/abc_cubic.bpf.c`; ABE on
//! Linux's Cubic and Reno: `bpf/abe.bpf.c`, twice) to BPF objects with clang, when clang and libbpf's headers are installed (`make emu-deps`), and embeds them. Without them
//! the crate still builds: `emulate --scheme abc` then fails with the reason, and the tests that
//! need it skip.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(abc_bpf)");
    for f in ["bpf/abc.h", "bpf/abc.bpf.c", "bpf/abc_cubic.bpf.c", "bpf/abe.bpf.c"] {
        println!("cargo::rerun-if-changed={f}");
    }
    println!("cargo::rerun-if-env-changed=CLANG");
    let clang = std::env::var("CLANG").unwrap_or_else(|_| "clang".into());
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return unavailable("BPF congestion controls are Linux only");
    }
    // Re-run when these appear (cargo re-runs a build script while a watched path is missing).
    for p in ["/usr/bin/clang", "/usr/include/bpf/bpf_helpers.h"] {
        println!("cargo::rerun-if-changed={p}");
    }
    if !Path::new("/usr/include/bpf/bpf_helpers.h").exists() {
        return unavailable("libbpf's headers are missing (install libbpf-dev: make emu-deps)");
    }
    let arch = match std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() {
        Ok("x86_64") => "x86_64",
        Ok("aarch64") => "aarch64",
        Ok(other) => return unavailable(&format!("no BPF build set up for {other}")),
        Err(_) => return unavailable("unknown target architecture"),
    };
    // (source, object, defines, the variable naming the object for bpf.rs)
    let objects: [(&str, &str, &[&str], &str); 4] = [
        ("abc", "abc", &[], "ABC_BPF_OBJECT"),
        ("abc_cubic", "abc_cubic", &[], "ABC_CUBIC_BPF_OBJECT"),
        ("abe", "cubic_abe", &[], "CUBIC_ABE_BPF_OBJECT"),
        ("abe", "reno_abe", &["-DABE_RENO"], "RENO_ABE_BPF_OBJECT"),
    ];
    for (src, obj, defines, var) in objects {
        let out = out_dir.join(format!("{obj}.bpf.o"));
        let status = Command::new(&clang)
            .args(["-O2", "-g", "-target", "bpf", "-Wall", "-Werror"])
            .args(defines)
            .arg(format!("-I/usr/include/{arch}-linux-gnu"))
            .arg("-c")
            .arg(format!("bpf/{src}.bpf.c"))
            .arg("-o")
            .arg(&out)
            .status();
        match status {
            Ok(s) if s.success() => println!("cargo::rustc-env={var}={}", out.display()),
            Ok(s) => return unavailable(&format!("{clang} failed to compile bpf/{src}.bpf.c ({s})")),
            Err(e) => return unavailable(&format!("{clang} is not installed ({e}; make emu-deps installs it)")),
        }
    }
    println!("cargo::rustc-cfg=abc_bpf");
}

fn unavailable(why: &str) {
    println!("cargo::warning=ABC in eBPF not built: {why}");
    println!("cargo::rustc-env=ABC_BPF_UNAVAILABLE={why}");
}
