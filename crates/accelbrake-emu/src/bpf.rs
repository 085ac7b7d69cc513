//! Our BPF congestion controls: loading and registering one as a kernel TCP congestion control for
//! the lifetime of this process.
//! - ABC (`bpf/abc.bpf.c`; `bpf/abc_cubic.bpf.c`, the §4.1 `min(w_abc, w_cubic)` variant);
//! - ABE (RFC 8511) on Linux's own Cubic and Reno (`bpf/abe.bpf.c`): `cubic-abe`, `newreno-abe`.
//!
//! The BPF objects are compiled by `build.rs` (clang, libbpf's headers) and embedded. They are loaded
//! with the system's libbpf (`libbpf.so.1`), opened at run time with `libloading`, so that the crate
//! builds and its other commands run where libbpf is absent. Eight libbpf calls are used: open the
//! object from memory, set its configuration (`.rodata`), mark the struct_ops map as a link map,
//! load (the verifier runs here), store the struct_ops value, and create the link.
//!
//! Registration is global (every network namespace sees the congestion control) but tied to a
//! *link* descriptor (`BPF_F_LINK` struct_ops map + `BPF_LINK_CREATE`, Linux ≥ 6.4): when this
//! process exits, however it exits, the descriptor closes and the kernel unregisters it. Sockets
//! still using it keep it until they close. Debian bookworm's libbpf 1.1 predates
//! `SEC(".struct_ops.link")`, hence the two manual steps.
//!
//! Names are global too, so two emulators running at once must not take the same one: the name is
//! the variant's own (`abc`, `abc_cubic`, `cubic_abe`, `reno_abe`) when that is free, else the
//! variant's prefix with this process's id (`abc_<pid>`, `abcc_<pid>`, `cabe_<pid>`, `rabe_<pid>`),
//! then that with `_1`, `_2`, ...; a registration that loses a race for a name (the kernel answers
//! `EEXIST`) is retried under the next one.

use accelbrake_sim::params::{Given, Values};
use std::ffi::{c_char, c_int, c_void, CString};
use std::os::fd::{FromRawFd, OwnedFd};

/// Why ABC in eBPF cannot be loaded by this binary (not compiled in), or `None`.
pub fn not_built() -> Option<&'static str> {
    #[cfg(abc_bpf)]
    {
        None
    }
    #[cfg(not(abc_bpf))]
    {
        Some(env!("ABC_BPF_UNAVAILABLE"))
    }
}

#[cfg(abc_bpf)]
static OBJECT: &[u8] = include_bytes!(env!("ABC_BPF_OBJECT"));
#[cfg(abc_bpf)]
static OBJECT_CUBIC: &[u8] = include_bytes!(env!("ABC_CUBIC_BPF_OBJECT"));
#[cfg(abc_bpf)]
static OBJECT_CUBIC_ABE: &[u8] = include_bytes!(env!("CUBIC_ABE_BPF_OBJECT"));
#[cfg(abc_bpf)]
static OBJECT_RENO_ABE: &[u8] = include_bytes!(env!("RENO_ABE_BPF_OBJECT"));
#[cfg(not(abc_bpf))]
static OBJECT: &[u8] = &[];
#[cfg(not(abc_bpf))]
static OBJECT_CUBIC: &[u8] = &[];
#[cfg(not(abc_bpf))]
static OBJECT_CUBIC_ABE: &[u8] = &[];
#[cfg(not(abc_bpf))]
static OBJECT_RENO_ABE: &[u8] = &[];

/// Which BPF congestion control.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// `abc`: the ABC window alone (paper §3.1, `tcp_abc.c`).
    Abc,
    /// `abc-cubic`: `min(w_abc, w_cubic)` (paper §4.1, `tcp_abccubic.c`).
    AbcCubic,
    /// `cubic-abe`: Linux's Cubic with RFC 8511's β_ecn on an ECN echo.
    CubicAbe,
    /// `newreno-abe`: Linux's Reno with RFC 8511's β_ecn on an ECN echo.
    RenoAbe,
}

impl Variant {
    /// From our scheme name (`abc`, `abc-cubic`, `cubic-abe`, `newreno-abe`).
    pub fn of_scheme(name: &str) -> Option<Variant> {
        match name {
            "abc" => Some(Variant::Abc),
            "abc-cubic" => Some(Variant::AbcCubic),
            "cubic-abe" => Some(Variant::CubicAbe),
            "newreno-abe" => Some(Variant::RenoAbe),
            _ => None,
        }
    }

