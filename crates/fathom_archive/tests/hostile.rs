//! Inputs that lie or mislead: the memory budget, names that would escape,
//! display differently or name a drive, UTF-16 sources, links in a tar.
//! (`tests/hostile/` runs the whole corpus through the CLI.)

use fathom_archive::{Budget, Exclude, Limits, ReadOptions, SkipReason, read_archive, read_files, survey_archive};

static NO_EXCLUDE: std::sync::LazyLock<Exclude> = std::sync::LazyLock::new(Exclude::default);

fn accept(path: &str) -> bool {
    path.ends_with(".py")
}

fn options(limits: Limits) -> ReadOptions<'static> {
    ReadOptions { limits, accept: &accept, read_cap: &fathom_archive::no_cap, exclude: &NO_EXCLUDE }
}

fn loose(files: &[(&str, &[u8])]) -> Vec<(String, Vec<u8>)> {
    files.iter().map(|(p, b)| (p.to_string(), b.to_vec())).collect()
}

#[test]
fn the_memory_budget_keeps_the_files_that_fit_and_lists_the_rest_before_reading_them() {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for i in 0..10 {
        writer.start_file(format!("m{i}.py"), zip::write::SimpleFileOptions::default()).unwrap();
        std::io::Write::write_all(&mut writer, &[b'#'; 1000]).unwrap();
    }
    // A small file after the large ones still fits beside the first four.
    writer.start_file("small.py", zip::write::SimpleFileOptions::default()).unwrap();
    std::io::Write::write_all(&mut writer, &[b'#'; 50]).unwrap();
    let bytes = writer.finish().unwrap().into_inner();
    // Each file weighs its bytes and 100 more: four of 1,000 fit in 4,600,
    // and then the one of 50.
    let budget = Budget { weight: 4600, per_file: 100, why: "a test's".into(), heap: 0 };
    let options = options(Limits { budget: Some(budget), ..Limits::default() });
    let survey = survey_archive("m.zip", &bytes, &options).unwrap();
    assert_eq!((survey.files, survey.over_budget, survey.over_budget_bytes), (5, 6, 6000));
    let archive = read_archive("m.zip", &bytes, &options, &mut |_, _| {}).unwrap();
    let kept: Vec<&str> = archive.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(kept, ["m0.py", "m1.py", "m2.py", "m3.py", "small.py"]);
    assert_eq!(archive.over_budget, (6, 6000));
    let left: Vec<&str> = archive.skipped.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(left, ["m4.py", "m5.py", "m6.py", "m7.py", "m8.py", "m9.py"]);
    assert!(
        archive.skipped.iter().all(|s| s.reason == SkipReason::Limit && s.detail == "over the memory budget: a test's")
    );
}

#[test]
fn names_lose_drive_letters_and_show_controls_and_bidi_overrides_as_replacement_characters() {
    let ok: &[u8] = b"def f():\n    pass\n";
    let files = loose(&[
        ("C:\\proj\\win.py", ok),
        ("proj/line\nbreak.py", ok),
        ("proj/\u{1b}[31mred.py", ok),
        ("proj/invoice\u{202e}yp.exe.py", ok),
        ("proj/../../up.py", ok),
    ]);
    let archive = read_files(files, &options(Limits::default()), &mut |_, _| {});
    let kept: Vec<&str> = archive.files.iter().map(|f| f.path.as_str()).collect();
    // Every name is under `proj` once the drive letter is gone: it is the root.
    assert_eq!(archive.root.as_deref(), Some("proj"));
    assert_eq!(kept, ["invoice\u{fffd}yp.exe.py", "line\u{fffd}break.py", "win.py", "\u{fffd}[31mred.py"]);
    assert_eq!(archive.skipped.len(), 1);
    assert_eq!(archive.skipped[0].detail, "path escapes the archive root");
}

#[test]
fn utf16_with_a_byte_order_mark_is_decoded_and_without_one_is_binary() {
    let text = "def caf\u{e9}():\n    return 1\n";
    let le: Vec<u8> = [0xFF, 0xFE].into_iter().chain(text.encode_utf16().flat_map(u16::to_le_bytes)).collect();
    let be: Vec<u8> = [0xFE, 0xFF].into_iter().chain(text.encode_utf16().flat_map(u16::to_be_bytes)).collect();
    let bare: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let files = loose(&[("le.py", &le), ("be.py", &be), ("bare.py", &bare)]);
    let archive = read_files(files, &options(Limits::default()), &mut |_, _| {});
    let kept: Vec<(&str, &str, bool)> =
        archive.files.iter().map(|f| (f.path.as_str(), f.text.as_str(), f.lossy)).collect();
    assert_eq!(kept, [("be.py", text, false), ("le.py", text, false)]);
    assert_eq!(archive.skipped[0].path, "bare.py");
    assert_eq!(archive.skipped[0].reason, SkipReason::Binary);
}

#[test]
fn links_devices_and_pipes_in_a_tar_are_listed_as_skipped() {
    let mut builder = tar::Builder::new(Vec::new());
    let text = b"def f():\n    pass\n";
    let mut header = tar::Header::new_gnu();
    header.set_size(text.len() as u64);
    header.set_cksum();
    builder.append_data(&mut header, "p/app.py", &text[..]).unwrap();
    for (name, kind) in [
        ("p/sym.py", tar::EntryType::Symlink),
        ("p/hard.py", tar::EntryType::Link),
        ("p/dev.py", tar::EntryType::Char),
        ("p/fifo.py", tar::EntryType::Fifo),
    ] {
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(kind);
        header.set_size(0);
        if kind == tar::EntryType::Symlink || kind == tar::EntryType::Link {
            header.set_link_name("/etc/passwd").unwrap();
        }
        header.set_cksum();
        builder.append_data(&mut header, name, &[][..]).unwrap();
    }
    let bytes = builder.into_inner().unwrap();
    let archive = read_archive("p.tar", &bytes, &options(Limits::default()), &mut |_, _| {}).unwrap();
    assert_eq!(archive.files.len(), 1);
    let skipped: Vec<(&str, &str)> = archive.skipped.iter().map(|s| (s.path.as_str(), s.detail.as_str())).collect();
    assert_eq!(
        skipped,
        [
            ("dev.py", "a character device"),
            ("fifo.py", "a named pipe (FIFO)"),
            ("hard.py", "a hard link; links are not followed"),
            ("sym.py", "a symbolic link; links are not followed"),
        ]
    );
    assert!(archive.skipped.iter().all(|s| s.reason == SkipReason::Unsupported));
}
