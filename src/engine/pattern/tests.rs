use super::*;

fn bytes(text: &str) -> Vec<u8> {
    let p = Pattern::parse(text, Formats::Offset).unwrap_or_else(|e| panic!("{text}: {e}"));
    p.bytes
}

fn fault(text: &str, formats: Formats) -> Fault {
    match Pattern::parse(text, formats) {
        Err(PatternError::At { fault, .. }) => fault,
        other => panic!("{text}: {other:?}"),
    }
}

#[test]
fn fios_own_examples_read_as_its_comment_says() {
    // lib/pattern.c's examples #1 to #10 (#8 is missing there).
    assert_eq!(bytes("\"abcd\""), [0x61, 0x62, 0x63, 0x64]);
    assert_eq!(bytes("-1024"), [0x00, 0xfc, 0xff, 0xff]);
    assert_eq!(bytes("66"), [0x42]);
    assert_eq!(bytes("0xFF0X1"), [0xff, 0x01]);
    assert_eq!(bytes("%o"), [0; 8]);
    assert_eq!(
        bytes("\"123\"0xFFeeCC"),
        [0x31, 0x32, 0x33, 0xff, 0xee, 0xcc]
    );
    let p = Pattern::parse("-100xab\"1\"%o\"2\"", Formats::Offset).unwrap();
    assert_eq!(
        p.bytes,
        [
            0xf6, 0xff, 0xff, 0xff, 0xab, 0x31, 0, 0, 0, 0, 0, 0, 0, 0, 0x32
        ]
    );
    assert_eq!(p.offsets, [6]);
    let p = Pattern::parse("%o0xdeadbeef%o", Formats::Offset).unwrap();
    assert_eq!(p.offsets, [0, 12]);
    assert_eq!(&p.bytes[8..12], [0xde, 0xad, 0xbe, 0xef]);
    assert_eq!(bytes(&format!("0x{}", "fe".repeat(21))), [0xfe; 21]);
}

#[test]
fn the_corners_fio_reads_its_own_way() {
    // An odd count: the first byte from one digit.
    assert_eq!(bytes("0xABC"), [0x0a, 0xbc]);
    // A 0 before an x begins the next run.
    assert_eq!(bytes("0xff0x14"), [0xff, 0x14]);
    // A decimal stops before a later 0x; blanks and a sign may lead it.
    assert_eq!(bytes("100x5"), [0x0a, 0x05]);
    assert_eq!(bytes("+5"), [5]);
    assert_eq!(bytes(" 12"), [12]);
    assert_eq!(bytes("1 2"), [1, 2]);
    assert_eq!(bytes("0x01 2"), [1, 2]);
    assert_eq!(bytes("-0"), [0]);
    assert_eq!(bytes("256"), [0, 1]);
    assert_eq!(bytes("-2147483648"), [0, 0, 0, 0x80]);
    assert_eq!(bytes("2147483647"), [0xff, 0xff, 0xff, 0x7f]);
    // fio looks for the 0x over the whole rest, strings included, and reads at most 23
    // characters of decimal before it.
    assert_eq!(bytes("12\"a0x\""), [12, b'a', b'0', b'x']);
    let far = format!("12\"{}0x\"", "a".repeat(30));
    assert_eq!(fault(&far, Formats::Offset), Fault::NoItem);
}

