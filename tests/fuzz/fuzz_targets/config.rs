//! rsgw's configuration: a TOML file with `section.key=value` overrides
//! (the part after a `---` line, one per line), and the same text read as a
//! ceph.conf by the radosgw import. Nothing panics; what loads is valid.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rsgw_config::{Config, Override, import_radosgw};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (file, sets) = text.split_once("\n---\n").unwrap_or((text, ""));
    let overrides: Vec<Override> = sets
        .lines()
        .filter_map(|l| Override::parse_arg(l).ok())
        .collect();
    let path = std::env::temp_dir().join(format!("rsgw-fuzz-config-{}.toml", std::process::id()));
    std::fs::write(&path, file).expect("temporary file");
    if let Ok(cfg) = Config::load_with(Some(&path), &overrides) {
        cfg.validate().expect("a loaded configuration is valid");
    }
    let mut cfg = Config::default();
    let _ = import_radosgw(&mut cfg, &path, "client.rgw.fuzz");
    let _ = std::fs::remove_file(&path);
});
