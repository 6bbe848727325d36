//! `.tar.gz`, `.tar` and loose files read like a zip: the same files kept,
//! the same root stripped, the same rules applied; damage and bombs named.

use std::io::{Read, Write};

use fathom_archive::{Exclude, Format, Limits, ReadOptions, SkipReason, read_archive, read_files};

static NO_EXCLUDE: std::sync::LazyLock<Exclude> = std::sync::LazyLock::new(Exclude::default);

const FILES: &[(&str, &str)] = &[
    ("proj-1.0/src/app.py", "def main():\n    return 1\n"),
    ("proj-1.0/src/util.js", "export const x = 1;\n"),
    ("proj-1.0/node_modules/left/index.js", "module.exports = 1;\n"),
    ("proj-1.0/README.md", "# readme\n"),
];

fn accept(path: &str) -> bool {
    path.ends_with(".py") || path.ends_with(".js")
}

fn options() -> ReadOptions<'static> {
    ReadOptions { limits: Limits::default(), accept: &accept, read_cap: &fathom_archive::no_cap, exclude: &NO_EXCLUDE }
}

fn tar_bytes() -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (path, text) in FILES {
        let mut header = tar::Header::new_gnu();
        header.set_size(text.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder.append_data(&mut header, path, text.as_bytes()).unwrap();
    }
    builder.into_inner().unwrap()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

fn kept(archive: &fathom_archive::Archive) -> Vec<(&str, &str)> {
    let mut files: Vec<(&str, &str)> = archive.files.iter().map(|f| (f.path.as_str(), f.text.as_str())).collect();
    files.sort();
    files
}

#[test]
fn tar_gz_tar_and_loose_files_keep_the_same_files_under_the_stripped_root() {
    let expected = vec![("src/app.py", "def main():\n    return 1\n"), ("src/util.js", "export const x = 1;\n")];
    let tar = tar_bytes();
    let tgz = gzip(&tar);
    assert_eq!(Format::sniff(&tgz), Format::TarGz);
    assert_eq!(Format::sniff(&tar), Format::Tar);
    let mut calls = 0;
    for bytes in [&tgz, &tar] {
        let archive = read_archive("proj-1.0.tar.gz", bytes, &options(), &mut |_, _| calls += 1).unwrap();
        assert_eq!(archive.root.as_deref(), Some("proj-1.0"));
        assert_eq!(kept(&archive), expected);
        assert!(archive.skipped.iter().any(|s| s.reason == SkipReason::Vendored && s.path.contains("node_modules")));
        assert!(archive.skipped.iter().any(|s| s.reason == SkipReason::Unsupported && s.path == "README.md"));
    }
    assert!(calls > 0, "progress is reported");

    let loose: Vec<(String, Vec<u8>)> = FILES.iter().map(|(p, t)| ((*p).to_owned(), t.as_bytes().to_vec())).collect();
    let archive = read_files(loose, &options(), &mut |_, _| {});
    assert_eq!(archive.root.as_deref(), Some("proj-1.0"));
    assert_eq!(kept(&archive), expected);
}

/// A tar of `proj/ok.py` (an ordinary file), then `proj/big.py`, `size`
/// bytes from `body`.
fn ordinary_then(size: u64, body: impl Read) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (path, size, body) in
        [("proj/ok.py", 15, Box::new(&b"def ok(): pass\n"[..]) as Box<dyn Read>), ("proj/big.py", size, Box::new(body))]
    {
        let mut header = tar::Header::new_gnu();
        header.set_size(size);
        header.set_mode(0o644);
        header.set_cksum();
        builder.append_data(&mut header, path, body).unwrap();
    }
    builder.into_inner().unwrap()
}

