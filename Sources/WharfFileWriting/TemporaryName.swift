import Glibc
import WharfSystem

/// Names of temporary files: `.wharf-tmp-<pid>-<16 hex digits>`.
///
/// The pid says which process the file belongs to, so an orphan sweep can leave alone the
/// temporaries (and the hard-linked backups of replaced files, which carry the same kind of
/// name; a file moved aside has a name of its own, ``makeAside()``) of a
/// process that is still writing; the random part, from `getrandom`, makes the name
/// unguessable, so nobody can plant a symlink at it in advance (and `O_EXCL|O_NOFOLLOW` refuses
/// one that is there anyway). The format is strict so that a sweep never mistakes a user's file
/// that merely starts with the prefix for an orphan.
enum TemporaryName {
    static let prefix = ".wharf-tmp-"
    private static let randomDigits = 16

    /// A fresh name owned by this process, `prefix` first.
    static func make(prefix: String = prefix) -> String {
        // The standard library's generator reads getrandom(2): unpredictable, which is all a
        // name needs (it is not a secret).
        let random = UInt64.random(in: .min ... .max)
        let hex = String(random, radix: 16)
        let padding = String(repeating: "0", count: randomDigits - hex.count)
        return prefix + String(ProcessControl.processID) + "-" + padding + hex
    }

    /// A fresh name for a user's file moved aside while an export replaces it, on a file system
    /// without hard links: `.wharf-tmp-aside-<pid>-<16 hex digits>`. Between the two renames of
    /// a replacement it is the only copy of that file, so it must never look like an orphan:
    /// ``owner(of:)`` does not recognise it and no sweep removes it. After a crash it is left
    /// where it is, the user's file under a hidden name, rather than lost.
    static func makeAside() -> String {
        make(prefix: prefix + "aside-")
    }

    /// The prefix of a folder being built by a move across file systems, or of a moved
    /// folder's original set aside to be removed: `.wharf-tmp-dir-<pid>-<16 hex digits>`.
    /// Distinct from the files' prefix, because an orphan sweep removes such a folder with
    /// everything in it, which it must never do to a folder that merely has a file's name.
    static let directoryPrefix = prefix + "dir-"

    /// The pid embedded in `name`, or nil when `name` is not exactly a Wharf temporary name.
    static func owner(of name: [UInt8]) -> pid_t? {
        owner(of: name, prefix: prefix)
    }

    /// The pid embedded in `name`, or nil when `name` is not exactly a Wharf temporary
    /// folder's name (``directoryPrefix``).
    static func directoryOwner(of name: [UInt8]) -> pid_t? {
        owner(of: name, prefix: directoryPrefix)
    }

    private static func owner(of name: [UInt8], prefix: String) -> pid_t? {
        guard name.starts(with: prefix.utf8) else { return nil }
        let rest = name.dropFirst(prefix.utf8.count)
        guard let dash = rest.firstIndex(of: UInt8(ascii: "-")) else { return nil }
        let pidDigits = rest[..<dash]
        let randomPart = rest[rest.index(after: dash)...]
        guard !pidDigits.isEmpty, pidDigits.count <= 10, pidDigits.allSatisfy(isDecimal),
              randomPart.count == randomDigits, randomPart.allSatisfy(isLowerHex),
              let pid = pid_t(String(decoding: pidDigits, as: UTF8.self)), pid > 0
        else { return nil }
        return pid
    }

    private static func isDecimal(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        isDecimal(byte) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
    }
}

/// The temporary names this process is using right now, so that an orphan sweep run by this
/// same process can tell its own live files from those of an earlier process that had the same
/// pid (in a fresh container or sandbox the server often gets the same pid every time).
///
/// A name is claimed before the file is created and released when its export has ended.
enum LiveTemporaries {
    private static let names = Locked(Set<String>())

    /// A fresh temporary name (for a folder: ``TemporaryName/directoryPrefix``), claimed.
    static func claimNew(prefix: String = TemporaryName.prefix) -> String {
        while true {
            let name = TemporaryName.make(prefix: prefix)
            if names.withValue({ $0.insert(name).inserted }) { return name }
        }
    }

    static func release(_ released: [String]) {
        names.withValue { names in
            for name in released { names.remove(name) }
        }
    }

    static func contains(_ name: String) -> Bool {
        names.withValue { $0.contains(name) }
    }
}
