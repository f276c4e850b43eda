//! Parse target: `parse_bytes` never panics on any input, and what it accepts is self-consistent.
#![no_main]

use std::collections::HashSet;

use arbiter_zebu::plan;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let result = plan::parse_bytes(data, "fuzz");
    let Ok(text) = std::str::from_utf8(data) else {
        assert!(result.is_err(), "non-UTF-8 input parsed");
        return;
    };
    let Ok(p) = result else { return };
    let lines = text.split_inclusive('\n').count();
    assert!(!p.decisions.is_empty(), "a plan without decisions parsed");
    assert!(p.frontmatter_lines.end <= lines);
    let mut ids = HashSet::new();
    for d in &p.decisions {
        assert!(ids.insert(d.id.as_str()), "duplicate decision id `{}` parsed", d.id);
        assert!(!d.id.trim().is_empty(), "empty decision id parsed");
        assert!(d.line >= 1 && d.line <= lines, "heading line {} out of 1..={lines}", d.line);
        assert!(d.meta_lines.start <= d.meta_lines.end && d.meta_lines.end <= lines);
        let mut keys = HashSet::new();
        for o in &d.options {
            assert!(!o.key.is_empty(), "empty option key parsed");
            assert!(keys.insert(o.key.as_str()), "duplicate option key `{}` parsed", o.key);
        }
    }
});
