/// A corpus of files to identify (for GLibAgreementTests): varied names (with and without extensions, lying extensions,
/// literal names, odd case, several dots) crossed with varied contents (real format headers,
/// scripts, text in several encodings, markup, binary junk, empty files).
enum Corpus {
    /// Contents that some format's magic recognises, by a short label.
    static let headers: [(label: String, bytes: [UInt8])] = [
        ("png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8) + [UInt8](repeating: 1, count: 17)),
        ("gif87", Array("GIF87a".utf8) + [1, 0, 1, 0, 0x80, 0, 0]),
        ("gif89", Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0]),
        ("jpeg", [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]),
        ("pdf", Array("%PDF-1.7\n%\u{e2}\u{e3}\n1 0 obj\n<< /Type /Catalog >>\nendobj\n".utf8)),
        ("zip", [0x50, 0x4B, 0x03, 0x04, 0x14, 0, 0, 0, 8, 0] + [UInt8](repeating: 0, count: 20) + Array("hello.txt".utf8)),
        ("gzip", [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0, 3, 0x4B, 0x4C, 0x4A, 6, 0]),
        ("elf", [0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0] + [UInt8](repeating: 0, count: 8) + [2, 0, 0x3E, 0] + [UInt8](repeating: 0, count: 44)),
        ("elf-so", [0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0] + [UInt8](repeating: 0, count: 8) + [3, 0, 0x3E, 0] + [UInt8](repeating: 0, count: 44)),
        ("bmp", Array("BM".utf8) + [0x46, 0, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0, 0x28, 0, 0, 0] + [UInt8](repeating: 0, count: 20)),
        ("tiff-le", [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0, 0, 0]),
        ("tiff-be", [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8, 0, 0]),
        ("webp", Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WEBPVP8 ".utf8) + [UInt8](repeating: 0, count: 12)),
        ("wav", Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WAVEfmt ".utf8) + [16, 0, 0, 0, 1, 0, 1, 0] + [UInt8](repeating: 0, count: 12)),
        ("mp3-id3", Array("ID3".utf8) + [3, 0, 0, 0, 0, 0, 10] + [UInt8](repeating: 0, count: 10) + [0xFF, 0xFB, 0x90, 0x64]),
        ("ogg", Array("OggS".utf8) + [0, 2] + [UInt8](repeating: 0, count: 22) + [1] + Array("vorbis".utf8)),
        ("flac", Array("fLaC".utf8) + [0, 0, 0, 34] + [UInt8](repeating: 0, count: 34)),
        ("mp4", [0, 0, 0, 0x18] + Array("ftypmp42".utf8) + [0, 0, 0, 0] + Array("mp42isom".utf8)),
        ("mov", [0, 0, 0, 0x14] + Array("ftypqt  ".utf8) + [0, 0, 0, 0] + Array("qt  ".utf8)),
        ("sqlite", Array("SQLite format 3".utf8) + [0, 0x10, 0, 1, 1, 0, 0x40, 0x20, 0x20]),
        ("7z", [0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C, 0, 4] + [UInt8](repeating: 0, count: 24)),
        ("bzip2", Array("BZh91AY&SY".utf8) + [0x4E, 0xEC, 0xE8, 0x36]),
        ("xz", [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00, 0, 4] + [UInt8](repeating: 0, count: 8)),
        ("tar", Array("hello.txt".utf8) + [UInt8](repeating: 0, count: 248) + Array("ustar  ".utf8) + [0] + [UInt8](repeating: 0, count: 100)),
        ("ps", Array("%!PS-Adobe-3.0\n%%Title: x\n".utf8)),
        ("rtf", Array("{\\rtf1\\ansi\\deff0 {\\fonttbl {\\f0 Times;}} Hello}\n".utf8)),
        ("ico", [0, 0, 1, 0, 1, 0, 16, 16, 0, 0, 1, 0, 32, 0] + [UInt8](repeating: 0, count: 8)),
        ("ttf", [0, 1, 0, 0, 0, 0x0C, 0, 0x80, 0, 3, 0, 0x20] + Array("DSIG".utf8) + [UInt8](repeating: 0, count: 12)),
        ("otf", Array("OTTO".utf8) + [0, 0x0C, 0, 0x80, 0, 3, 0, 0x20] + [UInt8](repeating: 0, count: 12)),
        ("ole", [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1] + [UInt8](repeating: 0, count: 24)),
        ("mpeg-ts", Array((0 ..< 4).flatMap { _ in [0x47, 0x40, 0x00, 0x10] + [UInt8](repeating: 0xFF, count: 184) })),
        ("java-class", [0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 0x34, 0, 0x1D]),
        ("wasm", [0x00, 0x61, 0x73, 0x6D, 0x01, 0, 0, 0]),
        ("deb", Array("!<arch>\ndebian-binary   ".utf8) + [UInt8](repeating: 0x20, count: 20)),
        ("ar", Array("!<arch>\nfoo.o/          ".utf8) + [UInt8](repeating: 0x20, count: 20)),
    ]

    /// Text-like contents, by label.
    static let texts: [(label: String, bytes: [UInt8])] = [
        ("ascii", Array("Just some plain words on a line.\nAnd another line.\n".utf8)),
        ("utf8", Array("Grüße aus Köln — naïve café, 日本語のテキスト.\n".utf8)),
        ("utf8-bom", [0xEF, 0xBB, 0xBF] + Array("Text with a byte order mark.\n".utf8)),
        ("utf16le-bom", [0xFF, 0xFE] + Array("Hello UTF-16\n".utf8).flatMap { [$0, 0] }),
        ("utf16be-bom", [0xFE, 0xFF] + Array("Hello UTF-16\n".utf8).flatMap { [0, $0] }),
        ("html", Array("<!DOCTYPE html>\n<html><head><title>t</title></head><body>hi</body></html>\n".utf8)),
        ("html-lower", Array("<html>\n<body><p>para</p></body>\n</html>\n".utf8)),
        ("xml", Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<root><item/></root>\n".utf8)),
        ("svg", Array("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1\" height=\"1\"></svg>\n".utf8)),
        ("json", Array("{\"name\": \"wharf\", \"values\": [1, 2, 3]}\n".utf8)),
        ("sh", Array("#!/bin/sh\necho hello\n".utf8)),
        ("bash", Array("#!/bin/bash\nset -e\necho hello\n".utf8)),
        ("env-bash", Array("#!/usr/bin/env bash\necho hi\n".utf8)),
        ("python", Array("#!/usr/bin/python\nprint('hi')\n".utf8)),
        ("python3", Array("#!/usr/bin/env python3\nprint('hi')\n".utf8)),
        ("perl", Array("#!/usr/bin/perl\nprint \"hi\\n\";\n".utf8)),
        ("ruby", Array("#!/usr/bin/env ruby\nputs 'hi'\n".utf8)),
        ("node", Array("#!/usr/bin/env node\nconsole.log('hi')\n".utf8)),
        ("awk", Array("#!/usr/bin/awk -f\n{ print }\n".utf8)),
        ("c", Array("#include <stdio.h>\nint main(void) { return 0; }\n".utf8)),
        ("csv", Array("a,b,c\n1,2,3\n".utf8)),
        ("markdown", Array("# Title\n\nSome *markdown* text.\n".utf8)),
        ("desktop", Array("[Desktop Entry]\nType=Application\nName=Evil\nExec=/bin/true\n".utf8)),
        ("diff", Array("diff -u a b\n--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n".utf8)),
        ("ics", Array("BEGIN:VCALENDAR\nVERSION:2.0\nEND:VCALENDAR\n".utf8)),
        ("vcard", Array("BEGIN:VCARD\nVERSION:3.0\nFN:Someone\nEND:VCARD\n".utf8)),
        ("formfeed", Array("page one\u{0C}page two\n".utf8)),
        ("backspace", Array("bold\u{08}d text\n".utf8)),
    ]

    /// Contents no magic rule knows, by label.
    static let others: [(label: String, bytes: [UInt8])] = [
        ("junk", (0 ..< 300).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }),
        ("nul-late", Array(String(repeating: "text ", count: 20).utf8) + [0] + Array("more".utf8)),
        ("escape", Array("colour \u{1B}[31mred\u{1B}[0m\n".utf8)),
        ("del", Array("odd\u{7F}char\n".utf8)),
        ("high-bytes", [0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0x20, 0xF0, 0x9F, 0x98, 0x80, 0x0A]),
    ]

    /// Extensions to combine with contents: some match the content, many do not.
    static let extensions = ["", ".txt", ".png", ".jpg", ".pdf", ".zip", ".gz", ".doc", ".mp3", ".html",
                             ".xml", ".json", ".c", ".h", ".py", ".sh", ".ts", ".m", ".pl", ".bin", ".dat",
                             ".xyz", ".JPG", ".Txt", ".mp4", ".ogg", ".tar.gz", ".desktop", ".svg", ".C"]

    /// Names whose whole spelling matters (literal globs, case, several dots, spaces, Unicode).
    static let specialNames: [(name: String, content: String)] = [
        ("Makefile", "text"), ("makefile", "text"), ("GNUmakefile", "text"), ("Makefile.am", "text"),
        ("README", "text"), ("README.md", "text"), ("readme.txt", "text"), ("CMakeLists.txt", "text"),
        ("meson.build", "text"), ("COPYING", "text"), ("ChangeLog", "text"), ("core", "elf"),
        ("CORE", "text"), ("INSTALL", "text"), ("AUTHORS", "text"), ("libfoo.so", "elf-so"),
        ("libfoo.so.1", "elf-so"), ("libbar.so.1.2.3", "text"), ("ls.1", "text"), ("archive.tar.gz", "gzip"),
        ("archive.tgz", "gzip"), ("archive.tar.bz2", "bzip2"), ("archive.tar.xz", "xz"), ("archive.tar", "tar"),
        ("notes.TXT", "text"), ("PHOTO.JPEG", "jpeg"), ("Main.C", "text"), ("main.c", "text"),
        ("main.cpp", "text"), ("main.swift", "text"), ("script.py3", "text"), ("style.css", "text"),
        ("data.csv", "text"), ("data.tsv", "text"), ("conf.yaml", "text"), ("conf.yml", "text"),
        ("server.log", "text"), ("event.ics", "text"), ("contact.vcf", "text"), ("doc.md", "text"),
        ("page.htm", "text"), ("a file with spaces.txt", "text"), ("über café.png", "png"),
        ("日本語.pdf", "pdf"), (".hidden", "text"), (".bashrc", "text"), ("trailing.", "text"),
        ("double..dots.txt", "text"), ("UPPER.PDF", "pdf"), ("x.JSON", "text"), ("app.js", "text"),
        ("module.mjs", "text"), ("sheet.xlsx", "zip"), ("letter.docx", "zip"), ("slides.pptx", "zip"),
        ("text.odt", "zip"), ("photo.heic", "junk"), ("image.webp", "webp"), ("icon.ico", "ico"),
        ("font.ttf", "ttf"), ("font.otf", "otf"), ("movie.mov", "mov"), ("clip.avi", "junk"),
        ("song.flac", "flac"), ("sound.wav", "wav"), ("db.sqlite3", "sqlite"), ("pkg.deb", "deb"),
        ("lib.a", "ar"), ("Main.class", "java-class"), ("prog.wasm", "wasm"), ("backup~", "text"),
        ("file.bak", "text"), ("unknown.qqq", "junk"), ("unknown2.qqq", "text"),
        // Names several types claim, with contents that settle it one way or the other.
        ("stream.ts", "mpeg-ts"), ("translation.ts", "xml"), ("sound.ogg", "ogg"), ("objc.m", "c"),
        ("tool.pl", "perl"), ("legacy.py", "python"), ("modern.py", "python3"), ("unit.service", "text"),
        ("graph.dot", "text"), ("template.dot", "ole"), ("formula.otf", "zip"), ("sheet.pot", "text"),
        ("lying.pdf", "png"), ("lying.png", "pdf"), ("lying.gif", "jpeg"), ("lying.mp3", "text"),
        ("run", "elf"), ("launcher", "desktop"), ("launcher.desktop", "desktop"), ("setup", "sh"),
    ]

    /// Every file of the corpus: (relative name, contents). Deterministic.
    static func files() -> [(name: String, bytes: [UInt8])] {
        var files: [(String, [UInt8])] = []
        let contents = headers + texts + others
        let lookup = Dictionary(contents.map { ($0.label, $0.bytes) }, uniquingKeysWith: { first, _ in first })
        // Each content under a few names: its own label without extension, and with extensions
        // picked by a fixed stride so every content meets several lying ones.
        for (index, content) in contents.enumerated() {
            for step in 0 ..< 4 {
                let ext = extensions[(index * 7 + step * 11) % extensions.count]
                files.append(("\(content.label)-\(step)\(ext)", content.bytes))
            }
        }
        for special in specialNames {
            let bytes = special.content == "text" ? lookup["ascii"]! : lookup[special.content]!
            files.append((special.name, bytes))
        }
        // A few empty files.
        for name in ["empty", "empty.txt", "empty.png", "empty.weird"] {
            files.append((name, []))
        }
        return files
    }
}
