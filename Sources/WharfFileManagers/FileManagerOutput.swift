/// What a tool wrote as the choice, taken apart as bytes.
///
/// - ``Format/nulTerminated`` (vifm's `--choose-files` with a NUL delimiter): every byte of
///   every name is carried.
/// - ``Format/onePath`` (a folder: ranger's `--choosedir`, lf's `-last-dir-path`, vifm's
///   `--choose-dir`, yazi's `--cwd-file`): one path, with or without a final newline; a
///   newline inside it is part of it.
/// - ``Format/lines`` (lf's `-selection-path`, nnn's `-p`, ranger's `--choosefiles`, yazi's
///   `--chooser-file`): one absolute path a line. A name holding a newline cannot be told from
///   two paths, so a line that is not an absolute path (what follows such a newline) makes the
///   whole answer ``Parsed/newlineInName``: refused, never read as other files. (A newline
///   followed by `/` inside a name cannot be seen; such a pick names files that, unless they
///   exist, the dialog refuses.)
/// - ``Format/fzfRecords``: NUL-terminated records that start with the index Wharf gave them.
public enum FileManagerOutput {
    public enum Format: Sendable, Equatable {
        case nulTerminated, onePath, lines, fzfRecords
    }

    public enum Parsed: Sendable, Equatable {
        /// Absolute paths, exactly as written.
        case paths([[UInt8]])
        /// fzf: the indices of the chosen records.
        case indices([Int])
        /// Nothing was chosen.
        case nothing
        /// A chosen name holds a newline, which this format cannot carry.
        case newlineInName
        /// Not what the format allows; says what.
        case malformed(String)
    }

    public static func parse(_ output: [UInt8], as format: Format) -> Parsed {
        let newline = UInt8(ascii: "\n"), slash = UInt8(ascii: "/")
        switch format {
        case .onePath:
            var path = output[...]
            if path.last == newline { path = path.dropLast() }
            if path.isEmpty { return .nothing }
            return path.first == slash ? .paths([Array(path)]) : .malformed("not an absolute path")
        case .nulTerminated:
            let paths = output.split(separator: 0).map(Array.init)
            if paths.isEmpty { return .nothing }
            return paths.allSatisfy { $0.first == slash } ? .paths(paths) : .malformed("not an absolute path")
        case .lines:
            var text = output[...]
            if text.last == newline { text = text.dropLast() }
            if text.isEmpty { return .nothing }
            let lines = text.split(separator: newline, omittingEmptySubsequences: false)
            guard lines.allSatisfy({ $0.first == slash }) else { return .newlineInName }
            return .paths(lines.map(Array.init))
        case .fzfRecords:
            var indices: [Int] = []
            for record in output.split(separator: 0) {
                let digits = record.prefix { $0 != 9 }
                guard digits.count < record.count, !digits.isEmpty, digits.count <= 18,
                      digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
                    return .malformed("a record without the index Wharf gave it")
                }
                indices.append(digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) })
            }
            return indices.isEmpty ? .nothing : .indices(indices)
        }
    }
}