#[test]
fn what_fio_refuses_or_crashes_on_is_refused() {
    for (text, expect) in [
        ("abc", Fault::NoItem),
        ("12a", Fault::NoItem),
        ("0x", Fault::NoItem),
        ("12 ", Fault::NoItem),
        ("\"abc\" 0x01", Fault::NoItem),
        ("\"ab\"|\"cd\"", Fault::NoItem),
        ("2147483648", Fault::Range),
        ("-2147483649", Fault::Range),
        ("\"abc", Fault::Unclosed("double")),
        ("'abc", Fault::Unclosed("single")),
        // fio 3.33 aborts on these (assertion `filled` failed).
        ("\"\"", Fault::NoBytes),
        ("0x0x14", Fault::NoBytes),
        ("0xxab", Fault::DoubleX),
        ("%x", Fault::UnknownFormat),
        ("%", Fault::UnknownFormat),
    ] {
        assert_eq!(fault(text, Formats::Offset), expect, "{text}");
    }
    assert_eq!(fault("%o", Formats::None), Fault::NoFormats);
    assert_eq!(
        fault(&"%o".repeat(9), Formats::Offset),
        Fault::TooManyOffsets
    );
    assert_eq!(fault(&"0x00".repeat(513), Formats::Offset), Fault::TooLong);
    assert_eq!(bytes(&format!("0x{}", "00".repeat(512))).len(), 512);
    assert!(matches!(fault("''", Formats::Offset), Fault::File { .. }));
    assert!(matches!(
        fault("'/dev/null'", Formats::Offset),
        Fault::File { .. }
    ));
    assert_eq!(
        Pattern::parse("", Formats::Offset),
        Err(PatternError::Empty)
    );
    assert_eq!(
        Pattern::parse("1\u{0}", Formats::Offset),
        Err(PatternError::At {
            at: 2,
            fault: Fault::Nul
        })
    );
    let e = Pattern::parse("0x12zz", Formats::Offset)
        .unwrap_err()
        .to_string();
    assert!(e.contains("character 5") && e.contains("0xdeadbeef"), "{e}");
}

#[test]
fn a_file_gives_its_bytes_up_to_what_is_left() {
    let dir = std::env::temp_dir().join(format!("hp-pattern-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("p.bin");
    std::fs::write(&f, vec![7u8; 600]).unwrap();
    let p = Pattern::parse(&format!("0x01'{}'", f.display()), Formats::None).unwrap();
    assert_eq!(p.len(), 512);
    assert_eq!(&p.bytes[..3], [1, 7, 7]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_fill_repeats_the_first_copy_with_its_offset() {
    let p = Pattern::parse("0xaabb%o\"xy\"", Formats::Offset).unwrap();
    let mut buf = vec![0u8; 4096];
    p.fill(&mut buf, 0x1000);
    let first = [0xaa, 0xbb, 0, 0x10, 0, 0, 0, 0, 0, 0, b'x', b'y'];
    for (i, b) in buf.iter().enumerate() {
        assert_eq!(*b, first[i % 12], "byte {i}");
    }
    assert!(p.matches(&buf, 0x1000));
    assert!(!p.matches(&buf, 0x2000));
    buf[4000] ^= 1;
    assert!(!p.matches(&buf, 0x1000));
    // A buffer shorter than the pattern, and an offset cut at its end.
    let mut short = [0u8; 5];
    p.fill(&mut short, u64::MAX);
    assert_eq!(short, [0xaa, 0xbb, 0xff, 0xff, 0xff]);
    assert!(p.matches(&short, u64::MAX));
}

#[test]
fn zero_words_are_told_from_the_bytes() {
    let p = |t| Pattern::parse(t, Formats::Offset).unwrap();
    assert!(!p("0xdeadbeef").may_write_zero_words());
    assert!(p("0").may_write_zero_words());
    assert!(p("0x000000000000000001").may_write_zero_words());
    assert!(!p("0x0000000000000001").may_write_zero_words());
    // Zeros that wrap around the copy's end.
    assert!(p("0x000000000100000000").may_write_zero_words());
    assert!(p("1%o").may_write_zero_words());
}

#[test]
fn the_written_form_reads_back_as_the_same_pattern() {
    for text in [
        "0xaabb%o\"xy\"",
        "%o%o",
        "-100xab\"1\"%o\"2\"",
        "0x10%o0x0",
        "\"0x\"",
    ] {
        let p = Pattern::parse(text, Formats::Offset).unwrap();
        let again = Pattern::parse(&p.to_string(), Formats::Offset).unwrap();
        assert_eq!(p, again, "{text} written {p}");
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(serde_json::from_str::<Pattern>(&json).unwrap(), p);
    }
}