    /// Whether this is one of the ABE congestion controls (configured by [`AbeConfig`]).
    pub fn is_abe(self) -> bool {
        matches!(self, Variant::CubicAbe | Variant::RenoAbe)
    }

    fn object(self) -> &'static [u8] {
        match self {
            Variant::Abc => OBJECT,
            Variant::AbcCubic => OBJECT_CUBIC,
            Variant::CubicAbe => OBJECT_CUBIC_ABE,
            Variant::RenoAbe => OBJECT_RENO_ABE,
        }
    }

    /// The struct_ops map in the object, and the kernel names: preferred, prefix if taken.
    fn names(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Variant::Abc => ("abc", "abc", "abc_"),
            Variant::AbcCubic => ("abc_cubic", "abc_cubic", "abcc_"),
            Variant::CubicAbe => ("cubic_abe", "cubic_abe", "cabe_"),
            Variant::RenoAbe => ("reno_abe", "reno_abe", "rabe_"),
        }
    }

    fn placeholder(self) -> &'static [u8; 16] {
        if self.is_abe() {
            ABE_PLACEHOLDER
        } else {
            PLACEHOLDER
        }
    }
}

/// The struct_ops name in the object, overwritten before loading (15 characters + NUL = the
/// kernel's `TCP_CA_NAME_MAX`).
const PLACEHOLDER: &[u8; 16] = b"ABCNAMEPLACEHLD\0";
/// The same in the ABE objects.
const ABE_PLACEHOLDER: &[u8; 16] = b"ABENAMEPLACEHLD\0";
/// `BPF_F_LINK` (include/uapi/linux/bpf.h): a struct_ops map registered through a link.
const BPF_F_LINK: u32 = 1 << 13;
/// `BPF_STRUCT_OPS` attach type (enum bpf_attach_type).
const BPF_STRUCT_OPS: u32 = 44;

/// The configuration block `abc.bpf.c` reads (`struct abc_config`, same field order).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BpfConfig {
    initial_window_fp: u32,
    min_window_fp: u32,
    additive_increase: u32,
    ai_per_segment: u32,
    pacing_gain_fp: u32,
    mtu: u32,
}

impl BpfConfig {
    /// From the simulator's parameters of `scheme` (`abc`, `abc-cubic`: the registry's table, with
    /// the checks of `accelbrake run`), `given` overriding defaults (keys as `--set abc.<name>`
    /// without the prefix).
    pub fn from_registry(scheme: &str, given: &Given) -> Result<BpfConfig, String> {
        let s = accelbrake_sim::cc::lookup(scheme).map_err(|e| e.to_string())?;
        let v: Values = s.values(given).map_err(|e| e.to_string())?;
        let fp = |x: f64| (x * 65536.0).round().clamp(0.0, u32::MAX as f64) as u32;
        Ok(BpfConfig {
            initial_window_fp: fp(v.real("initial_window")),
            min_window_fp: fp(v.real("min_window")),
            additive_increase: v.flag("additive_increase") as u32,
            ai_per_segment: v.flag("ai_per_segment") as u32,
            pacing_gain_fp: fp(v.real("pacing_gain")),
            mtu: accelbrake_sim::packet::MTU,
        })
    }
}

/// The configuration block `abe.bpf.c` reads (`struct abe_config`, same field order).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AbeConfig {
    beta_ecn_1024: u32,
    abe_slow_start: u32,
    fast_convergence: u32,
}