#[test]
fn damaged_gzip_and_bombs_are_refused_with_the_cause() {
    let tgz = gzip(&tar_bytes());
    // Cut before its first file: nothing is readable.
    let truncated = &tgz[..20];
    let err = read_archive("cut.tar.gz", truncated, &options(), &mut |_, _| {}).unwrap_err().to_string();
    assert!(err.contains("cut.tar.gz") && err.contains("not a readable tar"), "{err}");

    // A bomb, or damage, after an ordinary file costs only what follows it.
    let limits = Limits { max_total_bytes: 1 << 20, ..Limits::default() };
    let small = ReadOptions { limits, accept: &accept, read_cap: &fathom_archive::no_cap, exclude: &NO_EXCLUDE };
    let bomb_after = gzip(&ordinary_then(64 << 20, std::io::repeat(0).take(64 << 20)));
    let noise: Vec<u8> = (0..1u32 << 18).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let whole = gzip(&ordinary_then(noise.len() as u64, &noise[..]));
    let cut_after = &whole[..whole.len() * 3 / 4];
    for (name, bytes, reason, cause) in [
        ("bomb.tar.gz", &bomb_after[..], SkipReason::Limit, "decompresses to more than"),
        ("cut.tar.gz", cut_after, SkipReason::Unreadable, "gzip data is damaged"),
    ] {
        let archive = read_archive(name, bytes, &small, &mut |_, _| {}).unwrap();
        assert_eq!(kept(&archive), [("ok.py", "def ok(): pass\n")], "{name}");
        let rest = archive.skipped.iter().find(|s| s.path == format!("the rest of {name}"));
        assert!(rest.is_some_and(|s| s.reason == reason && s.detail.contains(cause)), "{name}: {:?}", archive.skipped);
        // Named once, by its cause: the entry the stream broke off in is not
        // listed again as unreadable.
        assert!(!archive.skipped.iter().any(|s| s.path.starts_with("entry #")), "{name}: {:?}", archive.skipped);
    }

    // A file of 64 MiB of zeros compresses to about 64 KiB; with a 1 MiB
    // budget the reader stops at 2 MiB decompressed and says so.
    let mut builder = tar::Builder::new(Vec::new());
    let mut header = tar::Header::new_gnu();
    header.set_size(64 << 20);
    header.set_mode(0o644);
    header.set_cksum();
    builder.append_data(&mut header, "proj/zeros.py", std::io::repeat(0).take(64 << 20)).unwrap();
    let bomb = gzip(&builder.into_inner().unwrap());
    assert!(bomb.len() < 1 << 20);
    let limits = Limits { max_total_bytes: 1 << 20, ..Limits::default() };
    let small = ReadOptions { limits, accept: &accept, read_cap: &fathom_archive::no_cap, exclude: &NO_EXCLUDE };
    let err = read_archive("bomb.tar.gz", &bomb, &small, &mut |_, _| {}).unwrap_err().to_string();
    assert!(err.contains("decompresses to more than"), "{err}");

    // Bytes that are none of the formats read as a zip, whose error says so.
    let err = read_archive("notes.txt", b"just some text", &options(), &mut |_, _| {}).unwrap_err().to_string();
    assert!(err.contains("is not a readable zip"), "{err}");
}

