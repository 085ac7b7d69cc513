//! Compiles the ABC congestion control (`bpf/abc.bpf.c`) to a BPF object with clang, when clang
//! and libbpf's headers are installed (`make emu-deps`), and embeds it in the binary. Without them
//! the crate still builds: `emulate --scheme abc` then fails with the reason, and the tests that
//! need it skip.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(abc_bpf)");
    println!("cargo::rerun-if-changed=bpf/abc.bpf.c");
    println!("cargo::rerun-if-env-changed=CLANG");
    let clang = std::env::var("CLANG").unwrap_or_else(|_| "clang".into());
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("abc.bpf.o");
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
    let status = Command::new(&clang)
        .args(["-O2", "-g", "-target", "bpf", "-Wall", "-Werror"])
        .arg(format!("-I/usr/include/{arch}-linux-gnu"))
        .arg("-c")
        .arg("bpf/abc.bpf.c")
        .arg("-o")
        .arg(&out)
        .status();
    match status {
        Ok(s) if s.success() => {
            println!("cargo::rustc-cfg=abc_bpf");
            println!("cargo::rustc-env=ABC_BPF_OBJECT={}", out.display());
        }
        Ok(s) => unavailable(&format!("{clang} failed to compile bpf/abc.bpf.c ({s})")),
        Err(e) => unavailable(&format!("{clang} is not installed ({e}; make emu-deps installs it)")),
    }
}

fn unavailable(why: &str) {
    println!("cargo::warning=ABC in eBPF not built: {why}");
    println!("cargo::rustc-env=ABC_BPF_UNAVAILABLE={why}");
}