impl AbeConfig {
    /// From the simulator's parameters of `scheme` (`cubic-abe`, `newreno-abe`: the registry's
    /// table with the checks of `accelbrake run`; keys as `--set cubic.<name>` without the
    /// prefix). Only `beta_ecn`, `abe_slow_start` and (Cubic) `fast_convergence` are the BPF
    /// program's; any other key given is an error naming it, since the rest is the kernel's own
    /// Cubic or Reno (its module parameters and sysctls are global, not per run).
    pub fn from_registry(scheme: &str, given: &Given) -> Result<AbeConfig, String> {
        let s = accelbrake_sim::cc::lookup(scheme).map_err(|e| e.to_string())?;
        let ours: &[&str] = if scheme == "cubic-abe" {
            &["beta_ecn", "abe_slow_start", "fast_convergence"]
        } else {
            &["beta_ecn", "abe_slow_start"]
        };
        if let Some(k) = given.keys().find(|k| !ours.contains(&k.as_str())) {
            return Err(format!(
                "{}.{k}: the kernel's {} takes only {} here (the rest is the kernel's own code and \
                 its global settings)",
                s.family,
                if scheme == "cubic-abe" { "Cubic" } else { "Reno" },
                ours.join(", ")
            ));
        }
        let v: Values = s.values(given).map_err(|e| e.to_string())?;
        let b = v
            .opt_real("beta_ecn")
            .unwrap_or(if scheme == "cubic-abe" { 0.85 } else { 0.8 });
        // The kernel keeps β at 1/1024 resolution (tcp_cubic.c BICTCP_BETA_SCALE); so does this.
        let b1024 = (b * 1024.0).round();
        if !(1.0..=1023.0).contains(&b1024) {
            return Err(format!(
                "{}.beta_ecn: got {b}; expected a number in (0, 1) (resolution 1/1024), e.g. 0.85",
                s.family
            ));
        }
        let fc = if scheme == "cubic-abe" {
            v.flag("fast_convergence")
        } else {
            true
        };
        Ok(AbeConfig {
            beta_ecn_1024: b1024 as u32,
            abe_slow_start: v.flag("abe_slow_start") as u32,
            fast_convergence: fc as u32,
        })
    }
}

/// The configuration of one BPF congestion control, written to its `.rodata` before loading.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CcConfig {
    /// ABC's ([`BpfConfig`]).
    Abc(BpfConfig),
    /// ABE's ([`AbeConfig`]).
    Abe(AbeConfig),
}

impl CcConfig {
    fn bytes(&self) -> Vec<u8> {
        fn raw<T: Copy>(x: &T) -> Vec<u8> {
            // SAFETY: both blocks are repr(C) structs of u32s (no padding, no pointers).
            unsafe { std::slice::from_raw_parts((x as *const T).cast::<u8>(), std::mem::size_of::<T>()) }.to_vec()
        }
        match self {
            CcConfig::Abc(c) => raw(c),
            CcConfig::Abe(c) => raw(c),
        }
    }
}

type OpenMem = unsafe extern "C" fn(*const c_void, usize, *const c_void) -> *mut c_void;
type FindMap = unsafe extern "C" fn(*const c_void, *const c_char) -> *mut c_void;
type SetInit = unsafe extern "C" fn(*mut c_void, *const c_void, usize) -> c_int;
type SetFlags = unsafe extern "C" fn(*mut c_void, u32) -> c_int;
type Load = unsafe extern "C" fn(*mut c_void) -> c_int;
type Attach = unsafe extern "C" fn(*const c_void) -> *mut c_void;
type MapFd = unsafe extern "C" fn(*const c_void) -> c_int;
type LinkCreate = unsafe extern "C" fn(c_int, c_int, u32, *const c_void) -> c_int;
type Close = unsafe extern "C" fn(*mut c_void);

/// A registered BPF congestion control (ABC or ABE); unregistered when dropped (or when the
/// process ends).
pub struct AbcCc {
    name: String,
    link: Option<OwnedFd>,
    obj: *mut c_void,
    close: Close,
    _lib: libloading::Library,
    /// The ELF image libbpf opened (it may point into it while the object lives).
    _image: Vec<u8>,
}

// The object pointer is only used again by `drop`.
unsafe impl Send for AbcCc {}

impl AbcCc {
    /// The name to give `TCP_CONGESTION`.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for AbcCc {
    fn drop(&mut self) {
        self.link.take(); // closes the link: the kernel unregisters the congestion control
                          // SAFETY: `obj` came from bpf_object__open_mem and is closed once.
        unsafe { (self.close)(self.obj) };
    }
}

fn registered() -> Vec<String> {
    crate::tcp::available_congestion_controls()
}

/// Load and register `variant` with its parameters `cfg`; the error says why it cannot be done.
pub fn load(variant: Variant, cfg: &CcConfig) -> Result<AbcCc, String> {
    let what = if variant.is_abe() { "ABE in eBPF" } else { "ABC in eBPF" };
    load_registered(variant, cfg).map_err(|e| format!("{what}: {e}"))
}

