//! The ABC congestion controls in eBPF (`bpf/abc.bpf.c`; `bpf/abc_cubic.bpf.c`, the §4.1
//! `min(w_abc, w_cubic)` variant): loading and registering one as a kernel TCP congestion control
//! for the lifetime of this process.
//!
//! The BPF object is compiled by `build.rs` (clang, libbpf's headers) and embedded. It is loaded
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
//! The name is `abc` (`abc_cubic`), or `abc_<pid>` (`abcc_<pid>`) if that is already registered
//! (another emulator running).

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
#[cfg(not(abc_bpf))]
static OBJECT: &[u8] = &[];
#[cfg(not(abc_bpf))]
static OBJECT_CUBIC: &[u8] = &[];

/// Which ABC sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// `abc`: the ABC window alone (paper §3.1, `tcp_abc.c`).
    Abc,
    /// `abc-cubic`: `min(w_abc, w_cubic)` (paper §4.1, `tcp_abccubic.c`).
    AbcCubic,
}

impl Variant {
    /// From our scheme name (`abc`, `abc-cubic`).
    pub fn of_scheme(name: &str) -> Option<Variant> {
        match name {
            "abc" => Some(Variant::Abc),
            "abc-cubic" => Some(Variant::AbcCubic),
            _ => None,
        }
    }

    fn object(self) -> &'static [u8] {
        match self {
            Variant::Abc => OBJECT,
            Variant::AbcCubic => OBJECT_CUBIC,
        }
    }

    /// The struct_ops map in the object, and the kernel names: preferred, prefix if taken.
    fn names(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Variant::Abc => ("abc", "abc", "abc_"),
            Variant::AbcCubic => ("abc_cubic", "abc_cubic", "abcc_"),
        }
    }
}

/// The struct_ops name in the object, overwritten before loading (15 characters + NUL = the
/// kernel's `TCP_CA_NAME_MAX`).
const PLACEHOLDER: &[u8; 16] = b"ABCNAMEPLACEHLD\0";
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

type OpenMem = unsafe extern "C" fn(*const c_void, usize, *const c_void) -> *mut c_void;
type FindMap = unsafe extern "C" fn(*const c_void, *const c_char) -> *mut c_void;
type SetInit = unsafe extern "C" fn(*mut c_void, *const c_void, usize) -> c_int;
type SetFlags = unsafe extern "C" fn(*mut c_void, u32) -> c_int;
type Load = unsafe extern "C" fn(*mut c_void) -> c_int;
type Attach = unsafe extern "C" fn(*const c_void) -> *mut c_void;
type MapFd = unsafe extern "C" fn(*const c_void) -> c_int;
type LinkCreate = unsafe extern "C" fn(c_int, c_int, u32, *const c_void) -> c_int;
type Close = unsafe extern "C" fn(*mut c_void);

/// A registered ABC congestion control; unregistered when dropped (or when the process ends).
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

/// Load and register ABC with the sender parameters `cfg`; the error says why it cannot be done.
pub fn load(variant: Variant, cfg: &BpfConfig) -> Result<AbcCc, String> {
    load_registered(variant, cfg).map_err(|e| format!("ABC in eBPF: {e}"))
}

fn load_registered(variant: Variant, cfg: &BpfConfig) -> Result<AbcCc, String> {
    if let Some(why) = not_built() {
        return Err(format!("not in this build: {why}"));
    }
    let (map_name, preferred, prefix) = variant.names();
    let name = if registered().iter().any(|n| n == preferred) {
        format!("{prefix}{}", std::process::id())
    } else {
        preferred.to_string()
    };
    let mut object = variant.object().to_vec();
    let at = object
        .windows(PLACEHOLDER.len())
        .position(|w| w == PLACEHOLDER)
        .ok_or("the embedded BPF object has no name placeholder")?;
    let mut field = [0u8; 16];
    field[..name.len()].copy_from_slice(name.as_bytes());
    object[at..at + 16].copy_from_slice(&field);
    let cfg_block = *cfg;

    // SAFETY: the library is Debian's libbpf 1.x; every symbol is used with its C prototype
    // (libbpf.h / bpf.h), and pointers passed live across the calls.
    unsafe {
        let lib = libloading::Library::new("libbpf.so.1")
            .map_err(|e| format!("cannot open libbpf.so.1 ({e}); install libbpf1 (make emu-deps)"))?;
        macro_rules! sym {
            ($n:literal, $t:ty) => {
                *lib.get::<$t>(concat!($n, "\0").as_bytes())
                    .map_err(|e| format!("libbpf.so.1 lacks {}: {e}", $n))?
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
            return Err(format!("libbpf could not open the ABC BPF object: {}", errno()));
        }
        let mut cc = AbcCc {
            name: name.clone(),
            link: None,
            obj,
            close,
            _lib: lib,
            _image: Vec::new(),
        };
        let c = |s: &str| CString::new(s).expect("no NUL");
        let rodata = find_map(obj, c(".rodata").as_ptr());
        if rodata.is_null() {
            return Err("the ABC BPF object has no .rodata map".into());
        }
        let r = set_init(
            rodata,
            (&cfg_block as *const BpfConfig).cast(),
            std::mem::size_of::<BpfConfig>(),
        );
        if r != 0 {
            return Err(format!("setting the ABC configuration failed ({r})"));
        }
        let ops = find_map(obj, c(map_name).as_ptr());
        if ops.is_null() {
            return Err(format!("the ABC BPF object has no struct_ops map '{map_name}'"));
        }
        set_flags(ops, BPF_F_LINK);
        let r = load(obj);
        if r != 0 {
            return Err(format!(
                "the kernel refused the ABC BPF program ({}; libbpf's messages above name the step)",
                std::io::Error::from_raw_os_error(-r)
            ));
        }
        // Stores the struct_ops value; for a BPF_F_LINK map this does not register it yet. The
        // bpf_link it returns is deliberately never destroyed (its detach would delete the value
        // the real link uses); it is a few bytes once per process.
        if attach(ops).is_null() {
            return Err(format!("storing the ABC struct_ops failed: {}", errno()));
        }
        let fd = link_create(map_fd(ops), 0, BPF_STRUCT_OPS, std::ptr::null());
        if fd < 0 {
            return Err(format!(
                "registering tcp_congestion_ops '{name}' failed: {}",
                std::io::Error::from_raw_os_error(-fd)
            ));
        }
        cc.link = Some(OwnedFd::from_raw_fd(fd));
        cc._image = object;
        if !registered().iter().any(|n| n == &name) {
            return Err(format!(
                "'{name}' does not appear in net.ipv4.tcp_available_congestion_control after registering"
            ));
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
        for o in [OBJECT, OBJECT_CUBIC] {
            assert_eq!(o.windows(16).filter(|w| w == PLACEHOLDER).count(), 1);
        }
    }
}