/// A survey lists, unread, exactly the files reading would keep, with their
/// sizes, and totals them by top-level folder, largest first.
#[test]
fn a_survey_lists_what_reading_keeps_without_reading_it() {
    let more: &[(&str, &str)] = &[
        ("proj-1.0/tests/test_app.py", "def test_main():\n    assert True\n"),
        ("proj-1.0/setup.py", "print(1)\n"),
        ("proj-1.0/src/big.py", "x = 1\n# padding padding padding padding\n"),
    ];
    let mut builder = tar::Builder::new(Vec::new());
    for (path, text) in FILES.iter().chain(more) {
        let mut header = tar::Header::new_gnu();
        header.set_size(text.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder.append_data(&mut header, path, text.as_bytes()).unwrap();
    }
    let bytes = gzip(&builder.into_inner().unwrap());
    let read = read_archive("proj.tar.gz", &bytes, &options(), &mut |_, _| {}).unwrap();
    let survey = fathom_archive::survey_archive("proj.tar.gz", &bytes, &options()).unwrap();
    let kept: Vec<(String, u64)> = read.files.iter().map(|f| (f.path.clone(), f.text.len() as u64)).collect();
    let surveyed = fathom_archive::read_archive("proj.tar.gz", &bytes, &options(), &mut |_, _| {}).unwrap().listed;
    assert!(surveyed.is_empty(), "reading lists nothing");
    assert_eq!(survey.files, kept.len());
    assert_eq!(survey.bytes, kept.iter().map(|(_, n)| n).sum::<u64>());
    let folders: Vec<(&str, usize, u64)> = survey.folders.iter().map(|f| (f.path.as_str(), f.files, f.bytes)).collect();
    let size = |p: &str| FILES.iter().chain(more).find(|(path, _)| path.ends_with(p)).unwrap().1.len() as u64;
    assert_eq!(
        folders,
        [
            ("src", 3, size("src/app.py") + size("src/util.js") + size("src/big.py")),
            ("tests", 1, size("tests/test_app.py")),
            ("", 1, size("setup.py")),
        ],
        "vendored files are not counted; top-level files are under \"\""
    );

    let garbage = fathom_archive::survey_archive("bad.zip", b"PK\x03\x04 not really", &options()).unwrap_err();
    assert!(garbage.to_string().contains("bad.zip"), "{garbage}");
}

/// A tar of `paths`, each holding a line of Python; names are written raw,
/// so an unsafe one (`../x.py`) is stored as it is.
fn tar_of(paths: &[&str]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for path in paths {
        let text = format!("# {path}\n");
        let mut header = tar::Header::new_ustar();
        header.as_old_mut().name[..path.len()].copy_from_slice(path.as_bytes());
        header.set_size(text.len() as u64);
        header.set_mode(0o644);
        header.set_entry_type(tar::EntryType::Regular);
        header.set_cksum();
        builder.append(&header, text.as_bytes()).unwrap();
    }
    builder.into_inner().unwrap()
}

#[test]
fn the_root_is_the_folder_every_path_shares_whichever_entry_comes_first() {
    // (paths in archive order, the root, the kept paths)
    let cases: &[(&[&str], Option<&str>, &[&str])] = &[
        (&["r/a.py", "r/b/c.py"], Some("r"), &["a.py", "b/c.py"]),
        (&["r/a.py", "s/b.py"], None, &["r/a.py", "s/b.py"]),
        (&["r/a.py", "b.py"], None, &["b.py", "r/a.py"]),
        (&["a.py", "r/b.py"], None, &["a.py", "r/b.py"]),
        // An unsafe path is refused, and names no folder.
        (&["../evil.py", "r/a.py", "r/b.py"], Some("r"), &["a.py", "b.py"]),
        (&["r/a.py", "../evil.py", "r/b.py"], Some("r"), &["a.py", "b.py"]),
    ];
    for &(paths, root, expected) in cases {
        assert_eq!(fathom_archive::common_root(paths.iter().copied()).as_deref(), root, "{paths:?}");
        for bytes in [gzip(&tar_of(paths)), tar_of(paths)] {
            let mut last = (0, 0);
            let archive =
                read_archive("x.tar.gz", &bytes, &options(), &mut |done, total| last = (done, total)).unwrap();
            assert_eq!(archive.root.as_deref(), root, "{paths:?}");
            let mut got: Vec<&str> = archive.files.iter().map(|f| f.path.as_str()).collect();
            got.sort();
            assert_eq!(got, expected, "{paths:?}");
            assert!(archive.files.iter().all(|f| f.text.starts_with("# ")), "{paths:?}");
            assert_eq!(last.0, last.1, "progress ends at its total: {paths:?}");
            let unsafe_path = paths.iter().any(|p| p.starts_with(".."));
            let refused = archive.skipped.iter().any(|s| s.path.contains("evil"));
            assert_eq!(refused, unsafe_path, "{paths:?}: {:?}", archive.skipped);
        }
    }
}

/// A sample is the start of what a full read keeps, under the same root,
/// stopping once it holds the bytes wanted.
#[test]
fn a_sample_is_the_first_files_a_read_keeps() {
    let tgz = gzip(&tar_bytes());
    let full = read_archive("proj.tar.gz", &tgz, &options(), &mut |_, _| {}).unwrap();
    let all = fathom_archive::sample_archive(&tgz, &options(), u64::MAX);
    assert_eq!(kept(&all), kept(&full));
    assert_eq!(all.root, full.root);
    let first = fathom_archive::sample_archive(&tgz, &options(), 1);
    assert_eq!(kept(&first), vec![("src/app.py", "def main():\n    return 1\n")]);
    assert_eq!(first.root.as_deref(), Some("proj-1.0"));
    assert!(fathom_archive::sample_archive(b"not an archive at all", &options(), 1 << 20).files.is_empty());
}