/// The names to try, in order (see the module doc); all within the kernel's 15 characters.
fn candidate_names(variant: Variant, taken: &[String]) -> Vec<String> {
    let (_, preferred, prefix) = variant.names();
    let pid = std::process::id();
    let mut out = Vec::new();
    if !taken.iter().any(|n| n == preferred) {
        out.push(preferred.to_string());
    }
    out.push(format!("{prefix}{pid}"));
    out.extend((1..=8).map(|k| format!("{prefix}{pid}_{k}")));
    out.retain(|n| n.len() <= 15 && !taken.contains(n));
    out
}

/// Why a registration failed: the name was taken meanwhile (try the next), or anything else.
enum Failure {
    NameTaken,
    Other(String),
}

fn load_registered(variant: Variant, cfg: &CcConfig) -> Result<AbcCc, String> {
    if let Some(why) = not_built() {
        return Err(format!("not in this build: {why}"));
    }
    let names = candidate_names(variant, &registered());
    for name in &names {
        match load_named(variant, cfg, name) {
            Ok(cc) => return Ok(cc),
            Err(Failure::NameTaken) => continue,
            Err(Failure::Other(e)) => return Err(e),
        }
    }
    Err(format!(
        "every name tried ({}) was taken by another registration",
        names.join(", ")
    ))
}

