//! C extraction over the `lang-c` fixture: one snapshot per file.

mod common;

#[test]
fn lang_c_fixture() {
    assert_fixture_snapshots!("lang-c");
}
