//! COSBench workload XML, as `rsgw bench cosbench` reads it: parsing and
//! validation never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data)
        && let Ok(w) = rsgw_bench::cosbench::Workload::parse(text)
    {
        let _ = w.validate();
    }
});