fn load_named(variant: Variant, cfg: &CcConfig, name: &str) -> Result<AbcCc, Failure> {
    let other = Failure::Other;
    let (map_name, _, _) = variant.names();
    let placeholder = variant.placeholder();
    let mut object = variant.object().to_vec();
    let at = object
        .windows(placeholder.len())
        .position(|w| w == placeholder)
        .ok_or_else(|| other("the embedded BPF object has no name placeholder".into()))?;
    let mut field = [0u8; 16];
    field[..name.len()].copy_from_slice(name.as_bytes());
    object[at..at + 16].copy_from_slice(&field);
    let cfg_block = cfg.bytes();

    // SAFETY: the library is Debian's libbpf 1.x; every symbol is used with its C prototype
    // (libbpf.h / bpf.h), and pointers passed live across the calls.
    unsafe {
        let lib = libloading::Library::new("libbpf.so.1").map_err(|e| {
            other(format!(
                "cannot open libbpf.so.1 ({e}); install libbpf1 (make emu-deps)"
            ))
        })?;
        macro_rules! sym {
            ($n:literal, $t:ty) => {
                *lib.get::<$t>(concat!($n, "\0").as_bytes())
                    .map_err(|e| other(format!("libbpf.so.1 lacks {}: {e}", $n)))?
            };
        }
        let open_mem = sym!("bpf_object__open_mem", OpenMem);
        let find_map = sym!("bpf_object__find_map_by_name", FindMap);
        let set_init = sym!("bpf_map__set_initial_value", SetInit);
        let set_flags = sym!("bpf_map__set_map_flags", SetFlags);
        let load = sym!("bpf_object__load", Load);
        let attach = sym!("bpf_map__attach_struct_ops", Attach);
        let map_fd = sym!("bpf_map__fd", MapFd);
        let link_create = sym!("bpf_link_create", LinkCreate);
        let close = sym!("bpf_object__close", Close);
        let errno = || std::io::Error::last_os_error();

        let obj = open_mem(object.as_ptr().cast(), object.len(), std::ptr::null());
        if obj.is_null() {
            return Err(other(format!("libbpf could not open the BPF object: {}", errno())));
        }
        let mut cc = AbcCc {
            name: name.to_string(),
            link: None,
            obj,
            close,
            _lib: lib,
            _image: Vec::new(),
        };
        let c = |s: &str| CString::new(s).expect("no NUL");
        let rodata = find_map(obj, c(".rodata").as_ptr());
        if rodata.is_null() {
            return Err(other("the BPF object has no .rodata map".into()));
        }
        let r = set_init(rodata, cfg_block.as_ptr().cast(), cfg_block.len());
        if r != 0 {
            return Err(other(format!("setting the configuration failed ({r})")));
        }
        let ops = find_map(obj, c(map_name).as_ptr());
        if ops.is_null() {
            return Err(other(format!("the BPF object has no struct_ops map '{map_name}'")));
        }
        set_flags(ops, BPF_F_LINK);
        let r = load(obj);
        if r != 0 {
            return Err(other(format!(
                "the kernel refused the BPF program ({}; libbpf's messages above name the step)",
                std::io::Error::from_raw_os_error(-r)
            )));
        }
        // Stores the struct_ops value; for a BPF_F_LINK map this does not register it yet. The
        // bpf_link it returns is deliberately never destroyed (its detach would delete the value
        // the real link uses); it is a few bytes once per process.
        if attach(ops).is_null() {
            return Err(other(format!("storing the struct_ops failed: {}", errno())));
        }
        let fd = link_create(map_fd(ops), 0, BPF_STRUCT_OPS, std::ptr::null());
        if fd == -libc::EEXIST {
            return Err(Failure::NameTaken); // another process registered this name meanwhile
        }
        if fd < 0 {
            return Err(other(format!(
                "registering tcp_congestion_ops '{name}' failed: {}",
                std::io::Error::from_raw_os_error(-fd)
            )));
        }
        cc.link = Some(OwnedFd::from_raw_fd(fd));
        cc._image = object;
        if !registered().iter().any(|n| n == name) {
            return Err(other(format!(
                "'{name}' does not appear in net.ipv4.tcp_available_congestion_control after registering"
            )));
        }
        Ok(cc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_configuration_block_carries_the_registry_defaults_in_fixed_point() {
        let b = BpfConfig::from_registry("abc", &Given::new()).unwrap();
        assert_eq!(b.initial_window_fp, 10 << 16);
        assert_eq!(b.min_window_fp, 6 << 16);
        assert_eq!((b.additive_increase, b.ai_per_segment), (1, 0));
        assert_eq!(b.pacing_gain_fp, 2 << 16);
        assert_eq!(b.mtu, 1500);
        assert_eq!(std::mem::size_of::<BpfConfig>(), 24);
    }

    #[cfg(abc_bpf)]
    #[test]
    fn each_embedded_object_has_one_name_placeholder() {
        for v in [Variant::Abc, Variant::AbcCubic, Variant::CubicAbe, Variant::RenoAbe] {
            let p = v.placeholder();
            assert_eq!(v.object().windows(16).filter(|w| w == p).count(), 1, "{v:?}");
        }
    }

    #[test]
    fn names_fall_back_to_the_process_id_and_never_repeat_a_taken_one() {
        let pid = std::process::id();
        let free = candidate_names(Variant::CubicAbe, &[]);
        assert_eq!(free[0], "cubic_abe");
        assert_eq!(free[1], format!("cabe_{pid}"));
        let taken = vec!["cubic_abe".to_string(), format!("cabe_{pid}")];
        let next = candidate_names(Variant::CubicAbe, &taken);
        assert_eq!(next[0], format!("cabe_{pid}_1"));
        for v in [Variant::Abc, Variant::AbcCubic, Variant::CubicAbe, Variant::RenoAbe] {
            assert!(candidate_names(v, &[]).iter().all(|n| n.len() <= 15 && !n.is_empty()));
        }
    }

    #[test]
    fn the_abe_block_carries_beta_ecn_at_the_kernels_resolution_and_refuses_other_keys() {
        let mut g = Given::new();
        let d = AbeConfig::from_registry("cubic-abe", &g).unwrap();
        assert_eq!((d.beta_ecn_1024, d.abe_slow_start, d.fast_convergence), (870, 1, 1));
        let r = AbeConfig::from_registry("newreno-abe", &g).unwrap();
        assert_eq!(r.beta_ecn_1024, 819, "newreno-abe's preset 0.8");
        g.insert("beta_ecn".into(), accelbrake_sim::params::Value::Num(0.95));
        g.insert("fast_convergence".into(), accelbrake_sim::params::Value::Num(0.0));
        let c = AbeConfig::from_registry("cubic-abe", &g).unwrap();
        assert_eq!((c.beta_ecn_1024, c.fast_convergence), (973, 0));
        let e = AbeConfig::from_registry("newreno-abe", &g).unwrap_err();
        assert!(e.contains("newreno.fast_convergence"), "{e}");
        let mut bad = Given::new();
        bad.insert("beta".into(), accelbrake_sim::params::Value::Num(0.5));
        assert!(AbeConfig::from_registry("cubic-abe", &bad)
            .unwrap_err()
            .contains("cubic.beta"));
        assert_eq!(std::mem::size_of::<AbeConfig>(), 12);
    }
}
