import WharfSystem

/// Dynamic identifiers: names for types nobody declared, made from the tag that found them.
///
/// Like Apple's `dyn.…` identifiers they are a pure function of what they stand for — a MIME
/// type, or a filename extension, optionally with the type it was asked to conform to — so they
/// are the same in every run, on every machine, and can be decoded back without any state.
///
/// Encoding: the payload `mime=<type>` or `ext=<extension>`, followed by `;to=<identifier>`
/// when a conformance was requested, in RFC 4648 base32 with the lowercase alphabet and no
/// padding, after `dyn.`. Lowercase letters and digits keep the result a valid identifier
/// (UTIs allow only ASCII alphanumerics, `-` and `.`) that survives case-insensitive handling.
/// Example: `text/x-go` ↔ `dyn.nvuw2zj5orsxq5bppawwo3y`.
struct DynamicIdentifier: Sendable, Hashable {
    enum Tag: Sendable, Hashable {
        case mimeType(String)
        case filenameExtension(String)
    }

    var tag: Tag
    /// The type the dynamic type was declared to conform to, if any; otherwise its conformance
    /// comes from what the MIME database says about the tag.
    var conformsTo: String?

    static let prefix = "dyn."

    var identifier: String {
        var payload: String
        switch tag {
        case .mimeType(let type): payload = "mime=" + type
        case .filenameExtension(let ext): payload = "ext=" + ext
        }
        if let conformsTo { payload += ";to=" + conformsTo }
        return Self.prefix + Base32.encode(Array(payload.utf8))
    }

    init(tag: Tag, conformsTo: String? = nil) {
        self.tag = tag
        self.conformsTo = conformsTo
    }

    /// Decodes an identifier; nil unless it is `dyn.` followed by a payload this encoder made.
    init?(_ identifier: String) {
        let lower = asciiLowercased(identifier)
        guard lower.hasPrefix(Self.prefix), let bytes = Base32.decode(lower.utf8.dropFirst(Self.prefix.utf8.count)), !bytes.isEmpty,
              let payload = String(validating: bytes, as: UTF8.self)
        else { return nil }
        var first = Substring(payload)
        if let semicolon = payload.utf8.firstIndex(of: UInt8(ascii: ";")) {
            let to = payload[payload.index(after: semicolon)...]
            guard to.hasPrefix("to="), to.count > 3, !to.contains(";") else { return nil }
            conformsTo = String(to.dropFirst(3))
            first = payload[..<semicolon]
        }
        if first.hasPrefix("mime="), first.count > 5 {
            tag = .mimeType(String(first.dropFirst(5)))
        } else if first.hasPrefix("ext="), first.count > 4 {
            tag = .filenameExtension(String(first.dropFirst(4)))
        } else {
            return nil
        }
        // Only the canonical encoding is accepted, so one type has exactly one dynamic name.
        guard self.identifier == lower else { return nil }
    }
}
